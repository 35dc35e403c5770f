"""Initializes properly, then answers tools/call with a stdout line that is not JSON-RPC.

--json: the line is valid JSON but not a JSON-RPC message.
--then-answer: the line is a log line ("[digest] N thoughts", as held-out-multi-10's fork-digest writes), and
  the call's real answer follows it: a stdio client reads past the line to the answer.
--by-thought: the call's thought says what follows the log line: "garbage", no answer; "late S", the answer
  after S seconds; anything else, the answer at once (a server whose stray lines are sometimes answered).
--two-lines: two different lines that are not JSON ("first stray line", then "second stray line") and no
  answer: the call fails naming the first, in either driver.
"""

import sys
import time

from mini import Message, answer_call, serve

calls = 0


def garbage(message: Message) -> None:
    global calls
    calls += 1
    if "--by-thought" in sys.argv:
        thought = str(message["params"].get("arguments", {}).get("thought", ""))
        sys.stdout.buffer.write(f"[log] call {calls}: {thought}\n".encode())
        sys.stdout.buffer.flush()
        if thought == "garbage":
            return
        if thought.startswith("late "):
            time.sleep(float(thought.split()[1]))
        answer_call(message)
        return
    if "--then-answer" in sys.argv:
        sys.stdout.buffer.write(f"[digest] {calls} thoughts, next digest at {calls + 5}\n".encode())
        sys.stdout.buffer.flush()
        answer_call(message)
        return
    if "--two-lines" in sys.argv:
        sys.stdout.buffer.write(b"first stray line\nsecond stray line\n")
        sys.stdout.buffer.flush()
        return
    line = b'{"hello": "world"}\n' if "--json" in sys.argv else b"this is not json at all\n"
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()


serve(garbage)
