"""Ports and forks in the wild (tests/servers/ports.py) gated as their maintainers would, dev profile: a
snake_case port stops once with both sides' fields (no "N not run" after it), and through `--arguments-map
snake_case` is checked for everything else, the report saying the mapping was used; a `print()` per call is
reported with each stray line's text and when it came, each answer after one still read; a FastMCP port under
mcp 2.x keeps its own last words."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Final

import pytest

from tests.cli import Ran, assert_one_clean_error_line, cli
from tests.e2e.ahead import selected

PORTS = Path(__file__).resolve().parent.parent / "servers" / "ports.py"
RUNS = {
    "snake": ("snake",),
    "snake-mapped": ("snake", "--arguments-map", "snake_case"),
    "print": ("print",),
    "hint": ("hint",),
    "nested": ("nested",),
    "renamed": ("renamed",),
}


NEEDS: Final = {
    "test_a_snake_case_port_stops_once_naming_both_sides": "snake",
    "test_through_the_mapping_a_snake_case_port_is_checked_for_everything_else": "snake-mapped",
    "test_a_print_per_call_is_reported_with_its_lines_and_every_answer_still_read": "print",
    "test_a_fastmcp_port_under_mcp_2_keeps_its_own_last_words": "hint",
}
"""The run each unparametrized test reads (the stopped gates' test names its runs by its `name`)."""


@pytest.fixture(scope="module")
def ran(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
        ahead: ThreadPoolExecutor) -> Callable[[str], Ran]:
    """The selected tests' runs, all started with the module's first test, two at a time (the session's
    `ahead` pool): the two whole runs (the mapped port's, the printing port's) overlap instead of each test
    waiting for its own in turn."""
    made: dict[str, Future[Ran]] = {}

    def start(name: str) -> Future[Ran]:
        if name not in made:
            mode, *extra = RUNS[name]
            out = tmp_path_factory.mktemp(name)
            made[name] = ahead.submit(cli, "run", "--target", f"cmd:{sys.executable} {PORTS} {mode}",
                                      "--profile", "dev", "--seed", "1", *extra, out=out)
        return made[name]

    for name in [NEEDS[item.originalname] for item in request.session.items
                 if isinstance(item, pytest.Function) and item.module is request.module
                 and item.originalname in NEEDS] + selected(request, "name"):
        start(name)
    return lambda name: start(name).result()


def test_a_snake_case_port_stops_once_naming_both_sides(ran: Callable[[str], Ran]) -> None:
    stopped = ran("snake")
    assert stopped.code == 2, stopped.stderr
    assert_one_clean_error_line(stopped)
    assert ("the server's `sequentialthinking` requires thought, next_thought_needed, thought_number, "
            "total_thoughts; the original's call (thought, thoughtNumber, totalThoughts, nextThoughtNeeded) "
            "is refused") in stopped.stderr, stopped.stderr
    assert "--arguments-map snake_case" in stopped.stderr
    assert "nothing else was checked" in stopped.stdout, stopped.stdout
    assert "not run" not in stopped.stdout, stopped.stdout
    verdicts = stopped.verdicts()
    assert [r for r, v in verdicts.items() if v == "deviates"] == ["CMP-2"], verdicts
    markdown = (stopped.out / "report.md").read_text(encoding="utf-8")
    assert "nothing else was checked" in markdown


def test_through_the_mapping_a_snake_case_port_is_checked_for_everything_else(
    ran: Callable[[str], Ran],
) -> None:
    mapped = ran("snake-mapped")
    assert mapped.code == 1, mapped.stderr
    report = mapped.report
    arguments = report["preflight"]["arguments"]
    assert arguments["accepted"] is True and arguments["arguments_map_from"] == "snake_case", arguments
    assert arguments["arguments_map"]["thoughtNumber"] == "thought_number", arguments
    holds = sorted(r for r, v in mapped.verdicts().items() if v == "holds")
    print(f"holds ({len(holds)}): {', '.join(holds)}")
    assert len(holds) >= 40, holds
    for shown in (mapped.stdout, (mapped.out / "report.md").read_text(encoding="utf-8").replace("\\", ""),
                  (mapped.out / "report.html").read_text(encoding="utf-8")):
        assert "every call was sent through --arguments-map snake_case (" in shown, shown[:2000]
        assert "thoughtNumber → thought_number" in shown, shown[:2000]
    assert "--arguments-map snake_case" in report["run"]["rerun"]


def test_a_print_per_call_is_reported_with_its_lines_and_every_answer_still_read(
    ran: Callable[[str], Ran],
) -> None:
    printing = ran("print")
    hygiene = printing.report["stdout_hygiene"]
    assert hygiene["lines_seen"] >= 3, hygiene
    first = hygiene["lines"][0]
    # The port prints "Thought N: …" for the first call it is sent, whichever that is (a probe's, since the
    # deterministic probes run first).
    printed = re.match(r"Thought \d+: ", first["text"])
    assert printed, first
    assert first["after_request"].startswith("tools/call (request "), first
    # Each answer after a printed line is still read, as stdio clients read on past a line they cannot parse:
    # none is dropped as late, and the lines are CMP-4's departure.
    assert hygiene["late_answers_dropped"] == [], hygiene
    assert printing.verdicts()["CMP-4"] == "deviates"
    for shown in (printing.stdout, (printing.out / "report.md").read_text(encoding="utf-8"),
                  (printing.out / "report.html").read_text(encoding="utf-8")):
        assert "not JSON-RPC" in shown.replace("\\-", "-")
        assert printed.group(0) in shown


def test_a_fastmcp_port_under_mcp_2_keeps_its_own_last_words(ran: Callable[[str], Ran]) -> None:
    crashed = ran("hint")
    assert crashed.code == 2, crashed.stderr
    assert_one_clean_error_line(crashed)
    assert "or pin 'mcp<2' to keep running v1 code." in crashed.stderr, crashed.stderr
    assert "is not installed" not in crashed.stderr, crashed.stderr
    markdown = (crashed.out / "report.md").read_text(encoding="utf-8")
    assert "or pin 'mcp<2' to keep running v1 code." in markdown, markdown
    assert "nothing else was checked" in crashed.stdout and "not run" not in crashed.stdout, crashed.stdout


NESTED_CONCLUSION = ("which --arguments-map cannot express (it renames the original's names, it does not "
                     "nest them), so nothing else of this server can be checked")
RENAMED_CONCLUSION = ("its process_thought takes thought, next_thought_needed, thought_number, "
                      "total_thoughts, is_revision, revises_thought, branch_from_thought, branch_id, "
                      "needs_more_thoughts, stage, where the original's sequentialthinking takes thought, "
                      "thoughtNumber, totalThoughts, nextThoughtNeeded")


@pytest.mark.parametrize(("name", "stop", "conclusion"), [
    ("nested", "the argument check", NESTED_CONCLUSION),
    ("renamed", "the tool-name check", RENAMED_CONCLUSION),
])
def test_a_stopped_gate_says_where_it_stopped_in_every_table_and_keeps_its_conclusion(
    ran: Callable[[str], Ran], name: str, stop: str, conclusion: str,
) -> None:
    """Issue 46: after a preflight stop, report.md's Claims and All records tables said "· not run" per
    record; the argument stop's conclusion was cut from the terminal and from report.md (a FastMCP port's
    refusal is pydantic's long words); a tool-name stop named no field of the tool that looks like the
    original's."""
    stopped = ran(name)
    assert stopped.code == 2, stopped.stderr
    markdown = (stopped.out / "report.md").read_text(encoding="utf-8")
    plain = markdown.replace("\\", "")
    said = f"not checked (the run stopped at {stop})"
    assert "not run" not in markdown, [line for line in markdown.splitlines() if "not run" in line][:3]
    claims = markdown[markdown.index("## Claims"):markdown.index("All records")]
    assert claims.count(said) >= 9, claims
    records = markdown[markdown.index("All records"):]
    assert records.count(said) >= 100, records[:2000]
    html = (stopped.out / "report.html").read_text(encoding="utf-8")
    assert html.count(said) >= 110, html.count(said)  # each record's badge and each claim's, as in report.md
    quoted = next(line for line in plain.splitlines() if line.startswith("> The target could not be checked"))
    assert quoted.endswith(conclusion) and len(quoted) <= 700, quoted
    line = next(line for line in stopped.stdout.splitlines() if "the target could not be checked" in line)
    assert line.endswith(conclusion) and len(line) <= 640, line
    summary = next(line for line in stopped.stdout.splitlines() if "nothing else was checked" in line)
    assert conclusion in summary, summary
