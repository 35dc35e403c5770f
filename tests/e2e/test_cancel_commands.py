"""`compare` and `atlas` stop within seconds on SIGTERM: they pass the signal on to what they started (the
column run in flight, the servers), and leave a report that says "cancelled" (compare: never the previous
report beside the new transcripts). The signal goes to a command waiting on a server that stopped answering
(tests/servers/stalls.py), never to work that may have finished first."""

from __future__ import annotations

import json
import signal
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.cli import Started, cli, stalls, wait_for_file
from tests.report_links import broken_links
from tests.servers import tagged_after_gone

STOP_WITHIN = 120.0
"""A stop ends the command well before its stalled call's timeout (`NEVER`), however slow the machine."""
NEVER = "600"
"""`--call-timeout`: longer than any test waits, so a stalled server's call is still waiting at the signal."""


def _json(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def test_sigterm_stops_compare_with_a_cancelled_report_in_place_of_the_previous_one(tmp_path: Path) -> None:
    out = tmp_path / "out"
    # Any finished comparison is the previous report; the original against itself finishes in a third of the
    # reference's time (a node server starts in a fifth of the reference's second).
    first = cli("compare", "npm:0.6.2", "npm:0.6.2", "--profile", "dev", "--seed", "1", "--budget", "1",
                out=out)
    assert first.code == 0, first.stdout + first.stderr
    previous = _json(out / "report.json")
    assert previous["run"]["interrupted"] is None
    mark = tmp_path / "stalled"
    running = Started("compare", stalls(20, mark), "reference", "--profile", "dev", "--seed", "2",
                      "--call-timeout", NEVER, "--out", str(out))
    try:
        wait_for_file(mark, running.proc)
        code, seconds = running.stop(signal.SIGTERM)
        assert code == 143, "".join(running.lines)
        assert seconds < STOP_WITHIN
        assert tagged_after_gone(running.tag) == [], "servers left running"
        assert running.proc.stderr is not None and "Traceback" not in running.proc.stderr.read()
    finally:
        running.kill()
    report = _json(out / "report.json")
    assert report["run"]["interrupted"] == "cancelled by SIGTERM"
    assert report["harness"]["seed"] == "2"
    assert report["gate"]["passed"] is False
    assert "cancelled by SIGTERM" in (out / "report.md").read_text(encoding="utf-8")


class Stopped(NamedTuple):
    """What a command stopped by SIGTERM left: its status, seconds to stop, output, servers still running."""

    code: int
    seconds: float
    output: str
    left: list[int]


def _atlas_stopped(folder: Path) -> Stopped:
    """`atlas` of the stalling reference, stopped by SIGTERM once its column's run waits on the stall."""
    mark = folder / "stalled"
    running = Started("atlas", stalls(60, mark), "--profile", "dev", "--seed", "3", "--no-compare",
                      "--call-timeout", NEVER, "--out", str(folder / "atlas"))
    try:
        wait_for_file(mark, running.proc)
        code, seconds = running.stop(signal.SIGTERM)
        return Stopped(code, seconds, "".join(running.lines), tagged_after_gone(running.tag))
    finally:
        running.kill()


@pytest.fixture(scope="module", autouse=True)
def atlas_stopped(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                  ahead: ThreadPoolExecutor) -> tuple[Future[Stopped], Path] | None:
    """The atlas scenario, started with the module's first test when its test is selected: it waits on its
    stalled server and its stop beside the compare's."""
    if not any(isinstance(item, pytest.Function) and item.module is request.module
               and item.originalname == "test_sigterm_stops_atlas_and_the_column_run_in_flight"
               for item in request.session.items):
        return None
    folder = tmp_path_factory.mktemp("atlas-stopped")
    return ahead.submit(_atlas_stopped, folder), folder / "atlas"


def test_sigterm_stops_atlas_and_the_column_run_in_flight(
    atlas_stopped: tuple[Future[Stopped], Path] | None
) -> None:
    assert atlas_stopped is not None
    future, out = atlas_stopped
    stopped = future.result()
    assert stopped.code == 143, stopped.output
    assert stopped.seconds < STOP_WITHIN
    assert stopped.left == [], "the column's run or its servers left running"
    [column] = (out / "targets").iterdir()
    assert _json(column / "report.json")["run"]["interrupted"] == "cancelled by SIGTERM"
    atlas = _json(out / "atlas.json")
    assert atlas["interrupted"] == "cancelled by SIGTERM"
    assert [c["exit_code"] for c in atlas["columns"]] == [143]
    assert ("stopped early — cancelled by SIGTERM; 1 column run(s) were stopped; no pair was compared"
            in (out / "atlas.md").read_text(encoding="utf-8"))
    # The check a test's own folder gets (tests/e2e/conftest.py): this atlas's folder is the module's.
    assert broken_links(out) == []
