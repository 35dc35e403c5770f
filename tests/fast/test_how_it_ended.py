"""A process's end said in words: held-out-multi-11's ide-host never exits when stdin ends (a timer it never
clears), and RTE-10's line said "exit status None", a Python repr where a person reads "still running"."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.suite.test_lifecycle import how_it_ended


@given(status=st.one_of(st.none(), st.integers(-64, 255)), waited=st.sampled_from([0.5, 5.0]))
def test_an_end_is_said_without_a_python_repr(status: int | None, waited: float) -> None:
    said = how_it_ended(status, waited)
    assert "None" not in said, said
    if status is None:
        assert said.startswith("the process was still running") and f"{waited:g} s" in said, said
    elif status >= 0:
        assert said == f"exit status {status}", said
    else:
        assert said == f"ended by signal {-status}", said
