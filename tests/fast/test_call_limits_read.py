"""The limits a real fork adds to calls the original accepts, read from a departure's own refusal as one cause
each (issue 42, nalyk-ts: a 10,000-character thought limit, numbers refused unless positive integers, and
`revisesThought` required beside `isRevision` were never a cause; their records were unexplained or under a
type check's cause): a length limit keeps its number, the integer check is one key whichever field it names,
a pair keeps its words, and a refusal of another kind is none of them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.caps import cap_headline, cap_seen
from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

FIELDS = st.sampled_from(["thought", "thoughtNumber", "totalThoughts", "branchFromThought", "revisesThought"])


def _refused(words: str, *, rejected: bool = False) -> str:
    """A record's line for a call this server refused where the original accepted it (suite/answers.py)."""
    said = "call was rejected" if rejected else "RTE-3 contradicted: call was refused as invalid"
    return f'{said}: isError {{ "error": "{words}", "status": "failed", "timestamp": "2026-12-06T12:48Z" }}'


@given(limit=st.integers(min_value=2, max_value=10**6), field=FIELDS, rejected=st.booleans())
def test_a_length_limit_keeps_its_number(limit: int, field: str, rejected: bool) -> None:
    words = f"Invalid {field}: must be between 1 and {limit} characters"
    key = cap_seen(_refused(words, rejected=rejected))
    assert key == f"refused by the limit “{words}”"
    assert cap_seen(_refused(words.replace(str(limit), str(limit + 1)))) != key
    assert str(limit) in cap_headline(key)
    at_most = f"Invalid {field}: must be at most {limit} characters"
    assert cap_seen(_refused(at_most)) == f"refused by the limit “{at_most}”"


@given(fields=st.lists(FIELDS, min_size=2, max_size=4, unique=True))
def test_the_integer_check_is_one_key_whichever_field_it_names(fields: list[str]) -> None:
    keys = {cap_seen(_refused(f"Invalid {field}: must be a positive integer")) for field in fields}
    assert keys == {"refused unless a positive integer"}
    assert "positive integers" in cap_headline(keys.pop())


@given(field=FIELDS, flag=st.sampled_from(["isRevision", "isBranch", "needsMoreThoughts"]))
def test_a_field_refused_without_its_companion_keeps_its_words(field: str, flag: str) -> None:
    words = f"{field} is required when {flag} is true"
    assert cap_seen(_refused(words, rejected=True)) == f"refused by the pair “{words}”"


@given(field=FIELDS)
def test_other_refusals_and_rewordings_are_no_limit(field: str) -> None:
    """A type check, or a refusal re-worded where the original refuses alike, names no limit."""
    assert cap_seen(_refused(f"Invalid {field}: must be a boolean")) == ""
    assert cap_seen(_refused(f"Invalid {field}: must be a number")) == ""
    assert cap_seen(f"refused with “Invalid {field}: must be a positive integer”, where the original's guard "
                    f"says “Invalid {field}: must be a number”") == ""


def _held(rid: str, line: str, first: str) -> RecordVerdict:
    """A departure whose one failing check said `line`, its own reproduced pair leading with `first`."""
    return RecordVerdict(
        id=rid, kind="rte", aliases=[], anchors=[], statement="", channels=["wire"], verdict="deviates",
        evidence_before="implemented", evidence_after="observed", reason=line,
        tests=[TestRef(nodeid=f"t::{rid}", status="failed", examples=1, contradicted=[], message=line)],
        evidence=Evidence(reproduced=True, at="on the example's tools/call 1", differences=[first]))


BRANCH = ("the original accepts this call and this server refuses it, naming `branchId` — “Invalid branchId: "
          "must be a non-empty string with max 100 characters” (isError)")
BOOLEAN = ("the original accepts this call and this server refuses it — “Invalid isRevision: must be a "
           "boolean”")


@given(limit=st.integers(min_value=2, max_value=10**5))
def test_each_limit_is_a_cause_holding_its_records(limit: int) -> None:
    """nalyk-ts as gated: RTE-3's own line is the length limit but its pair (and cause) the branchId check,
    so its cause stays the check's; the limit's other records open a cause of their own, and the integer and
    pair refusals held by the isRevision check's cause (ABS-6) leave it for causes of their own."""
    length = f"Invalid thought: must be between 1 and {limit} characters"
    integer = "Invalid thoughtNumber: must be a positive integer"
    pair = "revisesThought is required when isRevision is true"
    records = [
        _held("RTE-3", _refused(length), BRANCH),
        _held("CMP-1", _refused("Invalid branchId: must be a non-empty string with max 100 characters"),
              BRANCH),
        _held("ABS-6", _refused("Invalid isRevision: must be a boolean"), BOOLEAN),
        _held("RTE-2", _refused(length), BOOLEAN),
        _held("RTE-4", _refused(length), BOOLEAN),
        _held("OBJ-10", _refused(integer), BOOLEAN),
        _held("RTE-6/a1", _refused("Invalid branchFromThought: must be a positive integer"), BOOLEAN),
        _held("RTE-9", _refused(pair, rejected=True), BOOLEAN),
        _held("RTE-4/a1", _refused(pair, rejected=True), BOOLEAN),
    ]
    records = [rv.model_copy(update={"explained_by": {"CMP-1": "RTE-3"}.get(rv.id, "ABS-6")})
               if rv.id not in ("RTE-3", "ABS-6") else rv for rv in records]
    causes = [RootCause(id="RTE-3", records=["RTE-3"], explains=["CMP-1"], evidence=records[0].evidence,
                        summary=f"RTE-3 departs — {BRANCH}"),
              RootCause(id="ABS-6", records=["ABS-6"], explains=[rv.id for rv in records[3:]],
                        evidence=records[2].evidence, summary=f"ABS-6 departs — {BOOLEAN}")]
    kept, out = checked_explanations(causes, records)
    home = {r: c.id for c in kept for r in [*c.records, *c.explains]}
    assert home["RTE-3"] == home["CMP-1"] == "RTE-3" and "branchId" in kept[0].summary
    assert home["ABS-6"] == "ABS-6"
    groups = [{"RTE-2", "RTE-4"}, {"OBJ-10", "RTE-6/a1"}, {"RTE-9", "RTE-4/a1"}]
    for group, said in zip(groups, [str(limit), "positive integer", "required when isRevision"], strict=True):
        homes = {home.get(r) for r in group}
        assert len(homes) == 1 and None not in homes and "ABS-6" not in homes, (group, home)
        cause = next(c for c in kept if c.id in homes)
        assert said in cause.summary, cause.summary
    by = {rv.id: rv.explained_by for rv in out}
    for cause in kept:
        assert all(by[r] == cause.id for r in cause.explains), (cause.id, cause.explains, by)
        assert all(by[r] is None for r in cause.records), (cause.id, by)


