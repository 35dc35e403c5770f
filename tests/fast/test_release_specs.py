"""Release specs without installing anything: a release's cutoff from registry metadata, releases in
version order, and environment prefixes (the installs themselves: tests/e2e/test_atlas_targets.py)."""

from __future__ import annotations

import concurrent.futures
import datetime as dt
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from conformance.targets import npm, npm_registry
from conformance.targets.specs import folder_name, split_env, with_env

PACKAGE = npm.PACKAGE


def _metadata(times: dict[str, str]) -> npm_registry.RegistryMetadata:
    return npm_registry.RegistryMetadata(package=PACKAGE, fetched_at="x", versions=list(times), time=times)


moments = st.datetimes(min_value=dt.datetime(2024, 1, 1), max_value=dt.datetime(2027, 1, 1)).map(
    lambda d: d.replace(tzinfo=dt.UTC, microsecond=(d.microsecond // 1000) * 1000)
)


@given(stamps=st.lists(moments, min_size=1, max_size=6))
def test_cutoff_is_the_publish_time_capped_by_the_next_release(stamps: list[dt.datetime]) -> None:
    versions = [f"2025.{i + 1}.1" for i in range(len(stamps))]
    metadata = _metadata({v: t.isoformat() for v, t in zip(versions, stamps, strict=True)})
    for i, version in enumerate(versions):
        expected = min(stamps[i], stamps[i + 1]) if i + 1 < len(stamps) else stamps[i]
        got = dt.datetime.fromisoformat(npm_registry.cutoff(metadata, version).replace("Z", "+00:00"))
        assert got == expected
        assert npm_registry.cutoff(metadata, version, capped=False).startswith(
            stamps[i].strftime("%Y-%m-%dT%H:%M")
        )


def test_releases_are_in_version_order_not_in_the_registrys() -> None:
    metadata = _metadata(
        {
            "2025.12.18": "2025-12-19T00:00:00Z",
            "0.6.2": "2025-10-02T00:00:00Z",
            "2025.7.1": "2025-10-05T00:00:00Z",
            "2026.1.0-beta.1": "2026-01-01T00:00:00Z",
        }
    )
    assert npm_registry.releases(metadata) == ["0.6.2", "2025.7.1", "2025.12.18"]


env_names = st.from_regex(r"[A-Z_][A-Z0-9_]{0,12}", fullmatch=True)
env_values = st.from_regex(r"[A-Za-z0-9_.,:/@+-]{0,12}", fullmatch=True)
bases = st.sampled_from(["reference", "npm:0.6.2", "npm:2026.7.4@today", "cmd:node dist/index.js --x=1"])


@given(env=st.dictionaries(env_names, env_values, max_size=3), base=bases)
def test_env_prefix_round_trips_and_names_the_folder(env: dict[str, str], base: str) -> None:
    spec = with_env(base, env)
    assert split_env(spec) == (env, base)
    assert with_env(spec, {}) == spec, "canonical: sorted, idempotent"
    name = folder_name(spec)
    assert "/" not in name and " " not in name
    for key in env:
        assert f"+{key}-" in name
    assert (name == folder_name(base)) == (not env)


def test_metadata_written_by_writers_side_by_side_is_whole(tmp_path: Path) -> None:
    """CI installs several releases of one package at once; each may write the cached metadata."""
    path = npm_registry.metadata_path(tmp_path, PACKAGE)
    versions = [f"0.{n}.0" for n in range(16)]
    documents = [_metadata({v: "2025-01-01T00:00:00.000Z" for v in versions[: n + 1]}) for n in range(16)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(8):
            list(pool.map(lambda document: npm_registry.store_metadata(path, document), documents))
    assert npm_registry.load_metadata(tmp_path, PACKAGE) in documents
    assert [p.name for p in path.parent.iterdir()] == [npm_registry.METADATA]
