"""A tool one side lists and the other does not, called: what it answers and what it does to the store.

A reviewer told "head adds the tool `reset`" still has to guess what it does. Each such tool is called on a
fresh pair after three thoughts (one on a branch) have been filed: with `{}`, then with the smallest
arguments its `inputSchema` asks for, then with every listed property; the next sequentialthinking call
tells the store afterwards, against what it would have been (one more thought, the same branches). The other
side gets the same calls, so its answer to the unknown name is shown beside. What a server lists is hostile:
at most `MAX_TOOLS` tools, `MAX_PROPERTIES` properties read one level deep, values chosen here, never
taken from the schema's text beyond its `type`, `enum` (first item), `minimum` and `minLength`.

Calling a fork's other tool can act outside the store (wild14: stopuncle-js' `sequentialthinking_handoff`
wrote a file into its folder on each compare; another could delete or send something). So by default only a
tool whose MCP annotations say `readOnlyHint: true` is called; `--call-other-tools` calls the others too.
A tool not called is still listed (`listing.py`) and the report says which were called and why (`choose`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Final

from conformance.compare.observe import Found, Outcome
from conformance.compare.pair import fresh_pair, run_on
from conformance.compare.programs import Program, Step, valid
from conformance.compare.wording import short
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.drivers.errors import DriverError
from conformance.targets.specs import Target

MAX_TOOLS: Final = 3
"""New tools called per comparison (by name order); a listing of many is said, not all called."""
MAX_PROPERTIES: Final = 12
"""Properties of a new tool's schema given a value; the rest are left out."""
NAME_CHARS: Final = 200
"""A listed tool name longer than this is not called (it is still listed by `listing.py`)."""
ANSWER_CHARS: Final = 600
BRANCH: Final = "probe-b"
SEED: Final[Program] = (
    Step(TOOL, valid(1, 4, more=True)),
    Step(TOOL, valid(2, 4, more=True, branchFromThought=1, branchId=BRANCH)),
    Step(TOOL, valid(3, 4, more=True)),
)
"""What is filed before the new tool is called: three thoughts, the second on a branch."""
AFTER: Final = Step(TOOL, valid(4, 4))
"""The call whose answer tells the store after the new tool's call."""
DETAIL: Final = "called"


MAX_LISTED: Final = 20
"""Tools listed by one side only that the report names (called or not); more are counted, not named."""
READ_ONLY: Final = "its annotations say readOnlyHint: true"
NOT_READ_ONLY: Final = "its annotations do not say readOnlyHint: true (--call-other-tools calls it)"
OPTED_IN: Final = "--call-other-tools"
OVER_CAP: Final = f"at most {MAX_TOOLS} other tools are called per comparison"


@dataclass(frozen=True)
class NewTool:
    name: str
    schema: JSON
    offered_by: str
    """"a" or "b"."""
    read_only: bool = False
    """Its listing's `annotations.readOnlyHint` is exactly `true` (a hint the server gives, not a proof)."""


@dataclass(frozen=True)
class Choice:
    """One tool listed by one side only: whether compare calls it, and why (for the report)."""

    tool: NewTool
    called: bool
    why: str


def _read_only(tool: dict[str, JSON]) -> bool:
    annotations = tool.get("annotations")
    return isinstance(annotations, dict) and annotations.get("readOnlyHint") is True


def new_tools(tools_a: Sequence[JSON] | None, tools_b: Sequence[JSON] | None, limit: int = MAX_TOOLS
              ) -> list[NewTool]:
    """Tools listed by exactly one side (never the compared tool), by name, at most `limit`."""
    def by_name(tools: Sequence[JSON] | None) -> dict[str, dict[str, JSON]]:
        out: dict[str, dict[str, JSON]] = {}
        for tool in tools or []:
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                out.setdefault(str(tool["name"]), tool)
        return out

    a, b = by_name(tools_a), by_name(tools_b)
    found = [NewTool(n, t.get("inputSchema"), "a", _read_only(t)) for n, t in a.items() if n not in b]
    found += [NewTool(n, t.get("inputSchema"), "b", _read_only(t)) for n, t in b.items() if n not in a]
    usable = [t for t in found if t.name != TOOL and 0 < len(t.name) <= NAME_CHARS]
    return sorted(usable, key=lambda t: t.name)[:limit]


def choose(tools: Sequence[NewTool], call_all: bool = False) -> list[Choice]:
    """Which of `tools` compare calls: read-only ones (or all with `call_all`), at most `MAX_TOOLS`; each
    with the reason the report gives."""
    out: list[Choice] = []
    calls = 0
    for tool in tools:
        if not (call_all or tool.read_only):
            out.append(Choice(tool, False, NOT_READ_ONLY))
        elif calls >= MAX_TOOLS:
            out.append(Choice(tool, False, OVER_CAP))
        else:
            calls += 1
            out.append(Choice(tool, True, READ_ONLY if tool.read_only else OPTED_IN))
    return out


