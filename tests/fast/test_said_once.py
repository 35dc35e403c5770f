"""A line said alike for many departures is said once (report.md, issue 42): a fork fencing its answers
stopped a dozen checks with "tools/call text is not JSON: …", and report.md repeated that line per record
under one cause. Departures under other causes, or saying other things, keep lines of their own."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.report.model import RecordVerdict
from conformance.report.sections.departures import Departures, markdown, said_once

FENCED = ("tools/call text is not JSON: Expecting value: line 1 column 1 (char 0): '```json ⏎ { ⏎ "
          "\"thoughtNumber\": {n}, ⏎ …")


def _record(rid: str, explained_by: str | None, reason: str) -> RecordVerdict:
    return RecordVerdict(id=rid, kind="rte", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", explained_by=explained_by, reason=reason)


@given(numbers=st.lists(st.integers(min_value=0, max_value=10**6), min_size=2, max_size=8))
def test_lines_alike_but_for_what_they_quote_are_said_once_under_their_cause(numbers: list[int]) -> None:
    records = [_record(f"R-{i}", "OBJ-4", FENCED.replace("{n}", str(n))) for i, n in enumerate(numbers)]
    other = _record("X-1", "OBJ-4", "stderr holds 2 boxes for one call")
    elsewhere = _record("Y-1", "OBJ-8", FENCED.replace("{n}", "1"))
    said = said_once([(rv, rv.reason) for rv in [*records, other, elsewhere]])
    assert [[rv.id for rv in members] for members, _ in said] == [[rv.id for rv in records], ["X-1"], ["Y-1"]]
    text = "\n".join(markdown(Departures(tuple([*records, other, elsewhere]), frozenset()), 0))
    assert text.count("is not JSON") == 2, text
    assert ", ".join(rv.id for rv in records).replace("-", "\\-") in text


def test_a_replay_note_true_of_one_is_not_said_of_several() -> None:
    """Said for several, the first one's note on its replay ("not reproduced") is left out: the others' may
    be "not replayed"."""
    one = _record("A", "C", FENCED.replace("{n}", "1") + " (not reproduced on fresh processes)")
    budget = " (not replayed: the report's replay budget was spent)"
    two = _record("B", "C", FENCED.replace("{n}", "2") + budget)
    ((members, line),) = said_once([(one, one.reason), (two, two.reason)])
    assert [rv.id for rv in members] == ["A", "B"] and "(not" not in line
    ((_, alone),) = said_once([(one, one.reason)])
    assert alone.endswith("(not reproduced on fresh processes)")


def test_short_lines_are_grouped_only_when_the_same() -> None:
    """A line too short to tell its own words from what it quotes ("'x' is not in list") is grouped only
    with the very same line."""
    a, b = _record("A", None, "'a' is not in list"), _record("B", None, "'b' is not in list")
    assert len(said_once([(a, a.reason), (b, b.reason)])) == 2
    assert len(said_once([(a, a.reason), (b, a.reason)])) == 1


@given(detail=st.sampled_from([1, 2]))
def test_departures_said_alike_share_one_details_block(detail: int) -> None:
    """With each departure's evidence shown, those saying the same line are one block naming them all, the
    first one's evidence standing for them (each one's own is in report.html)."""
    records = [_record(f"R-{i}", "OBJ-4", FENCED.replace("{n}", str(i))) for i in range(4)]
    other = _record("X-1", "OBJ-4", "stderr holds 2 boxes for one call")
    text = "\n".join(markdown(Departures(tuple([*records, other]), frozenset()), detail))  # type: ignore[arg-type]
    summaries = [line for line in text.split("\n") if line.startswith("<details><summary>")]
    assert len(summaries) == 2, summaries
    assert "R-0, R-1, R-2, R-3 (explained by OBJ-4)" in summaries[0]
    assert "The same line for 4 departures" in text
