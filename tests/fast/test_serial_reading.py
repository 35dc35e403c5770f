"""A mechanism read into a count only when the serial reading rules the store out (issue 42,
held-out-multi-19's fork-backtracking-store): LOOP-A said "the cancelled call was taken back" and LOOP-B
"the long call was processed after the ones sent behind it" of a fork whose only change is that a final
thought is not kept. The same calls sent one at a time, in order, none cancelled, on a fresh process, count
alike there, so neither check departs; a fork that truly drops a cancelled call or defers a long one still
departs in those words, its store changed beside it or not."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.servers import command, suite_outcomes

LOOP_A = "test_a_cancelled_call_is_kept"
LOOP_B = "test_calls_written_behind_a_long_one_are_processed_after_it"
MECHANISM_WORDS = ("cancel", "taken back", "not kept", "processed after", "order")

CASES = [
    # fork, LOOP-A's words (None: holds), LOOP-B's words (None: holds)
    ("final-unkept", None, None),
    ("cancel-honoured", "the cancelled call was not kept", None),
    ("cancel-honoured:final-unkept", "the cancelled call was not kept", None),
    ("deferred-long", None, "the long call was processed after the ones sent behind it"),
    ("deferred-long:final-unkept", None, "the long call was processed after the ones sent behind it"),
]


@pytest.mark.parametrize(("fork", "loop_a", "loop_b"), CASES, ids=[case[0] for case in CASES])
def test_a_count_the_store_explains_is_no_mechanism(tmp_path: Path, fork: str, loop_a: str | None,
                                                    loop_b: str | None) -> None:
    target = "cmd:" + shlex.join(command("reference_fork", fork))
    seen = suite_outcomes("test_lifecycle.py", [LOOP_A, LOOP_B], target, tmp_path)
    for check, said in ((LOOP_A, loop_a), (LOOP_B, loop_b)):
        status, message = seen[check]
        if said is None:
            assert status == "passed", (check, message)
            assert not any(word in message for word in MECHANISM_WORDS), message
        else:
            assert status == "failed", (check, seen)
            assert said in message, message
