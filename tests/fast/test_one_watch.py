"""A record whose checks kept no call to replay, failed by the very check (same words) that fails its cause's
leading record, is that cause's change (issue 42, held-out-multi-11's toolkit-port: the check that ends stdin
saw the process still running; BAP-5 and RTE-10 both failed on it, and BAP-5 stood loose, no pair to hold it
by). The same check failing in other words, or naming a record outside the cause, keeps them apart."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import _one_watch, checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef
from tests.verdicts import cause

WATCH = "conformance/suite/test_lifecycle.py::test_end_of_stdin_ends_the_process_quietly[cmd:x]"
"""A check that ends a process's stdin and watches what follows: nothing to replay."""

_UNREPLAYED = Evidence(reproduced=False, own_failure=True, original_spec="npm:0.6.2",
                       why="not replayed: its check ends the process's stdin and reads what follows")


def _failed(nodeid: str, message: str, contradicted: list[str]) -> TestRef:
    return TestRef(nodeid=nodeid, status="failed", examples=1, message=message, contradicted=contradicted)


def _record(rid: str, tests: list[TestRef], explained_by: str | None = None) -> RecordVerdict:
    return RecordVerdict(id=rid, kind="rte", aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict="deviates", evidence_before="implemented", evidence_after="observed",
                         evidence=_UNREPLAYED, reason=tests[0].message, tests=tests,
                         explained_by=explained_by)


def _pair(lead_words: str, own_words: str, names_other: bool
          ) -> tuple[RootCause, RecordVerdict, RecordVerdict]:
    """A cause led by RTE-10, its leading record failed by the watch, and BAP-5 failed by it too."""
    led: RootCause = cause("RTE-10", ["BAP-5"], lead_words)
    lead = _record("RTE-10", [_failed("t-options", f"RTE-10 contradicted: {lead_words}", ["RTE-10"]),
                              _failed(WATCH, lead_words, [])])
    follower = _record("BAP-5", [_failed(WATCH, own_words, ["OBJ-4"] if names_other else [])],
                       explained_by="RTE-10")
    return led, lead, follower


def _placed(lead_words: str, own_words: str, names_other: bool) -> str | None:
    """Where the record following the lead's watch stays after the check of "explained by"."""
    led, lead, follower = _pair(lead_words, own_words, names_other)
    _, records = checked_explanations([led], [lead, follower])
    return {rv.id: rv.explained_by for rv in records}["BAP-5"]


_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=5, max_size=60)
"""A check's words without digits: a number in them is read by the passes about counts and caps."""


@given(words=_WORDS)
def test_one_watch_failing_both_is_one_change(words: str) -> None:
    assert _placed(words, words, names_other=False) == "RTE-10"


@given(words=_WORDS, other=_WORDS, names_other=st.booleans())
def test_the_watch_in_other_words_or_naming_another_record_is_no_proof(words: str, other: str,
                                                                       names_other: bool) -> None:
    """Read by the rule itself: a record's own line may still place it by other passes (`split_off`)."""
    led, lead, follower = _pair(words, other if not names_other else words, names_other)
    assert _one_watch(follower, led, {"RTE-10": lead}) is (not names_other and other == words)
