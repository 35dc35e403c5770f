"""Every "first N, and M more" a line says comes from one helper (core/words.first_and_more), and its count is
right whatever the list and the budget: the names shown are the list's first, and shown plus counted is the
list. A headline's clauses are never counted: one difference's clauses are one sentence, every one said
(issue 42: "…; and 1 more (1 difference)" for "…; 0.6.2 sends none"), and those a cut leaves out of several
are said by the names they quote."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.words import first_and_more
from conformance.report.escape import cut_headline

ITEM = st.text(alphabet="abcdefgh_`", min_size=1, max_size=15)
FORMS = st.sampled_from([(", ", " and {} more"), (", ", ", and {} more"), ("; ", "; and {} more field(s)")])


@given(st.lists(ITEM, max_size=30), st.integers(0, 35), FORMS, st.one_of(st.none(), st.integers(0, 200)),
       st.integers(0, 3))
def test_shown_and_counted_add_up_to_the_list(items: list[str], most: int, form: tuple[str, str],
                                              room: int | None, least: int) -> None:
    sep, more = form
    said = first_and_more(items, most, sep=sep, more=more, room=room, least=least)
    pattern = re.escape(more).replace(re.escape("{}"), r"(\d+)")
    counted = re.search(pattern + "$", said) or re.fullmatch(r"(\d+) more.*", said)
    if counted is None:  # all shown
        assert said == sep.join(items)
        assert room is None or len(items) <= most
        return
    left = int(counted.group(1))
    head = said[: counted.start()]
    shown = head.split(sep) if head else []
    assert shown == items[: len(shown)]
    assert len(shown) + left == len(items)
    assert left > 0
    assert len(shown) <= most
    if room is not None and len(shown) > min(least, most):
        assert len(said) <= room, (said, room)
    if room is not None and len(shown) < most:  # one more would not have fitted
        wider = sep.join(items[: len(shown) + 1]) + more.format(left - 1)
        assert len(wider) > room or len(shown) < least


def test_all_shown_joins_the_last_with_its_word() -> None:
    assert first_and_more(["a", "b", "c"], 3, last=" and ") == "a, b and c"
    assert first_and_more(["a", "b", "c", "d"], 2, last=" or ", more=" or {} more") == "a, b or 2 more"
    assert first_and_more([], 3) == ""


CLAUSE = st.lists(st.text(alphabet="abcdefgh", min_size=1, max_size=10), min_size=1,
                  max_size=12).map(" ".join)


@given(st.lists(CLAUSE, min_size=2, max_size=5), st.integers(60, 240))
def test_one_differences_clauses_are_each_said_never_counted(clauses: list[str], limit: int) -> None:
    text = "; ".join(clauses) + " (1 difference)"
    cut = cut_headline(text, limit)
    assert len(cut) <= limit
    assert not re.search(r"; and \d+ more", cut), cut
    parts = cut.removesuffix(" (1 difference)").split("; ")
    if len(parts) == len(clauses):
        for part, clause in zip(parts, clauses, strict=True):
            assert clause.startswith(part.removesuffix("…")), (part, clause)


NAMED = st.tuples(CLAUSE, st.lists(st.from_regex(r"[a-z][a-zA-Z]{0,9}", fullmatch=True), max_size=3)).map(
    lambda c: c[0] + "".join(f" `{n}`" for n in c[1]))


@given(st.lists(NAMED, min_size=2, max_size=8), st.integers(2, 40), st.integers(60, 240))
def test_several_differences_say_what_the_clauses_left_out_name_never_how_many(
        clauses: list[str], n: int, limit: int) -> None:
    """"; and 15 more (5 differences)" counted clauses beside a count of differences: the clauses a cut
    leaves out are said by the names they quote, those shown plus those counted being all of them."""
    text = "; ".join(clauses) + f" ({n} differences)"
    cut = cut_headline(text, limit)
    assert len(cut) <= limit
    assert not re.search(r"; and \d+ more \(", cut), cut
    tail = re.search(r"; (?:more on (.+)|…) \(\d+ differences\)$", cut)
    if tail is None or len(text) <= limit:
        return
    kept = cut[: tail.start()].split("; ")
    assert kept == clauses[: len(kept)] or kept[:-1] == clauses[: len(kept) - 1], (kept, cut)
    dropped = clauses[len(kept):]  # a clause cut at a word ("…") is kept, its tail not said
    names = list(dict.fromkeys(re.findall(r"`([^`]+)`", "; ".join(dropped))))
    if tail.group(1) is None:
        return
    others = tail.group(1).rpartition(" and ")[2]
    shown = re.findall(r"`([^`]+)`", tail.group(1))
    counted = re.fullmatch(r"(\d+) other names?", others)
    assert shown == names[: len(shown)], (cut, names)
    assert len(shown) + (int(counted.group(1)) if counted else 0) == len(names), (cut, names)


CHATTY = ("fork-chatty-client sends notifications/message (warning) “totalThoughts raised from 3 to 5” when "
          "it answers a call that raises totalThoughts; 0.6.2 sends none (1 difference)")
"""compare's headline on held-out-multi-15's fork-chatty-client, cut for the terminal after its lead."""


def test_the_terminal_says_both_sides_of_a_one_difference_cause() -> None:
    lead = "root cause notifications [LOOP-A]: "
    cut = cut_headline(CHATTY, 199 - len(lead))
    assert "and 1 more" not in cut, cut
    assert cut.endswith("; 0.6.2 sends none (1 difference)"), cut
    assert cut.startswith("fork-chatty-client sends notifications/message (warning) “totalThoughts"), cut


OFFERED = ('fork-protocol-upgrade offers resource thoughts://history, which holds the stored thought: “[ { '
           '"thought": "offered-mark-adf79909e44a", "thoughtNumber": 1, "totalThoughts": 3, '
           '"nextThoughtNeeded": true }, { "thought": "Step two needs more room."…”; 0.6.2 offers no '
           'resource thoughts://history (1 difference)')
"""compare's headline on held-out-multi-15's fork-protocol-upgrade: its quoted history, cut, leaves "[ {"
open."""


def test_brackets_a_quote_leaves_open_hide_no_clause() -> None:
    cut = cut_headline(OFFERED, 199 - len("root cause offered [ABS-2]: "))
    assert cut.endswith("; 0.6.2 offers no resource thoughts://history (1 difference)"), cut


DISPATCH = ("Refusals of `name` are worded otherwise on 0.6.2 and 2026.8.31: the refusal of `name` is "
            "re-worded: “Unknown tool: sequential_thinking” on 0.6.2, “MCP error -32602: Tool "
            "sequential_thinking not found” on 2026.8.31 (1 difference)")
"""compare npm:0.6.2 npm:2026.8.31's dispatch headline: its lead ate the terminal's room and 2026.8.31's
words."""


def test_compares_rewording_lead_goes_before_either_sides_words() -> None:
    lead = "root cause dispatch [RTE-2]: "
    cut = cut_headline(DISPATCH, 199 - len(lead))
    rest = DISPATCH.split("2026.8.31: ", 1)[1]
    assert cut == rest[:1].upper() + rest[1:], cut  # a headline starting in capitals still does
