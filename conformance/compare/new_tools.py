"""A tool one side lists and the other does not (or both list with other schemas), called: what it answers
and what it does to the store.

A reviewer told "head adds the tool `reset`" still has to guess what it does. Each such tool is called by
`calls/other_tools.py` (the one place `run`'s RTE-1 check calls through too): each call on a process of its
own, started in a folder and HOME made for it, after two thoughts (the second on a branch), with `{}`, the
smallest arguments its `inputSchema` asks for, then every listed property; the next sequentialthinking call
tells the store afterwards. The other side gets the same calls, each on a process of its own too, so its
answer to the name is shown beside. Every such tool is called by default, at most `MAX_TOOLS`;
`--no-call-other-tools` calls none. A tool not called is still listed (`listing.py`) and the report says
which were called and why (`choose`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Final

from conformance.calls.other_tools import MAX_TOOLS, NAME_CHARS, ToolCall, arguments, call_alone, from_record
from conformance.calls.other_tools import gist as tool_gist
from conformance.calls.other_tools import sentence as tool_sentence
from conformance.compare.observe import Found
from conformance.compare.programs import Program, Step, valid
from conformance.compare.wording import short
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL, tool_name
from conformance.targets.specs import Target

SEED: Final[Program] = (
    Step(TOOL, valid(1, 3, more=True)),
    Step(TOOL, valid(2, 3, more=True, branchFromThought=1, branchId="probe-b")),
)
"""The calls a report's program shows before the tool's (`calls/other_tools.SEED` sends them)."""
AFTER: Final = Step(TOOL, valid(3, 3))
DETAIL: Final = "called"

MAX_LISTED: Final = 20
"""Tools listed by one side only that the report names (called or not); more are counted, not named."""
CALLED: Final = "by default, each call on a process of its own in a folder made for it"
TURNED_OFF: Final = "--no-call-other-tools"
OVER_CAP: Final = f"at most {MAX_TOOLS} other tools are called per comparison"


@dataclass(frozen=True)
class NewTool:
    name: str
    schema: JSON
    offered_by: str
    """"a", "b", or "both" (both list it, with other input schemas)."""


@dataclass(frozen=True)
class Choice:
    """One tool listed by one side only: whether compare calls it, and why (for the report)."""

    tool: NewTool
    called: bool
    why: str


def new_tools(tools_a: Sequence[JSON] | None, tools_b: Sequence[JSON] | None, limit: int = MAX_TOOLS
              ) -> list[NewTool]:
    """Tools listed by exactly one side, or by both with other input schemas (never the compared tool, nor
    a side's tool listed under another name: fork-readme-names' `sequential_thinking`), by name, at most
    `limit`."""
    def by_name(tools: Sequence[JSON] | None) -> dict[str, dict[str, JSON]]:
        out: dict[str, dict[str, JSON]] = {}
        for tool in tools or []:
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                out.setdefault(str(tool["name"]), tool)
        return out

    a, b = by_name(tools_a), by_name(tools_b)
    found = [NewTool(n, t.get("inputSchema"), "a") for n, t in a.items() if n not in b]
    found += [NewTool(n, t.get("inputSchema"), "b") for n, t in b.items() if n not in a]
    found += [NewTool(n, t.get("inputSchema"), "both") for n, t in b.items()
              if n in a and a[n].get("inputSchema") != t.get("inputSchema")]
    compared = {TOOL, tool_name(tools_a), tool_name(tools_b)}  # a side's tool listed under another name
    usable = [t for t in found if t.name not in compared and 0 < len(t.name) <= NAME_CHARS]
    return sorted(usable, key=lambda t: t.name)[:limit]


def choose(tools: Sequence[NewTool], call: bool = True) -> list[Choice]:
    """Which of `tools` compare calls: all unless `call` is off (`--no-call-other-tools`), at most
    `MAX_TOOLS`; each with the reason the report gives."""
    out: list[Choice] = []
    calls = 0
    for tool in tools:
        if not call:
            out.append(Choice(tool, False, TURNED_OFF))
        elif calls >= MAX_TOOLS:
            out.append(Choice(tool, False, OVER_CAP))
        else:
            calls += 1
            out.append(Choice(tool, True, CALLED))
    return out


@dataclass(frozen=True)
class Called:
    """One new tool called, as a fresh-process difference: its program and both sides' records."""

    tool: NewTool
    found: Found
    program: Program


