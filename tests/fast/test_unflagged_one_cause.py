"""The original's refusal answered without its isError flag is one change whichever guard refused
(gate/evidence.py `_refusal_shown`, issue 42): held-out-multi-11's ide-host answered every refusal so, and
OBJ-8 (`thought` refused) and BAP-4 (`thoughtNumber`) led two causes of it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.guards import GUARD_REFUSALS
from conformance.gate.evidence import one_cause_per_change
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

GUARDS = st.lists(st.sampled_from(sorted(GUARD_REFUSALS.values())), min_size=2, max_size=2, unique=True)


def _unflagged(words: str) -> str:
    return (f"the original refuses this call — “{words}” (isError) — and this server answers the same "
            "refusal without isError: true")


def _accepted(words: str) -> str:
    return f"the original refuses this call — “{words}” (isError) — and this server accepts it"


def _grouped(firsts: list[str]) -> list[list[str]]:
    ids = ["OBJ-8", "BAP-4"]
    causes = [RootCause(id=r, records=[r], explains=[], summary=f"{r} departs — {f}", evidence=Evidence(
        reproduced=True, at="on the example's tools/call 1", differences=[f], cause=r))
        for r, f in zip(ids, firsts, strict=True)]
    records = [RecordVerdict(id=r, kind="obj", aliases=[], anchors=[], statement=f"statement of {r}",
                             channels=["wire"], verdict="deviates", evidence_before="implemented",
                             evidence_after="observed", reason=f, tests=[TestRef(
                                 nodeid=f"t::{r}", status="failed", examples=1, contradicted=[r], message=f)])
               for r, f in zip(ids, firsts, strict=True)]
    return [c.records for c in one_cause_per_change(causes, records)[0]]


@given(guards=GUARDS)
def test_two_guards_answered_unflagged_are_one_change(guards: list[str]) -> None:
    assert _grouped([_unflagged(w) for w in guards]) == [["OBJ-8", "BAP-4"]]


@given(guards=GUARDS)
def test_two_guards_let_pass_stay_two_changes(guards: list[str]) -> None:
    """Two guards each letting a value through are two changes, as before (a guard moved per field)."""
    assert _grouped([_accepted(w) for w in guards]) == [["OBJ-8"], ["BAP-4"]]
