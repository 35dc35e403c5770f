"""One reader of a refusal pair's sentence (`refused_here`): it reads back what `refusals_compared` writes
for a refusal a fork added, and for the original crashing where this server states a rule, whatever the
rule's words; the grouping rules (`_words_here`, `_rule_shown`, `loose_by_rule`) all read through it. A
rule's words past 60 characters are said with the field before them ("refuses it naming `isRevision` —
…"), which the rule's reader once missed: two fields refused by one long rule stayed two causes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.differences import Refusal, field_named, refusals_compared
from conformance.gate.evidence import one_cause_per_change, refused_here
from conformance.report.model import Evidence, RootCause
from tests.verdicts import cause, departing

FIELDS = ("isRevision", "revisesThought", "branchFromThought", "branchId", "needsMoreThoughts")
RULES = st.text(st.characters(blacklist_characters="“”\n\r", blacklist_categories=("Cs", "Cc")),
                min_size=1, max_size=120).map(str.strip).filter(bool)
CRASH = "Cannot convert object to primitive value"


def _pair(first: str) -> Evidence:
    return Evidence(reproduced=True, at="on the example's tools/call 2", differences=[first])


def _added(field: str, rule: str) -> str:
    words = f"Invalid {field}: {rule}"
    return refusals_compared(None, Refusal("isError", words, field_named(words)), here="here")


@given(field=st.sampled_from(FIELDS), rule=RULES)
def test_a_refusal_the_fork_added_reads_back(field: str, rule: str) -> None:
    here = refused_here(_pair(_added(field, rule)))
    assert here is not None
    assert (here.added, here.crashed, here.field, here.rule) == (True, False, field, rule)


@given(field=st.sampled_from(FIELDS), rule=RULES)
def test_a_rule_where_the_original_crashed_reads_back(field: str, rule: str) -> None:
    words = f"Invalid {field}: {rule}"
    first = refusals_compared(Refusal("isError", CRASH, ""), Refusal("isError", words, field_named(words)),
                              here="here")
    here = refused_here(_pair(first))
    assert here is not None
    assert (here.added, here.crashed, here.field, here.rule) == (False, True, field, rule)


def test_no_refusal_and_no_replay_read_none() -> None:
    assert refused_here(_pair("thoughtNumber: absent on the original, 1 here")) is None
    assert refused_here(Evidence(reproduced=False, at="", differences=[_added("branchId", "x")])) is None
    assert refused_here(None) is None


def _paired(rid: str, first: str) -> RootCause:
    return cause(rid, [], first).model_copy(update={"evidence": _pair(first)})


@given(fields=st.lists(st.sampled_from(FIELDS), min_size=2, max_size=2, unique=True))
def test_one_long_rule_refusing_two_fields_is_one_cause(fields: list[str]) -> None:
    rule = "must not be an object, an array, or a value whose toString is not a function"
    pairs = [_added(fields[0], rule), _added(fields[1], rule)]
    assert all(" naming `" in p for p in pairs)  # the words are long: the field is said before them
    records = [departing("RTE-3", f"RTE-3 contradicted: {pairs[0]}"),
               departing("ABS-7", f"ABS-7 contradicted: {pairs[1]}")]
    causes, _ = one_cause_per_change([_paired("RTE-3", pairs[0]), _paired("ABS-7", pairs[1])], records)
    assert [c.records for c in causes] == [["RTE-3", "ABS-7"]], causes