def call_new_tools(a: Target, b: Target, tools: list[NewTool], timeout: float) -> list[Called]:
    """Each new tool called (`arguments`) on both sides, each call on a process of its own (`call_alone`)."""
    jobs = [(tool, args, side) for tool in tools for args in arguments(tool.schema) for side in ("a", "b")]
    targets = {"a": a, "b": b}
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(lambda job: _call(targets[job[2]], job[0], job[1], timeout), jobs))
    out: list[Called] = []
    for tool in tools:
        mine = [(args, side, r) for (t, args, side), r in zip(jobs, results, strict=True) if t is tool]
        record_a = {"tool": tool.name, "offered": tool.offered_by in ("a", "both"),
                    "calls": [r.record() for _, side, r in mine if side == "a"]}
        record_b = {"tool": tool.name, "offered": tool.offered_by in ("b", "both"),
                    "calls": [r.record() for _, side, r in mine if side == "b"]}
        program = (*SEED, Step(tool.name, mine[0][0]), AFTER)
        found = Found("tools_list", "tools", "", DETAIL, json.dumps(record_a, ensure_ascii=False),
                      json.dumps(record_b, ensure_ascii=False), False)
        out.append(Called(tool, found, program))
    return out


def _call(side: Target, tool: NewTool, args: dict[str, JSON], timeout: float) -> ToolCall:
    return call_alone(side.command, side.env, side.renames, tool.name, args, timeout)


def other_tools(a: Target, b: Target, listed: tuple[Sequence[JSON] | None, Sequence[JSON] | None],
                timeout: float, call: bool = True, say: Callable[[str], None] = lambda _line: None
                ) -> tuple[list[Choice], list[Called]]:
    """compare's pass over the tools only one side lists (`listed`: each side's tools/list): which it calls
    (`choose`), said in `say`, and those called (`call_new_tools`)."""
    choices = choose(new_tools(*listed, limit=MAX_LISTED), call)
    reasons: dict[str, list[str]] = {}
    for choice in choices:
        if not choice.called:
            reasons.setdefault(choice.why, []).append(choice.tool.name)
    for why, names in reasons.items():
        say(f"new tools: not calling {', '.join(names)}: {why}")
    added = [c.tool for c in choices if c.called]
    if not added:
        return choices, []
    say(f"new tools: calling {', '.join(t.name for t in added)} after two thoughts, each call on a process "
        "of its own")
    return choices, call_new_tools(a, b, added, timeout)


# -- in words ------------------------------------------------------------------------------------------


def _quote(text: str) -> str:
    return f"“{short(text, 120)}”"


def _calls(record: JSON) -> list[ToolCall]:
    calls = record.get("calls") if isinstance(record, dict) else None
    read = [from_record(c) for c in calls[:8]] if isinstance(calls, list) else []
    return [c for c in read if c is not None]


def _records(a_text: str, b_text: str) -> tuple[dict[str, JSON], dict[str, JSON]] | None:
    try:
        ra, rb = json.loads(a_text), json.loads(b_text)
    except ValueError:
        return None
    return (ra, rb) if isinstance(ra, dict) and isinstance(rb, dict) else None


def _where(label: str, both: bool) -> str:
    return f"on {label}, both list it with other schemas" if both else f"new on {label}"


def _offering(ra: dict[str, JSON], rb: dict[str, JSON], la: str, lb: str
              ) -> tuple[str, list[tuple[dict[str, JSON], str]]]:
    """The called tool's name and the sides (record, label) that list it."""
    name = str(ra.get("tool") or rb.get("tool"))[:NAME_CHARS]
    return name, [(r, label) for r, label in ((ra, la), (rb, lb)) if r.get("offered") is True]


def gists(a_text: str, b_text: str, la: str, lb: str) -> list[str]:
    """The called tool in a headline's clause (`calls/other_tools.gist`) per side that lists it."""
    records = _records(a_text, b_text)
    if records is None:
        return []
    name, offering = _offering(*records, la, lb)
    return [tool_gist(name, calls, _where(label, len(offering) == 2))
            for record, label in offering if (calls := _calls(record))]


def clauses(a_text: str, b_text: str, la: str, lb: str) -> list[str]:
    """The called tool in words (`calls/other_tools.sentence`) on each side that lists it; the other side's
    answer to the same name once."""
    records = _records(a_text, b_text)
    if records is None:
        return []
    ra, rb = records
    name, offering = _offering(ra, rb, la, lb)
    said = [tool_sentence(name, calls, _where(label, len(offering) == 2))
            for record, label in offering if (calls := _calls(record))]
    if len(offering) == 1:
        other_label, other = (lb, rb) if offering[0][1] == la else (la, ra)
        answered = _calls(other)
        if answered:
            verb = "refuses" if answered[0].kind == "refused" else "answers"
            said.append(f"{other_label} {verb} the name with {_quote(answered[0].answer)}")
    return said


__all__ = ["Called", "Choice", "NewTool", "arguments", "call_new_tools", "choose", "clauses", "gists",
           "new_tools", "other_tools"]