def _value(schema: JSON) -> JSON:
    """The smallest value of a property's declared type (its enum's first item, its minimum)."""
    if not isinstance(schema, dict):
        return "a"
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and isinstance(enum[0], str | int | float | bool):
        return enum[0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if kind is None:
        for key in ("anyOf", "oneOf"):
            options = schema.get(key)
            if isinstance(options, list) and options and isinstance(options[0], dict):
                kind = options[0].get("type")
                schema = options[0]
                break
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        low = schema.get("minimum")
        if isinstance(low, int | float) and not isinstance(low, bool) and abs(low) < 2**31:
            return int(low) if kind == "integer" else low
        return 1
    if kind == "array":
        return []
    if kind == "object":
        return {}
    if kind == "null":
        return None
    size = schema.get("minLength")
    length = size if isinstance(size, int) and not isinstance(size, bool) and 0 < size <= 64 else 1
    return "a" * length


def arguments(schema: JSON) -> list[dict[str, JSON]]:
    """What the new tool is called with, each different: `{}`, the required properties only (the smallest
    arguments its schema asks for), every listed property."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    props = dict(list(props.items())[:MAX_PROPERTIES]) if isinstance(props, dict) else {}
    required = schema.get("required") if isinstance(schema, dict) else None
    needed = [str(r) for r in required if isinstance(r, str)] if isinstance(required, list) else []
    minimal = {name: _value(props.get(name)) for name in needed[:MAX_PROPERTIES]}
    every = {**minimal, **{name: _value(value) for name, value in props.items()}}
    out: list[dict[str, JSON]] = []
    for args in ({}, minimal, every):
        if args not in out:
            out.append(args)
    return out


def _store(outcome: Outcome | None) -> JSON:
    """[history length, branch labels] an accepted answer tells; None when it tells none."""
    if outcome is None or not outcome.accepted or outcome.store is None:
        return None
    length, labels = outcome.store
    return [length, list(labels)]


def _side(outcomes: list[Outcome]) -> dict[str, JSON]:
    """One side's record of one call program: the seed's store, the tool's answer, the store after."""
    before = _store(outcomes[len(SEED) - 1]) if len(outcomes) >= len(SEED) else None
    tool = outcomes[len(SEED)] if len(outcomes) > len(SEED) else None
    after = outcomes[len(SEED) + 1] if len(outcomes) > len(SEED) + 1 else None
    answer = "not called: the seed calls were not all answered" if tool is None else tool.show()
    return {
        "before": before,
        "answer": answer[:ANSWER_CHARS],
        "kind": _kind(tool),
        "after": _store(after),
        "after_answer": "" if after is None or after.accepted else after.show()[:ANSWER_CHARS],
    }


def _kind(outcome: Outcome | None) -> str:
    if outcome is None:
        return ""
    if outcome.kind == "result":
        return "refused" if outcome.is_error else "accepted"
    return outcome.kind


@dataclass(frozen=True)
class Called:
    """One new tool called, as a fresh-process difference: its program and both sides' records."""

    tool: NewTool
    found: Found
    program: Program


def call_new_tools(a: Target, b: Target, tools: list[NewTool], timeout: float) -> list[Called]:
    """Each new tool called (`arguments`) on a fresh pair per call, after the seed; both sides' records."""
    jobs = [(tool, args) for tool in tools for args in arguments(tool.schema)]
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(lambda job: _call(a, b, job[0], job[1], timeout), jobs))
    out: list[Called] = []
    for tool in tools:
        mine = [(args, r) for (t, args), r in zip(jobs, results, strict=True) if t is tool and r is not None]
        if not mine:
            continue
        record_a = {"tool": tool.name, "offered": tool.offered_by == "a",
                    "calls": [{"arguments": args, **ra} for args, (ra, _) in mine]}
        record_b = {"tool": tool.name, "offered": tool.offered_by == "b",
                    "calls": [{"arguments": args, **rb} for args, (_, rb) in mine]}
        program = (*SEED, Step(tool.name, mine[0][0]), AFTER)
        found = Found("tools_list", "tools", "", DETAIL, json.dumps(record_a, ensure_ascii=False),
                      json.dumps(record_b, ensure_ascii=False), False)
        out.append(Called(tool, found, program))
    return out


def _call(a: Target, b: Target, tool: NewTool, args: dict[str, JSON], timeout: float
          ) -> tuple[dict[str, JSON], dict[str, JSON]] | None:
    program = (*SEED, Step(tool.name, args), AFTER)
    try:
        with fresh_pair(a, b, timeout) as (da, db):
            return _side(run_on(da, program)), _side(run_on(db, program))
    except DriverError:
        return None


def other_tools(a: Target, b: Target, listed: tuple[Sequence[JSON] | None, Sequence[JSON] | None],
                timeout: float, call_all: bool = False, say: Callable[[str], None] = lambda _line: None
                ) -> tuple[list[Choice], list[Called]]:
    """compare's pass over the tools only one side lists (`listed`: each side's tools/list): which it calls
    (`choose`), said in `say`, and those called (`call_new_tools`)."""
    choices = choose(new_tools(*listed, limit=MAX_LISTED), call_all)
    reasons: dict[str, list[str]] = {}
    for choice in choices:
        if not choice.called:
            reasons.setdefault(choice.why, []).append(choice.tool.name)
    for why, names in reasons.items():
        say(f"new tools: not calling {', '.join(names)}: {why}")
    added = [c.tool for c in choices if c.called]
    if not added:
        return choices, []
    say(f"new tools: calling {', '.join(t.name for t in added)} after three thoughts, on fresh pairs")
    return choices, call_new_tools(a, b, added, timeout)


