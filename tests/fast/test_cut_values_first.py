"""A headline cut keeps each clause's difference, its values, before its context (issue 42): #3007's schema
headline, six keys added, was cut to "head adds…" six times; a history cap's "head caps it at 100" went
before the words leading up to it; a crash's words on the fork's side were dropped at the terminal's 160
characters."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from conformance.report.escape import cut_headline, keeps_difference
from conformance.report.model import HEADLINE_PAIR_CHARS, quote_fitted

# modelcontextprotocol/servers #3007 (base = merge-base, head = refs/pull/3007/head), compare's tool-spec.
TOOL_SPEC = ("The listed tool's `inputSchema`: `required` on head reorders its items; head adds "
             "`properties.branchId.maxLength` (256); head adds `properties.branchId.minLength` (1); "
             "head adds `properties.thought.maxLength` (102400); head adds `properties.thought.minLength` "
             '(1); head adds `$schema` ("http://json-schema.org/draft-07/schema#"); head adds '
             "`additionalProperties` (false) (1 difference)")
# #3007's history cap.
HISTORY = ("`thoughtHistoryLength` over one run of distinct accepted calls: head caps it at 1000 "
           "(unchanged over calls 1001 to 1017); base keeps it growing by one a call (1017 after call "
           "1017); they first differ after call 1001 (1 difference)")
# rik-ts (Rikxed/sequentialthinking), run against npm:0.6.2: V8 quotes each side's own source.
CRASHES = ("RTE-8/a1 departs — both refuse this call, in other words: “this.branches[validatedInput.branchId]"
           ".push is not a function” on the original, “this.branches[branchId].push is not a function” here "
           "(reproduced at tools/call 2 against npm:0.6.2)")


def test_a_schema_headline_cut_keeps_each_added_keys_value() -> None:
    for limit in (160, 199 - len("root cause tool-spec [BAP-4, OBJ-7]: "), 300):
        cut = cut_headline(TOOL_SPEC, limit)
        assert len(cut) <= limit
        assert "adds…" not in cut and "`inputSchema`…" not in cut, cut
        assert "`required` on head reorders its items" in cut, cut
        assert "`properties.branchId.maxLength` (256)" in cut, cut
        assert cut.endswith(" (1 difference)"), cut


def test_a_cap_keeps_its_number_before_the_words_leading_to_it() -> None:
    for limit in (160, 200):
        cut = cut_headline(HISTORY, limit)
        assert len(cut) <= limit
        assert "head caps it at 1000" in cut and "base keeps it growing by one a call" in cut, cut
        assert "they first differ after call 1001" in cut, cut


def test_two_crashes_keep_both_sides_words_at_the_terminals_width() -> None:
    cut = cut_headline(CRASHES, 160)
    assert len(cut) <= 160
    assert "[validatedInput.]" in cut and "[[]branchId]" in cut and cut.count("“") == 2, cut


_NAME = st.from_regex(r"[a-z][a-zA-Z.]{2,30}", fullmatch=True)
_VALUE = st.one_of(st.integers(0, 10**6).map(str), st.sampled_from(["true", "false", '"x"']))


@given(st.lists(st.tuples(_NAME, _VALUE), min_size=3, max_size=9, unique_by=lambda kv: kv[0]),
       st.sampled_from(["head", "base", "0.6.2"]), st.integers(80, 400))
def test_added_keys_are_cut_with_their_values_never_as_a_bare_verb(
        added: list[tuple[str, str]], side: str, limit: int) -> None:
    """However many keys a side adds and however short the line, a key said is said with its value, and no
    clause is left as its verb alone."""
    clauses = ["The listed tool's `inputSchema`: `required` on head reorders its items",
               *(f"{side} adds `{key}` ({value})" for key, value in added)]
    text = "; ".join(clauses) + " (1 difference)"
    cut = cut_headline(text, limit)
    assert len(cut) <= limit
    assert not re.search(r"\badds…", cut), cut
    for key, value in added:
        if f"`{key}`" in cut and not re.search(rf"more on [^;]*`{re.escape(key)}`", cut):
            assert f"`{key}` ({value})" in cut, (key, cut)


@given(st.lists(st.from_regex(r"[a-z]{2,9}", fullmatch=True), min_size=3, max_size=8),
       st.from_regex(r"[A-Za-z]{3,12}", fullmatch=True), st.from_regex(r"[A-Za-z]{3,12}", fullmatch=True),
       st.integers(120, 200))
def test_two_quotes_side_by_side_keep_both_sides(shared: list[str], was: str, now: str, limit: int) -> None:
    """A sentence setting two texts side by side ("“A” on the original, “B” here") cut to a line keeps a
    quote of each side with the words that differ, however long the words around them."""
    if was == now:
        return
    words = " ".join(shared)
    text = (f"RTE-8/a1 departs — both refuse this call, in other words: “{words} {was} {words}” on the "
            f"original, “{words} {now} {words}” here (reproduced at tools/call 2 against npm:0.6.2)")
    cut = cut_headline(text, limit)
    assert len(cut) <= limit
    if len(text) > limit and cut.count("“") == 2:
        assert was in cut and now in cut, cut
    if len(text) > limit:
        assert cut.count("“") == 2 or limit < 140, cut


def test_a_piece_without_its_values_does_not_keep_the_difference() -> None:
    clause = "head adds `properties.thought.maxLength` (102400)"
    assert not keeps_difference(clause, "head adds…")
    assert not keeps_difference(clause, "head adds `properties.thought.maxLength`…")
    assert keeps_difference(clause, clause)
    lead = "`branches` over one run of distinct accepted calls: head caps it at 100 (unchanged to 117)"
    assert not keeps_difference(lead, "`branches` over one run of distinct accepted calls…")
    assert keeps_difference(lead, "`branches`…: head caps it at 100 (…)")


# npm:2026.8.31's OBJ-8, a call without arguments: a crash on the original, a wrapped refusal on the fork.
OBJ_8 = ("both refuse this call, in other words: “Cannot read properties of undefined (reading "
         "'thought')” on the original (a runtime error), “MCP error -32602: Input validation error: Invalid "
         "arguments for tool sequentialthinking: Invalid input: expected object, received undefined” here")


def test_two_unlike_refusals_keep_each_sides_start_and_end() -> None:
    fitted = quote_fitted(OBJ_8, HEADLINE_PAIR_CHARS)
    assert len(fitted) <= HEADLINE_PAIR_CHARS
    assert fitted.count("“") == 2 and fitted.endswith("received undefined” here"), fitted
    assert "“Cannot read" in fitted and "“MCP error -32602:" in fitted, fitted
    line = cut_headline(f"OBJ-8 departs — {fitted} (reproduced at tools/call 1 against npm:0.6.2)", 160)
    assert len(line) <= 160 and line.count("“") == 2 and "received undefined” here" in line, line
    assert ",…" not in line, line


def _sentence(letters: str) -> st.SearchStrategy[str]:
    word = st.from_regex(rf"[{letters}]{{2,9}}", fullmatch=True)
    return st.lists(word, min_size=8, max_size=30).map(" ".join)


@given(_sentence("a-m"), _sentence("n-z"), st.integers(140, 200))
def test_two_long_quotes_side_by_side_each_keep_their_ends(was: str, now: str, limit: int) -> None:
    """Two texts sharing no word set side by side, however long, are both said when a difference is fitted
    to a headline: each quote's first and last words, never the first whole and the second gone."""
    text = f"both refuse this call, in other words: “{was}” on the original, “{now}” here"
    fitted = quote_fitted(text, limit)
    if len(text) <= limit:
        assert fitted == text
        return
    assert len(fitted) <= limit and fitted.count("“") == 2 and fitted.endswith("” here"), fitted
    for words in (was, now):
        assert f"“{words.split(' ')[0]}" in fitted and f"{words.split(' ')[-1]}”" in fitted, (words, fitted)


