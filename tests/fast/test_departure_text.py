"""No pytest or Python internals in anything a user reads: every departure kind (a failure, an error, one
explained by a cause, one the baseline accepts), rendered by the terminal, Markdown, HTML and JUnit writers,
shows the check's own words, whole, with no exception class, assertion rewriting or object repr."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.catalog.view import load_catalog_view
from conformance.core.failure_text import one_line, readable, readable_example
from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.results import Counterexample, RunResults, TestOutcome, TranscriptEvent
from conformance.gate.assemble import TargetSeen, assemble_report
from conformance.gate.baseline import Baseline, BaselineEntry
from conformance.report.html import render_html
from conformance.report.junit import render_junit
from conformance.report.markdown import render_markdown
from conformance.report.model import Evidence, Preflight, Report, RunInfo
from conformance.report.terminal import summary_lines
from conformance.report.text import next_steps

CATALOG = load_catalog_view()
TARGET = TargetIdentity(spec="cmd:node fork.js", kind="cmd", command=["node", "fork.js"])
HARNESS = HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3.11")
INTERNALS = re.compile(
    r"object at 0x|0x[0-9a-f]{6,}|AssertionError|\[\+ received\] == \[- snapshot\]|ServerSession\(|_RunState|"
    r"Transcript object|SpecDeparture|conformance\.suite\."
)

_words = st.text(st.characters(codec="utf-8", categories=("L", "N", "Zs")), min_size=1, max_size=30)
_raised = st.builds(
    lambda cls, head, tail, rewriting: f"{cls}: {head}\n{tail}" + rewriting,
    st.sampled_from(["AssertionError", "conformance.suite.contradiction.Contradiction", "Failed",
                     "conformance.suite.spec_checks.SpecDeparture", "SpecDeparture"]),
    _words.map(lambda w: "value " + w),
    _words.map(lambda w: "second line " + w),
    st.sampled_from(["", "\nassert [+ received] == [- snapshot]", "\nassert 2 == 1\n +  where 2 = f()"]),
)
_falsifying = _words.map(
    lambda w: "Falsifying example: test_x(\n"
    "    server=ServerSession(target=Target(spec='cmd'), "
    "transcript=<conformance.drivers.transcript.Transcript object at 0x7fea12345678>, "
    "on_failure=<bound method _RunState.on_target_failure of "
    "<conformance.suite.plugin._RunState object at 0x7fea87654321>>),\n"
    f"    thought={w!r},\n)"
)


def _report(raised: list[str], falsifying: str) -> Report:
    kinds = [("RTE-3", "failed"), ("RTE-5", "error"), ("OBJ-4", "failed"), ("CMP-3", "failed")]
    tests = [
        TestOutcome(
            nodeid=f"suite/test_{i}.py::test_{record}[cmd]", records=[record], status=status,  # type: ignore[arg-type]
            message=raised[i % len(raised)], examples=1,
            relies=["RTE-3"] if record == "OBJ-4" else [],
            counterexample=Counterexample(falsifying=falsifying, exchange=[
                TranscriptEvent(kind="sent", data='{"jsonrpc":"2.0","id":1,"method":"tools/list"}', t=0.0)]),
        )
        for i, (record, status) in enumerate(kinds)
    ]
    results = RunResults(target=TARGET, harness=HARNESS, started="t0", finished="t1", tests=tests)
    accepted = BaselineEntry(record="CMP-3", reason="renamed", verdict="deviates")
    baseline = Baseline(project="fork", deviations=[accepted])
    report = assemble_report(
        catalog=CATALOG.records, canonical=CATALOG.canonical, results=results,
        seen=TargetSeen(TARGET, Preflight(ok=True), {}, "2024-11-05"), harness=HARNESS,
        run=RunInfo(started="t0", finished="t1", duration_s=1.0, jobs=1, processes_started=1, calls_made=1,
                    tests=len(tests), rerun="python -m conformance run"),
        generated="t1", baseline=baseline, baseline_path="baseline.yaml",
    )
    # The replayed evidence, one cause reproduced and one not, as the run's report carries it.
    causes = [c.model_copy(update={"evidence": Evidence(
        reproduced=i == 0, why="" if i == 0 else "no sequence reproduced it",
        at="on the example's tools/call 1",
        differences=["result.content[0].text → thoughtHistoryLength: 1 on the original, 2 here"],
        original='{"result":{}}', target='{"result":{"isError":true}}', breaks="read only for its length")})
        for i, c in enumerate(report.root_causes)]
    assert causes, "the failures make root causes"
    # Each departure's own pair (report/5): its own replay against npm:0.6.2, its cause's reused against the
    # reference, or none that reproduced; server text with markup in it.
    pairs = [
        Evidence(reproduced=True, at="on the example's tools/call 2", original_spec="npm:0.6.2",
                 differences=["result.content[0].text → thoughtHistoryLength: 1 on the original, 2 here"],
                 original='{"result":{"text":"<x-evil>1"}}', target='{"result":{"text":"<x-evil>2"}}',
                 example=['{"jsonrpc":"2.0","id":0,"method":"initialize"}', '{"id":1,"method":"x-frame"}']),
        causes[0].evidence.model_copy(update={"cause": causes[0].id, "why": "its failing test kept none"})
        if causes[0].evidence is not None else None,
        Evidence(reproduced=False, why="no difference of this record's on fresh processes"),
    ]
    records = [rv.model_copy(update={"evidence": pairs[i % len(pairs)]}) for i, rv in enumerate(
        r for r in report.records if r.verdict in ("deviates", "error"))]
    by_id = {rv.id: rv for rv in records}
    return report.model_copy(update={"root_causes": causes,
                                     "records": [by_id.get(rv.id, rv) for rv in report.records]})


@settings(max_examples=25, deadline=None)
@given(raised=st.lists(_raised, min_size=1, max_size=4), falsifying=_falsifying)
def test_every_departure_kind_renders_without_internals(raised: list[str], falsifying: str) -> None:
    report = _report(raised, falsifying)
    assert {rv.verdict for rv in report.records if rv.id in ("RTE-3", "RTE-5")} == {"deviates", "error"}
    outputs = {
        "terminal": "\n".join(summary_lines(report)),
        "markdown": render_markdown(report),
        "html": render_html(report),
        "junit": render_junit(report),
    }
    for name, text in outputs.items():
        found = INTERNALS.search(text)
        assert found is None, f"{name} shows {found.group(0)!r}"
        assert "thoughtHistoryLength: 1 on the original, 2 here" in text.replace("\\", ""), name
        # The pair's server text never becomes markup.
        assert "<x-evil>" not in text or name in ("terminal", "markdown"), name
    # Every departure's pair, in full where a reader opens it: which original answered, both answers, the
    # sequence; one line per departure in the terminal.
    own = "the original (npm:0.6.2)"
    assert own in outputs["junit"] and own in outputs["markdown"].replace("\\", "") and own in outputs["html"]
    assert "&lt;x-evil&gt;1" in outputs["html"] and "x-frame" in outputs["html"]
    assert "x-frame" in outputs["junit"]
    assert '"<x-evil>1"' in outputs["markdown"] and "x-frame" in outputs["markdown"]
    assert "not reproduced on fresh processes" in outputs["junit"]
    departing = [rv.id for rv in report.records if rv.verdict in ("deviates", "error")]
    for record in departing:
        section = outputs["html"].split(f'id="rec-{record}"')[1].split("</details>")[0]
        assert "The pair: the original" in section, record
    # A root cause's headline says what departs without the check's function name.
    headlines = [line for line in outputs["terminal"].splitlines() if line.startswith("  ▶")]
    assert headlines and not any(re.search(r"test_[\w-]+", line) for line in headlines), headlines
    terminal = [line for line in outputs["terminal"].splitlines()
                if line.startswith(("  deviates", "  error"))]
    assert len(terminal) == len([r for r in departing if r != "CMP-3"]), terminal
    assert any("reproduced at tools/call 2 against npm:0.6.2" in line for line in terminal), terminal
    # report.md's one line per departure (its <summary>) says what differs, as the terminal does, where the
    # pair reproduced.
    summaries = [line for line in outputs["markdown"].splitlines() if line.startswith("<details><summary>")]
    assert any("thoughtHistoryLength: 1 on the original, 2 here (reproduced at tools/call 2" in s
               for s in summaries), summaries
    for message in raised:
        # Not cut at its first newline: the message's second line reaches the reader too.
        second = readable(message).splitlines()[1]
        assert second in outputs["markdown"] or one_line(second) in outputs["markdown"].replace("\\", "")


@given(_raised)
def test_readable_keeps_the_checks_words_and_drops_the_wrapping(raised: str) -> None:
    out = readable(raised)
    assert not out.startswith(("AssertionError", "Failed", "conformance.", "SpecDeparture"))
    assert "[+ received]" not in out and "\nassert " not in out
    assert raised.splitlines()[1].strip() in out


_falsy = st.sampled_from(["False", "None", "0", "''", "[]", "{}", "()"])
_call = st.builds(lambda name, argument: f"{name}({argument!r})",
                  st.from_regex(r"[a-z_][a-z_0-9]{0,8}(\.[a-z_][a-z_0-9]{0,8})?", fullmatch=True), _words)
_values = st.one_of(st.integers(), _words).map(repr)


@given(falsy=_falsy, call=st.one_of(st.none(), _call), wrapped=st.booleans())
def test_a_bare_assert_of_an_older_harness_says_what_did_not_hold(
    falsy: str, call: str | None, wrapped: bool
) -> None:
    """A results file of a harness whose checks had bare asserts holds pytest's rewriting only (or this
    module's old "comparison failed: False"): the reader gets the call pytest says made the falsy value, or
    that the condition did not hold; never the bare value, the class or the rewriting."""
    where = f"\n +  where {falsy} = {call}" if call is not None else ""
    older = f"the check's comparison failed: {falsy}"
    raised = f"AssertionError: assert {falsy}{where}" if wrapped else older
    out = readable(raised)
    assert out.startswith("the check's condition did not hold"), out
    assert "failed: " not in out and "AssertionError" not in out and not out.startswith("assert"), out
    if call is not None and wrapped:
        assert out == f"the check's condition did not hold: {call} is {falsy}", out


@given(left=_values, op=st.sampled_from(["==", "!=", "in", "<"]), right=_values)
def test_a_bare_comparison_keeps_the_values_it_compared(left: str, op: str, right: str) -> None:
    """A bare assert that compared values still shows them: they are all the reader has."""
    out = readable(f"AssertionError: assert {left} {op} {right}\n +  where {left} = f()")
    assert out == f"the check's comparison failed: {left} {op} {right}", out


@given(_falsifying)
def test_a_falsifying_example_keeps_its_inputs_and_drops_its_fixtures(text: str) -> None:
    out = readable_example(text)
    assert "ServerSession" not in out and " object at 0x" not in out
    assert "thought=" in out


def test_a_red_gate_ends_with_the_command_that_acts_on_it() -> None:
    """A departure not in the baseline: refresh the baseline the run used; the leading cause's example
    replays into the target's command; a gate whose only fault is a stale entry: --drop-stale."""
    report = _report(["AssertionError: value x\nsecond line y"], "Falsifying example: test_x()")
    steps = dict(next_steps(report, "out dir"))
    assert "python -m conformance baseline 'out dir/report.json' --refresh baseline.yaml" in steps.values()
    replay = next(command for when, command in steps.items() if when.startswith("replay "))
    assert replay.endswith("| node fork.js") and "'out dir/report.json'" in replay
    stale = report.model_copy(update={"gate": report.gate.model_copy(update={
        "unexpected": [], "passed": False, "stale": report.gate.expected})})
    assert next(c for _, c in next_steps(stale, "out")).endswith("--refresh baseline.yaml --drop-stale")
    assert next_steps(report.model_copy(update={"gate": report.gate.model_copy(update={
        "unexpected": [], "passed": True})}), "out") == []


