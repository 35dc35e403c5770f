"""A record is explained by a cause of its own class only (gate/evidence.py, issue 42, round 13): a
description record not by an answer's cause, a refusal not by an accepted answer's unless its checks saw
that answer, a description check's "Chain of Thought" not a refused `thought`. Built on the kept run of
chinng-py (/work/r13-wild/runs/chinng-mapped)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import _tells, checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

NOT_JSON = ("OBJ-4 contradicted: the answer's text is not JSON, where the original answers a JSON object: "
            "“✓ Thought 7/9 recorded ⏎ Content: t ⏎ ”")
TEXT_LINES = ("result.content[0].text: 4 lines here where the original has 10; drops “  \"branches\": [”, "
              "“    \"zeta\",” and 3 more")
DESCRIPTION = ("result.tools[0].description: 15 lines here where the original has 54; adds “    branch_id: "
               "Branch identifier”")
EMPTY_ACCEPTED = ("the original refuses this call — “Invalid thought: must be a string” (isError) — and this "
                  "server accepts it")
ACCEPTED = json.dumps({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "x"}]}})


def _ref(name: str, message: str, contradicted: list[str]) -> TestRef:
    return TestRef(nodeid=f"t::{name}", status="failed", examples=1, contradicted=contradicted,
                   message=message)


def _record(rid: str, evidence: Evidence | None, tests: list[TestRef]) -> RecordVerdict:
    return RecordVerdict(id=rid, kind="cmp", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", evidence=evidence, tests=tests)


def _pair(*differences: str, at: str = "on the example's tools/call 3", answers: str = "") -> Evidence:
    return Evidence(reproduced=True, at=at, differences=list(differences), original=answers, target=answers)


def _cause(rid: str, evidence: Evidence, summary: str) -> RootCause:
    return RootCause(id=rid, records=[rid], explains=[], summary=f"{rid} departs — {summary}",
                     evidence=evidence.model_copy(update={"cause": rid}))


def _explained(causes: list[RootCause], records: list[RecordVerdict]) -> dict[str, str | None]:
    return {rv.id: rv.explained_by for rv in checked_explanations(causes, records)[1]}


@given(tools=st.integers(min_value=1, max_value=3))
def test_a_description_record_is_not_an_answers_change(tools: int) -> None:
    """chinng-py's CMP-2/a2: one check says the description documents no parameters, another names OBJ-4
    (the answer no longer JSON) contradicted; its own pair, replayed, is the tool list's description. It goes
    to OBJ-5, the description's cause, not OBJ-4 (before: OBJ-4 explained it)."""
    answer = _pair(TEXT_LINES, answers=ACCEPTED)
    listed = _pair(DESCRIPTION, at=f"on the example's tools/list (request {tools + 1})")
    causes = [_cause("OBJ-4", answer, "content[0].text: 4 lines here where the original has 10"),
              _cause("OBJ-5", listed, "tools[0].description: 15 lines here where the original has 54")]
    records = [_record("OBJ-4", answer, [_ref("shape", NOT_JSON, ["OBJ-4"])]),
               _record("OBJ-5", listed, [_ref("lines", "the description has 15 lines, not 54", ["OBJ-5"])]),
               _record("CMP-2/a2", listed, [
                   _ref("doc", "the description documents 0 parameter(s) as \"- name:\" lines (none)", []),
                   _ref("again", NOT_JSON, ["OBJ-4"])])]
    causes[0] = causes[0].model_copy(update={"explains": ["CMP-2/a2"]})
    records[2] = records[2].model_copy(update={"explained_by": "OBJ-4"})
    assert _explained(causes, records)["CMP-2/a2"] == "OBJ-5"


@given(word=st.sampled_from(["Chain of Thought steps", "thought number", "each thought"]))
def test_a_description_check_naming_thought_did_not_see_it_refused(word: str) -> None:
    """chinng-py's CLM-1 and BAP-1 read the description ("Verifies the hypothesis based on the Chain of
    Thought steps"): a check's words must speak of a call refused or accepted to have seen `thought`
    refused (RTE-3/a1's pair), strictly; before, the field's name alone placed five description records
    under RTE-3/a1."""
    said = f"CLM-1: the tool description the official client got has no line “- {word} …”"
    assert not _tells(EMPTY_ACCEPTED, said, strict=True)
    assert _tells(EMPTY_ACCEPTED, f"an empty thought was accepted where it is refused ({word})", strict=True)


PYDANTIC = ("both refuse this call, in other words: “Invalid thoughtNumber: must be a number” on the "
            "original, “1 validation error for call[sequentialthinking] ⏎ input should be a valid integer” "
            "here")


@given(saw=st.booleans())
def test_a_refusal_is_an_accepted_answers_change_only_if_its_checks_saw_it(saw: bool) -> None:
    """A record whose own pair is a call both refuse, proposed under OBJ-4 (an accepted answer's text) by a
    check naming OBJ-4: kept there only when that check's own words say OBJ-4's difference
    (fork-api-envelope's OBJ-6 saw the envelope); a check that saw only the refusal leaves it."""
    answer, own = _pair(TEXT_LINES, answers=ACCEPTED), _pair(PYDANTIC)
    said = ("OBJ-4 contradicted: content[0].text has 4 lines, not 10" if saw else
            "OBJ-4 contradicted: refused with “Invalid thoughtNumber: must be a number” in other words")
    causes = [_cause("OBJ-4", answer, "content[0].text: 4 lines here where the original has 10").model_copy(
        update={"explains": ["ABS-6"]})]
    records = [_record("OBJ-4", answer, [_ref("shape", NOT_JSON, ["OBJ-4"])]),
               _record("ABS-6", own, [_ref("refused", said, ["OBJ-4"])]).model_copy(
                   update={"explained_by": "OBJ-4"})]
    assert (_explained(causes, records)["ABS-6"] == "OBJ-4") is saw
