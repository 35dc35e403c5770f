"""compare calls every tool only one side lists (or both list with other schemas), by default, each call on a
process of its own started in a folder and HOME made for it, never ours; `--no-call-other-tools` calls none,
and its report says which were called and why (round 14: wild14's stopuncle-js `sequentialthinking_handoff`
wrote a file on each compare, into the folder compare ran in). Against `tests/servers/extra_tool.py write
PATH`, whose extra tool appends to PATH: the file tells whether it was called, and where."""

from __future__ import annotations

import argparse
import io
import json
import shlex
from pathlib import Path

import pytest

from conformance.cli.commands.compare import add_arguments, print_comparison, rerun_command
from conformance.compare import ComparisonOutcome
from conformance.compare.fresh import fresh_side
from conformance.compare.new_tools import (
    CALLED,
    MAX_TOOLS,
    OVER_CAP,
    TURNED_OFF,
    Called,
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


def _pass(head: Target, call: bool = True) -> tuple[list[str], list[Called], list[str]]:
    """compare's pass over the other tools, base (no extra tool) against `head`: each choice's reason, the
    tools called, what it said."""
    base = _server()
    said: list[str] = []
    choices, called = other_tools(base, head, (fresh_side(base, 10).tools, fresh_side(head, 10).tools), 10,
                                  call, said.append)
    return [c.why for c in choices if c.tool.name == "write"], called, said


def test_a_tool_only_one_side_lists_is_called_by_default_in_a_folder_of_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    why, called, said = _pass(_server("write", "written"))
    assert why == [CALLED] and len(called) == 1, said
    assert not (tmp_path / "written").exists(), "the tool wrote into the folder compare runs in"
    calls = json.loads(called[0].found.b)["calls"]
    assert calls and all(c["kind"] == "accepted" and c["answer"] == "written" for c in calls), calls


def test_no_call_other_tools_calls_none(tmp_path: Path) -> None:
    mark = tmp_path / "written"
    why, called, said = _pass(_server("write", str(mark)), call=False)
    assert not mark.exists(), mark.read_text(encoding="utf-8")
    assert why == [TURNED_OFF] and called == []
    assert said == [f"new tools: not calling write: {TURNED_OFF}"], said


def test_calls_stay_capped_and_a_tool_both_list_with_other_schemas_is_called() -> None:
    listed = [{"name": "sequentialthinking"}, {"name": "both", "inputSchema": {"type": "object"}},
              *({"name": f"r{i}"} for i in range(MAX_TOOLS + 2))]
    tools = new_tools([{"name": "sequentialthinking"}, {"name": "both"}], listed, limit=50)
    by_name = {c.tool.name: c for c in choose(tools)}
    assert by_name["both"].called and by_name["both"].tool.offered_by == "both"
    assert sum(c.called for c in by_name.values()) == MAX_TOOLS
    assert [c.why for c in by_name.values() if not c.called] == [OVER_CAP] * 3
    same = new_tools([{"name": "same", "inputSchema": {}}], [{"name": "same", "inputSchema": {}}])
    assert same == []
    assert not any(c.called for c in choose(tools, call=False))


def test_the_report_says_which_tools_were_called_and_why() -> None:
    comparison = Comparison(
        a=unresolved_identity("cmd:base"), b=unresolved_identity("cmd:head"), calls=0, programs=0,
        label_a="base", label_b="head",
        other_tools=[OtherTool(name="write", offered_by="head", called=False, why=TURNED_OFF),
                     OtherTool(name="peek", offered_by="base", called=True, why=CALLED),
                     OtherTool(name="both", offered_by="base and head", called=True, why=CALLED)])
    outcome = ComparisonOutcome(comparison, [])
    report = comparison_report(outcome, started="2026-12-06T19:00:00+00:00", rerun="", processes_started=0)
    text = render_markdown(report).replace("\\", "")
    assert f"- `write` (only head lists it): not called: {TURNED_OFF}" in text, text
    assert f"- `peek` (only base lists it): called: {CALLED}" in text, text
    assert f"- `both` (base and head list it): called: {CALLED}" in text, text
    out = io.StringIO()
    print_comparison(report, outcome, None, out)
    assert f"`write` (only head lists it): not called: {TURNED_OFF}" in out.getvalue(), out.getvalue()


def test_turning_it_off_is_an_option_kept_in_the_rerun_command() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert parser.parse_args(["reference"]).call_other_tools is True
    assert "-other-tools" not in rerun_command(parser.parse_args(["reference"]), "dev", 1)
    assert parser.parse_args(["reference", "--call-other-tools"]).call_other_tools is True
    args = parser.parse_args(["reference", "--no-call-other-tools"])
    assert args.call_other_tools is False
    assert "--no-call-other-tools" in rerun_command(args, "dev", 1)
