"""Answers each call, then writes its stderr after the answer, as bartoszkula-ts (a third-party fork) does: no
box, but every thought so far echoed back (so a thought holding a border character, ─, puts one in every
call's stderr), its last line left open at the answer and ended a moment after it.

--late-box MS: instead, a box in the original's form for the call, its top and body written before the
answer and its bottom MS milliseconds after it (a box reaching the pipe late under load, split), the echo of
every thought so far beneath it.
"""

import json
import sys
import time

from mini import Message, reply, serve

thoughts: list[str] = []


def _box(thought: str) -> tuple[bytes, bytes]:
    border = "─" * (len(thought) + 2)
    return f"┌{border}┐\n│ {thought} │\n".encode(), f"└{border}┘\n".encode()


def _echo() -> bytes:
    lines = "".join(f"T{number} {json.dumps(thought, ensure_ascii=False)}\n"
                    for number, thought in enumerate(thoughts, 1))
    return f"\n=== Thought Timeline ===\n{lines}Progress: {len(thoughts)} thoughts\n".encode()


def _write(data: bytes) -> None:
    sys.stderr.buffer.write(data)
    sys.stderr.buffer.flush()


def answer_call(message: Message) -> None:
    thought = str(message["params"]["arguments"].get("thought", ""))
    thoughts.append(thought)
    answer = {"content": [{"type": "text", "text": json.dumps({"thoughtNumber": len(thoughts)})}]}
    echo = _echo()
    if "--late-box" in sys.argv:
        top, bottom = _box(thought)
        _write(top)
        reply(message, answer)
        time.sleep(int(sys.argv[sys.argv.index("--late-box") + 1]) / 1000)
        _write(bottom + echo)
        return
    cut = echo.index(b"T1 ") + 4  # in the first thought: the answer finds a line open, the rest comes late
    _write(echo[:cut])
    reply(message, answer)
    time.sleep(0.01)
    _write(echo[cut:])


_write(b"Sequential Thinking MCP Server running on stdio\n")
serve(answer_call)
