"""A fork on the TypeScript SDK 2.x meets each era's client as a different server from its release.

The fork is npm:2026.8.31 moved onto `@modelcontextprotocol/server` 2.4.0 with `serveStdio`
(tests/servers/sdk2/fork.yaml): a dual-era server. The release settles on 2025-11-25 with the official
client's `auto`; the fork settles on 2026-07-28 and is judged by the 2026-07-28 records, where it serves a
request naming a version it does not implement (SPEC-3) and keeps one thought history per process (SPEC-23)
- departures no 2024-11-05 client can see.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from conformance.calls.meetings import Meeting, meet
from conformance.core.eras import AUTO, ERAS, era_named
from conformance.suite.spec_checks import CHECKS, verdicts
from conformance.targets.specs import resolve_target
from tests.e2e.ahead import used
from tests.modified_servers.servers import materialize_sdk2_fork, target_spec
from tests.paced import run_paced
from tests.report_links import broken_links

REPO = Path(__file__).resolve().parents[2]
ERA_NAMES = (*(era.name for era in ERAS), AUTO.name)


@pytest.fixture(scope="module")
def fork(tmp_path_factory: pytest.TempPathFactory) -> str:
    return target_spec(materialize_sdk2_fork(tmp_path_factory.mktemp("sdk2") / "fork"))


@pytest.fixture(scope="module")
def meetings(fork: str) -> dict[tuple[str, str], Meeting]:
    """Both servers met once by each era's client."""
    met = {}
    for spec in (fork, "npm:2026.8.31"):
        target = resolve_target(spec)
        for name in ERA_NAMES:
            met[spec, name] = meet(target, era_named(name), timeout=20.0)
    return met


def test_the_fork_is_dual_era_where_the_release_is_legacy(
    fork: str, meetings: dict[tuple[str, str], Meeting]
) -> None:
    settled = {name: meetings[fork, name].negotiated for name in ERA_NAMES}
    release = {name: meetings["npm:2026.8.31", name].negotiated for name in ERA_NAMES}
    assert all(meetings[key].failure is None for key in meetings), {
        key: m.failure for key, m in meetings.items() if m.failure}
    # Every handshake era is answered with its own revision by both ...
    for name in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"):
        assert settled[name] == release[name] == name
    # ... but a modern client meets two different servers.
    assert (settled["2026-07-28"], settled["auto"]) == ("2026-07-28", "2026-07-28")
    assert (release["2026-07-28"], release["auto"]) == (None, "2025-11-25")


def test_the_fork_is_judged_by_the_stateless_revision(
    fork: str, meetings: dict[tuple[str, str], Meeting]
) -> None:
    judged = verdicts(meetings[fork, "2026-07-28"])
    departing = {record for record, verdict in judged.items() if verdict.startswith("deviates")}
    assert departing == {"SPEC-3", "SPEC-23"}, judged
    assert "1999-01-01" in judged["SPEC-3"]
    # The fork keeps the release's one thought history per process, which 2026-07-28 forbids: the same call
    # sent twice, no identifier in it, is answered with the history in between (SPEC-23, MUST).
    assert "thoughtHistoryLength" in judged["SPEC-23"], judged["SPEC-23"]
    # It withholds the answer to a call cancelled in the write that brings it, as the SDK's loop does.
    assert judged["SPEC-25"] == "holds"
    assert judged["SPEC-2"] == judged["SPEC-4"] == "holds"  # server/discover's shape; resultType
    # ping is removed at 2026-07-28 (its changelog, item 5): not a requirement there.
    assert judged["SPEC-11"] == "n/a"
    # The release is never judged by 2026-07-28's records: it does not settle on it. Only the stdio
    # transport's requirement (SPEC-20, nothing but MCP messages on stdout) binds whatever it settles on.
    release = verdicts(meetings["npm:2026.8.31", "2026-07-28"])
    assert release.pop("SPEC-20") == "holds"
    assert set(release.values()) == {"n/a"}, release
    # Held to them anyway (the checks themselves on what its 2026-07-28 client met), the release departs from
    # SPEC-23 as the fork does, its history being one per process, and withholds a cancelled call's answer.
    met = meetings["npm:2026.8.31", "2026-07-28"]
    found = CHECKS["SPEC-23"](met)
    assert found is not None and '"thoughtHistoryLength": 3' in found, found
    assert CHECKS["SPEC-25"](met) is None


def _spec_run(fork: str, out: Path) -> subprocess.CompletedProcess[str]:
    """`run --select spec --era all` of the fork, seed 1, into `out`."""
    return run_paced(
        [sys.executable, "-m", "conformance", "run", "--target", fork, "--select", "spec", "--era", "all",
         "--seed", "1", "--out", str(out)],
        cwd=REPO,
    )


@pytest.fixture(scope="module", autouse=True)
def spec_run(
    request: pytest.FixtureRequest, fork: str, tmp_path_factory: pytest.TempPathFactory,
    ahead: ThreadPoolExecutor,
) -> Future[tuple[Path, subprocess.CompletedProcess[str]]] | None:
    """The fork's run, started with the module's first test when its test is selected: it runs beside the
    meetings the other tests read (the session's `ahead` pool), each mostly waiting on a server's start."""
    if not used(request, ["ran"]):
        return None
    out = tmp_path_factory.mktemp("sdk2-run") / "report"
    return ahead.submit(lambda: (out, _spec_run(fork, out)))


@pytest.fixture(scope="module")
def ran(spec_run: Future[tuple[Path, subprocess.CompletedProcess[str]]] | None
        ) -> tuple[Path, subprocess.CompletedProcess[str]]:
    assert spec_run is not None
    return spec_run.result()


def test_a_run_names_the_stateless_departure_in_its_own_words(
    ran: tuple[Path, subprocess.CompletedProcess[str]]
) -> None:
    out, proc = ran
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-2000:]
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    deviating = {record["id"]: record for record in report["records"] if record["verdict"] == "deviates"}
    # SPEC-10 at 2025-03-26 is the release's own (a batch of pings unanswered); SPEC-3 and SPEC-23 (a history
    # per process, where 2026-07-28 asks for state named by the client) are the fork's.
    assert set(deviating) == {"SPEC-3", "SPEC-10", "SPEC-23"}, sorted(deviating)
    assert report["eras"]["2026-07-28"] == "2026-07-28", report["eras"]
    reason = deviating["SPEC-3"]["reason"]
    assert "1999-01-01" in reason and "MUST" in reason, reason
    # The specification is SPEC-3's oracle, not the original: no replay against the original stands as its
    # evidence (the original answers such a request no differently from an ordinary one).
    assert deviating["SPEC-3"].get("evidence") is None
    spec_causes = [cause for cause in report["root_causes"] if cause["records"] == ["SPEC-3"]]
    assert spec_causes and all(cause.get("evidence") is None for cause in spec_causes), spec_causes
    for text in (reason, proc.stdout, (out / "report.md").read_text(encoding="utf-8")):
        assert "SpecDeparture" not in text and "conformance.suite" not in text, text[:2000]
    assert broken_links(out) == []  # as every test's own folder (tests/e2e/conftest.py)
