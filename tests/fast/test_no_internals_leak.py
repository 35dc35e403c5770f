"""Nothing of pytest or hypothesis reaches what a user reads: real failures from the suite's own runs against
the later releases (explicit examples, "Failing test case" with fixtures' reprs, the explain phase, the
decorator to paste) go through the gate and every writer (terminal, report.md, report.html, junit.xml, the
baseline's TODO reasons), and none of it comes out; the node ids stay in report.json only (for --select).
Headlines carry no Python repr, bare number, escaped line break or sentence about the check."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.errors import Flaky

from conformance.core.failure_text import CHECK_BROKE, raised_message, readable, readable_example, unspoken
from conformance.core.results import Counterexample, TestOutcome
from conformance.gate.baseline import dump_baseline
from conformance.gate.refresh import refresh
from conformance.report.html import render_html
from conformance.report.json import render_json
from conformance.report.junit import render_junit
from conformance.report.markdown import render_markdown
from conformance.report.model import Report
from conformance.report.sections.departures import headline
from conformance.report.terminal import summary_lines
from tests.verdicts import assembled_report

REAL = json.loads((Path(__file__).parent / "real_failures.json").read_text(encoding="utf-8"))["failures"]
LEAKS = re.compile(
    r"Failing explicit example|Falsifying example: test_|Failing test case|@reproduce_failure|Explanation:|"
    r"These lines were always|You can reproduce|ServerSession\(|TargetIdentity\(|mappingproxy\(|"
    r"site-packages/conformance|::test_|conformance/suite/test_"
)


def _report() -> Report:
    tests = [
        TestOutcome(nodeid=f["nodeid"], records=[f["record"]], contradicted=f["contradicted"],
                    status="failed", examples=1, message=f["message"],
                    counterexample=Counterexample(falsifying=f["falsifying"]) if f["falsifying"] else None)
        for f in REAL
    ]
    return assembled_report(tests, ("node", "index.js"), spec="npm:2026.8.31")


def test_the_real_failures_carry_what_must_not_leak() -> None:
    """The fixture is worth its name: its texts hold every kind of internals the writers must drop."""
    text = "\n".join(f["message"] + f["falsifying"] for f in REAL)
    for kind in ("Failing explicit example", "Failing test case", "Explanation:", "@reproduce_failure",
                 "ServerSession("):
        assert kind in text, kind


@pytest.fixture(scope="module")
def report() -> Report:
    return _report()


def test_no_writer_shows_pytest_or_hypothesis_text(report: Report) -> None:
    baseline = dump_baseline(refresh(report, "fork", {}, drop_stale=False).baseline)
    written = {
        "terminal": "\n".join(summary_lines(report)),
        "report.md": render_markdown(report),
        "report.html": render_html(report),
        "junit.xml": render_junit(report),
        "baseline": baseline,
    }
    for name, text in written.items():
        found = sorted({m.group() for m in LEAKS.finditer(text)})
        assert not found, f"{name} shows {found}"
    # The node ids stay where --select needs them.
    assert "conformance/suite/test_" in render_json(report)


def test_no_headline_is_a_repr_a_bare_value_or_about_the_check(report: Report) -> None:
    departing = [rv for rv in report.records if rv.verdict in ("deviates", "error")]
    assert departing
    lines = [c.summary for c in report.root_causes] + [headline(rv, rv.evidence) for rv in departing]
    for line in lines:
        said = line.split(" departs — ", 1)[-1]
        assert not unspoken(said), (unspoken(said), line)
        assert "\\n" not in line and "the check's condition" not in line, line


@given(st.sampled_from(REAL))
@settings(max_examples=len(REAL), deadline=None)
def test_each_real_message_and_example_is_cleaned(failure: dict[str, str]) -> None:
    assert not LEAKS.search(readable(failure["message"])), readable(failure["message"])
    assert not LEAKS.search(readable_example(failure["falsifying"])), readable_example(failure["falsifying"])


def test_a_flaky_examples_message_says_what_it_failed_with_and_nothing_of_hypothesis() -> None:
    """A real hypothesis run that fails once, then passes on the same example: its Flaky failure."""
    seen: list[int] = []

    @given(st.just(0))
    @settings(database=None, max_examples=1, deadline=None)
    def sometimes(x: int) -> None:
        seen.append(x)
        assert len(seen) > 1, "count 2 became 3"

    with pytest.raises(Flaky) as caught:
        sometimes()
    said = raised_message(caught.value, caught.exconly())
    assert said.startswith("its example failed on the shared process, then passed when run again there: ")
    assert "count 2 became 3" in said and "unreliable" not in said, said
    assert not LEAKS.search(said), said


def test_a_cause_past_the_replay_budget_names_its_checks_not_their_node_ids(report: Report) -> None:
    """nalyk-ts (issue 42): CMP-2's "not replayed, the report's replay budget spent on earlier causes: …"
    listed `conformance/suite/test_tool_spec.py::test_served_spec_matches_the_original[cmd:…]` in
    report.md."""
    from conformance.gate.evidence import MAX_REPLAYS, _evidenced, _opening_frames, _Replays
    from conformance.targets.specs import resolve_target

    nodeid = "conformance/suite/test_tool_spec.py::test_served_spec_matches_the_original[cmd:node x.js]"
    cause = report.root_causes[0].model_copy(update={"test": nodeid, "example": ["{}"]})
    replays = _Replays(resolve_target("reference"), resolve_target("reference"), 1.0)
    replays.spent = MAX_REPLAYS  # the budget went to earlier causes; nothing here starts a process
    replays.done[tuple(_opening_frames())] = ("the original ended", "the original ended")
    evidenced = _evidenced(cause, report, replays)
    assert evidenced.evidence is not None and "served spec matches the original" in evidenced.evidence.why
    shown = report.model_copy(update={"root_causes": [evidenced, *report.root_causes[1:]]})
    for name, text in {"terminal": "\n".join(summary_lines(shown)), "report.md": render_markdown(shown),
                       "report.html": render_html(shown)}.items():
        found = sorted({m.group() for m in LEAKS.finditer(text)})
        assert not found, f"{name} shows {found}"


NALYK = [  # real checks' messages from the nalyk-ts run (issue 42's audit, report.json, seed 1)
    ("OBJ-4", "conformance/suite/test_store.py::test_status_object_shape[cmd:node index.js]",
     "['thoughtNumber', 'totalThoughts', 'nextThoughtNeeded', 'branches', 'thoughtHistoryLength', "
     "'currentSequenceId', ...]"),
    ("OBJ-5/c1", "conformance/suite/test_tool_spec.py::test_description_is_not_uniformly_second_person"
     "[cmd:node index.js]", "69"),
    ("OBJ-8", "conformance/suite/test_validation.py::test_error_object_shape[cmd:node index.js]",
     "{'error': 'Invalid thought: must be a non-empty string', 'status': 'failed', "
     "'timestamp': '2026-12-05T18:06:31.904Z'}"),
]


def test_the_gate_and_records_tables_say_no_repr_or_bare_number() -> None:
    """nalyk-ts: the gate table's reason read “69” (OBJ-5/c1) and Python reprs (OBJ-4, OBJ-8): each row that
    repeats its check's message says the record's line instead, as the terminal does."""
    tests = [TestOutcome(nodeid=nodeid, records=[record], contradicted=[], status="failed", examples=1,
                         message=message) for record, nodeid, message in NALYK]
    report = assembled_report(tests, ("node", "index.js"))
    markdown = render_markdown(report)
    rows = [line for line in markdown.splitlines()
            if any(line.startswith(f"| {record.replace('-', chr(92) + '-')} |") or
                   line.startswith(f"| **{record.replace('-', chr(92) + '-')}**") for record, _, _ in NALYK)]
    assert len(rows) == 2 * len(NALYK), rows  # the gate's row and the records table's, for each
    for row in rows:
        reason = row.rstrip(" |").rsplit(" | ", 1)[-1].replace("\\", "")
        assert not unspoken(reason), (unspoken(reason), row)
    html = render_html(report)
    for _, _, message in NALYK:
        assert f"<td>{message}</td>" not in html.replace("&#x27;", "'").replace("&#39;", "'"), message


def test_a_list_of_names_inside_a_sentence_is_said_as_the_names() -> None:
    """nalyk-ts's BAP-2 (report.json, seed 1): the terminal and report.md showed the Python list reprs."""
    from conformance.core.failure_text import spoken

    message = ("a call with nextThoughtNeeded false answered the fields ['thoughtNumber', 'totalThoughts', "
               "'nextThoughtNeeded', 'branches', 'thoughtHistoryLength', 'currentSequenceId', "
               "'persistenceEnabled', 'memoryStatus', 'verificationWorkflow'], not ['thoughtNumber', "
               "'totalThoughts', 'nextThoughtNeeded', 'branches', 'thoughtHistoryLength']")
    said = spoken(message, "conformance/suite/test_x.py::test_bap_2[cmd:node index.js]", 400)
    assert "['" not in said and "']" not in said, said
    assert said.startswith("a call with nextThoughtNeeded false answered the fields thoughtNumber, "), said
    assert said.endswith("verificationWorkflow, not thoughtNumber, totalThoughts, nextThoughtNeeded, "
                         "branches, thoughtHistoryLength"), said


@given(st.sampled_from([lambda: int("- Start with an estimate"), lambda: "1" + 1,  # type: ignore[operator]
                        lambda: None.thought, lambda: 1 / 0]))  # type: ignore[attr-defined]
def test_a_python_error_a_check_raises_is_said_as_the_harness_s_defect(broken: Callable[[], object]) -> None:
    """held-out-multi-18's fork-docs-console: `int()` of a bullet was OBJ-5's failure reason as if the server
    had said "invalid literal for int() with base 10"."""
    with pytest.raises(Exception) as caught:
        broken()
    said = raised_message(caught.value, caught.exconly())
    assert said.startswith(CHECK_BROKE + ": "), said
    with pytest.raises(AssertionError) as departed:
        raise AssertionError("count 2 became 3")
    assert raised_message(departed.value, departed.exconly()) == "count 2 became 3"
    with pytest.raises(ValueError) as absent:
        ["When to use this tool:"].index("Key features:")
    assert raised_message(absent.value, absent.exconly()).startswith("no 'Key features:' in what the server")
