"""What both targets are sent: programs of tools/call steps, the fixed witnesses, the generated ones.

A program is what a published difference replays: initialize, then its steps, one frame each. The
generated steps start from a valid call and mutate fields with the suite's own strategies, so hypothesis
shrinks every field it does not need back to the valid value and a minimal program names its trigger.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Final

from hypothesis import strategies as st

from conformance.calls import strategies as s
from conformance.calls.opening import OPENING_CALLS
from conformance.core.js import PROTOTYPE_KEYS
from conformance.core.jsontypes import JSON, OMIT, Omitted
from conformance.core.protocol import CLIENT_INFO, PROTOCOL_VERSION, TOOL
from conformance.drivers.wire import encode_message

MAX_STEPS: Final = 6
FIELDS: Final[tuple[str, ...]] = s.REQUIRED + s.OPTIONAL


@dataclass(frozen=True)
class Step:
    """One tools/call: the tool name and its `arguments` (any JSON, or OMIT to leave the key out), sent with
    the driver's next number as its id, or with `request_id`, a string (JSON-RPC allows either; a fork
    answering "24" as 24 breaks a client matching ids by type)."""

    name: str = TOOL
    arguments: JSON | Omitted = OMIT
    request_id: str | None = None

    def params(self) -> dict[str, JSON]:
        params: dict[str, JSON] = {"name": self.name}
        if not isinstance(self.arguments, Omitted):
            params["arguments"] = self.arguments
        return params

    def show(self) -> str:
        """The step as a person reads it in a report: `sequentialthinking {…}`."""
        args = "(no arguments)" if isinstance(self.arguments, Omitted) else _dumps(self.arguments)
        name = "" if self.name == TOOL else f"tool {json.dumps(self.name, ensure_ascii=False)} "
        sent = "" if self.request_id is None else f" (request id {json.dumps(self.request_id)})"
        return f"{name}{args}{sent}"


Program = tuple[Step, ...]


def _dumps(value: JSON) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def frames(program: Sequence[Step]) -> list[str]:
    """The program as newline-delimited JSON-RPC frames for a fresh process, initialize first."""
    init: dict[str, JSON] = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO},
    }
    out: list[JSON] = [init, {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    for number, step in enumerate(program, start=2):
        sent: JSON = number if step.request_id is None else step.request_id
        out.append({"jsonrpc": "2.0", "id": sent, "method": "tools/call", "params": step.params()})
    return [encode_message(message).decode("utf-8").rstrip("\n") for message in out]


def calls_in(program: Sequence[str]) -> int:
    """How many tools/call frames a published program holds (its length as a reader counts it)."""
    return sum(1 for frame in program if '"tools/call"' in frame)


def valid(number: int = 1, total: int = 1, *, thought: str = "a", more: bool = False,
          **extra: JSON) -> dict[str, JSON]:
    """A call every version of the server accepts; `extra` adds or overrides fields."""
    args: dict[str, JSON] = {
        "thought": thought,
        "thoughtNumber": number,
        "totalThoughts": total,
        "nextThoughtNeeded": more,
    }
    args.update(extra)
    return args


def _with(**fields: JSON) -> Step:
    return Step(TOOL, valid(**{}) | fields)


_EPISODE: Final[Program] = (
    Step(TOOL, valid(1, 3, more=True)),
    Step(TOOL, valid(2, 3, more=True, isRevision=True, revisesThought=1)),
    Step(TOOL, valid(2, 3, more=True, branchFromThought=1, branchId="b")),
    Step(TOOL, valid(3, 3)),
)
WITNESSES: Final[tuple[Program, ...]] = (
    (Step(TOOL, valid()),),
    (_with(thoughtNumber="1"),),
    (_with(totalThoughts="1"),),
    (_with(nextThoughtNeeded="false"),),
    (_with(nextThoughtNeeded="true"),),
    (_with(thought=""),),
    (_with(thoughtNumber=0),),
    (_with(thoughtNumber=1.5),),
    (_with(thoughtNumber=-1),),
    (_with(totalThoughts=0.5),),
    (_with(thoughtNumber=3, totalThoughts=2),),
    (_with(thoughtNumber=2**53 + 2),),
    (_with(thought=1),),
    (_with(nextThoughtNeeded=None),),
    (_with(isRevision=True, revisesThought=1),),
    (_with(isRevision="true", revisesThought="1"),),
    (_with(branchFromThought=1, branchId="alt"),),
    (_with(branchFromThought=1, branchId="__proto__"),),
    (_with(branchFromThought=1, branchId=7),),
    (_with(branchFromThought="1", branchId="alt"),),
    (_with(branchFromThought=1, branchId="b" * 300),),
    (_with(isRevision=True, revisesThought=2),),
    (_with(branchFromThought=2, branchId="alt"),),
    (_with(needsMoreThoughts="yes"),),
    (_with(extra=1),),
    (_with(isRevision=True, revisesThought={"toString": 1}),),
    (_with(thought="a" * 10_001),),
    (_with(isRevision=True, branchId="a revision's label"),),
    (_with(thought="שלום עולם and مرحبا بالعالم"),),
    (Step(TOOL, OMIT),),
    (Step(TOOL, None),),
    (Step(TOOL, [1]),),
    (Step(TOOL, "x"),),
    (Step("sequential_thinking", valid()),),
    (Step(TOOL, {}),),
    tuple(Step(TOOL, dict(call)) for call in OPENING_CALLS),
    _EPISODE,
    (Step(TOOL, valid(thought="a first line longer than its header\nand a second line")),),
    (Step(TOOL, valid(thought="😀 wide")),),
    (Step(TOOL, valid(thought="😀 漢字 e\u0301")),),
    (Step(TOOL, valid(), request_id="24"),),
    (Step(TOOL, valid(1, 2, more=True), request_id="loop-a-26"), Step(TOOL, valid(2, 2))),
)
"""Fixed programs run before the search: the known drift points (coercion, falsy guards, schema bounds,
prototype keys, a render that throws (the original refuses the call; a fork rendering after its answer
accepts it), a thought beyond nalyk-ts's 10,000 characters, the arguments shapes, a revision of and a
branch from a later thought: what a rule relating two fields refuses), the run's fixed opening calls
(calls/opening.py: labels out of key order, a revision, a branch of a branch, a number above its total, a
padded label; so `compare` finds what a run's store checks find, with the same calls: issue 43) and one
accepted episode, each the smallest program that shows it. A revision carrying a label without a branch point
and a thought in Hebrew and Arabic: inputs no search drew, where held-out-multi-14's forks filed the label
and boxed the words in bidi isolates. Calls whose request ids are strings ("24", "loop-a-26" opening an
episode), as run's LOOP-A check sends them: a fork answering them as numbers, or not at all, differs. A
thought whose UTF-16 units, code points and terminal columns are three numbers (an emoji, two CJK characters,
a combining accent): the unit a box is sized in is told by its padding."""

ACCEPTED_RUN: Final[Program] = _EPISODE
"""The episode run on fresh processes: thought, revision, branch, end."""


# -- generated programs ------------------------------------------------------------------------------

_small = st.integers(min_value=1, max_value=9)
_numeric_strings = st.integers(min_value=0, max_value=20).map(str)
_bool_strings = st.sampled_from(["false", "true", "0", "1", ""])


def _required(name: str) -> st.SearchStrategy[JSON | Omitted]:
    """A required field: the valid value first (hypothesis shrinks to it), then every kind of wrong one."""
    if name == "thought":
        return st.one_of(st.just("a"), s.thought_texts, s.field_values(name))
    if name == "nextThoughtNeeded":
        return st.one_of(st.booleans(), _bool_strings, s.field_values(name))
    return st.one_of(_small, _numeric_strings, s.field_values(name))


def _optional(name: str) -> st.SearchStrategy[JSON]:
    if name in ("isRevision", "needsMoreThoughts"):
        return st.one_of(st.booleans(), _bool_strings, s.json_values)
    if name in ("revisesThought", "branchFromThought"):
        return st.one_of(_small, _numeric_strings, s.falsy_values, s.json_values)
    return st.one_of(st.sampled_from(["b", "alt"]), s.branch_labels, st.sampled_from(PROTOTYPE_KEYS),
                     s.json_values)


_VALUES: Final[dict[str, st.SearchStrategy[JSON | Omitted]]] = {
    **{name: _required(name) for name in s.REQUIRED},
    **{name: st.one_of(_optional(name), st.just(OMIT)) for name in s.OPTIONAL},
}
_MUTATED: Final = st.lists(st.sampled_from(FIELDS), max_size=3, unique=True)


@st.composite
def _call_arguments(draw: st.DrawFn) -> dict[str, JSON]:
    """A valid call with up to three fields set to anything (or left out): a difference on one value of one
    field is found often, and the fields it does not need shrink back to the valid call."""
    args: dict[str, JSON] = {
        "thought": draw(st.one_of(st.just("a"), s.thought_texts)),
        "thoughtNumber": draw(_small),
        "totalThoughts": draw(_small),
        "nextThoughtNeeded": draw(st.booleans()),
    }
    for name in draw(_MUTATED):
        value = draw(_VALUES[name])
        if isinstance(value, Omitted):
            args.pop(name, None)
        else:
            args[name] = value
    return args


_non_objects: st.SearchStrategy[JSON] = st.one_of(
    st.none(), s.json_scalars, st.lists(s.json_scalars, max_size=2)
)
def _odd_steps(listed: Collection[str]) -> st.SearchStrategy[Step]:
    """Unknown tool names (none a side lists), missing and non-object `arguments`."""
    return st.one_of(
        st.builds(Step, s.unknown_tool_names((TOOL, *listed)), st.just(valid())),
        st.just(Step(TOOL, OMIT)),
        st.builds(Step, st.just(TOOL), _non_objects),
    )


_calls: Final = st.builds(Step, st.just(TOOL), _call_arguments())


def steps_among(listed: Collection[str] = ()) -> st.SearchStrategy[Step]:
    """One generated step, a valid call bent mostly, an odd one at times; no unknown-tool step calls a name
    in `listed` (the tools either side lists: a fork listing `sequential_thinking` answers it as its tool)."""
    odd = _odd_steps(listed)
    return st.integers(min_value=0, max_value=7).flatmap(lambda k: _calls if k < 7 else odd)


def programs_among(listed: Collection[str] = ()) -> st.SearchStrategy[Program]:
    """Generated programs of `steps_among(listed)`."""
    return st.lists(steps_among(listed), min_size=1, max_size=MAX_STEPS).map(tuple)


steps: st.SearchStrategy[Step] = steps_among()
programs: st.SearchStrategy[Program] = programs_among()


def unlisted(program: Program, listed: Collection[str]) -> Program:
    """`program` with each step that calls a name other than the original's which a side lists (a fixed
    witness's `sequential_thinking`, a fork's own name for its tool) sent to a near miss no side lists,
    so an unknown-tool witness stays one: fork-readme-names' rename was filed as "accepts calls to another
    tool name"."""
    taken = {TOOL, *listed}
    if not any(step.name in taken - {TOOL} for step in program):
        return program
    other = next(n for n in (*UNLISTED_NAMES, *(f"unlisted_tool_{i}" for i in range(len(taken) + 1)))
                 if n not in taken)
    return tuple(Step(other, step.arguments) if step.name != TOOL and step.name in taken else step
                 for step in program)


UNLISTED_NAMES: Final = ("sequential_thinking", "sequentialThinking", "sequential-thinking")
"""The near misses an unknown-tool witness calls, the first no side lists."""
