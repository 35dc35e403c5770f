"""A tool a server lists beside sequentialthinking, called, and what it does to the store said in words.

A listing only names a tool: whether `get_thought_history` reads the store or `clear_history` empties it is
learnt by calling it. Each call is made on a process of its own, started in a folder, temp folder and HOME
made for it and removed after (`drivers/workfolder.py`; a tool may write files, as wild14's
`sequentialthinking_handoff` did), never on a process anything else uses: two thoughts are filed first (the
second on a branch), then the tool is called, then one more thought, whose answer tells the store afterwards.
`compare` and `run` (RTE-1's check) both call through here. What a server lists is hostile: at most
`MAX_TOOLS` tools, `MAX_PROPERTIES` properties, names up to `NAME_CHARS`, `MAX_CALLS` calls per tool; answers
are kept to `ANSWER_CHARS` and quoted printable.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from conformance.calls.store import state_of
from conformance.core.differences import refusal
from conformance.core.jsontypes import JSON
from conformance.core.printable import safe
from conformance.core.protocol import PROTOCOL_VERSION, TOOL, tool_name
from conformance.core.words import cut_text
from conformance.drivers.errors import DriverError, ServerExited, ServerTimeout
from conformance.drivers.wire import Exchange, WireDriver

MAX_TOOLS: Final = 8
"""Other tools called per target (by name order); more are named, not called."""
MAX_PROPERTIES: Final = 12
"""Properties of a tool's schema given a value; the rest are left out."""
MAX_CALLS: Final = 3
"""Calls per tool: `{}`, its required properties, every listed property (fewer when two are alike)."""
NAME_CHARS: Final = 200
"""A listed tool name longer than this is not called."""
START_TIMEOUT: Final = 10.0
"""Seconds the start, the seed and the call after may take at least: only the tool's own call is held to
the caller's timeout, so a short one (a test of a tool that hangs) never reads a slow start as a hang."""
ANSWER_CHARS: Final = 600
"""An answer kept in a record, at most."""
QUOTE_CHARS: Final = 120
"""An answer quoted in a sentence, at most."""
RUN_QUOTE_CHARS: Final = 60
"""An answer quoted in RTE-1's failure, at most: a cause's headline repeats it within its 400 characters."""
BRANCH: Final = "probe-b"
"""The label the second seed thought is filed on, also the value given to a string property: a tool
reading a branch by its label finds one."""
THOUGHTS: Final = ("alpha seed thought", "beta seed thought")
"""The two seed thoughts' texts: a tool answering them back is said to read the store."""
SEED: Final[tuple[dict[str, JSON], ...]] = (
    {"thought": THOUGHTS[0], "thoughtNumber": 1, "totalThoughts": 3, "nextThoughtNeeded": True},
    {"thought": THOUGHTS[1], "thoughtNumber": 2, "totalThoughts": 3, "nextThoughtNeeded": True,
     "branchFromThought": 1, "branchId": BRANCH},
)
AFTER: Final[dict[str, JSON]] = {"thought": "after the tool", "thoughtNumber": 3, "totalThoughts": 3,
                                 "nextThoughtNeeded": False}
"""The call whose answer tells the store after the tool's call."""
UNREAD: Final = "(accepted, no count) "
"""Where a next call's answer was accepted but told no count (a port renaming its keys), not refused."""

Store = tuple[int, tuple[str, ...]]


@dataclass(frozen=True)
class ToolCall:
    """One call of another tool on a process of its own: what it answered and the store around it."""

    arguments: dict[str, JSON]
    kind: str
    """"accepted", "refused", "exited", "no answer", or "not called" (the seed was not accepted)."""
    answer: str
    before: Store | None
    after: Store | None
    after_answer: str = ""
    """The next sequentialthinking call's answer when it was not accepted."""
    reads: int = 0
    """How many of the seed thoughts' texts the answer holds."""

    def record(self) -> dict[str, JSON]:
        """As JSON, for a report's difference (`from_record` reads it back)."""
        def store(s: Store | None) -> JSON:
            return None if s is None else [s[0], list(s[1])]
        return {"arguments": self.arguments, "kind": self.kind, "answer": self.answer,
                "before": store(self.before), "after": store(self.after), "after_answer": self.after_answer,
                "reads": self.reads}


