"""Changes no check read before round 15 (issue 42, held-out-multi-9), each now named under the record that
states it, on real reference processes (tests/servers/reference_fork.py):

- a result key the original never sends (`structuredContent`, MCP 2025-06-18 on; fork-mcp-modern): OBJ-4 for
  an accepted call, OBJ-8 for a refusal;
- a line written beside a box drawn otherwise (a "[warn]" line after a long thought's box whose header also
  changed; fork-thought-metrics): LOOP-A, where the box's own difference stays CMP-5's;
- an argument the served schema itself declares, sent across its declared range (a confidence below 0.5
  planning one more thought, one past 1 refused; fork-confidence-scores): RTE-4 and RTE-3, by OBJ-13's
  declared-argument checks.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.probes import PROBES, RANGE_PLACES, declared_values
from conformance.suite import test_absences, test_lifecycle, test_store, test_validation
from conformance.suite.answers import ACCEPTED_RESULT_KEYS, REFUSED_RESULT_KEYS, unsent_result_keys
from conformance.suite.contradiction import Contradiction
from conformance.suite.rawproc import RawPool
from conformance.suite.render_box import expect_render
from conformance.suite.session import ServerSession
from conformance.targets.specs import resolve_target
from tests.servers import VALID, fork_target, session_on

LONG = next(probe.envelope for probe in PROBES if probe.shape == "a very long thought")
"""The probe every probed property sends (some 10,000 UTF-16 units): past the 2,000 a fork warns at."""


def _session(change: str | None) -> AbstractContextManager[ServerSession]:
    target = fork_target(change) if change else resolve_target(
        "cmd:" + shlex.join([sys.executable, "-m", "reference_server"]))
    return session_on(target, 20.0)


@pytest.fixture
def reference() -> Iterator[ServerSession]:
    with _session(None) as session:
        yield session


def test_the_keys_the_original_sends_are_none_unsent() -> None:
    assert unsent_result_keys({"content": []}, ACCEPTED_RESULT_KEYS) == ""
    assert unsent_result_keys({"content": [], "isError": True}, REFUSED_RESULT_KEYS) == ""
    said = unsent_result_keys({"content": [], "isError": False, "_meta": {"a": 1}}, ACCEPTED_RESULT_KEYS)
    assert said.startswith("isError: false, _meta: {") and "a" in said, said


def _shapes(session: ServerSession) -> None:
    """OBJ-4's and OBJ-8's shape checks, each on one call (their hypothesis-free bodies)."""
    test_store.test_status_object_shape.hypothesis.inner_test(  # type: ignore[attr-defined]
        server=session, envelope=LONG)
    test_validation.test_error_object_shape.hypothesis.inner_test(  # type: ignore[attr-defined]
        server=session, arguments={**VALID, "thought": ""})


def test_the_reference_answers_no_key_the_original_never_sends(reference: ServerSession) -> None:
    _shapes(reference)


def test_structured_content_departs_obj_4_and_obj_8() -> None:
    with _session("structured") as session:
        carried = r"result carries structuredContent: \{"
        with pytest.raises(Contradiction, match="accepted call's " + carried) as one:
            test_store.test_status_object_shape.hypothesis.inner_test(  # type: ignore[attr-defined]
                server=session, envelope=LONG)
        assert one.value.record == "OBJ-4", one.value
        with pytest.raises(Contradiction, match="refusal's " + carried) as two:
            test_validation.test_error_object_shape.hypothesis.inner_test(  # type: ignore[attr-defined]
                server=session, arguments={**VALID, "thought": ""})
        assert two.value.record == "OBJ-8", two.value


def _render(session: ServerSession) -> None:
    arguments = LONG.arguments()
    expect_render(session.call(arguments), arguments, session)


def test_the_reference_draws_a_long_thought_alone(reference: ServerSession) -> None:
    _render(reference)


@pytest.mark.parametrize(("change", "record"), [
    ("word-count", "CMP-5"), ("word-count+long-warning", "LOOP-A"), ("long-warning", "LOOP-A")])
def test_a_warning_line_beside_a_box_departs_loop_a_whatever_the_box(change: str, record: str) -> None:
    """A box whose header changed is CMP-5's alone; a "[warn]" line after it is LOOP-A's, with or without
    the header's change (before round 15 the line went unread when the box differed)."""
    with _session(change) as session:
        with pytest.raises(Contradiction) as raised:
            _render(session)
        assert raised.value.record == record, raised.value
        if record == "LOOP-A":
            assert "[warn] thought 2 is " in str(raised.value), raised.value


# -- an argument the served schema declares, across its range ---------------------------------------------

_bounds = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@given(low=_bounds, width=st.floats(min_value=0.001, max_value=1e6),
       kind=st.sampled_from(["number", "integer"]))
