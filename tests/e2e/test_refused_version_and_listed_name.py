"""Whole runs of two forks the gate used to stop on or misread (held-out-multi-15): a server refusing the
protocol version the official client offers is judged whole, the refusal said once as SPEC-1's departure,
and a tool listed as `sequential_thinking` whose original name still answers is run and compared, its own
listed name never called an unknown tool (tests/servers/reference_fork.py `versions-only:`, `listed-as:`)."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Final

import pytest

from tests.cli import Ran, cli

FORK = Path(__file__).resolve().parent.parent / "servers" / "reference_fork.py"
REFUSING = "versions-only:2024-11-05,2024-10-07,2025-03-26,2025-06-18"
LISTED = "listed-as:sequential_thinking"


def _spec(mode: str) -> str:
    return "cmd:" + shlex.join([sys.executable, str(FORK), mode])


COMPARE_BUDGET = "1"
"""Seconds of the compare's search and of each long probe: what its test checks (the comparison goes on, the
listed name differing) is compare's fresh tools/list and its fixed witnesses, sent whatever the budget; 5 s
searched and probed for 15 s and found nothing more it reads."""
NEEDS: Final = {
    "test_a_refused_version_is_spec_1s_finding_and_the_run_goes_on": REFUSING,
    "test_a_tool_listed_under_another_name_is_run_without_an_unknown_tool_of_its_own": LISTED,
    "test_compare_goes_on_for_a_tool_listed_under_another_name": "compare",
}
"""The run each test reads."""


@pytest.fixture(scope="module")
def ran(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
        ahead: ThreadPoolExecutor) -> Callable[[str], Ran]:
    """The selected tests' runs, all started with the module's first test, two at a time (the session's
    `ahead` pool): each is mostly its server's waits, and one after the other each test waited for its own."""
    made: dict[str, Future[Ran]] = {}

    def start(name: str) -> Future[Ran]:
        if name not in made:
            out = tmp_path_factory.mktemp(name.replace(":", "-").replace(",", "-")[:40])
            if name == "compare":
                made[name] = ahead.submit(cli, "compare", "reference", _spec(LISTED), "--profile", "dev",
                                          "--seed", "1", "--budget", COMPARE_BUDGET, out=out)
            else:
                made[name] = ahead.submit(cli, "run", "--target", _spec(name), "--profile", "dev", "--seed",
                                          "1", out=out)
        return made[name]

    for item in request.session.items:
        if isinstance(item, pytest.Function) and item.module is request.module and item.originalname in NEEDS:
            start(NEEDS[item.originalname])
    return lambda name: start(name).result()


def test_a_refused_version_is_spec_1s_finding_and_the_run_goes_on(ran: Callable[[str], Ran]) -> None:
    refused = ran(REFUSING)
    assert refused.code == 1, refused.stderr
    assert "stopped early" not in refused.stdout, refused.stdout
    verdicts = refused.verdicts()
    assert verdicts["SPEC-1"] == "deviates", verdicts
    assert [r for r, v in verdicts.items() if v == "error"] == [], verdicts
    assert all(verdicts[r] != "error" for r in ("CLM-1", "CLM-1b")), verdicts
    markdown = (refused.out / "report.md").read_text(encoding="utf-8").replace("\\", "")
    assert "offering 2025-11-25 was refused, error -32602 “Unsupported protocol version" in markdown
    assert "2025-06-18, offered next, was accepted" in markdown
    assert "CLM-1 — Unsupported protocol version" not in markdown


def test_a_tool_listed_under_another_name_is_run_without_an_unknown_tool_of_its_own(
    ran: Callable[[str], Ran]
) -> None:
    listed = ran(LISTED)
    assert listed.code == 1, listed.stderr
    verdicts = listed.verdicts()
    assert verdicts["CMP-2"] == "deviates", verdicts
    assert verdicts["RTE-2"] == "holds", verdicts
    markdown = (listed.out / "report.md").read_text(encoding="utf-8").replace("\\", "")
    assert "the unknown tool \"sequential_thinking\"" not in markdown


def test_compare_goes_on_for_a_tool_listed_under_another_name(ran: Callable[[str], Ran]) -> None:
    compared = ran("compare")
    assert compared.code == 1, compared.stderr
    assert "does not offer the sequentialthinking tool" not in compared.stderr, compared.stderr
    assert "`sequential_thinking` (only" not in compared.stdout, compared.stdout
