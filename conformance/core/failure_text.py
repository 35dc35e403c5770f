"""A failure's text as a maintainer reads it: the check's own words, none of pytest's or Python's wrapping.

The plugin cleans what a test raised before it becomes data (`core/results.py`); the gate cleans again what
an older results file holds. Writers then show the message whole in a block, or `one_line` of it.
"""

from __future__ import annotations

import re
from typing import Final

from hypothesis.errors import Flaky

MESSAGE_CHARS: Final = 4000
"""A failure's message is kept up to this length (a whole answer quoted in it fits)."""

_EXCEPTION_PREFIX: Final = re.compile(
    r"^(?:(?:[A-Za-z_][\w.]*\.)?(?:AssertionError|Contradiction|SpecDeparture|Failed|[A-Z]\w*(?:Error|Exception))"
    r"|conformance\.[\w.]*\.[A-Z]\w*)(?:\(\))?: ?",
)
"""An exception's class before its message: Python's and pytest's, and any of the harness's own."""
_KEY_ERROR: Final = re.compile(r"^(?:builtins\.)?KeyError: (.+)$")
_OBJECT_REPR: Final = re.compile(r"<(?:[\w.]+\.)?(\w+) object at 0x[0-9a-fA-F]+>")
_ADDRESS: Final = re.compile(r"\s*at 0x[0-9a-fA-F]+")
_HARNESS_OBJECT: Final = re.compile(
    r"\b(?:ServerSession|Target|Transcript|_RunState|Spare|LabelServer|FreshRunner|RawPool|SdkDriver|"
    r"WireDriver|Evidence|SnapshotAssertion|TargetIndependentSnapshot)\("
)
_SNAPSHOT_ASSERT: Final = re.compile(r"(?:assert )?\[\+ received\] == \[- snapshot\]")
_PYTEST_EXPLANATION: Final = re.compile(r"^assert ")
_PYTEST_WHERE: Final = re.compile(r"^\s*\+\s+where\s+(.+?)\s+=\s+([A-Za-z_][\w.]*\(.*)$")
"""pytest's explanation of a value by the call that made it: `+  where False = isinstance(x, dict)`."""
_BARE_VALUE: Final = re.compile(r"^(?:False|None|0|''|\[\]|\{\}|\(\))$")
"""A bare assert's whole comparison when it compared nothing: the falsy value its condition came to."""
_OLD_FALLBACK: Final = "the check's comparison failed: "
"""How this module said a bare assert before, kept in results files the plugin wrote then."""
_NO_WORDS: Final = "the check's condition did not hold"
_WHERE_CHARS: Final = 300
_ARGUMENT_LINE: Final = re.compile(r"^\s{2,}(\w+)=(.*?),?\s*$")


def readable(text: str) -> str:
    """The message without the exception's class, pytest's assertion rewriting or object reprs."""
    lines = text.strip().splitlines()
    if not lines:
        return ""
    missing = _KEY_ERROR.match(lines[0])
    if missing:
        lines[0] = f"no key {missing.group(1)} where the check read one"
    lines[0] = _EXCEPTION_PREFIX.sub("", lines[0])
    # pytest's rewriting follows the message, from its first "assert ..." line on.
    explanation = next((i for i, line in enumerate(lines) if _PYTEST_EXPLANATION.match(line)), len(lines))
    own = lines[:explanation]
    if not "".join(own).strip():
        # A bare `assert` with no message (an older harness's check): pytest's rewriting is all there is.
        own = [_bare_assert(lines[0].strip().removeprefix("assert "), lines[1:])]
    elif len(own) == 1 and own[0].startswith(_OLD_FALLBACK):
        compared = own[0].removeprefix(_OLD_FALLBACK).strip()
        own = [_NO_WORDS if _BARE_VALUE.match(compared) else own[0]]
    out = "\n".join(own).strip()
    out = _SNAPSHOT_ASSERT.sub("the served value differs from the original's snapshot", out)
    out = _OBJECT_REPR.sub(r"<\1>", out)
    out = _ADDRESS.sub("", out)
    return out[:MESSAGE_CHARS]


def _bare_assert(compared: str, explanation: list[str]) -> str:
    """What a bare assert's failure says: the comparison when it compared values; when its condition was a
    bare falsy value, the call pytest says made it, else only that the condition did not hold."""
    if compared and not _BARE_VALUE.match(compared):
        return _OLD_FALLBACK + compared
    for line in explanation:
        where = _PYTEST_WHERE.match(line)
        if where:
            call = where.group(2).strip()
            call = call if len(call) <= _WHERE_CHARS else call[: _WHERE_CHARS - 1] + "…"
            return f"{_NO_WORDS}: {call} is {where.group(1)}"
    return _NO_WORDS


def readable_example(text: str) -> str:
    """Hypothesis' falsifying example without the fixtures it was handed (a server session is no input)."""
    kept = []
    for line in text.splitlines():
        argument = _ARGUMENT_LINE.match(line)
        if argument and (_HARNESS_OBJECT.search(argument.group(2)) or " object at 0x" in argument.group(2)):
            continue
        kept.append(line)
    out = _OBJECT_REPR.sub(r"<\1>", "\n".join(kept))
    return _ADDRESS.sub("", out)


def one_line(text: str, limit: int | None = None) -> str:
    """The whole message on one line (its lines joined with ' ⏎ '), cut only at `limit` with '…'."""
    joined = " ⏎ ".join(part.strip() for part in text.strip().splitlines() if part.strip())
    if limit is not None and len(joined) > limit:
        joined = joined[: max(limit - 1, 0)] + "…"
    return joined


UNRELIABLE = "unreliable: an example failed, then passed when run again"
"""A flaky example's message, until a fresh process reproduces the departure (`gate/evidence.py` then says
so instead: the shared process's state, not the server, made the second run pass)."""


def raised_message(exc: BaseException, exconly: str) -> str:
    """What a check raised, in its own words (`readable` of pytest's `exconly`); for an example hypothesis
    saw fail once and pass when run again, what it failed with, never the test's arguments' reprs."""
    if isinstance(exc, Flaky):
        inner = exc.exceptions if isinstance(exc, BaseExceptionGroup) else ()
        first = next((readable(str(e)) for e in inner if readable(str(e))), "")
        return UNRELIABLE + (f": {first}" if first else "")
    return readable(exconly)