@settings(max_examples=30)
@given(inner=_words, fixture=_falsifying)
def test_an_unreliable_example_says_what_it_failed_with(inner: str, fixture: str) -> None:
    """Hypothesis' "unreliable results" wraps the check's own failure in its test's arguments' reprs: the
    message keeps the check's words and says the example did not fail again, with no internals."""
    from hypothesis.errors import FlakyFailure

    from conformance.core.failure_text import raised_message

    failed = AssertionError(f"value {inner}")
    exc = FlakyFailure(f"Hypothesis {fixture} produces unreliable results", [failed])
    said = raised_message(exc, f"hypothesis.errors.FlakyFailure: {exc}")
    # The check's words are kept, trimmed as every message is ("value " alone when `inner` is blank).
    assert said.startswith("its example failed on the shared process, then passed when run again there: "
                           + f"value {inner}".strip()), said
    assert inner.strip() in said
    assert not INTERNALS.search(said), said


def test_state_carried_across_processes_is_said_once_before_the_gate_sentence() -> None:
    """The witness processes found the target's fresh processes not fresh (gate/canonical.py CARRIED): one
    line says so, however many records were signed that way; a report without it says nothing of it."""
    from conformance.gate.canonical import CARRIED
    from conformance.report.model import WitnessAnswer
    from conformance.report.terminal import summary_lines
    from conformance.report.text import carried_sentence

    report = _report(["boom"], "thought='x'")
    assert carried_sentence(report) == ""
    answer = WitnessAnswer(step="plain", answer=f'{{"branches":"{CARRIED}"}}')
    records = [rv.model_copy(update={"witness": [answer]}) if i < 2 else rv
               for i, rv in enumerate(report.records)]
    lines = summary_lines(report.model_copy(update={"records": records}))
    said = [line for line in lines if "carried across processes" in line]
    assert len(said) == 1 and "2 records" in said[0]
    assert lines.index(said[0]) < len(lines) - 1
