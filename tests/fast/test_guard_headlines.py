"""A falsy value the original's guard refuses and a fork accepts is said as the call, the original's refusal
in its own words and the acceptance, never an answer dumped whole; and a departure whose own replayed pair
is a cause's refusal goes under that cause (issue 42: npm:2025.11.25 … 2026.8.31 led with "RTE-3/a1 departs
— the original refuses this call (thought); it was accepted: the answer { … }", and put OBJ-8/a1
`thought: ""` accepted, under OBJ-8, the refusal of a call without arguments).

The sentence is made by a real server (tests/servers/reference_fork.py `typed-guards`); the grouping is
checked on the root causes and departing records a real run against npm:2026.8.31 kept (kept/)."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Final

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from conformance.core.differences import explain
from conformance.core.failure_text import spoken
from conformance.core.guards import GUARD_REFUSALS
from conformance.core.jsontypes import JSON
from conformance.gate.evidence import checked_explanations
from conformance.report.escape import cut_headline
from conformance.report.evidence_parts import evidence_line
from conformance.report.model import HEADLINE_PAIR_CHARS, Evidence, RecordVerdict, RootCause, quote_fitted
from conformance.suite.answers import rejected
from conformance.suite.contradiction import Contradiction
from conformance.suite.session import ServerSession
from scripts.audit_headlines import audit_lines, markdown_headlines, sources
from scripts.audit_headlines import main as audit_headlines_main
from tests.servers import VALID, fork_session

KEPT: Final = Path(__file__).parent / "kept" / "npm-2026.8.31-grouped.json"


def _session() -> AbstractContextManager[ServerSession]:
    return fork_session("typed-guards")


@pytest.mark.parametrize(("field", "value", "sent"), [
    ("thought", "", '`thought: ""`'),
    ("thoughtNumber", 0, "`thoughtNumber: 0`"),
    ("totalThoughts", 0, "`totalThoughts: 0`"),
])
def test_a_falsy_value_accepted_is_said_as_the_call_and_the_originals_refusal(
    field: str, value: JSON, sent: str
) -> None:
    with _session() as session, pytest.raises(Contradiction) as raised:
        rejected(session.call({**VALID, field: value}))
    assert raised.value.record == "RTE-3/a1", raised.value
    said = str(raised.value)
    assert sent in said and "is accepted where the original refuses" in said, said
    assert f"“{GUARD_REFUSALS[field]}” (isError)" in said, said
    headline = f"RTE-3/a1 departs — {spoken(said, 'x.py::test_messages_false_of_their_input[t]', 240)}"
    assert not any(audit_lines([headline]).values()), audit_lines([headline])
    assert sent in headline and GUARD_REFUSALS[field] in headline, headline
    if field == "thought":  # the terminal's line (cut at 160) still says the call and the refusal
        shown = cut_headline(f"{headline} (3 checks fail)", 160)
        assert sent in shown and f"“{GUARD_REFUSALS[field]}” (isError) (3 checks fail)" in shown, shown


def test_the_guards_of_the_fork_still_refuse_a_wrong_type_in_the_originals_words() -> None:
    """The fork changes falsiness only: a mistyped thought is refused as the original refuses it, no record
    named (so the test above is about the falsy value, not a broken server)."""
    with _session() as session:
        assert rejected(session.call({**VALID, "thought": 7})) == GUARD_REFUSALS["thought"]


def _kept() -> tuple[list[RootCause], list[RecordVerdict]]:
    kept = json.loads(KEPT.read_text(encoding="utf-8"))
    return ([RootCause.model_validate(c) for c in kept["root_causes"]],
            [RecordVerdict.model_validate(r) for r in kept["records"]])


def test_a_departure_goes_under_the_cause_whose_refusal_its_own_pair_shows() -> None:
    causes, records = _kept()
    proposed = {rv.id: rv.explained_by for rv in records}
    assert proposed["OBJ-8/a1"] == "OBJ-8", "the kept run is the one that misplaced it"
    out_causes, out = checked_explanations(causes, records)
    placed = {rv.id: rv.explained_by for rv in out}
    by_id = {c.id: c for c in out_causes}
    assert placed["OBJ-8/a1"] == "RTE-3/a1", placed
    assert "OBJ-8/a1" in by_id["RTE-3/a1"].explains and "OBJ-8/a1" not in by_id["OBJ-8"].explains
    # Everything else the run placed stays where it was: the same refusal re-worded (RTE-8, BAP-4) is OBJ-8's.
    assert {r: c for r, c in placed.items() if r != "OBJ-8/a1"} == {
        r: c for r, c in proposed.items() if r != "OBJ-8/a1"}


def test_the_audit_flags_an_answer_dumped_in_a_headline_of_the_kept_run() -> None:
    """The kept run's RTE-3/a1 headline, as report.md writes it, is an answer dump; the others are not."""
    causes, _ = _kept()
    written = "\n\n".join(c.summary.replace("-", "\\-").replace(".", "\\.") for c in causes)
    found = audit_lines(markdown_headlines(written))
    assert [line.split(" — ")[0] for line in found["answer dump"]] == ["RTE-3/a1 departs"], found
    assert not any(v for k, v in found.items() if k != "answer dump"), found