# reference_fork.py debug-stderr against the reference, compare's render cause.
AROUND = ("fork adds lines around an unchanged stderr box of every accepted call, one-line or multi-line: "
          "“[DEBUG] processing thought 1” before it and “[DEBUG] stored thought 1” after it (2 differences)")


def test_a_lead_is_cut_to_as_many_of_its_words_as_fit_before_its_values() -> None:
    cut = cut_headline(AROUND, 199 - len("root cause render [CMP-5, RTE-9]: "))
    assert "fork adds lines around an unchanged stderr box" in cut, cut
    assert "“[DEBUG] processing thought 1” before it and “[DEBUG] stored thought 1” after it" in cut, cut


def test_a_conclusion_after_the_values_is_no_difference_to_keep_alone() -> None:
    """A clause ending in a conclusion ("…: a host reads it as a result") keeps the values before it: its
    lead cut to a few words before the conclusion said nothing of what was answered."""
    clause = ("fork answers calls to another tool name with content and no isError, “Tool x is not available "
              "here”, where ref refuses with isError (refusing with “Unknown tool: x”): a host reads it as a "
              "result")
    assert not keeps_difference(clause, "fork answers calls to…: a host reads it as a result")
    cut = cut_headline(clause + " (1 difference)", 150)
    assert "“Tool x is not available here”" in cut, cut


# npm:2025.11.25's CMP-2 headline: a JSON value, then the listing's other changed keys.
CMP_2 = ('CMP-2 departs — tools[0].execution: absent on the original, {"taskSupport": "forbidden"} here; '
         "and 3 more beside it: outputSchema, title, description (reproduced at tools/list (request 2) "
         "against npm:0.6.2)")


def test_a_json_value_cut_after_its_start_and_a_closing_aside_are_no_lost_difference() -> None:
    cut = cut_headline(CMP_2, 160)
    assert len(cut) <= 160
    assert '{"taskSupport"' in cut and "outputSchema, title, description" in cut, cut
