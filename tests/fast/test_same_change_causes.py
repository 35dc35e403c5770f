"""Causes whose replayed pairs show the same difference are one change (held-out-multi-10): emoji-status'
RTE-4/a1, CMP-5 and RTE-9/a1 pairs each changed the box header “💭 Thought n/m” to “✅ Conclusion n/m”
(numbers apart), and plan-keeper's RTE-8/a1 probe was refused in the words of the refusal RTE-3's pair showed
the fork adding. Headers changed otherwise, and two pairs refused alike in words no fork added, stay apart."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import one_cause_per_change
from conformance.report.model import Evidence, RecordVerdict, RootCause
from tests.verdicts import cause, departing

BORDER = "┌" + "─" * 18 + "┐"


def _box(before: str, after: str) -> str:
    return (f"stderr: the box is 22 columns wide here, 2 wider than the original's 20; 6 lines on each side; "
            f"changes line 2 “{BORDER}” to “{BORDER}──”, line 3 “│ {before} │” to “│ {after} │” and 2 more")


def _paired(rid: str, first: str) -> RootCause:
    return cause(rid, [], first).model_copy(update={"evidence": Evidence(
        reproduced=True, at="on the example's tools/call 1", differences=[first])})


def _grouped(pairs: dict[str, str]) -> list[list[str]]:
    records = [departing(rid, f"{rid} contradicted: {first}") for rid, first in pairs.items()]
    causes, _ = one_cause_per_change([_paired(rid, first) for rid, first in pairs.items()], records)
    return [c.records for c in causes]


@given(st.integers(1, 999), st.integers(1, 999), st.sampled_from(["✅ Conclusion", "💭 Thought 1 of ~"]))
def test_a_header_changed_alike_numbers_apart_is_one_cause(one: int, other: int, label: str) -> None:
    pairs = {"RTE-4/a1": _box(f"💭 Thought {one}/{one}", f"✅ Conclusion {one}/{one}"),
             "CMP-5": _box(f"💭 Thought {other}/{other}", f"✅ Conclusion {other}/{other}"),
             "RTE-2": _box(f"💭 Thought {other}/{other}", f"{label} {other}/{other}")}
    same = label == "✅ Conclusion"
    apart = [["RTE-4/a1", "CMP-5"], ["RTE-2"]]
    assert _grouped(pairs) == ([["RTE-4/a1", "CMP-5", "RTE-2"]] if same else apart)


def test_headers_changed_otherwise_stay_two_causes() -> None:
    # dashboard-display: digits grouped in one header, a branch label quoted in another: two changes.
    pairs = {"RTE-4/a1": _box("💭 Thought 9007199254740986/9007199254740986",
                              "💭 Thought 9,007,199,254,740,986/9,007,199,254,740,986"),
             "CMP-5": _box("🌿 Branch 1/1 (from thought 1, ID: a)",
                           "🌿 Branch 1/1 (from thought 1, ID: “a”)")}
    assert _grouped(pairs) == [["RTE-4/a1"], ["CMP-5"]]


ADDED = ("the original accepts this call and this server refuses it naming `nextThoughtNeeded` — “Invalid "
         "nextThoughtNeeded: thought 1 of 42 cannot be the last; lower totalThoughts or continue” (isError)")


def _other_words(original: str, here: str) -> str:
    return (f"both refuse this call, in other words: “{original}” on the original (a runtime error), "
            f"“{here}” here")


@given(st.integers(1, 99), st.integers(1, 99), st.booleans())
def test_a_probe_refused_in_the_words_of_an_added_refusal_is_that_change(n: int, m: int, same: bool) -> None:
    words = (f"Invalid nextThoughtNeeded: thought {n} of {m} cannot be the last; lower totalThoughts or "
             "continue" if same else f"Invalid branchId: {n} is reserved")
    pairs = {"RTE-3": ADDED,
             "RTE-8/a1": _other_words("this.branches[validatedInput.branchId].push is not a function", words)}
    assert _grouped(pairs) == ([["RTE-3", "RTE-8/a1"]] if same else [["RTE-3"], ["RTE-8/a1"]])


def test_two_pairs_refused_alike_in_the_originals_words_stay_apart() -> None:
    # Both refusing in other words the same crash message is the original's error, not one change's words.
    crash = _other_words("Cannot read properties of undefined (reading 'push')", "❌ Cannot read properties")
    other = _other_words("this.branches[validatedInput.branchId].push is not a function",
                         "❌ Cannot read properties")
    assert _grouped({"RTE-3": crash, "RTE-8/a1": other}) == [["RTE-3"], ["RTE-8/a1"]]


def _unpaired(rid: str, line: str) -> tuple[RootCause, RecordVerdict]:
    """A cause no pair reproduced (seen only on the shared process), its leading record's check saying the
    box."""
    led = cause(rid, [], line).model_copy(update={"evidence": Evidence(
        reproduced=False, why="no difference of this record's on fresh processes: it needs state")})
    lead = departing(rid, f"{rid} contradicted: stderr is not the box the original draws: {line}")
    return led, lead.model_copy(update={"evidence": led.evidence})


@given(one=st.integers(1, 999), other=st.integers(1, 999), tag=st.sampled_from([" (retry)", " (cached)"]))
def test_a_box_seen_only_by_its_check_is_held_by_its_words(one: int, other: int, tag: str) -> None:
    """held-out-multi-10's retry-cache: CMP-5's " (retry)" header, seen only after a repeated call on the
    shared process, and OBJ-13's, reproduced, were two causes of one change. Another tag stays apart."""
    unpaired, lead = _unpaired("CMP-5", _box(f"💭 Thought {one}/{one}", f"💭 Thought {one}/{one} (retry)"))
    first = _box(f"💭 Thought {other}/{other}", f"💭 Thought {other}/{other}{tag}")
    causes, _ = one_cause_per_change([unpaired, _paired("OBJ-13", first)],
                                     [lead, departing("OBJ-13", f"OBJ-13 contradicted: {first}")])
    apart = [["CMP-5"], ["OBJ-13"]]
    assert [c.records for c in causes] == ([["CMP-5", "OBJ-13"]] if tag == " (retry)" else apart)