# -- in words ------------------------------------------------------------------------------------------


def _read_store(store: JSON) -> tuple[int, list[str]] | None:
    """[length, labels] as `_store` wrote it, or None."""
    if isinstance(store, list) and len(store) == 2 and isinstance(store[0], int) and \
            not isinstance(store[0], bool) and isinstance(store[1], list):
        return store[0], [str(x) for x in store[1]]
    return None


def _branches(before: list[str], after: list[str]) -> str:
    if after == before:
        return ""
    if before and not after:
        return "it drops every branch"
    gone = [x for x in before if x not in after]
    came = [x for x in after if x not in before]
    said = []
    if gone:
        said.append(f"it drops the branch{'es' if len(gone) > 1 else ''} {', '.join(map(_code, gone))}")
    if came:
        said.append(f"it adds the branch{'es' if len(came) > 1 else ''} {', '.join(map(_code, came))}")
    return " and ".join(said)


def _history(due: int, now: int) -> str:
    if now == due:
        return ""
    if now <= 1:
        return "it empties the history"
    if now < due:
        return f"it drops {due - now} thought{'s' if due - now != 1 else ''} from the history"
    return f"it adds {now - due} thought{'s' if now - due != 1 else ''} to the history"


def effect(call: dict[str, JSON]) -> tuple[str, str]:
    """What one call of the new tool did to the store and what shows it: the next sequentialthinking
    answer against what that answer would have said without the call (one more thought, the same
    branches). The verdict comes first, so a headline cut at its clauses keeps it."""
    kind = call.get("kind")
    if kind in ("exited", "no answer"):
        return "the process " + ("exits" if kind == "exited" else "stops answering"), ""
    before, after = _read_store(call.get("before")), _read_store(call.get("after"))
    if before is None:
        return "", ""
    if after is None:
        said = call.get("after_answer")
        return "the next sequentialthinking call is not accepted", _quote(str(said)) if said else ""
    (had, labels_before), (now, labels_after) = before, after
    due = had + 1
    history, branches = _history(due, now), _branches(labels_before, labels_after)
    if not history and not branches:
        return ("it leaves the store as it was", f"the next sequentialthinking call reports "
                f"thoughtHistoryLength {now}, {had} before, and the branches as they were")
    shown = (f"the next sequentialthinking call reports thoughtHistoryLength {now} where {due} was due, "
             f"{had} before")
    if branches:
        shown += (f", and branches {json.dumps(labels_after, ensure_ascii=False)} where "
                  f"{json.dumps(labels_before, ensure_ascii=False)} were")
    return " and ".join(p for p in (history, branches) if p), shown


def _code(text: str) -> str:
    return f"`{text}`"


def _quote(text: str) -> str:
    return f"“{short(text, 120)}”"


def _args(args: JSON) -> str:
    return json.dumps(args, ensure_ascii=False, separators=(", ", ": "))


def clauses(a_text: str, b_text: str, la: str, lb: str) -> list[str]:
    """The called tool in words: per call its arguments, its answer, its effect; the other side's answer to
    the same name once."""
    try:
        ra, rb = json.loads(a_text), json.loads(b_text)
    except ValueError:
        return []
    if not isinstance(ra, dict) or not isinstance(rb, dict):
        return []
    offering, other, lo, lt = (ra, rb, la, lb) if ra.get("offered") else (rb, ra, lb, la)
    calls = offering.get("calls")
    if not isinstance(calls, list) or not calls:
        return []
    name = _code(str(offering.get("tool")))
    said: list[str] = []
    previous = ""
    for call in calls:
        if not isinstance(call, dict):
            continue
        verdict, shown = effect(call)
        what = f"{verdict} ({shown})" if verdict and shown else verdict
        answer = _quote(str(call.get("answer", "")))
        verb = {"refused": "refuses it", "accepted": "answers", "exited": "exits",
                "no answer": "does not answer"}.get(str(call.get("kind")), "answers")
        head = f"called with {_args(call.get('arguments'))} {name} {verb}"
        head += f" {answer}" if verb in ("answers", "refuses it") else ""
        if what and what == previous:
            said.append(f"{head}, to the same effect")
        else:
            said.append(f"{head}: {what}" if what else head)
        previous = what
    first = next((c for c in other.get("calls", []) if isinstance(c, dict)), None) if isinstance(
        other.get("calls"), list) else None
    if first is not None:
        said.append(f"{lt} answers the name with {_quote(str(first.get('answer', '')))}")
    return [f"on {lo}, {said[0]}", *said[1:]]


__all__ = ["Called", "Choice", "NewTool", "arguments", "call_new_tools", "choose", "clauses", "effect",
           "new_tools", "other_tools"]
