"""The deterministic probes (calls/probes.py, issue 43): what they send, who sends them, and how a departure
they reached is told apart from one the search reached."""

from __future__ import annotations

import importlib
import inspect
import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import suite
from conformance.calls.probes import (
    BOUNDARY_PROBES,
    FAR_AHEAD,
    PROBE_ATTRIBUTE,
    PROBES,
    TEXT_ENVELOPES,
    TEXT_PROBES,
    WHITESPACE_PROBES,
    Probe,
    probe_of,
)
from conformance.calls.strategies import BOUNDARY_ATTRIBUTE, Envelope, envelopes
from conformance.core.js import js_double
from conformance.core.jsontypes import JSON
from conformance.core.results import Counterexample, TestOutcome, TranscriptEvent
from conformance.gate.verdicts import reached_by_probes
from conformance.suite import (
    test_absences,
    test_claims,
    test_coercion,
    test_dispatch,
    test_errors,
    test_render,
    test_store,
    test_validation,
)
from conformance.suite.jsvalues import coerced_total, guard_failure
from conformance.suite.served_schema import schema_valid
from tests.servers.reference_fork import JS_WHITESPACE

PROBED = {
    "RTE-4": test_coercion.test_total_raised_to_thought_number,
    "OBJ-1/a1": test_coercion.test_sent_total_survives_nowhere,
    "OBJ-4": test_store.test_status_object_shape,
    "RTE-7, OBJ-14": test_store.test_three_fields_echo_the_request,
    "RTE-5": test_store.test_identical_calls_each_retained,
    "BAP-2": test_store.test_answers_are_information_only,
    "ABS-10": test_absences.test_no_scheduler,
    "ABS-3": test_absences.test_answers_do_not_depend_on_content,
    "ABS-2": test_absences.test_no_route_returns_a_stored_thought,
    "ABS-7": test_absences.test_needs_more_thoughts_changes_nothing,
    "RTE-8": test_errors.test_missing_arguments_is_an_error_result,
    "RTE-3/a1": test_validation.test_next_thought_needed_is_a_type_check_only,
    "BAP-4/a1, OBJ-10": test_validation.test_only_four_fields_enforced,
    "RTE-2": test_dispatch.test_unknown_names_get_an_error_result,
    "OBJ-15": test_store.test_derived_fields_follow_the_store,
    "CMP-5": test_render.test_box_format,
    "RTE-8/a1 (a prototype key)": test_errors.test_error_answer_after_retention,
    "RTE-8/a1 (a revision render)": test_errors.test_render_failure_after_retention,
    "RTE-8/a1 (a branch render)": test_errors.test_label_recorded_before_the_render_fails,
}
"""The checks that send the probes first: the records a thoughtNumber skipping ahead hid behind (RTE-4,
OBJ-1/a1, RTE-5 on hardened-inputs under dev seed 1; ABS-3 through the relay under seed 11), the other
properties of one accepted call, every property carrying the boundary examples, and RTE-8/a1's three checks
putting an envelope beside a field the original throws on after validation (strict-schema: a blank thought
there is refused first "in other words", reached by the search under some seeds only)."""


def test_every_probe_is_a_call_the_original_accepts() -> None:
    for probe in PROBES:
        arguments = probe.envelope.arguments()
        assert schema_valid(arguments), probe
        assert guard_failure(arguments) is None, probe


def test_the_probes_hold_each_shape_on_any_process() -> None:
    """A thoughtNumber of FAR_AHEAD skips ahead of any history a run builds; 1 goes back on a used one."""
    shapes = [p.shape for p in PROBES]
    assert len(set(shapes)) == len(shapes)
    by_shape = {p.shape: p.envelope for p in PROBES}
    assert by_shape["a thoughtNumber skipping ahead of the history"].thought_number >= FAR_AHEAD
    below = by_shape["totalThoughts below thoughtNumber"]
    assert below.thought_number >= FAR_AHEAD and below.total_thoughts < below.thought_number
    assert by_shape["a thoughtNumber going back"].thought_number == 1
    for probe in WHITESPACE_PROBES:
        assert probe in PROBES and probe.envelope.thought and not probe.envelope.thought.strip(JS_WHITESPACE)
    blanks = "".join(p.envelope.thought for p in WHITESPACE_PROBES)
    assert {" ", "\t", "\n", "\r", "\u00a0", "\u3000", "\ufeff"} <= set(blanks)
    assert len(by_shape["a very long thought"].thought) >= 10_000
    largest = by_shape["the largest safe integer above its total"]
    assert largest.thought_number == 2**53 - 1 and coerced_total(largest.thought_number, 3) == 2**53 - 1


@pytest.mark.parametrize("records", sorted(PROBED))
def test_the_checks_send_the_probes_before_their_search(records: str) -> None:
    test = PROBED[records]
    assert getattr(test, PROBE_ATTRIBUTE, False), records
    sent = [e.kwargs.get("envelope") for e in getattr(test, "hypothesis_explicit_examples", [])]
    for probe in PROBES:
        if records == "OBJ-1/a1" and js_double(probe.envelope.thought_number) <= js_double(
                probe.envelope.total_thoughts):
            assert probe.envelope not in sent  # its search draws only a number above the total
            continue
        assert probe.envelope in sent, (records, probe.shape)


