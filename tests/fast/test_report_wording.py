"""The words a report uses, on the committed reports and on generated gates: a passing gate never speaks of
failing, a claim record shows its claim audit beside its verdict, what repeats is said once, and test ids
wrap only between their parts."""

from __future__ import annotations

import html
import itertools
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.report.html import render_html
from conformance.report.html_parts import identifier
from conformance.report.json import load_report
from conformance.report.markdown import render_markdown_at
from conformance.report.markup import escape
from conformance.report.model import Gate, GateEntry, Report
from conformance.report.sections import SECTIONS
from conformance.report.sections.section import Section
from conformance.report.terminal import summary_lines
from conformance.report.text import departures_sentence

REPO = Path(__file__).resolve().parents[2]
FORK = REPO / "reports" / "npm-2026.8.31" / "report.json"
"""A passing gate with 29 departures, every one declared in the baseline."""

MINE = ("title", "summary", "gate", "claims", "records")
"""The sections whose wording this file pins (root causes and departures have their own)."""


@pytest.fixture(scope="module")
def fork() -> Report:
    report = load_report(FORK)
    assert report.gate.passed and len(report.gate.expected) == 29
    return report


def _sections(*names: str) -> tuple[Section, ...]:
    return tuple(s for s in SECTIONS if s.name in names)


def _entries(prefix: str, n: int) -> list[GateEntry]:
    return [GateEntry(record=f"{prefix}-{i}", verdict="deviates", expected="deviates", reason="r")
            for i in range(n)]


@given(accepted=st.integers(0, 40), new=st.integers(0, 5), changed=st.integers(0, 3),
       baseline=st.booleans())
def test_the_departures_sentence_counts_new_and_accepted(
    accepted: int, new: int, changed: int, baseline: bool
) -> None:
    passed = new == 0 and changed == 0
    gate = Gate(baseline="baseline.yaml" if baseline else None, passed=passed,
                expected=_entries("A", accepted) if baseline else [], unexpected=_entries("N", new),
                changed=_entries("C", changed) if baseline else [])
    departing = len(gate.expected) + len(gate.unexpected) + len(gate.changed)
    sentence = departures_sentence(gate, departing)
    assert "fail" not in sentence
    if departing == 0:
        assert sentence == "no record departs"
    elif not baseline:
        assert sentence.startswith(f"{departing} departure") and "new (no baseline given)" in sentence
    else:
        assert f"{accepted} accepted (declared in the baseline)" in sentence
        assert f"{new} new" in sentence
        assert (f"{changed} declared but changed" in sentence) == bool(changed)


def test_a_passing_gate_says_accepted_never_failing(fork: Report) -> None:
    mine = _sections(*MINE)
    text = "\n".join([*summary_lines(fork, mine), render_markdown_at(fork, 2, _sections("title", "summary",
                                                                                       "gate", "claims"))])
    assert "29 departures: 0 new, 29 accepted (declared in the baseline)" in text
    assert "failing" not in text, [line for line in text.splitlines() if "failing" in line]


def test_the_summary_leads_with_records_checked_and_keeps_the_packet_below(fork: Report) -> None:
    lines = [line.strip() for line in summary_lines(fork, _sections("summary")) if line.strip()]
    # 92 seed records and 11 of the specification (three bind a revision 2026.8.31 does not settle on)
    # a record not run is not counted as checked (a green run had said "104 records checked: …, 12 not run")
    assert lines[0] == ("87 records checked: 58 hold, 29 depart; 3 not run; "
                        "13 more cannot be observed from outside")
    assert lines[1].startswith("29 departures: 0 new, 29 accepted")
    assert lines[2].startswith(
        "for the evidence packet: 54 of 103 records moved from implemented to observed")
    page = render_html(fork, _sections("summary", "records"))
    assert page.index("records checked") < page.index("For the evidence packet") < page.index("moved from")
    first_record = page[page.index('id="rec-CMP-1"'):]
    assert first_record.index("generated examples over") < first_record.index("In the documents") \
        < first_record.index("anchors")


def test_a_claim_record_shows_its_audit_beside_its_verdict(fork: Report) -> None:
    page = render_html(fork, _sections("claims", "records"))
    record = page[page.index('id="rec-CLM-1"'):]
    record = record[: record.index("</details>")]
    summary = html.unescape(re.sub(r"<[^>]+>", "", record[: record.index("</summary>")]))
    assert "holds" in summary and "claim audit: contradicted" in summary
    body = html.unescape(re.sub(r"<[^>]+>", "", record))
    assert ("This record holds: the server still makes claim CLM-1. The claim audit asks whether the claim "
            "is true of its behaviour: contradicted.") in body
    claims = page[page.index('id="claims"'): page.index('id="records"')]
    row = claims[claims.index('id="claim-CLM-1"'):]
    row = html.unescape(re.sub(r"<[^>]+>", " ", row[: row.index("</tr>")]))
    assert re.search(r"holds\s+contradicted", row), row
    assert "still made? (record verdict)" in claims and "true of its behaviour? (claim audit)" in claims
    md = render_markdown_at(fork, 2, _sections("claims", "records"))
    assert "| CLM\\-1 | ✓ holds | contradicted |" in md
    assert "✓ holds; claim audit: *contradicted*" in md


def test_the_transcript_every_test_shares_is_said_once(fork: Report) -> None:
    page = render_html(fork, _sections("records"))
    assert page.count("transcripts/npm_2026.8.31.jsonl") == 1
    assert "<th>transcript</th>" not in page


def test_a_test_with_its_own_transcript_keeps_the_column(fork: Report) -> None:
    first = fork.records[0]
    elsewhere = first.tests[0].model_copy(update={"transcript": "t/other.jsonl"})
    moved = first.model_copy(update={"tests": [elsewhere, *first.tests[1:]]})
    page = render_html(fork.model_copy(update={"records": [moved, *fork.records[1:]]}), _sections("records"))
    assert page.count("t/other.jsonl") == 1 and page.count("<th>transcript</th>") == 1


@given(st.text())
def test_an_identifier_wraps_only_between_its_parts(text: str) -> None:
    shown = identifier(text)
    inner = shown.removeprefix('<code class="id">').removesuffix("</code>")
    pieces = inner.split("<wbr>")
    assert "".join(pieces) == escape(text)
    for before, after in itertools.pairwise(pieces):
        assert html.unescape(before).endswith("/") or html.unescape(after).startswith(("::", "["))
