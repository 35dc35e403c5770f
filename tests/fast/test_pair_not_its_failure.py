"""A departure whose example, replayed on fresh processes, shows another change than the one its checks met is
covered when that pair is an entry's pinned pair (gate/pinned_pairs.met_pairs, issue 43).

fork-model-guard (held-out-multi-9) refuses a call after three refusals in a row, and refuses objects in the
optional fields. Under relay seed 11, RTE-5's check met the lockout on the shared process with a call holding
`isRevision: {}`; replayed alone on fresh processes that call is refused for its object (a pair marked
`not_its_failure`), exactly as the RTE-3 entry's pinned pair: "new RTE-5" although nothing new was confirmed.
The pairs are real: fresh processes of npm:0.6.2 and of the fork's object change (its patch from
tests/modified_servers/modifications.yaml), over stdio.
"""

from __future__ import annotations

import pytest

from conformance.catalog.records import default_catalog
from conformance.core.jsontypes import JSON
from conformance.gate.baseline import Baseline, BaselineEntry
from conformance.gate.pinned_pairs import met_pairs, pinned_pair
from conformance.report.model import Evidence, RecordVerdict, TestRef
from tests.fresh_answers import built, original, reproduced
from tests.modified_servers.servers import Modification, load_modifications

CANONICAL = {r.id: r.id for r in default_catalog().records}
LOCKED = "Too many invalid calls in a row: this call was not processed"


def _objects_refused() -> Modification:
    """fork-model-guard's object-field change alone, as the fork patches npm:0.6.2's dist/index.js."""
    fork = next(m for m in load_modifications() if m.id == "fork-model-guard")
    change = next(c for c in fork.changes if c.id == "object-optional-fields-refused")
    return Modification(id="fork-objects-refused", set="tuning", change=change.change,
                        patches=change.patches, primary=change.primary)


def _call(field: str) -> dict[str, JSON]:
    return {"thought": "Hypothesis: x = 4", "thoughtNumber": 1, "totalThoughts": 1,
            "nextThoughtNeeded": False, field: {}}


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Evidence, Evidence]:
    """The object refused in isRevision and in needsMoreThoughts, each on fresh processes of both sides."""
    fork = built(_objects_refused(), tmp_path_factory.mktemp("objects") / "fork")
    theirs = original()
    return (reproduced(theirs, fork, [_call("isRevision")]),
            reproduced(theirs, fork, [_call("needsMoreThoughts")]))


def _rv(record: str, found: Evidence, message: str) -> RecordVerdict:
    tests = [TestRef(nodeid=f"t-{record}", status="failed", examples=1, message=message)]
    return RecordVerdict(id=record, kind="rte", aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict="deviates", evidence_before="implemented", evidence_after="observed",
                         evidence=found, reason="r", tests=tests)


def test_a_pair_not_its_failure_showing_an_entrys_pinned_pair_is_covered(
        pairs: tuple[Evidence, Evidence]) -> None:
    is_revision, needs_more = pairs
    assert is_revision.reproduced and "must not be an object or array" in is_revision.target
    pair = pinned_pair(_rv("RTE-3", is_revision, "refused"))
    assert pair is not None
    baseline = Baseline(project="fork-model-guard", deviations=[
        BaselineEntry(record="RTE-3", reason="intended: objects refused in the optional fields", pair=pair)])
    lockout = is_revision.model_copy(update={"not_its_failure": True})
    rte5 = _rv("RTE-5", lockout, f"RTE-5 contradicted: the call was refused by a bound, {LOCKED!r}")
    covered, reobserved = met_pairs([rte5], baseline, CANONICAL, {})
    assert covered == {"RTE-5": "RTE-3"} and reobserved == {}
    # Another field's refusal is another pinned difference: that pair stays the departure's (new).
    other = _rv("RTE-5", needs_more.model_copy(update={"not_its_failure": True}),
                f"refused by a bound, {LOCKED!r}")
    assert met_pairs([other], baseline, CANONICAL, {}) == ({}, {})
