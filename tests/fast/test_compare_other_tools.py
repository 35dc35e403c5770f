"""compare calls a tool only one side lists only when it is annotated `readOnlyHint: true`, or with
--call-other-tools, and its report says which were called and why (round 14: wild14's stopuncle-js
`sequentialthinking_handoff` wrote a file on each compare). Against `tests/servers/extra_tool.py write PATH`,
whose extra tool appends to PATH: the file tells whether it was called."""

from __future__ import annotations

import argparse
import io
import shlex
from pathlib import Path

from conformance.cli.commands.compare import add_arguments, print_comparison, rerun_command
from conformance.compare import ComparisonOutcome
from conformance.compare.fresh import fresh_side
from conformance.compare.new_tools import (
    MAX_TOOLS,
    NOT_READ_ONLY,
    OPTED_IN,
    OVER_CAP,
    READ_ONLY,
    NewTool,
    choose,
    new_tools,
    other_tools,
)
from conformance.gate.comparison import comparison_report
from conformance.report.markdown import render_markdown
from conformance.report.model import Comparison, OtherTool
from conformance.targets.kinds import unresolved_identity
from conformance.targets.specs import Target, resolve_target
from tests.servers import command


def _server(*args: str) -> Target:
    return resolve_target("cmd:" + shlex.join(command("extra_tool", *args)))


def _pass(head: Target, call_all: bool = False) -> tuple[list[str], int, list[str]]:
    """compare's pass over the other tools, base (no extra tool) against `head`: each choice's reason, the
    tools called, what it said."""
    base = _server()
    said: list[str] = []
    choices, called = other_tools(base, head, (fresh_side(base, 10).tools, fresh_side(head, 10).tools), 10,
                                  call_all, said.append)
    return [c.why for c in choices if c.tool.name == "write"], len(called), said


def test_a_tool_not_annotated_read_only_is_listed_not_called_by_default(tmp_path: Path) -> None:
    mark = tmp_path / "written"
    why, called, said = _pass(_server("write", str(mark)))
    assert not mark.exists(), mark.read_text(encoding="utf-8")
    assert why == [NOT_READ_ONLY] and called == 0
    assert said == [f"new tools: not calling write: {NOT_READ_ONLY}"], said


def test_the_opt_in_calls_it(tmp_path: Path) -> None:
    mark = tmp_path / "written"
    why, called, _ = _pass(_server("write", str(mark)), call_all=True)
    assert mark.exists() and why == [OPTED_IN] and called == 1


def test_a_tool_annotated_read_only_is_called_by_default(tmp_path: Path) -> None:
    mark = tmp_path / "written"
    why, called, _ = _pass(_server("write", str(mark), "readonly"))
    assert mark.exists() and why == [READ_ONLY] and called == 1


def test_only_a_literal_true_hint_counts_and_calls_stay_capped() -> None:
    listed = [{"name": "sequentialthinking"},
              {"name": "hinted_string", "annotations": {"readOnlyHint": "true"}},
              {"name": "hinted_list", "annotations": [{"readOnlyHint": True}]},
              *({"name": f"r{i}", "annotations": {"readOnlyHint": True}} for i in range(MAX_TOOLS + 2))]
    tools = new_tools([{"name": "sequentialthinking"}], listed, limit=50)
    by_name = {c.tool.name: c for c in choose(tools)}
    assert not by_name["hinted_string"].called and not by_name["hinted_list"].called
    assert sum(c.called for c in by_name.values()) == MAX_TOOLS
    assert [c.why for c in by_name.values() if c.tool.read_only and not c.called] == [OVER_CAP, OVER_CAP]
    assert all(c.called for c in choose([NewTool("x", None, "a")], call_all=True))


def test_the_report_says_which_tools_were_called_and_why() -> None:
    comparison = Comparison(
        a=unresolved_identity("cmd:base"), b=unresolved_identity("cmd:head"), calls=0, programs=0,
        label_a="base", label_b="head",
        other_tools=[OtherTool(name="write", offered_by="head", called=False, why=NOT_READ_ONLY),
                     OtherTool(name="peek", offered_by="base", called=True, why=READ_ONLY)])
    outcome = ComparisonOutcome(comparison, [])
    report = comparison_report(outcome, started="2026-12-06T19:00:00+00:00", rerun="", processes_started=0)
    text = render_markdown(report)
    assert f"- `write` (only head lists it): not called: {NOT_READ_ONLY}" in text.replace("\\", ""), text
    assert f"- `peek` (only base lists it): called: {READ_ONLY}" in text.replace("\\", ""), text
    out = io.StringIO()
    print_comparison(report, outcome, None, out)
    assert f"`write` (only head lists it): not called: {NOT_READ_ONLY}" in out.getvalue(), out.getvalue()


def test_the_opt_in_is_an_option_kept_in_the_rerun_command() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert parser.parse_args(["reference"]).call_other_tools is False
    args = parser.parse_args(["reference", "--call-other-tools"])
    assert "--call-other-tools" in rerun_command(args, "dev", 1)
