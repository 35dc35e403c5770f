"""A failure that names the record it contradicts, where the check that failed is that record's.

Tests lean on behaviours besides the records they evidence (the count grows by one, a box is drawn in
CMP-5's form, a call passing the guards is accepted). When one of those checks fails, the test says which
record's expectation it just saw broken, and root causes (gate/rootcauses.py) take that record as the
cause of the failure instead of guessing it from the test's declarations.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Final, cast

from conformance.catalog.records import default_catalog
from conformance.core.differences import json_differences, word_difference
from conformance.core.jsontypes import JSON
from conformance.core.served import read_served
from conformance.core.words import first_and_more

BRIEF_CHARS = 200
"""A value quoted in a failure's one-line message is cut here (the whole answer goes with `describe`)."""


class Contradiction(AssertionError):
    """An assertion that failed on a named record's expectation; a failure like any other otherwise."""

    def __init__(self, record: str, message: str) -> None:
        default_catalog().require([record])
        super().__init__(f"{record} contradicted: {message}")
        self.record = record


Message = str | Callable[[], str]
"""A failure's message, or what makes it: a message that quotes a whole answer comes as a callable, made only
on failure (most calls of a run pass through the checks)."""


def said(message: Message) -> str:
    """The text of a `Message`."""
    return message if isinstance(message, str) else message()


def brief(value: object, limit: int = BRIEF_CHARS) -> str:
    """A value as the server wrote it (JSON, keys in the server's order; Python's repr for what JSON cannot
    say), cut at `limit` with '…' so a message stays one line."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


README_SHIPPED_LINES: Final = 63
"""The line breaks in npm:0.6.2's README.md (CMP-7)."""


def file_lines(name: str, lines: Sequence[str], expected: Sequence[tuple[int, str]],
               shipped: int = README_SHIPPED_LINES) -> str:
    """How an installed text file (`lines`: its text split at line breaks) departs from the original's, in
    file terms: its length against the original's, each expected line (1-based) that is not where the
    original has it, and where it is now."""
    parts = [f"{name}: {len(lines) - 1} lines where the original ships {shipped}"]
    for number, text in expected:
        here = lines[number - 1] if 0 < number <= len(lines) else None
        if here == text:
            continue
        moved = [i + 1 for i, line in enumerate(lines) if line == text]
        where = f"at line {moved[0]} here" if moved else "absent here"
        parts.append(f"line {number} is {brief(here, 60)}, where the original has {brief(text, 60)} "
                     f"({where})")
    return "; ".join(parts)


def first_difference(one: Sequence[object], two: Sequence[object], item: str = "answer") -> str:
    """Where two sequences the same calls produced part: the first differing item of each, with the fields
    that differ when both are JSON answers (a `timestamp` in every error answer made two processes differ,
    and the whole answers quoted never showed it: nalyk/sequentialthinking, reports/third-party/AUDIT.md),
    the words that differ when both are texts or bytes (a stderr), or their lengths."""
    for index, (a, b) in enumerate(zip(one, two, strict=False), start=1):
        if a != b:
            fields = _fields_apart(a, b)
            if fields:
                return f"{item} {index} differs in {fields}"
            if isinstance(a, (bytes, str)) and isinstance(b, (bytes, str)) and (
                    isinstance(a, bytes) or isinstance(b, bytes) or max(len(a), len(b)) > BRIEF_CHARS):
                was, now = word_difference(_text(a), _text(b))
                return f"{item} {index} reads {was}, then {now}"
            return f"{item} {index} is {brief(a)}, then {brief(b)}"
    return f"{len(one)} {item}s, then {len(two)}"


def _text(value: bytes | str) -> str:
    """What a process wrote, as text: UTF-8, a byte that is not escaped (never Python's `b'…'` repr, whose
    escapes hid a French log line's accents and whose start, shared by both, hid where two stderrs part)."""
    return value.decode("utf-8", "backslashreplace") if isinstance(value, bytes) else value


def _fields_apart(a: object, b: object) -> str:
    """The fields two JSON answers differ in, each with both values ("" when they are not both objects or
    the difference is not field by field), the first two named."""
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return ""
    found = json_differences(cast(JSON, a), cast(JSON, b))
    if not found or any(d.sentence or not d.path for d in found):
        return ""
    return first_and_more([f"{d.path}: {d.original}, then {d.target}" for d in found], 2, sep="; ",
                          more="; and {} more field(s)")


def expect(record: str, condition: bool, message: Message) -> None:
    """Assert `condition`, part of `record`'s expectation; its failure names the record."""
    if not condition:
        raise Contradiction(record, said(message))


