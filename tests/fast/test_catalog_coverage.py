"""Requirements-manifest check between the catalog and the conformance suite, in both directions.

The suite is collected (never run) in a subprocess with the same ini and plugins a conformance run uses;
a small collector plugin dumps every item's `records` and `relies` marker arguments.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.catalog.records import Catalog, UnknownRecordError, load_catalog

REPO = Path(__file__).resolve().parents[2]
SUITE = "conformance.suite"
RUN_INI = REPO / "conformance" / "run-pytest.ini"
COLLECT_TIMEOUT = 600.0

_COLLECTOR = textwrap.dedent("""
    import json
    import os


    def pytest_collection_finish(session):
        rows = [
            {"nodeid": item.nodeid,
             "records": [str(arg) for mark in item.iter_markers("records") for arg in mark.args],
             "relies": [str(arg) for mark in item.iter_markers("relies") for arg in mark.args]}
            for item in session.items
        ]
        with open(os.environ["SEQTHINK_RECORDS_COLLECT_OUT"], "w", encoding="utf-8") as handle:
            json.dump(rows, handle)
""")


@dataclass(frozen=True)
class Collected:
    nodeid: str
    records: tuple[str, ...]
    relies: tuple[str, ...] = ()


def _collect(workdir: Path) -> list[Collected]:
    (workdir / "_seqthink_records_collector.py").write_text(_COLLECTOR, encoding="utf-8")
    out = workdir / "collected.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(workdir), str(REPO), env.get("PYTHONPATH", "")) if p)
    env["SEQTHINK_RECORDS_COLLECT_OUT"] = str(out)
    command = [
        sys.executable, "-m", "pytest", "--collect-only", "-q",
        "--pyargs", SUITE,
        "-c", str(RUN_INI), "--rootdir", str(REPO),
        "-p", "no:cacheprovider",
        "-p", "conformance.suite.plugin",
        "-p", "_seqthink_records_collector",
    ]
    try:
        proc = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=COLLECT_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"collecting {SUITE} took longer than {COLLECT_TIMEOUT:g}s")
    if proc.returncode not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED) or not out.exists():
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-40:])
        pytest.fail(f"collecting {SUITE} failed (exit {proc.returncode}):\n{tail}")
    rows = json.loads(out.read_text(encoding="utf-8"))
    return [Collected(row["nodeid"], tuple(row["records"]), tuple(row["relies"])) for row in rows]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory) -> list[Collected]:
    return _collect(tmp_path_factory.mktemp("suite-collection"))


def _bullets(lines: list[str]) -> str:
    return "\n".join(f"  - {line}" for line in lines)


def test_every_suite_test_names_records(collected: list[Collected]) -> None:
    unmarked = sorted(item.nodeid for item in collected if not item.records)
    if unmarked:
        pytest.fail(f"{len(unmarked)} suite test(s) carry no records marker (use @evidences(...)):\n"
                    f"{_bullets(unmarked)}", pytrace=False)


def test_suite_names_only_canonical_ids(catalog: Catalog, collected: list[Collected]) -> None:
    problems: list[str] = []
    for item in collected:
        for record_id in item.records:
            try:
                catalog.get(record_id)
            except UnknownRecordError as exc:
                problems.append(f"{item.nodeid}: {exc}")
    if problems:
        pytest.fail(f"suite tests name IDs that are not canonical records:\n{_bullets(sorted(problems))}",
                    pytrace=False)


def test_suite_claims_no_unobservable_record(catalog: Catalog, collected: list[Collected]) -> None:
    """A test evidencing a record the catalog calls unobservable means one of the two is wrong."""
    problems = sorted(
        f"{item.nodeid}: {record_id} ({catalog.get(record_id).unobservable_reason})"
        for item in collected
        for record_id in item.records
        if record_id in catalog and not catalog.get(record_id).observable
    )
    if problems:
        pytest.fail(f"suite tests name records the catalog declares unobservable:\n{_bullets(problems)}",
                    pytrace=False)


def test_every_observable_record_is_evidenced(catalog: Catalog, collected: list[Collected]) -> None:
    named = {record_id for item in collected for record_id in item.records}
    missing = [r for r in catalog.observable() if r.id not in named]
    lines = [f"{r.id} [{', '.join(r.channels)}] {r.title}" for r in missing]
    if missing:
        pytest.fail(f"{len(missing)} of {len(catalog.observable())} observable records have no test "
                    f"(collected {len(collected)} tests from {SUITE}):\n{_bullets(lines)}", pytrace=False)


def test_reliances_name_only_canonical_ids(catalog: Catalog, collected: list[Collected]) -> None:
    problems: list[str] = []
    for item in collected:
        for record_id in item.relies:
            try:
                catalog.get(record_id)
            except UnknownRecordError as exc:
                problems.append(f"{item.nodeid}: relies on {exc}")
    if problems:
        pytest.fail(f"suite tests rely on IDs that are not canonical records:\n{_bullets(sorted(problems))}",
                    pytrace=False)


def test_every_reliance_is_evidenced(collected: list[Collected]) -> None:
    """A reliance on a record no test evidences can never be a root cause: its change would go unseen."""
    named = {record_id for item in collected for record_id in item.records}
    problems = sorted({f"{item.nodeid}: {record_id}" for item in collected for record_id in item.relies
                       if record_id not in named})
    if problems:
        pytest.fail(f"suite tests rely on records no test evidences:\n{_bullets(problems)}", pytrace=False)


def test_no_test_relies_on_what_it_evidences(collected: list[Collected]) -> None:
    problems = sorted(f"{item.nodeid}: {sorted(set(item.records) & set(item.relies))}"
                      for item in collected if set(item.records) & set(item.relies))
    if problems:
        pytest.fail(f"suite tests both evidence and rely on a record:\n{_bullets(problems)}", pytrace=False)


def test_store_and_answer_tests_declare_their_reliances(collected: list[Collected]) -> None:
    """Tests that read the store or the status object rely on RTE-5/OBJ-4 unless they evidence them; most
    suite tests do, so a suite where few tests declare reliances has lost its annotations."""
    declaring = [item for item in collected if item.relies]
    assert len(declaring) >= len(collected) // 2, (
        f"only {len(declaring)} of {len(collected)} declare reliances"
    )
