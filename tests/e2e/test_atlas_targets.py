"""Targets as the atlas needs them: trees resolved as of a release, today's on request, environment variants.

The tree tests use the shared install cache (`python -m conformance install npm:<version>` fills it once);
an absent install is made on first use, as any run would.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from conformance.atlas.probe import probe_tool
from conformance.cli.main import main
from conformance.targets.kinds.npm import release_cutoff
from conformance.targets.specs import (
    default_cache_dir,
    folder_name,
    resolve_target,
)


@pytest.fixture(scope="module")
def cache() -> Path:
    return default_cache_dir()


@pytest.mark.parametrize("version", ["2025.12.18", "2026.7.4"])
def test_a_release_gets_the_tree_of_its_day_and_today_asks_for_todays(cache: Path, version: str) -> None:
    then = resolve_target(f"npm:{version}", cache_dir=cache)
    today = resolve_target(f"npm:{version}@today", cache_dir=cache)
    cutoff, _ = release_cutoff(version, cache)
    assert then.identity.resolution == "release" and then.identity.resolved_as_of == cutoff
    assert today.identity.resolution == "today" and today.identity.resolved_as_of is None
    assert then.identity.package_version == today.identity.package_version == version
    for target in (then, today):
        root = Path(target.command[1]).parents[4]
        on_disk = {
            name: json.loads((root / "node_modules" / name / "package.json").read_text())["version"]
            for name in ("@modelcontextprotocol/sdk", "zod", "chalk", "yargs")
        }
        assert target.identity.dependencies == on_disk, "read back from node_modules"
        assert target.identity.sdk_version == on_disk["@modelcontextprotocol/sdk"]
        assert target.identity.zod_version == on_disk["zod"]
    # the caret range floats: installed today, the SDK and zod are newer than what the release's users got
    assert then.identity.sdk_version != today.identity.sdk_version
    assert then.identity.zod_version != today.identity.zod_version
    assert then.command != today.command


def test_a_restamped_release_installs_from_its_tarball_with_its_dependencies_of_then(cache: Path) -> None:
    """The registry dates 2025.11.25 after 2025.12.18: --before its capped cutoff would not see it at all."""
    cutoff, by_tarball = release_cutoff("2025.11.25", cache)
    assert by_tarball and cutoff == release_cutoff("2025.12.18", cache)[0]
    target = resolve_target("npm:2025.11.25", cache_dir=cache)
    assert target.identity.package_version == "2025.11.25"
    assert target.identity.integrity is not None
    assert (
        target.identity.sdk_version == resolve_target("npm:2025.12.18", cache_dir=cache).identity.sdk_version
    )


def test_environment_is_in_the_identity_and_reaches_the_server(cache: Path, tmp_path: Path) -> None:
    plain = resolve_target("npm:2025.7.1", cache_dir=cache)
    quiet = resolve_target("DISABLE_THOUGHT_LOGGING=true  npm:2025.7.1", cache_dir=cache)
    assert quiet.spec == quiet.identity.spec == "DISABLE_THOUGHT_LOGGING=true npm:2025.7.1"
    assert quiet.identity.env == {"DISABLE_THOUGHT_LOGGING": "true"} and plain.identity.env == {}
    assert quiet.env["DISABLE_THOUGHT_LOGGING"] == "true" and quiet.env["FORCE_COLOR"] == "0"
    assert folder_name(quiet.spec) == "npm-2025.7.1+DISABLE_THOUGHT_LOGGING-true"
    logged = probe_tool(plain, tmp_path / "plain.jsonl", "plain.jsonl")
    silent = probe_tool(quiet, tmp_path / "quiet.jsonl", "quiet.jsonl")
    assert logged.ok and silent.ok
    assert logged.thought_on_stderr is True and silent.thought_on_stderr is False


def test_install_accepts_an_env_prefix_and_run_rejects_a_bad_env_in_one_line(cache: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["install", "B=2 A=1 npm:0.6.2"], stdout=out, stderr=err) == 0
    text = out.getvalue()
    assert "spec: A=1 B=2 npm:0.6.2" in text and "env: {'A': '1', 'B': '2'}" in text
    assert "sdk_version: 0.5.0" in text and "resolution: release" in text
    err = io.StringIO()
    assert (
        main(["run", "--env", "NOT AN ENV", "--target", "npm:0.6.2"], stdout=io.StringIO(), stderr=err) == 4
    )
    assert err.getvalue().count("\n") == 1 and "KEY=VALUE" in err.getvalue()