def contradicted(exc: BaseException | None) -> list[str]:
    """The records a test's failure names, in the order found (exception groups searched)."""
    if exc is None:
        return []
    if isinstance(exc, Contradiction):
        return [exc.record]
    if isinstance(exc, BaseExceptionGroup):
        return list(dict.fromkeys(r for e in exc.exceptions for r in contradicted(e)))
    return []


_ENDED_BY: Final = "ends_a_process"
"""The attribute a failure read after its check ended the process carries (`after_the_end`)."""


@contextmanager
def after_the_end(how: str) -> Iterator[None]:
    """Failures raised inside are read after the check ended the process, `how`: `stdin` (it ended its stdin),
    `stdout` (it closed its stdout) or the signal it sent (`SIGTERM`). The mark reaches report.json
    (`ended_by`, a test's `ends_a_process`), and the gate says by it that no replay of requests reproduces
    them (gate/evidence `unreplayable`), never by the failure's words."""
    try:
        yield
    except AssertionError as exc:
        setattr(exc, _ENDED_BY, how)
        raise


def ended_by(exc: BaseException | None) -> str:
    """How the check had ended the process when it raised `exc` (`after_the_end`): the first mark found
    (exception groups searched), empty for a failure raised before, or outside, any end."""
    if exc is None:
        return ""
    how = getattr(exc, _ENDED_BY, "")
    if isinstance(how, str) and how:
        return how
    if isinstance(exc, BaseExceptionGroup):
        return next((h for e in exc.exceptions if (h := ended_by(e))), "")
    return ""


_LEFT_IDLE: Final = "left_idle"
"""The attribute a failure read after its check left the process idle carries (`while_idle`)."""


@contextmanager
def while_idle(seconds: float) -> Iterator[None]:
    """Failures raised inside are what a process did while left idle `seconds` after its last call (it wrote,
    sent or ended): the mark reaches report.json (`idled`, a test's `left_idle`), and the gate confirms them
    on its idle witness, a fresh process of each side held idle the same fixed while, never by the search's
    waits (issue 43: a 2.5 s heartbeat seen only when pooled processes happened to idle that long)."""
    try:
        yield
    except AssertionError as exc:
        setattr(exc, _LEFT_IDLE, round(max(seconds, 0.0), 3))
        raise


def idled(exc: BaseException | None) -> float | None:
    """How long the check had left the process idle when it raised `exc` (`while_idle`), the first mark found
    (exception groups searched); None for a failure raised outside any idle watch."""
    if exc is None:
        return None
    seconds = getattr(exc, _LEFT_IDLE, None)
    if isinstance(seconds, float):
        return seconds
    if isinstance(exc, BaseExceptionGroup):
        return next((s for e in exc.exceptions if (s := idled(e)) is not None), None)
    return None


def expect_not_own_message(message: object, due: str) -> None:
    """A message carrying a method on the server's stdout is a request or notification of its own, where a
    response was `due`: LOOP-A's "the server never sends a request or notification of its own", whichever
    check was reading."""
    if isinstance(message, dict) and "method" in message:
        kind = "request" if "id" in message else "notification"
        raise Contradiction("LOOP-A", f"the server sent a {kind} of its own, {brief(message)}, where {due}; "
                                      f"the original never sends one")


def stdout_message(line: bytes, due: str) -> object:
    """A stdout line read as JSON; one that is not JSON contradicts CMP-4 ("nothing else is written to
    stdout"), whichever check was reading where `due` says what it awaited."""
    try:
        return read_served(line, "stdout line")
    except ValueError:
        shown = brief(line.decode("utf-8", "replace"))
        raise Contradiction("CMP-4", f"stdout line is not JSON: {shown}, where {due}; the original writes "
                                     f"nothing but JSON-RPC to stdout") from None


def expect_no_own_line(line: bytes | None, due: str) -> None:
    """A stdout line read where nothing was `due` (only silence): a message of the server's own is LOOP-A's,
    whichever check was listening; anything else is left to the caller's own check."""
    if line is None or not line.lstrip().startswith(b"{"):
        return
    try:
        message = read_served(line, "stdout line")
    except ValueError:
        return
    expect_not_own_message(message, due)


def response_line(line: bytes, due: str) -> object:
    """A stdout line read where a response was `due`: JSON (else CMP-4's) and no message of the server's own
    (else LOOP-A's)."""
    message = stdout_message(line, due)
    expect_not_own_message(message, due)
    return message