def from_record(record: JSON) -> ToolCall | None:
    """A `ToolCall.record()` read back from a report (hostile: each field checked), or None."""
    if not isinstance(record, dict):
        return None

    def store(value: JSON) -> Store | None:
        if isinstance(value, list) and len(value) == 2 and isinstance(value[0], int) and \
                not isinstance(value[0], bool) and isinstance(value[1], list):
            return value[0], tuple(str(x) for x in value[1][:64])
        return None

    args, reads = record.get("arguments"), record.get("reads")
    return ToolCall(args if isinstance(args, dict) else {}, str(record.get("kind", ""))[:20],
                    str(record.get("answer", ""))[:ANSWER_CHARS], store(record.get("before")),
                    store(record.get("after")), str(record.get("after_answer", ""))[:ANSWER_CHARS],
                    reads if isinstance(reads, int) and not isinstance(reads, bool) else 0)


# -- which tools, with what ----------------------------------------------------------------------------


def listed_tools(tools: Sequence[JSON] | None) -> dict[str, dict[str, JSON]]:
    """A tools/list answer's tools by name (the first of a name), names of 1 to `NAME_CHARS` characters."""
    out: dict[str, dict[str, JSON]] = {}
    for tool in tools or []:
        name = tool.get("name") if isinstance(tool, dict) else None
        if isinstance(tool, dict) and isinstance(name, str) and 0 < len(name) <= NAME_CHARS:
            out.setdefault(name, tool)
    return out


def added_tools(tools: Sequence[JSON] | None) -> list[tuple[str, JSON]]:
    """The tools a listing holds beyond the original's one, `sequentialthinking` or the tool listed under
    another name in its place (`tool_name`), (name, inputSchema), by name, at most `MAX_TOOLS`."""
    compared = {TOOL, tool_name(tools)}
    return [(name, tool.get("inputSchema")) for name, tool in sorted(listed_tools(tools).items())
            if name not in compared][:MAX_TOOLS]


def _value(schema: JSON) -> JSON:
    """One value of a property's declared type: its enum's first item, its minimum, the seed's label for a
    string (a tool reading a branch by label finds it), `false`, `[]`, `{}`."""
    if not isinstance(schema, dict):
        return BRANCH
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
    if isinstance(size, int) and not isinstance(size, bool) and len(BRANCH) < size <= 64:
        return BRANCH + "x" * (size - len(BRANCH))
    return BRANCH


def arguments(schema: JSON) -> list[dict[str, JSON]]:
    """What a tool is called with, each different, at most `MAX_CALLS`: `{}`, its required properties (the
    smallest arguments its schema asks for), every listed property."""
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
    return out[:MAX_CALLS]


# -- calling -------------------------------------------------------------------------------------------


def _text(exchange: Exchange) -> str:
    if exchange.error is not None:
        error = exchange.error
        return f"JSON-RPC error {error.get('code')}: {error.get('message')}"
    result = exchange.result
    if result is None:
        return "(no result)"
    content = result.get("content")
    texts = [str(item.get("text")) for item in content if isinstance(item, dict) and "text" in item] \
        if isinstance(content, list) else []
    return " ".join(" ".join(texts).split()) if texts else json.dumps(result, ensure_ascii=False)


def _store(exchange: Exchange) -> Store | None:
    try:
        state = state_of(exchange)
    except (AssertionError, DriverError, KeyError, ValueError):
        return None
    return state.history_length, state.branches


def call_alone(command: Sequence[str], env: Mapping[str, str], renames: Mapping[str, str] | None, name: str,
               args: dict[str, JSON], timeout: float) -> ToolCall:
    """`name` called with `args` on a new process of `command`, in a folder of its own, after the seed; the
    store before and after, and how it answered (a hang or an exit said as such)."""
    driver = WireDriver(command, env=env, timeout=max(timeout, START_TIMEOUT), renames=renames, own_home=True)
    with driver:
        return _called(driver, name, args, timeout)


def _called(driver: WireDriver, name: str, args: dict[str, JSON], timeout: float) -> ToolCall:
    before: Store | None = None
    try:
        driver.initialize(PROTOCOL_VERSION)
        for seed in SEED:
            seeded = driver.call_tool(TOOL, dict(seed))
            before = _store(seeded)
    except DriverError as exc:
        return ToolCall(args, "not called", cut_text(safe(str(exc)), ANSWER_CHARS), None, None)
    if before is None:
        why = ("the seed thoughts were not accepted" if refusal(seeded.response) is not None else
               "the seed thoughts' answers tell no thoughtHistoryLength and branches to compare with")
        return ToolCall(args, "not called", why, None, None)
    driver.timeout = timeout
    try:
        exchange = driver.call_tool(name, args)
    except ServerTimeout:
        return ToolCall(args, "no answer", f"no answer within {driver.timeout:g} s", before, None)
    except ServerExited:
        code = driver.returncode
        status = f" (status {code})" if code is not None else ""
        return ToolCall(args, "exited", f"the process exits{status}", before, None)
    except DriverError as exc:
        return ToolCall(args, "no answer", cut_text(safe(str(exc)), ANSWER_CHARS), before, None)
    text = _text(exchange)
    kind = "refused" if refusal(exchange.response) is not None else "accepted"
    reads = sum(1 for thought in THOUGHTS if thought in text)
    answer = cut_text(safe(text), ANSWER_CHARS)
    driver.timeout = max(timeout, START_TIMEOUT)
    try:
        following = driver.call_tool(TOOL, dict(AFTER))
    except DriverError as exc:
        return ToolCall(args, kind, answer, before, None, cut_text(safe(str(exc)), ANSWER_CHARS), reads)
    after = _store(following)
    said = "" if after is not None else cut_text(safe(_text(following)), ANSWER_CHARS)
    if after is None and refusal(following.response) is None:
        said = UNREAD + said
    return ToolCall(args, kind, answer, before, after, said, reads)