def test_every_check_with_the_boundary_examples_sends_the_probes() -> None:
    folder = Path(suite.__file__).resolve().parent
    for module in (importlib.import_module(f"conformance.suite.{p.stem}") for p in folder.glob("test_*.py")):
        for name in dir(module):
            test = getattr(module, name)
            if name.startswith("test_") and getattr(test, BOUNDARY_ATTRIBUTE, False):
                assert getattr(test, PROBE_ATTRIBUTE, False), f"{module.__name__}.{name}"


def _outcome(*calls: dict[str, JSON], failed: bool = True) -> TestOutcome:
    frames = [TranscriptEvent(kind="sent", t=0.0, data=json.dumps(
        {"jsonrpc": "2.0", "id": n, "method": "tools/call",
         "params": {"name": "sequentialthinking", "arguments": call}})) for n, call in enumerate(calls)]
    return TestOutcome(nodeid="t", records=["RTE-4"], status="failed" if failed else "passed",
                       counterexample=Counterexample(falsifying="x", exchange=frames))


@given(index=st.integers(0, len(PROBES) + len(BOUNDARY_PROBES) - 1), more=st.booleans(),
       extra=st.dictionaries(st.sampled_from(["branchId", "isRevision"]), st.booleans(), max_size=2))
def test_a_probe_is_known_by_its_thought_and_numbers(index: int, more: bool, extra: dict[str, JSON]) -> None:
    """A check may send a probe with nextThoughtNeeded false first, or with optional fields of its own."""
    probe = (*PROBES, *BOUNDARY_PROBES)[index]
    envelope = probe.envelope
    arguments = Envelope(envelope.thought, envelope.thought_number, envelope.total_thoughts, more).arguments(
        **extra)
    assert probe_of(arguments) == probe
    assert reached_by_probes([_outcome({"thought": "before"}, arguments)]) == [probe.shape]


@given(envelope=envelopes)
def test_a_drawn_call_is_a_probe_only_when_it_sends_one(envelope: Envelope) -> None:
    found = probe_of(envelope.arguments())
    if found is None:
        assert reached_by_probes([_outcome(envelope.arguments())]) == []
    else:
        sent = (envelope.thought, envelope.thought_number, envelope.total_thoughts)
        assert sent == (found.envelope.thought, found.envelope.thought_number, found.envelope.total_thoughts)


@given(thought=st.text(min_size=1, max_size=20))
def test_the_far_ahead_probes_are_known_by_their_numbers_whatever_the_thought(thought: str) -> None:
    """ABS-3's check sends a probe's numbers with thoughts of its own."""
    for probe in PROBES:
        envelope = probe.envelope
        arguments = Envelope(thought, envelope.thought_number, envelope.total_thoughts, True).arguments()
        far = FAR_AHEAD in (envelope.thought_number, envelope.total_thoughts, envelope.thought_number - 1)
        assert (probe_of(arguments) == probe) if far else (probe_of(arguments) in (None, probe))


def test_a_record_is_reached_by_the_probes_only_when_each_failing_check_failed_on_one() -> None:
    probe = PROBES[0].envelope.arguments()
    drawn = Envelope("drawn", 1044, 1, False).arguments()
    assert reached_by_probes([_outcome(probe), _outcome(probe)]) == [PROBES[0].shape]
    assert reached_by_probes([_outcome(probe), _outcome(drawn)]) == []
    assert reached_by_probes([_outcome(drawn)]) == []
    assert reached_by_probes([]) == []
    no_example = TestOutcome(nodeid="t", records=["RTE-4"], status="failed")
    assert reached_by_probes([no_example]) == []


def test_the_text_probes_carry_each_shape_and_the_claims_checks_send_them() -> None:
    """Hashtags, a URL, markdown, line breaks, emoji, numbers and Hebrew and Arabic, each in a thought the
    original accepts, sent by every probed property (above) and by CLM-3's and CLM-5's checks, whose
    searches draw no such text under most seeds (held-out-multi-5's hashtags fork)."""
    said = {p.shape: p.envelope.thought for p in TEXT_PROBES}
    assert re.search(r"#\w", said["a thought carrying hashtags"])
    assert "https://" in said["a thought carrying a URL"]
    assert "**" in said["a thought in markdown"] and "](" in said["a thought in markdown"]
    assert "\n" in said["a thought over several lines"]
    assert any(ord(c) > 0xFFFF for c in said["a thought carrying emoji"])
    assert re.search(r"\d", said["a thought carrying numbers"])
    rtl = said["a thought in right-to-left scripts"]
    assert re.search("[\u0590-\u05ff]", rtl) and re.search("[\u0600-\u06ff]", rtl), rtl
    assert all(p in PROBES for p in TEXT_PROBES) and len(TEXT_ENVELOPES) == 7
    for check in (test_claims.test_clm_3_branching, test_claims.test_clm_5_maintain_context):
        assert "@probe_examples(where=lambda e: e in TEXT_ENVELOPES" in inspect.getsource(check), check


@pytest.mark.parametrize("probe", TEXT_PROBES, ids=lambda p: p.shape)
def test_a_text_probe_with_a_marker_after_it_is_still_known(probe: Probe) -> None:
    """CLM-5's check sends the probe's thought with a marker of its own after it, at its own numbers."""
    arguments = Envelope(f"{probe.envelope.thought} ⟦0123⟧", 1, 2, True).arguments()
    assert probe_of(arguments) == probe
    assert reached_by_probes([_outcome(arguments)]) == [probe.shape]