def _kept_pair(cause_id: str) -> tuple[JSON, JSON]:
    kept = json.loads(KEPT.read_text(encoding="utf-8"))
    evidence = next(c["evidence"] for c in kept["root_causes"] if c["id"] == cause_id)
    return json.loads(evidence["original"]), json.loads(evidence["target"])


def test_a_crash_beside_a_stated_rule_is_said_as_a_runtime_error() -> None:
    """npm:2026.8.31's pair for a call without arguments: the original crashes reading `thought`, the release
    refuses by its schema ("… received undefined", no crash): the crash is marked, the rule is not."""
    original, target = _kept_pair("OBJ-8")
    said = explain(original, target)[0].said()
    assert said.startswith("both refuse this call, in other words: “Cannot read properties of undefined "
                           "(reading 'thought')” on the original (a runtime error), “MCP error -32602"), said
    assert said.count("(a runtime error)") == 1, said
    assert "(a runtime error)" not in explain(target, original)[0].said().split("“MCP error")[0], \
        "marked beside the crash's words, whichever side crashed"


@given(read=st.sampled_from(["thought", "thoughtNumber", "branchId"]),
       prefix=st.sampled_from(["", "TypeError: "]))
def test_two_crashes_are_not_marked(read: str, prefix: str) -> None:
    """Both sides crashing is no crash beside a rule: nothing marked (the order of reading is said)."""
    def crash(name: str) -> JSON:
        words = f"{prefix}Cannot read properties of undefined (reading '{name}')"
        text = json.dumps({"error": words, "status": "failed"})
        return {"jsonrpc": "2.0", "result": {"content": [{"type": "text", "text": text}], "isError": True}}

    said = explain(crash("thought"), crash(read))
    assert all("(a runtime error)" not in d.said() for d in said), said


def test_a_long_refusal_in_a_headline_keeps_its_own_words_at_its_end() -> None:
    """The kept run's RTE-3 pair: the SDK's wrapper opens the refusal, its own words ("… received boolean at
    branchId") close it; the headline cuts the quote's middle, not its end."""
    causes, _ = _kept()
    evidence = next(c.evidence for c in causes if c.id == "RTE-3")
    assert evidence is not None
    line = evidence.headline()
    assert "received boolean at branchId” (isError) (reproduced at tools/call 1" in line, line
    assert "“MCP error -32602: Input … " in line, line


_WORD = st.text(alphabet="abcdefghij", min_size=1, max_size=9)


@given(before=st.lists(_WORD, max_size=12), quoted_words=st.lists(_WORD, min_size=12, max_size=60),
       after=st.lists(_WORD, max_size=6))
