"""Each departure's line says its own failure (issue 42): a replayed pair is its line only where it differs
where the record's check failed, and "explained by" a cause only when the record's check saw the cause's
own refusal, not a refusal of another field. The cases are nalyk/sequentialthinking's and npm:2026.8.31's
(reports/third-party/AUDIT.md)."""

from __future__ import annotations

from conformance.core.failure_text import spoken
from conformance.gate.evidence import checked_explanations, its_failure, refused_in
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef
from conformance.report.sections.departures import headline

CAP = ("OBJ-2 contradicted: an accepted call left thoughtHistoryLength at 1000, where each accepted "
       "call adds one")
BRANCH_ID = ("the original accepts this call and this server refuses it, naming `branchId` — “Invalid "
             "branchId: must be a non-empty string with max 100 characters”")
ADDED_KEY = 'result.content[0].text → branchId: absent on the original, "zeta·a7e8c6ce" here'


def _record(record: str, message: str, contradicted: list[str], evidence: Evidence | None = None,
            explained_by: str | None = None) -> RecordVerdict:
    test = TestRef(nodeid=f"conformance/suite/test_store.py::test_of_{record.lower()}[cmd:x]",
                   status="failed", examples=1, message=message, contradicted=contradicted)
    return RecordVerdict(id=record, kind="behaviour", aliases=[], anchors=[], statement="s",
                         channels=["wire"], verdict="deviates", reason=message, tests=[test],
                         evidence_before="implemented", evidence_after="observed", evidence=evidence,
                         explained_by=explained_by)


def _pair(*differences: str) -> Evidence:
    return Evidence(reproduced=True, at="on the example's tools/call 2", differences=list(differences),
                    original_spec="npm:0.6.2")


def test_a_pair_differing_elsewhere_is_not_the_records_line() -> None:
    """OBJ-2's check saw the history pinned at its cap; its replay first shows an answer key the fork adds:
    the line is the cap, in the check's words, never the key."""
    rv = _record("OBJ-2", CAP, ["OBJ-2"])
    evidence = its_failure(rv, _pair(ADDED_KEY))
    assert evidence.not_its_failure and not evidence.breaks
    line = headline(rv, evidence)
    assert line.startswith("an accepted call left thoughtHistoryLength at 1000"), line
    assert "branchId" not in line and "contradicted" not in line, line


def test_the_difference_that_tells_the_failure_leads() -> None:
    """Among a pair's differences, the one at the field the check names comes first."""
    count = "result.content[0].text → thoughtHistoryLength: 1001 on the original, 1000 here"
    rv = _record("OBJ-2", CAP, ["OBJ-2"])
    evidence = its_failure(rv, _pair(ADDED_KEY, count))
    assert not evidence.not_its_failure and evidence.differences == [count, ADDED_KEY]
    assert headline(rv, evidence).startswith("thoughtHistoryLength: 1001 on the original, 1000 here"), (
        headline(rv, evidence))


def test_a_refusal_of_another_field_is_not_the_causes() -> None:
    """RTE-3's pair refuses branchId; a check naming RTE-3 as contradicted because `thought` was refused is
    not explained by it (npm:2026.8.31's OBJ-10 and RTE-3/a1, nalyk's BAP-4); one refused on branchId is."""
    cause = RootCause(id="RTE-3", records=["RTE-3"], explains=["BAP-4", "OBJ-4/a1"], summary="s",
                      evidence=_pair(BRANCH_ID))
    refused = "RTE-3 contradicted: call was refused as invalid: a refusal, "
    thought = _record("BAP-4", refused + "“Invalid thought: must be a non-empty string” (isError)", ["RTE-3"],
                      explained_by="RTE-3")
    branch = _record("OBJ-4/a1", refused + "“Invalid branchId: must be a non-empty string with max 100 "
                     "characters” (isError)", ["RTE-3"], explained_by="RTE-3")
    causes, records = checked_explanations([cause], [thought, branch])
    assert causes[0].explains == ["OBJ-4/a1"]
    assert [r.explained_by for r in records] == [None, "RTE-3"]


def test_a_checks_line_never_opens_with_the_record_it_saw_broken() -> None:
    """"RTE-3 contradicted:" is data (the result's `contradicted`), not words: the line says what came."""
    line = spoken("RTE-3 contradicted: call was refused as invalid: a refusal, “Invalid thought” (isError)",
                  "conformance/suite/test_x.py::test_y")
    assert line == "call was refused as invalid: a refusal, “Invalid thought” (isError)", line


