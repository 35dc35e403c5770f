"""The reference server with one change a fork makes, named by the first argument:

- `renamed`: tools/list names the tool `think`; a call to `sequentialthinking` is still answered (a call to
  `think` is an unknown tool's);
- `fenced`: every answer of the tool (accepted or refused) is its JSON inside a markdown code fence,
  "```json\\n" + the original's text + "\\n```";
- `stringified`: a failure's error is the exception stringified whole, `String(error)`: "Error: Invalid
  thought: must be a string", "TypeError: Cannot read properties of undefined (reading 'thought')";
- `logged`: every refused call also writes "Error processing thought: " + its error message as one stderr line
  before it is answered (as the held-out readable-output fork does): a call owing no box that writes stderr.

Everything else is the reference's, so every other record must hold on it.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Mapping
from typing import Any

from reference_server import startup


def main() -> None:
    change = sys.argv[1] if len(sys.argv) > 1 else ""
    server = startup.server_module()
    from reference_server import thinking

    if change == "renamed":
        listed = server.load_tool_spec

        def renamed() -> Any:
            return dataclasses.replace(listed(), name="think")

        server.load_tool_spec = renamed  # type: ignore[attr-defined]
    elif change == "fenced":
        process = thinking.SequentialThinkingServer.process_thought

        def fenced(self: thinking.SequentialThinkingServer,
                   arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
            text, is_error = process(self, arguments)
            return "```json\n" + text + "\n```", is_error

        thinking.SequentialThinkingServer.process_thought = fenced  # type: ignore[method-assign]
    elif change == "stringified":
        error_text = thinking.error_text

        def stringified(message: str) -> str:
            typed = message.startswith("Cannot read") or "is not a function" in message
            name = "TypeError" if typed else "Error"
            return error_text(f"{name}: {message}")

        thinking.error_text = stringified
    elif change == "logged":
        processed = thinking.SequentialThinkingServer.process_thought

        def logged(self: thinking.SequentialThinkingServer,
                   arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
            text, is_error = processed(self, arguments)
            if is_error:
                said = json.loads(text).get("error", text)
                self._write_stderr(f"Error processing thought: {said}\n".encode())
            return text, is_error

        thinking.SequentialThinkingServer.process_thought = logged  # type: ignore[method-assign]
    else:
        sys.exit(f"usage: reference_fork.py renamed|fenced|stringified|logged, not {change!r}")
    sys.exit(server.run())


if __name__ == "__main__":
    main()
