"""What a server offers beyond the tool, on a process of its own per side: the notifications and requests it
sends of its own during each class of call, and each resource and prompt it declares, listed and read after
a marked thought was stored. The original sends nothing unasked (LOOP-A) and offers no route to a stored
thought (ABS-2): a fork's warning on a raised totalThoughts or its history served as a resource is found
here, where the tool's answers alone never show it (issue 42)."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Final

from conformance.calls.listed import listed_reads
from conformance.compare.observe import Found
from conformance.compare.programs import Program, Step
from conformance.core.jsontypes import JSON
from conformance.core.printable import safe
from conformance.core.protocol import PROTOCOL_VERSION, TOOL
from conformance.core.words import first_and_more
from conformance.drivers.errors import DriverError
from conformance.drivers.transcript import Transcript
from conformance.drivers.wire import WireDriver
from conformance.targets.specs import Target

MARK: Final = "offered-mark-{}"
"""The stored thought's words, ASCII so that no escaping of a read hides them: a listed resource or prompt
whose read quotes them holds the store."""

SHOWN_CHARS: Final = 160
"""What a report quotes of one read, or of one message a server sent."""

SENT_KEPT: Final = 3
"""Messages a server sent during one call that are kept to be said; more are counted only."""


def _calls(mark: str) -> tuple[tuple[str, dict[str, JSON]], ...]:
    """The call classes, each one call, in the order sent: the first stores the marked thought."""
    def call(thought: str, number: int, total: int, more: bool, **extra: JSON) -> dict[str, JSON]:
        return {"thought": thought, "thoughtNumber": number, "totalThoughts": total,
                "nextThoughtNeeded": more, **extra}

    return (
        ("an accepted call", call(mark, 1, 3, True)),
        ("a call that raises totalThoughts", call("Step two needs more room.", 5, 3, True)),
        ("a revision", call("Revising step one.", 2, 5, True, isRevision=True, revisesThought=1)),
        ("a branch", call("Another way.", 2, 5, True, branchFromThought=1, branchId="alt")),
        ("a last thought", call("Done.", 5, 5, False)),
        ("a refused call", {"thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}),
    )


@dataclass(frozen=True)
class Listed:
    """One resource or prompt a side lists, and what reading it gave."""

    kind: str
    name: str
    text: str = ""
    holds_thought: bool = False
    refused: str = ""


@dataclass
class OfferedSide:
    """What one side sent unasked during each call class, and what it lists beyond the tool."""

    sent: dict[str, list[str]] = field(default_factory=dict)
    listed: list[Listed] = field(default_factory=list)
    mark: str = ""


@dataclass(frozen=True)
class Offered:
    """A difference in what two sides offer beyond the tool, and its sentence naming both sides."""

    found: Found
    sentence: str
    program: Program = ()


def _said(message: dict[str, JSON]) -> str:
    """One message a server sent, in one line: its method, a log level, and its words or parameters."""
    method = message.get("method")
    params = message.get("params")
    head = safe(str(method), 80)
    if "id" in message:
        head = f"the request {head}"
    if isinstance(params, dict):
        level = params.get("level")
        data = params.get("data", params.get("message"))
        if isinstance(level, str):
            head += f" ({safe(level, 20)})"
        if isinstance(data, str):
            return f"{head} “{safe(data, SHOWN_CHARS)}”"
        return f"{head} {safe(json.dumps(params, ensure_ascii=False, sort_keys=True), SHOWN_CHARS)}"
    return head


def _kind_of(said: str) -> str:
    """What two sides' messages are compared by: the method and level, not their words (numbers vary)."""
    return said.split(" “", 1)[0].split(" {", 1)[0]


def _sent(driver: WireDriver, arguments: dict[str, JSON]) -> tuple[list[str], bool]:
    """The messages the server sent of its own while answering one call and a ping after it, and whether it
    answered both; a call left unanswered (a server awaiting its own request's answer) keeps what it sent."""
    driver.unsolicited.clear()
    try:
        driver.call_tool(TOOL, arguments)
        driver.request("ping")
    except DriverError:
        return [_said(m) for m in driver.unsolicited], False
    return [_said(m) for m in driver.unsolicited], True


def _text_of(result: dict[str, JSON] | None) -> str:
    """The texts a read or get answered, joined: a resource's contents, a prompt's messages' content; the
    whole result as JSON when it holds neither."""
    if result is None:
        return ""
    parts = result.get("contents", result.get("messages"))
    if not isinstance(parts, list):
        return json.dumps(result, ensure_ascii=False)
    texts: list[str] = []
    for part in parts:
        inner = part.get("content", part) if isinstance(part, dict) else part
        text = inner.get("text") if isinstance(inner, dict) else None
        texts.append(text if isinstance(text, str) else json.dumps(inner, ensure_ascii=False))
    return "\n".join(texts)