@given(fields=st.lists(FIELDS.filter(lambda f: f != "thought"), min_size=2, max_size=3, unique=True))
def test_causes_whose_pairs_show_one_limit_are_one(fields: list[str]) -> None:
    """The 'limited' fork's run: the thoughtNumber and branchFromThought integer refusals each led a cause of
    their own, both pairs the integer check; they are one change, one cause holding every such refusal."""
    said = [f"Invalid {field}: must be a positive integer" for field in fields]
    pairs = [f"the original accepts this call and this server refuses it — “{words}” (isError)"
             for words in said]
    records = [_held(f"R{i}", _refused(words), pair)
               for i, (words, pair) in enumerate(zip(said, pairs, strict=True))]
    records.append(_held("X", _refused(said[-1]), pairs[-1]).model_copy(update={"explained_by": "R0"}))
    causes = [RootCause(id=rv.id, records=[rv.id], explains=["X"] if rv.id == "R0" else [],
                        evidence=rv.evidence, summary=f"{rv.id} departs — {rv.reason}")
              for rv in records[:-1]]
    kept, out = checked_explanations(causes, records)
    home = {r: c.id for c in kept for r in [*c.records, *c.explains]}
    assert len(kept) == 1 and set(home) == {rv.id for rv in records}, [(c.id, c.records, c.explains)
                                                                        for c in kept]
    assert "positive integers" in kept[0].summary
    by = {rv.id: rv.explained_by for rv in out}
    assert all(by[r] == kept[0].id for r in kept[0].explains) and by[kept[0].id] is None, by


def test_a_cause_without_a_pair_of_its_own_led_by_a_limit_holds_it() -> None:
    """held-out-5 (a 50,000-character limit): RTE-3's cause, never reproduced, holds the limit's other
    records; no second cause opens for them."""
    words = "Invalid thought: must be at most 50000 characters"
    records = [_held(rid, _refused(words), "").model_copy(update={
        "evidence": None, "explained_by": None if rid == "RTE-3" else "RTE-3"})
        for rid in ("RTE-3", "OBJ-9", "RTE-9/a1")]
    causes = [RootCause(id="RTE-3", records=["RTE-3"], explains=["OBJ-9", "RTE-9/a1"],
                        summary=f"RTE-3 departs — {records[0].reason}")]
    kept, out = checked_explanations(causes, records)
    assert [(c.id, c.explains) for c in kept] == [("RTE-3", ["OBJ-9", "RTE-9/a1"])]
    assert words in kept[0].summary
    assert {rv.id: rv.explained_by for rv in out} == {"RTE-3": None, "OBJ-9": "RTE-3", "RTE-9/a1": "RTE-3"}


def test_a_limit_another_cause_shows_reworded_goes_under_it() -> None:
    """multi-1's fork-hardened-store: thoughtNumber's guard re-worded to “must be a positive integer” also
    refuses fractions the original accepts; RTE-3's pair shows the re-wording, so the refusals in those words
    are its change: no second cause opens, and RTE-3's headline stays the re-wording's."""
    words = "Invalid thoughtNumber: must be a positive integer"
    reworded = (f"the refusal of `thoughtNumber` is re-worded: “Invalid thoughtNumber: must be a number” on "
                f"the original, “{words}” here")
    lead = _held("RTE-3", f"the refusal reads “{words}”, not RTE-3's fixed “Invalid thoughtNumber: must be "
                          f"a number”", reworded)
    held = ("OBJ-10", "BAP-4/a1")
    records = [lead, *(_held(rid, _refused(words), reworded).model_copy(update={"explained_by": "RTE-3"})
                       for rid in held)]
    summary = f"RTE-3 departs — {lead.reason}"
    causes = [RootCause(id="RTE-3", records=["RTE-3"], explains=list(held), evidence=lead.evidence,
                        summary=summary)]
    kept, out = checked_explanations(causes, records)
    assert [(c.id, sorted(c.explains), c.summary) for c in kept] == [("RTE-3", sorted(held), summary)]
    assert {rv.id: rv.explained_by for rv in out} == {"RTE-3": None, "OBJ-10": "RTE-3", "BAP-4/a1": "RTE-3"}