def test_a_refusal_is_not_a_caps_pair_nor_a_key_its_quoted_answer_holds() -> None:
    """OBJ-2's checks saw the history at its cap, quoting the whole answer (which holds `branchId`): a pair
    refusing a 51st branch, or adding a `branchId` key, is not that failure (nalyk-ts's OBJ-2 headline was
    the 50-branch cap); a prompts/get the original has no handler for is EXT-1's own refusal."""
    quoted = CAP + ': {"result": {"content": [{"type": "text", "text": "{\\"branchId\\": \\"b\\"}"}]}}'
    rv = _record("OBJ-2", quoted, ["OBJ-2"])
    cap = ("the original accepts this call and this server refuses it — “Maximum number of branches (50) "
           "exceeded” (isError)")
    assert its_failure(rv, _pair(cap)).not_its_failure
    store = _record("OBJ-2", "OBJ-2 contradicted: rejected call changed the store (thought): the probe call "
                    "reports thoughtHistoryLength 1000, not 1001 after the calls accepted so far", ["OBJ-2"])
    assert its_failure(store, _pair(cap)).not_its_failure
    branches = _record("OBJ-3", "call was rejected: a refusal, “Maximum number of branches (50) exceeded” "
                       "(isError)", ["OBJ-3"])
    assert not its_failure(branches, _pair(cap)).not_its_failure
    assert its_failure(rv, _pair(ADDED_KEY)).not_its_failure
    ext = _record("EXT-1", "CMP-3 contradicted: prompts/get is answered where the original has no handler "
                  'for it (-32601 "Method not found")', ["CMP-3"])
    refused = ("the original refuses this call — “Method not found” (JSON-RPC error -32601) — and this "
               "server accepts it")
    assert not its_failure(ext, _pair(refused)).not_its_failure


def test_the_field_a_check_saw_refused_is_read_from_the_answer_it_quotes() -> None:
    """npm:2026.8.31 refuses through the SDK's schema check, and its checks quote the whole refusal: the
    field is read from that answer as `explain` reads it, so a refusal of isRevision is not RTE-3's refusal
    of branchId, whether the check names RTE-3 or its own pair refuses another field."""
    words = ("MCP error -32602: Input validation error: Invalid arguments for tool sequentialthinking: "
             '[\\n  {\\n    \\"code\\": \\"invalid_type\\",\\n    \\"path\\": [\\n      \\"isRevision\\"'
             '\\n    ]\\n  }\\n]')
    quoted = ('RTE-3 contradicted: call was refused as invalid: {"result": {"content": [{"type": "text", '
              '"text": "' + words + '"}], "isError": true}}')
    assert refused_in(quoted) == "isRevision"
    accepted = "RTE-3 contradicted: the original refuses this call (thought); it was accepted"
    assert refused_in(accepted) == "thought"
    cause = RootCause(id="RTE-3", records=["RTE-3"], explains=["OBJ-10"], summary="s",
                      evidence=_pair(BRANCH_ID))
    own = _pair("the original accepts this call and this server refuses it, naming `isRevision` — “…”")
    rv = _record("OBJ-10", quoted, ["RTE-3"], evidence=own, explained_by="RTE-3")
    causes, records = checked_explanations([cause], [rv])
    assert causes[0].explains == [] and records[0].explained_by is None
    unnamed = _record("OBJ-10", "OBJ-10 contradicted: x", ["OBJ-10"], evidence=own, explained_by="RTE-3")
    assert checked_explanations([cause], [unnamed])[1][0].explained_by is None


def test_a_check_quoting_the_lines_a_text_difference_changes_is_told_by_them() -> None:
    """npm:2026.8.31's OBJ-12 check quotes the description lines it read, without the word "description":
    the changed line the pair quotes (its marks dropped) tells that this pair is its failure."""
    changed = ("result.tools[0].description: 54 lines on each side; changes line 34 "
               "“- [next_thought_needed]: …” to “- [nextThoughtNeeded]: …”")
    rv = _record("OBJ-12", "“* Changes in approach” ⏎ “- next_thought_needed: true if you need more "
                 "thinking”", ["OBJ-12"])
    assert not its_failure(rv, _pair(changed)).not_its_failure
    other = _record("OBJ-12", "“* Changes in approach” ⏎ “- thought: your current thinking step”", ["OBJ-12"])
    assert its_failure(other, _pair(changed)).not_its_failure


def test_a_refusal_of_another_field_in_a_records_own_replay_is_not_its_line() -> None:
    """CMP-1's check saw `branchId` refused; its example's replay (another shrunk example in another run)
    led with a refusal of thoughtNumber that names no field in its sentence: the words tell the field, and
    the line stays the branchId refusal its check saw (nalyk-ts)."""
    rv = _record("CMP-1", 'RTE-3 contradicted: call was refused as invalid: {"result": {"content": [{"type": '
                 '"text", "text": "{\\"error\\": \\"Invalid branchId: must be a non-empty string\\"}"}], '
                 '"isError": true}}', ["RTE-3"])
    other = ("the original accepts this call and this server refuses it — “Invalid thoughtNumber: must be a "
             "positive integer” (isError)")
    assert its_failure(rv, _pair(other)).not_its_failure
    assert not its_failure(rv, _pair(BRANCH_ID)).not_its_failure
