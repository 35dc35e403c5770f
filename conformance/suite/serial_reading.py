"""The serial reading of a check about the loop's mechanism (LOOP-A's cancellation, LOOP-B's order): the
same calls sent one at a time, in order, none cancelled, on a fresh process. A count that a store rule moves
(a final thought not kept, a label dropped) moves the same way there, so it is no evidence of a call taken
back or processed out of order: only a count the serial reading does not give is (held-out-multi-19's
fork-backtracking-store read "the cancelled call was taken back" and "the long call was processed after the
ones sent behind it" into a final thought its store does not keep)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.suite.contradiction import brief
from conformance.suite.fresh_runs import state_of_answer
from conformance.suite.rawproc import RawPool
from conformance.targets.specs import Target


@dataclass(frozen=True)
class SerialReading:
    """thoughtHistoryLength answered to each call sent alone, in order, on a fresh process; `refused` says the
    first call it did not accept (then `counts` stops before it)."""

    counts: tuple[int, ...]
    refused: str | None = None

    def steps(self, start: int, end: int) -> int | None:
        """How far the count moved from call `start`'s answer to call `end`'s; None when one was refused."""
        if self.refused is not None or end >= len(self.counts):
            return None
        return self.counts[end] - self.counts[start]

    def offsets(self) -> list[int] | None:
        """Each call's count less the first call's; None when a call was refused."""
        if self.refused is not None or not self.counts:
            return None
        return [count - self.counts[0] for count in self.counts]

    def said(self) -> str:
        """The reading in words, for a departure that stands on it."""
        if self.refused is not None:
            return f"sent one at a time on a fresh process, a call was refused ({self.refused})"
        return (f"sent one at a time, in order, none cancelled, on a fresh process, the same calls are "
                f"answered thoughtHistoryLength {', '.join(str(c) for c in self.counts)}")


def read_serially(raw_pool: RawPool, target: Target, calls: Sequence[dict[str, JSON]]) -> SerialReading:
    """`calls` (tool arguments) sent one at a time on a process nothing was written to, each answered before
    the next is sent; the process goes back to the pool a used one."""
    counts: list[int] = []
    with raw_pool.lend(target, pristine=True, discard_stderr=True, any_stderr=True) as raw:
        raw.initialize()
        for arguments in calls:
            answer = raw.request("tools/call", {"name": TOOL, "arguments": arguments})
            result = answer.get("result")
            if not isinstance(result, dict) or result.get("isError") is True:
                return SerialReading(tuple(counts), brief(answer))
            counts.append(state_of_answer(answer).history_length)
    return SerialReading(tuple(counts))