def test_values_are_picked_inside_then_past_the_declared_range(low: float, width: float, kind: str) -> None:
    schema = {"type": kind, "minimum": low, "maximum": low + width}
    (inside,), (top,), (past,) = (declared_values(schema, place) for place in RANGE_PLACES)
    assert isinstance(inside, int | float) and isinstance(top, int | float) and isinstance(past, int | float)
    assert low <= inside <= low + width + 1 and top == pytest.approx(low + width, abs=1)
    assert past > low + width


def test_a_schema_that_is_no_schema_gives_no_value() -> None:
    for junk in (None, [], "number", {"type": "object"}, {"type": ["array", "null"]}, {"maximum": "1"}):
        assert declared_values(junk, RANGE_PLACES[2]) == [], junk
    assert declared_values({"type": "number", "minimum": 0, "maximum": 1}, "anywhere") == []
    assert declared_values({"enum": ["a", "b"]}, RANGE_PLACES[1]) == ["b"]


_PLACES = (test_absences.test_an_extra_declared_argument_low_in_its_range_changes_nothing,
           test_absences.test_an_extra_declared_argument_at_the_top_of_its_range_changes_nothing,
           test_absences.test_an_extra_declared_argument_past_its_range_changes_nothing)


def test_the_reference_declares_nothing_more_and_holds(reference: ServerSession) -> None:
    for check in _PLACES:
        check(server=reference)


def test_a_declared_confidence_read_in_part_of_its_range_departs_where_it_is_read() -> None:
    """Below 0.5 one more thought is planned (RTE-4's total, or its amendment's "only the two numbers"); 1.0
    changes nothing; 1.5 is refused (RTE-3)."""
    with _session("confidence") as session:
        with pytest.raises(Contradiction) as low:
            _PLACES[0](server=session)
        assert low.value.record in ("RTE-4", "RTE-4/a1"), low.value
        assert "totalThoughts 4, not 3" in str(low.value), low.value
        _PLACES[1](server=session)
        with pytest.raises(Contradiction) as past:
            _PLACES[2](server=session)
        assert past.value.record == "RTE-3" and "Invalid confidence" in str(past.value), past.value


# -- a thought holding an unpaired surrogate ---------------------------------------------------------------


def _guards(session: ServerSession) -> None:
    """RTE-3's guard check on the one call its explicit example sends."""
    test_validation.test_guards_decide_acceptance.hypothesis.inner_test(  # type: ignore[attr-defined]
        server=session, arguments={**VALID, "thought": test_validation.UNPAIRED_SURROGATE})


def test_rte_3s_check_sends_an_unpaired_surrogate() -> None:
    check = test_validation.test_guards_decide_acceptance
    sent = [dict(e.kwargs) for e in check.hypothesis_explicit_examples]  # type: ignore[attr-defined]
    assert any(e["arguments"].get("thought") == test_validation.UNPAIRED_SURROGATE for e in sent)


def test_the_reference_accepts_an_unpaired_surrogate(reference: ServerSession) -> None:
    _guards(reference)


def test_a_fork_refusing_an_unpaired_surrogate_departs_rte_3() -> None:
    with _session("surrogate-refused") as session:
        with pytest.raises(Contradiction) as raised:
            _guards(session)
        assert raised.value.record == "RTE-3" and "malformed Unicode" in str(raised.value), raised.value


# -- LOOP-A's own check: a long thought among its calls ----------------------------------------------------


def _loop_a(change: str | None) -> None:
    """LOOP-A's one-response check on a raw process of the server (and its shared process)."""
    with _session(change) as session:
        pool = RawPool()
        try:
            test_lifecycle.test_one_response_per_request_and_nothing_else(
                target=session.target, raw_pool=pool, server=session)
        finally:
            pool.close()


def test_loop_as_check_holds_on_the_reference_with_a_long_thought() -> None:
    _loop_a(None)


def test_a_warning_line_after_a_long_thoughts_box_departs_loop_a_on_its_own_check() -> None:
    with pytest.raises(AssertionError, match=r"\[warn\] thought 3 is 3023 characters long"):
        _loop_a("long-warning")


def test_a_refusal_in_another_shape_names_obj_8_not_rte_8() -> None:
    """The refusal's error JSON with other keys (here an envelope; held-out-multi-9's `failures` count) is
    OBJ-8's ("without counters"), where the shape check's plain assertion departed RTE-8 as much, and the
    cause was headed "RTE-8 departs"."""
    with _session("enveloped") as session:
        with pytest.raises(Contradiction) as raised:
            test_validation.test_error_object_shape.hypothesis.inner_test(  # type: ignore[attr-defined]
                server=session, arguments={**VALID, "thought": ""})
        assert raised.value.record == "OBJ-8" and "more than error, status" in str(raised.value), raised.value
