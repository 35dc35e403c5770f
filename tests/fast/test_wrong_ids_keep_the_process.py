"""A fork answering a request under another id (LOOP-A: "24" answered as 24) keeps its long-lived process in
compare: the wrong-id answer is read and its request abandoned, so the stream stays in step, and a process
restarted after each such call cost a start per call and lost the store the program built. A real process:
tests/servers/reference_fork.py's `digit-ids`."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.compare.pair import EMPTY, Side
from conformance.compare.programs import Step, valid
from tests.servers import fork_target


@settings(max_examples=3, deadline=None)
@given(st.lists(st.integers(1, 999).map(str), min_size=2, max_size=4))
def test_wrong_id_answers_keep_the_process_and_its_store(ids: list[str]) -> None:
    side = Side(fork_target("digit-ids"), 20.0)
    try:
        said = [side.step(Step(arguments=valid(), request_id=i), EMPTY) for i in ids]
        assert all(o.kind == "wrong id" for o in said), said
        after = side.step(Step(arguments=valid()), EMPTY)
    finally:
        side.close()
    assert side.starts == 1 and side.restarts == 0, (side.starts, side.restarts)
    assert after.store is not None and after.store[0] == len(ids) + 1, after  # every call was filed


@settings(max_examples=2, deadline=None)
@given(st.integers(2, 4))
def test_a_probe_answered_under_another_id_keeps_the_process(programs: int) -> None:
    """The probe `Side.base` sends before every program, answered under another id (`number-ids`: 7 as "7"),
    leaves the process in step as any call so answered does: one start for every program."""
    side = Side(fork_target("number-ids"), 20.0)
    try:
        for _ in range(programs):
            side.base()
    finally:
        side.close()
    assert side.starts == 1 and side.restarts == 0, (side.starts, side.restarts)