def test_a_quote_cut_in_its_middle_keeps_whole_words_at_both_ends(
    before: list[str], quoted_words: list[str], after: list[str]
) -> None:
    words = " ".join(quoted_words)
    difference = f"{' '.join(before)} — “{words}” {' '.join(after)}".strip()
    fitted = quote_fitted(difference, HEADLINE_PAIR_CHARS)
    if fitted == difference:
        return
    assert len(fitted) <= HEADLINE_PAIR_CHARS, fitted
    inside = fitted.split("“", 1)[1].split("”", 1)[0]
    head, _, tail = inside.partition(" … ")
    assert words.startswith(head) and words.endswith(tail), (head, tail)
    assert head.split(" ")[-1] in quoted_words and tail.split(" ")[0] in quoted_words, "cut at words"


_CODE_WORD = st.text(alphabet="abcdefghijklmnop", min_size=3, max_size=12)


@given(shared=st.lists(_CODE_WORD, min_size=4, max_size=10),
       ends=st.lists(_CODE_WORD, min_size=2, max_size=6), mine=_CODE_WORD, theirs=_CODE_WORD)
def test_two_refusals_sharing_words_keep_both_sides_words_that_differ(
    shared: list[str], ends: list[str], mine: str, theirs: str
) -> None:
    """Two refusals of one crash in other words, V8 quoting each side's own source (“this.branches[
    validatedInput.branchId].push is not a function” on npm:0.6.2, “this.branches[branchId].push …” on a
    fork renaming a local): the headline says both sides' differing words, never only the original's."""
    assume(mine != theirs and mine not in theirs and theirs not in mine)
    a, b = (".".join([*shared, word, *ends]) + " is not a function" for word in (mine, theirs))
    difference = f"both refuse this call, in other words: “{a}” on the original, “{b}” here"
    assume(len(difference) > HEADLINE_PAIR_CHARS)
    fitted = quote_fitted(difference, HEADLINE_PAIR_CHARS)
    assert len(fitted) <= HEADLINE_PAIR_CHARS, fitted
    original, _, here = fitted.partition(" on the original, ")
    assert f"[{mine}]" in original and f"[{theirs}]" in here, fitted


def test_the_audit_reads_a_compare_folders_report_and_pull_request_comment(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A report folder is audited as a person reads it: its report.md and the comment `pr_comment.py` writes
    from its report.json (a committed comparison of two real releases), each with its size and headlines."""
    folder = Path(__file__).resolve().parents[2] / "reports" / "compare-npm-2025.12.18-vs-npm-2026.7.4"
    names = [name for name, found, _ in sources(folder) if found]
    assert names == [str(folder / "report.md"), f"{folder / 'report.json'} (pull-request comment)"], names
    assert audit_headlines_main([str(folder)]) in (0, 1)
    printed = capsys.readouterr().out
    assert "(pull-request comment)" in printed and "answer dump" in printed, printed


def test_the_terminal_line_of_a_long_refusal_still_names_its_field() -> None:
    """The kept run's RTE-3 pair said again by the explainer: the terminal's line (cut at 160) names the
    refused field (`branchId`), which a cut at the comma before "naming" had dropped."""
    original, target = _kept_pair("RTE-3")
    said = explain(original, target)[0].said()
    assert "refuses it naming `branchId` — “" in said, said
    evidence = Evidence(reproduced=True, original_spec="npm:0.6.2", at="on the example's tools/call 1",
                        differences=[said])
    shown = cut_headline(f"RTE-3 departs — {evidence.headline()}", 160)
    assert "naming `branchId`" in shown, shown


def test_a_cause_s_evidence_line_keeps_both_sides_words_of_a_long_re_wording() -> None:
    """The terminal's line under a cause (200 characters) cut the same pair after the original's words: it
    now says both sides' words that differ (Rikxed/sequentialthinking's RTE-8/a1, npm:0.6.2's words first)."""
    difference = ("both refuse this call, in other words: “this.branches[validatedInput.branchId].push is "
                  "not a function” on the original, “this.branches[branchId].push is not a function” here")
    evidence = Evidence(reproduced=True, at="on the example's tools/call 2", differences=[difference],
                        original_spec="npm:0.6.2")
    line = evidence_line(evidence)
    lead = "reproduced on the example's tools/call 2 against npm:0.6.2: "
    assert len(line) <= 200 and line.startswith(lead), line
    assert "[validatedInput.]" in line and "[[]branchId]" in line and line.endswith(" here"), line