def call_tool(command: Sequence[str], env: Mapping[str, str], renames: Mapping[str, str] | None, name: str,
              schema: JSON, timeout: float) -> list[ToolCall]:
    """`name` called with each of `arguments(schema)`, each on a process of its own, until one hangs."""
    calls: list[ToolCall] = []
    for args in arguments(schema):
        calls.append(call_alone(command, env, renames, name, args, timeout))
        if calls[-1].kind == "no answer":
            break  # a tool that hangs costs a whole timeout per call: once is said
    return calls


# -- in words ------------------------------------------------------------------------------------------


def _code(text: str) -> str:
    return f"`{safe(text, NAME_CHARS)}`"


def _args(args: JSON) -> str:
    return cut_text(safe(json.dumps(args, ensure_ascii=False, separators=(", ", ": "))), 120)


def _entries(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"


def _branches(before: tuple[str, ...], after: tuple[str, ...]) -> str:
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


def _history(had: int, holds: int) -> str:
    if holds == had:
        return ""
    if holds <= 0:
        return "it empties the history"
    if holds < had:
        return f"it drops {_entries(had - holds)} from the history"
    return f"it adds {_entries(holds - had)} to the history"


def effect(call: ToolCall) -> str:
    """What one call did to the store, the verdict in parentheses last: "the history then holds 0 entries
    where it held 2 (it empties the history)". Read from the next sequentialthinking call, which files one
    entry itself."""
    if call.kind == "exited":
        return "the process exits" + call.answer.removeprefix("the process exits")
    if call.kind == "no answer":
        waited = call.answer.removeprefix("no answer ")
        return f"it does not answer {waited}" if waited != call.answer else f"it does not answer: {waited}"
    if call.before is None:
        return ""
    if call.after is None and call.after_answer.startswith(UNREAD):
        return "the next sequentialthinking call's answer tells no thoughtHistoryLength to compare with"
    if call.after is None:
        said = f" “{cut_text(call.after_answer, QUOTE_CHARS)}”" if call.after_answer else ""
        return f"the next sequentialthinking call is not accepted{said}"
    (had, labels_before), (now, labels_after) = call.before, call.after
    holds = now - 1
    history, branches = _history(had, holds), _branches(labels_before, labels_after)
    if not history and not branches:
        return f"the history unchanged ({_entries(holds)}), the branches too"
    shown = f"the history then holds {_entries(holds)} where it held {had}"
    if branches:
        shown += (f", branches {json.dumps(list(labels_after), ensure_ascii=False)} where "
                  f"{json.dumps(list(labels_before), ensure_ascii=False)} were")
    return f"{shown} ({' and '.join(p for p in (history, branches) if p)})"


def _answer(call: ToolCall, quote: int = QUOTE_CHARS) -> str:
    if call.kind == "accepted":
        held = "both" if call.reads == len(THOUGHTS) else "one"
        read = (f" (it holds {held} of the {len(THOUGHTS)} stored thoughts: it reads the store)"
                if call.reads else "")
        return f"answers “{cut_text(call.answer, quote)}”{read}"
    if call.kind == "refused":
        return f"refuses it “{cut_text(call.answer, quote)}”"
    if call.kind == "not called":
        return f"is not called: {cut_text(call.answer, quote)}"
    return ""


def sentence(name: str, calls: Sequence[ToolCall], where: str = "", quote: int = QUOTE_CHARS) -> str:
    """A tool's calls in one sentence: "`clear_history` (new on head), called with {} after two thoughts:
    answers “…”; the history then holds 0 entries where it held 2 (it empties the history)"; a second
    call to the same effect said so."""
    said: list[str] = []
    alike: list[str] = []
    previous = ("", "")
    for i, call in enumerate(calls):
        now = (_answer(call, quote), effect(call))
        if i and now == previous:
            alike.append(_args(call.arguments))
            continue
        if alike:
            said.append(f"called with {' and '.join(alike)}: to the same effect")
            alike = []
        parts = [p for p in now if p]
        after = " after two thoughts" if i == 0 else ""
        told = ": " + "; ".join(parts) if parts else ""
        said.append(f"called with {_args(call.arguments)}{after}{told}")
        previous = now
    if alike:
        said.append(f"called with {' and '.join(alike)}: to the same effect")
    opening = f"{_code(name)}{f' ({where})' if where else ''}, "
    return opening + "; ".join(said)


def _short(call: ToolCall) -> str:
    """The verdict of `effect` alone: "it empties the history", "the store unchanged"."""
    said = effect(call)
    if call.kind in ("exited", "no answer") or not said:
        return ""
    if said.startswith("the history unchanged"):
        return "the store unchanged"
    if said.endswith(")") and " (" in said:
        return said[said.rindex(" (") + 2:-1]
    return said


def _verb(call: ToolCall, args: str) -> str:
    if call.kind == "refused":
        return f"refuses {args}"
    if call.kind == "accepted":
        seeded = len(THOUGHTS)
        held = f"the {seeded}" if call.reads == seeded else f"{call.reads} of the {seeded}"
        return f"takes {args}" + (f" and answers with {held} stored thoughts" if call.reads else "")
    if call.kind == "exited":
        return f"exits on {args}"
    if call.kind == "no answer":
        return f"does not answer {args}" + (f" {call.answer.removeprefix('no answer ')}"
                                            if call.answer.startswith("no answer within") else "")
    return f"is not called with {args}"


def _listed(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def gist(name: str, calls: Sequence[ToolCall], where: str = "") -> str:
    """A tool's calls in one clause for a headline, no quotes and no "; ": "`add_note` (new on head),
    called after two thoughts, refuses {}, the store unchanged, and takes {"note": "probe-b"}, it adds 1
    entry to the history" ("takes": accepted with those arguments; what it answered is in the full
    sentence)."""
    groups: list[tuple[tuple[str, int, str], list[str], ToolCall]] = []
    for call in calls:
        key = (call.kind, call.reads, _short(call))
        if groups and groups[-1][0] == key:
            groups[-1][1].append(_args(call.arguments))
        else:
            groups.append((key, [_args(call.arguments)], call))
    said = [_verb(call, _listed(args)) + (f", {key[2]}" if key[2] else "") for key, args, call in groups]
    opening = f"{_code(name)}{f' ({where})' if where else ''}, called after two thoughts, "
    return opening + ", and ".join(said)


MARK: Final = "Each added tool called on a process of its own: "
"""Where RTE-1's check puts what each added tool does in its failure, for a cause's headline to find."""
IN_FULL: Final = " In full: "
"""Between the gists a headline repeats and the whole sentences the record's evidence keeps."""


def outside(message: str) -> str:
    """A check's failure without the words about its added tools: they tell other calls (a refusal of the
    tool's own, say), not what the check saw fail."""
    at = message.find(MARK.strip())
    return message if at < 0 else message[:at].rstrip(" ;,")


def said_in(messages: Sequence[str]) -> list[str]:
    """The tools' gists a check's failure holds after `MARK`, each once (a cause's headline repeats them)."""
    out: list[str] = []
    for message in messages:
        at = message.find(MARK)
        if at < 0:
            continue
        text = message[at + len(MARK):at + len(MARK) + 4000]
        text = text.split(IN_FULL, 1)[0].strip().removesuffix(".")
        if text and text not in out:
            out.append(text)
    return out


def what_they_do(command: Sequence[str], env: Mapping[str, str], renames: Mapping[str, str] | None,
                 tools: Sequence[JSON] | None, timeout: float) -> str:
    """RTE-1's words for the tools a listing adds to the original's one: `MARK`, each tool's `gist`, then
    `IN_FULL` and its `sentence`; "" when it adds none (nothing is started then)."""
    added = added_tools(tools)
    if not added:
        return ""
    called = [(name, call_tool(command, env, renames, name, schema, timeout)) for name, schema in added]
    return (MARK + "; ".join(gist(name, calls) for name, calls in called) + "." + IN_FULL
            + " ".join(sentence(name, calls, quote=RUN_QUOTE_CHARS) + "." for name, calls in called))


__all__ = [
    "ANSWER_CHARS",
    "MARK",
    "MAX_TOOLS",
    "SEED",
    "ToolCall",
    "added_tools",
    "arguments",
    "call_alone",
    "call_tool",
    "effect",
    "from_record",
    "listed_tools",
    "outside",
    "said_in",
    "sentence",
    "what_they_do",
]
