"""The reference server with the changes a real third-party fork combines, each named by an argument
(issue 42: nalyk-ts, bartoszkula-ts, reports in /work/r11-audit):

- `cap-history=N`: the history keeps the last N thoughts, so thoughtHistoryLength stops growing at N;
- `cap-branches=M`: a call opening an (M+1)th branch label is refused, “Maximum number of branches (M)
  exceeded”;
- `reword-thought`: the thought guard says “Invalid thought: must be a non-empty string”;
- `answer-key`: every accepted answer carries `"phase": "Analysis"` after the original's keys;
- `no-box`: stderr gets “Thought analysis: <thought>” on each accepted call, never the box;
- `poisoned`: once a call filed under a label naming an Object.prototype member was stored (the original
  refuses that call too: “this.branches[…].push is not a function”), every later call is appended and refused
  with “branches[thought.branchId].push is not a function” (the fork regroups the whole history each call);
- `max-thought=N`: a thought longer than N characters is refused, “Invalid thought: must be between 1 and N
  characters” (nalyk-ts: 10,000);
- `integer-numbers`: a number field that is not a positive integer is refused, “Invalid <field>: must be a
  positive integer” (nalyk-ts);
- `revision-pair`: a truthy isRevision without revisesThought is refused, “revisesThought is required when
  isRevision is true” (nalyk-ts);
- `render-logged`: a render that throws (isRevision with revisesThought {"toString": 1}) no longer fails the
  call: it is answered as accepted and stderr gets “Render failed: <message>” instead of a box
  (held-out-multi-7's async-logger renders after the answer and logs the failure);
- `revision-ledger`: a call with isRevision true (the boolean) is answered with `"revisionsOfThought": N`
  after the original's keys (N the retained revisions, this one included), and thoughtHistoryLength leaves
  every retained revision out (held-out-multi-10's revision-ledger: both show on one revision's answer);
- `enveloped`: an accepted answer is {"ok": true, "result": <the status object>} and a call of another tool
  {"ok": false, "error": {"code": "UNKNOWN_TOOL", "message": "Unknown tool: <name>"}} (held-out-multi-7's
  api-envelope);
- `snake-answers`: an accepted answer's keys are thought_number, total_thoughts, next_thought_needed,
  branches, thought_history_length (same values, same order: held-out-multi-11's toolkit port).

Everything else is the reference's.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from typing import Any

from reference_server import startup

PUSH = "branches[thought.branchId].push is not a function"


class _Capped(list[Any]):
    """A history that drops its oldest thought past `cap`."""

    cap = 0

    def append(self, item: Any) -> None:
        super().append(item)
        if len(self) > self.cap:
            del self[0]


NUMBERS = ("thoughtNumber", "totalThoughts", "revisesThought", "branchFromThought")


def _limit_refusal(changes: Mapping[str, str], arguments: Mapping[str, Any]) -> str:
    """The refusal of a call the original accepted by a limit the fork adds (`max-thought`, `integer-numbers`,
    `revision-pair`), else empty."""
    thought = arguments.get("thought")
    limit = int(changes.get("max-thought") or 0)
    if limit and isinstance(thought, str) and len(thought) > limit:
        return f"Invalid thought: must be between 1 and {limit} characters"
    if "integer-numbers" in changes:
        for field in NUMBERS:
            value = arguments.get(field)
            if (isinstance(value, int | float) and not isinstance(value, bool)
                    and not (float(value).is_integer() and value > 0)):
                return f"Invalid {field}: must be a positive integer"
    if "revision-pair" in changes and arguments.get("isRevision") and "revisesThought" not in arguments:
        return "revisesThought is required when isRevision is true"
    return ""


def main() -> None:
    changes = dict(arg.partition("=")[::2] for arg in sys.argv[1:])
    server = startup.server_module()
    from reference_server import thinking
    from reference_server.jsvalue import JSError, truthy

    cls = thinking.SequentialThinkingServer
    process, status, validate = cls.process_thought, cls._status_text, thinking.validate_thought_data
    poisoned: list[bool] = []

    if "reword-thought" in changes:
        def reworded(data: Mapping[str, Any] | None) -> Any:
            try:
                return validate(data)
            except JSError as error:
                if error.message == "Invalid thought: must be a string":
                    raise JSError("Invalid thought: must be a non-empty string") from None
                raise

        thinking.validate_thought_data = reworded

    def changed(self: Any, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        if "cap-history" in changes and not isinstance(self.thought_history, _Capped):
            capped = _Capped(self.thought_history)
            capped.cap = int(changes["cap-history"])
            self.thought_history = capped
        try:
            data = thinking.validate_thought_data(arguments)
        except JSError:
            return process(self, arguments)
        limited = _limit_refusal(changes, arguments or {})
        if limited:
            return thinking.error_text(limited), True
        if poisoned:
            self.thought_history.append(data)
            return thinking.error_text(PUSH), True
        label = arguments.get("branchId") if arguments is not None else None
        limit = int(changes.get("cap-branches") or 0)
        opened = list(self.branches.keys())
        if (limit and truthy(data.branchFromThought) and isinstance(label, str) and label not in opened
                and len(opened) >= limit):
            return thinking.error_text(f"Maximum number of branches ({limit}) exceeded"), True
        text, is_error = process(self, arguments)
        if "poisoned" in changes and is_error and "is not a function" in text:
            poisoned.append(True)
        return text, is_error

    cls.process_thought = changed  # type: ignore[method-assign]

    if "answer-key" in changes:
        def keyed(self: Any, data: Any) -> str:
            return status(self, data).removesuffix("\n}") + ',\n  "phase": "Analysis"\n}'

        cls._status_text = keyed  # type: ignore[method-assign]
    if "revision-ledger" in changes:
        def ledger(self: Any, data: Any) -> str:
            revisions = sum(1 for t in self.thought_history if getattr(t, "isRevision", None) is True)
            text = re.sub(r'"thoughtHistoryLength": (\d+)',
                          lambda m: f'"thoughtHistoryLength": {int(m.group(1)) - revisions}',
                          status(self, data))
            if getattr(data, "isRevision", None) is True:
                text = text.removesuffix("\n}") + f',\n  "revisionsOfThought": {revisions}\n}}'
            return text

        cls._status_text = ledger  # type: ignore[method-assign]
    if "enveloped" in changes:
        def wrapped(self: Any, data: Any) -> str:
            return '{"ok": true, "result": ' + status(self, data) + "}"

        def unknown(name: str) -> str:
            error = {"code": "UNKNOWN_TOOL", "message": f"Unknown tool: {name}"}
            return json.dumps({"ok": False, "error": error})

        cls._status_text = wrapped  # type: ignore[method-assign]
        server.unknown_tool_text = unknown  # type: ignore[attr-defined]
    if "snake-answers" in changes:
        def snaked(self: Any, data: Any) -> str:
            def snake(key: re.Match[str]) -> str:
                return re.sub(r"([A-Z])", lambda c: "_" + c.group(1).lower(), key.group(0))

            return re.sub(r'"[a-z]+[A-Z][A-Za-z]*":', snake, status(self, data))

        cls._status_text = snaked  # type: ignore[method-assign]
    if "render-logged" in changes:
        render = cls.format_thought

        def logged(self: Any, data: Any) -> str:
            try:
                return render(self, data)
            except JSError as error:
                return f"Render failed: {error.message}"

        cls.format_thought = logged  # type: ignore[method-assign]
    if "no-box" in changes:
        def analysis(self: Any, data: Any) -> str:
            return f"\nThought analysis: {data.thought}"

        cls.format_thought = analysis  # type: ignore[method-assign]
    sys.exit(server.run())


if __name__ == "__main__":
    main()
