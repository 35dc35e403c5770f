"""The original's `SequentialThinkingServer` (dist/index.js of 0.6.2), statement for statement.

One process-global, unbounded store (every validated thought is kept; `branches` is a plain object
used as a map), falsy-guard validation, upward-only coercion of totalThoughts, branch bookkeeping
with the plain-object semantics of `jsvalue.PlainObject`, the stderr box, and the JSON texts with
indent 2. Every side effect happens in the original's order, so a call that throws half-way leaves
exactly the state the original leaves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from reference_server.colour import Prefixes
from reference_server.jsvalue import (
    INVALID_STRING_LENGTH,
    MAX_STRING_LENGTH,
    UNDEFINED,
    JSError,
    JSRangeError,
    JSValue,
    PlainObject,
    cannot_read,
    json_number,
    json_quote,
    not_a_function,
    number_to_string,
    to_double,
    to_string,
    truthy,
    utf8_bytes,
    utf16_len,
)

PUSH_CALL_SITE: Final = "this.branches[validatedInput.branchId].push"


@dataclass(slots=True)
class ThoughtData:
    """validateThoughtData's return value: the four checked fields and the five unchecked ones."""

    thought: str
    thoughtNumber: float
    totalThoughts: float
    nextThoughtNeeded: bool
    isRevision: JSValue
    revisesThought: JSValue
    branchFromThought: JSValue
    branchId: JSValue
    needsMoreThoughts: JSValue


def _field(data: Mapping[str, Any], key: str) -> JSValue:
    value: JSValue = data.get(key, UNDEFINED)
    return value


def validate_thought_data(data: Mapping[str, Any] | None) -> ThoughtData:
    """validateThoughtData: `!x || typeof x !== ...` guards, in the original's order."""
    if data is None:
        raise cannot_read(UNDEFINED, "thought")
    thought = data.get("thought", UNDEFINED)
    if type(thought) is not str or thought == "":
        raise JSError("Invalid thought: must be a string")
    number = data.get("thoughtNumber", UNDEFINED)
    kind = type(number)
    if (kind is not int and kind is not float) or not truthy(number):
        raise JSError("Invalid thoughtNumber: must be a number")
    total = data.get("totalThoughts", UNDEFINED)
    kind = type(total)
    if (kind is not int and kind is not float) or not truthy(total):
        raise JSError("Invalid totalThoughts: must be a number")
    next_needed = data.get("nextThoughtNeeded", UNDEFINED)
    if type(next_needed) is not bool:
        raise JSError("Invalid nextThoughtNeeded: must be a boolean")
    return ThoughtData(
        thought,
        to_double(number),
        to_double(total),
        next_needed,
        _field(data, "isRevision"),
        _field(data, "revisesThought"),
        _field(data, "branchFromThought"),
        _field(data, "branchId"),
        _field(data, "needsMoreThoughts"),
    )


def error_text(message: str) -> str:
    """The catch block's text: JSON.stringify({error, status: 'failed'}, null, 2)."""
    return '{\n  "error": ' + json_quote(message) + ',\n  "status": "failed"\n}'


def _check_length(length: int) -> None:
    if length > MAX_STRING_LENGTH:
        raise JSRangeError(INVALID_STRING_LENGTH)


def _len16(text: str) -> int:
    return len(text) if text.isascii() else utf16_len(text)


class SequentialThinkingServer:
    """The process-global state and processThought, returning (content[0].text, isError)."""

    def __init__(self, prefixes: Prefixes, write_stderr: Callable[[bytes], None]) -> None:
        self.thought_history: list[ThoughtData] = []
        self.branches = PlainObject()
        self._prefixes = prefixes
        self._prefix_lengths = (
            utf16_len(prefixes.revision),
            utf16_len(prefixes.branch),
            utf16_len(prefixes.thought),
        )
        self._write_stderr = write_stderr
        self._branches_version = -1
        self._branches_json = "[]"
        self._branches_json_length = 2

    def process_thought(self, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        """processThought: a success text, or the catch block's error text with isError."""
        try:
            data = validate_thought_data(arguments)
            if data.thoughtNumber > data.totalThoughts:
                data.totalThoughts = data.thoughtNumber
            self.thought_history.append(data)
            if truthy(data.branchFromThought) and truthy(data.branchId):
                key = to_string(data.branchId)
                entry = self.branches.get(key)
                if entry is UNDEFINED:
                    self.branches.set(key, [])
                    entry = self.branches.get(key)
                if type(entry) is not list:
                    raise not_a_function(PUSH_CALL_SITE)
                entry.append(data)
            box = self.format_thought(data)
            self._write_stderr(utf8_bytes(box + "\n"))
            return self._status_text(data), False
        except JSError as error:
            return error_text(error.message), True

    def format_thought(self, data: ThoughtData) -> str:
        """formatThought: the box console.error prints (without console.error's newline)."""
        prefixes = self._prefixes
        if truthy(data.isRevision):
            prefix, prefix_length = prefixes.revision, self._prefix_lengths[0]
            revises = to_string(data.revisesThought)
            context = f" (revising thought {revises})"
        elif truthy(data.branchFromThought):
            prefix, prefix_length = prefixes.branch, self._prefix_lengths[1]
            origin = to_string(data.branchFromThought)
            branch_id = to_string(data.branchId)
            context = f" (from thought {origin}, ID: {branch_id})"
        else:
            prefix, prefix_length = prefixes.thought, self._prefix_lengths[2]
            context = ""
        rest = f" {number_to_string(data.thoughtNumber)}/{number_to_string(data.totalThoughts)}{context}"
        header_length = prefix_length + _len16(rest)
        thought = data.thought
        thought_length = _len16(thought)
        width = max(header_length, thought_length) + 4
        _check_length(4 * width + header_length + 18)
        border = "─" * width
        padding = " " * (width - 2 - thought_length)
        return (
            f"\n┌{border}┐\n│ {prefix}{rest} │\n├{border}┤\n│ {thought}{padding} │\n└{border}┘"
        )

    def _status_text(self, data: ThoughtData) -> str:
        branches = self.branches
        if branches.version != self._branches_version:
            keys = branches.keys()
            if keys:
                quoted = [json_quote(key) for key in keys]
                self._branches_json = "[\n    " + ",\n    ".join(quoted) + "\n  ]"
            else:
                self._branches_json = "[]"
            self._branches_json_length = _len16(self._branches_json)
            self._branches_version = branches.version
        text = (
            '{\n  "thoughtNumber": '
            + json_number(data.thoughtNumber)
            + ',\n  "totalThoughts": '
            + json_number(data.totalThoughts)
            + ',\n  "nextThoughtNeeded": '
            + ("true" if data.nextThoughtNeeded else "false")
            + ',\n  "branches": '
            + self._branches_json
            + ',\n  "thoughtHistoryLength": '
            + str(len(self.thought_history))
            + "\n}"
        )
        _check_length(len(text) - len(self._branches_json) + self._branches_json_length)
        return text


def unknown_tool_text(name: str) -> str:
    """The CallTool handler's text for any other tool name."""
    return f"Unknown tool: {name}"
