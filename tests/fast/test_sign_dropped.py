"""Numbers sent negative and answered as their absolute value are one change whichever field shows it (issue
42, fork-friendly-errors: OBJ-14's "thoughtNumber -3.5 sent, 3.5 answered" and OBJ-1/a1's "totalThoughts came
back 48865170245005110 … above totalThoughts -4.886517024500511e+16" led two causes of one change, and RTE-3's
line, the same change, sat under the missing-arguments cause). A record with a pair of its own showing that
cause's refusal stays there (test_cap_line_own_refusal)."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from conformance.gate.caps import SIGN_DROPPED, sign_dropped
from conformance.gate.evidence import _caps_met, held_by_caps
from tests.verdicts import cause, departing

magnitudes = st.one_of(st.integers(min_value=1, max_value=10**6).map(float),
                       st.floats(min_value=0.001, max_value=1e15, allow_nan=False))
"""Below 2**53, where a number and its successor are two JavaScript numbers."""


def _echo(field: str, value: float) -> str:
    """OBJ-14's line as suite/answers.py writes it (JavaScript's number text for both)."""
    sent, came = (repr(-value), repr(value)) if value != int(value) else (str(-int(value)), str(int(value)))
    return (f"OBJ-14 contradicted: {field} {sent} sent, {came} answered: the answer "
            f'{{ "{field}": {came}, "totalThoughts": 5 }}')


def _raised(total: float, number: int) -> str:
    """OBJ-1/a1's line (suite/coercion.py)."""
    return (f"totalThoughts came back {int(total)} for thoughtNumber {number} above totalThoughts "
            f"{-total!r}, where it is raised to the thoughtNumber")




@given(value=magnitudes, field=st.sampled_from(["thoughtNumber", "totalThoughts", "branchFromThought"]))
@example(value=14.0, field="thoughtNumber")  # "OBJ-14 contradicted: … -14.0 sent, 28.0 answered": the ID's 14
def test_a_number_answered_without_its_sign_is_read_from_its_line(value: float, field: str) -> None:
    assert sign_dropped(_echo(field, value))
    assert not sign_dropped(f"OBJ-14 contradicted: {field} {-value!r} sent, {value * 2!r} answered")
    assert not sign_dropped(f"{field} {-value!r} refused; thought {value!r} answered")


@given(total=st.integers(min_value=10**15, max_value=10**17).map(float), value=magnitudes)
def test_causes_led_by_lines_of_one_dropped_sign_are_onecause(total: float, value: float) -> None:
    number = int(total) - 7
    records = [departing("OBJ-14", _echo("thoughtNumber", value)),
               departing("RTE-8", "RTE-8 contradicted: protocol error instead of an isError result"),
               departing("OBJ-1/a1", _raised(total, number)),
               departing("RTE-3", _echo("thoughtNumber", 3.5))]
    assert [rv.id for rv in _caps_met(records)[SIGN_DROPPED]] == ["OBJ-14", "OBJ-1/a1", "RTE-3"]
    causes = [cause("OBJ-14", [], records[0].reason), cause("RTE-8", ["RTE-3"], records[1].reason),
              cause("OBJ-1/a1", [], records[2].reason)]
    verdicts = [rv.model_copy(update={"explained_by": "RTE-8" if rv.id == "RTE-3" else None})
                for rv in records]
    out, placed = held_by_caps(causes, verdicts)
    assert [c.records for c in out] == [["OBJ-14"], ["RTE-8"]]
    assert {rv.id: rv.explained_by for rv in placed} == {"OBJ-14": None, "RTE-8": None, "OBJ-1/a1": "OBJ-14",
                                                          "RTE-3": "OBJ-14"}
    assert "absolute value" in out[0].summary
