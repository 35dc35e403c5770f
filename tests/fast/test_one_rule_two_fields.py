"""One rule a fork adds, refusing calls the original accepts in two fields, is one change (held-out-multi-9's
fork-model-guard refuses an object or array in any optional field: RTE-3's pair showed isRevision refused,
ABS-7's needsMoreThoughts, in the same words, and the run said two root causes). Refusals of two fields in
other words stay two causes, as do a field the original refuses and this server lets pass."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import loose_by_rule, one_cause_per_change
from conformance.report.model import Evidence, RootCause
from tests.verdicts import cause, departing

FIELDS = ("isRevision", "revisesThought", "branchFromThought", "branchId", "needsMoreThoughts")


def _refused(field: str, words: str) -> str:
    return f"the original accepts this call and this server refuses it — “Invalid {field}: {words}” (isError)"


def _paired(rid: str, first: str) -> RootCause:
    return cause(rid, [], first).model_copy(update={"evidence": Evidence(
        reproduced=True, at="on the example's tools/call 2", differences=[first])})


@given(fields=st.lists(st.sampled_from(FIELDS), min_size=2, max_size=2, unique=True),
       same=st.booleans())
def test_one_rule_refusing_two_fields_is_one_cause(fields: list[str], same: bool) -> None:
    rule = "must not be an object or array"
    other = rule if same else "must be a string of at most 64 characters"
    pairs = [_refused(fields[0], rule), _refused(fields[1], other)]
    records = [departing("RTE-3", f"RTE-3 contradicted: {pairs[0]}"),
               departing("ABS-7", f"ABS-7 contradicted: {pairs[1]}")]
    causes, _ = one_cause_per_change([_paired("RTE-3", pairs[0]), _paired("ABS-7", pairs[1])], records)
    assert [c.records for c in causes] == ([["RTE-3", "ABS-7"]] if same else [["RTE-3"], ["ABS-7"]]), causes


def test_the_originals_guard_words_in_two_fields_stay_two_causes() -> None:
    # held-out-multi-6's fork-strict-schema: branchId refused unless a string, and a thought trimmed to
    # nothing refused, both in the original's words "must be a string": two changes.
    pairs = [_refused("branchId", "must be a string"), _refused("thought", "must be a string")]
    records = [departing("RTE-3", f"RTE-3 contradicted: {pairs[0]}"),
               departing("CMP-5", f"CMP-5 contradicted: {pairs[1]}")]
    causes, _ = one_cause_per_change([_paired("RTE-3", pairs[0]), _paired("CMP-5", pairs[1])], records)
    assert [c.records for c in causes] == [["RTE-3"], ["CMP-5"]], causes


@given(field=st.sampled_from(FIELDS), same=st.booleans())
def test_a_loose_departure_refused_by_the_rule_where_the_original_crashed_is_the_rules(field: str,
                                                                                     same: bool) -> None:
    # held-out-multi-9 RTE-8/a1: revisesThought {"toString": 1} crashed the original after the append, was
    # refused first here, in the rule's words; it stayed loose beside the rule's cause.
    rule = "must not be an object or array"
    words = rule if same else "must be an integer"
    lead = _refused("isRevision", rule)
    crash = (f"both refuse this call, in other words: “Cannot convert object to primitive value” on the "
             f"original (a runtime error), “Invalid {field}: {words}” here")
    loose = departing("RTE-8/a1", f"RTE-8/a1 contradicted: {crash}").model_copy(update={"evidence": Evidence(
        reproduced=True, at="on the example's tools/call 2", differences=[crash])})
    records = [departing("RTE-3", f"RTE-3 contradicted: {lead}"), loose]
    causes, verdicts = loose_by_rule([_paired("RTE-3", lead)], records)
    under = {rv.id: rv.explained_by for rv in verdicts}
    assert under["RTE-8/a1"] == ("RTE-3" if same else None)
    assert causes[0].explains == (["RTE-8/a1"] if same else [])