def _read(driver: WireDriver, mark: str) -> list[Listed]:
    """Each item the side's declared listings hold, read (`calls/listed.py`), and whether the read quotes the
    marked thought."""
    out: list[Listed] = []
    for read in listed_reads(driver):
        if not read.name:
            continue
        error = read.exchange.response.get("error")
        refused = safe(json.dumps(error, ensure_ascii=False), SHOWN_CHARS) if error is not None else ""
        text = _text_of(read.exchange.result)
        shown = safe(" ".join(text.split()), SHOWN_CHARS)
        out.append(Listed(read.noun, safe(read.name, SHOWN_CHARS), shown, mark in text, refused))
    return out


def offered_side(target: Target, timeout: float, transcript: Transcript | None = None) -> OfferedSide:
    """One process: the call classes, each with what the server sent during it, then its declared resources
    and prompts listed and read. A side that fails part-way keeps what it showed before."""
    mark = MARK.format(uuid.uuid4().hex[:12])
    seen = OfferedSide(mark=mark)
    try:
        with target.wire(timeout=timeout, transcript=transcript) as driver:
            driver.initialize(PROTOCOL_VERSION)
            for label, arguments in _calls(mark):
                seen.sent[label], answered = _sent(driver, arguments)
                if not answered:
                    return seen
            seen.listed = _read(driver, mark)
    except DriverError:
        pass  # what it showed before it failed is kept; its failure is the search's and the probes' to say
    return seen


def _program(label: str, mark: str) -> Program:
    """The calls up to and including the class `label`'s, as a program a reader replays."""
    steps: list[Step] = []
    for each, arguments in _calls(mark):
        steps.append(Step(TOOL, arguments))
        if each == label:
            break
    return tuple(steps)


def _sends(said: list[str], label: str) -> str:
    return f"sends {first_and_more(said, SENT_KEPT)} when it answers {label}"


def _holds(item: Listed) -> str:
    if item.refused:
        return f"whose read is refused ({item.refused})"
    if item.holds_thought:
        return f"which holds the stored thought: “{item.text}”"
    return f"which holds “{item.text}”" if item.text else "which holds nothing"


def compare_offered(a: OfferedSide, b: OfferedSide, name_a: str, name_b: str) -> list[Offered]:
    """Each call class one side sends messages of its own during and the other not (or of other methods),
    and each resource or prompt one side lists and the other not, or lists holding the stored thought."""
    out: list[Offered] = []
    alike: dict[tuple[tuple[str, ...], tuple[str, ...]], list[str]] = {}
    for label in [k for k in a.sent if k in b.sent]:
        kinds = (tuple(sorted({_kind_of(x) for x in a.sent[label]})),
                 tuple(sorted({_kind_of(x) for x in b.sent[label]})))
        if kinds[0] != kinds[1]:
            alike.setdefault(kinds, []).append(label)
    for labels in alike.values():
        label = labels[0]
        sa, sb = a.sent[label], b.sent[label]
        every = len(labels) == len(a.sent) and len(labels) > 1
        when = "every call" if every else " and ".join(labels)
        said_a = _sends(sa, when) if sa else "sends none"
        said_b = _sends(sb, when) if sb else "sends none"
        first, second = (f"{name_b} {said_b}", f"{name_a} {said_a}") if sb else (
            f"{name_a} {said_a}", f"{name_b} {said_b}")
        where = "every call" if every else label.removeprefix("a ").removeprefix("an ")
        found = Found("notifications", where, "", "sent", "; ".join(sa) or "none", "; ".join(sb) or "none",
                      False)
        out.append(Offered(found, f"{first}; {second}", _program(label, b.mark if sb else a.mark)))
    names_a = {(i.kind, i.name): i for i in a.listed}
    names_b = {(i.kind, i.name): i for i in b.listed}
    for key in sorted(set(names_a) | set(names_b)):
        ia, ib = names_a.get(key), names_b.get(key)
        if ia is not None and ib is not None and ia.holds_thought == ib.holds_thought:
            continue
        kind, name = key
        shown_a = f"{kind} {name}, {_holds(ia)}" if ia is not None else f"no {kind} {name}"
        shown_b = f"{kind} {name}, {_holds(ib)}" if ib is not None else f"no {kind} {name}"
        first, second = (f"{name_b} offers {shown_b}", f"{name_a} offers {shown_a}") if ib is not None else (
            f"{name_a} offers {shown_a}", f"{name_b} offers {shown_b}")
        aspect = "prompts" if kind == "prompt" else "resources"
        found = Found(aspect, name, "", "listed", shown_a, shown_b, False)
        program = _program("an accepted call", b.mark if ib else a.mark)
        out.append(Offered(found, f"{first}; {second}", program))
    return out


__all__ = ["Listed", "Offered", "OfferedSide", "compare_offered", "offered_side"]
