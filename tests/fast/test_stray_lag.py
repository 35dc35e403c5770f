"""The learned stray-line grace (`drivers/stray_lag.py`): what any sequence of answers and unanswered waits
leaves each command's grace at. The drivers' use of it is in test_wire_driver.py and test_sdk_driver.py."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.drivers.lateness import Lateness
from conformance.drivers.stray_lag import (
    LAG_FACTOR,
    SHORT_GRACE,
    STRAY_GRACE,
    UNANSWERED_AFTER,
    StrayLag,
)

COMMANDS = (("garbage",), ("prints", "then", "answers"))
seconds = st.floats(min_value=0.0, max_value=10.0, allow_nan=False)
notes = st.lists(st.tuples(st.sampled_from(COMMANDS), st.sampled_from(("answer", "unanswered")), seconds),
                 max_size=12)


@given(notes)
def test_the_grace_is_whole_until_a_wait_ran_out_then_four_times_the_lag_learned(
    sequence: list[tuple[tuple[str, ...], str, float]],
) -> None:
    strays = StrayLag()
    for command, what, waited in sequence:
        (strays.note_answer if what == "answer" else strays.note_unanswered)(command, waited)
    for command in COMMANDS:
        mine = [(what, waited) for c, what, waited in sequence if c == command]
        lag = max((waited for what, waited in mine if what == "answer"), default=0.0)
        ran_out = any(what == "unanswered" and waited >= UNANSWERED_AFTER for what, waited in mine)
        grace = strays.grace(command)
        assert SHORT_GRACE <= grace <= STRAY_GRACE
        assert strays.lag(command) == lag
        assert grace == (min(STRAY_GRACE, max(SHORT_GRACE, LAG_FACTOR * lag)) if ran_out else STRAY_GRACE)


def test_a_port_that_prints_before_each_answer_keeps_the_whole_grace() -> None:
    """Answers after stray lines alone never shorten it (ports.py's print mode, fork-digest's log line); a
    stray line just before a call's own deadline is no wait that ran out; an answer half a second late keeps
    it whole after one did."""
    strays = StrayLag()
    for _ in range(50):
        strays.note_answer(("prints",), 0.001)
    strays.note_unanswered(("prints",), UNANSWERED_AFTER / 2)
    assert strays.grace(("prints",)) == STRAY_GRACE
    strays.note_unanswered(("prints",), STRAY_GRACE)
    assert strays.grace(("prints",)) == SHORT_GRACE
    strays.note_answer(("prints",), 0.5)
    assert strays.grace(("prints",)) == STRAY_GRACE


def test_a_runs_lateness_carries_one_learner_for_all_its_drivers() -> None:
    """Each run its own (a pytest worker's next run learns afresh), every driver of a run the same one."""
    first, second = Lateness(), Lateness()
    first.strays.note_unanswered(("garbage",), STRAY_GRACE)
    assert first.strays.grace(("garbage",)) == SHORT_GRACE
    assert second.strays.grace(("garbage",)) == STRAY_GRACE
