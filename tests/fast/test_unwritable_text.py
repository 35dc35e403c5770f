"""Text a server sent that UTF-8 cannot carry (a lone surrogate, which its JSON `\\ud835` escape decodes to)
reaches every file and stream the harness writes losslessly and readably: JSON keeps it as JSON's escape and
reads it back, prose (Markdown, HTML, JUnit, the terminal) shows the escape, a transcript keeps the frame,
a baseline reads back what it wrote; never a crash, never a character dropped."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance.catalog.view import load_catalog_view
from conformance.cli.output import pipe_safe
from conformance.cli.runner.merge import collect_results
from conformance.core.create import create_file
from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.model_json import model_json
from conformance.core.results import Counterexample, RunResults, TestOutcome, TranscriptEvent
from conformance.drivers.transcript import Transcript
from conformance.gate.assemble import TargetSeen, assemble_report
from conformance.gate.baseline import (
    Baseline,
    BaselineEntry,
    check_fits,
    check_readable,
    dump_baseline,
    parse_baseline,
)
from conformance.gate.canonical import short_json
from conformance.gate.pinned_pairs import pair_difference, pinned_pair
from conformance.report.json import load_report
from conformance.report.model import Evidence, Preflight, Report, RunInfo, WitnessAnswer
from conformance.report.terminal import summary_lines
from conformance.report.write import write_report
from conformance.suite.plugin import slug

CATALOG = load_catalog_view()
TARGET = TargetIdentity(spec="cmd:node fork.js", kind="cmd", command=["node", "fork.js"])
HARNESS = HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3.11")

_any = st.text(st.characters(exclude_categories=()), max_size=12)
_lone = st.integers(0xD800, 0xDFFF).map(chr)
served = st.builds(lambda a, s, b: a + s + b, _any, _lone, _any)
"""Text of any code points, at least one of them a lone surrogate."""


def _lone_surrogates(text: str) -> list[str]:
    return [f"\\u{ord(c):04x}" for c in text if 0xD800 <= ord(c) <= 0xDFFF]


def _results(text: str) -> RunResults:
    tests = [TestOutcome(
        nodeid=f"suite/test_{record}.py::test_it[cmd]", records=[record], status="failed",
        message=f"the label came back as {text!s}", examples=1,
        counterexample=Counterexample(falsifying=f"thought={text}", exchange=[
            TranscriptEvent(kind="received", data=json.dumps({"result": {"text": text}}, ensure_ascii=False),
                            t=0.0)]),
    ) for record in ("OBJ-4", "CMP-2")]
    return RunResults(target=TARGET, harness=HARNESS, started="t0", finished="t1", tests=tests)


def _report(text: str) -> Report:
    results = _results(text)
    report = assemble_report(
        catalog=CATALOG.records, canonical=CATALOG.canonical, results=results,
        seen=TargetSeen(TARGET, Preflight(ok=True, stderr_tail=f"stderr: {text}"), {}, "2024-11-05"),
        harness=HARNESS,
        run=RunInfo(started="t0", finished="t1", duration_s=1.0, jobs=1, processes_started=1, calls_made=1,
                    tests=len(results.tests), rerun="python -m conformance run"),
        generated="t1",
    )
    evidence = Evidence(reproduced=True, at="on the example's tools/call 1", original_spec="npm:0.6.2",
                        differences=[f"result.content[0].text → branches: {text}"],
                        original='{"result":{}}', target=text)
    records = [rv.model_copy(update={"evidence": evidence}) if rv.verdict == "deviates" else rv
               for rv in report.records]
    return report.model_copy(update={"records": records})


@settings(max_examples=20, deadline=None)
@given(text=served)
def test_every_report_writer_writes_a_lone_surrogate_as_an_escape(text: str) -> None:
    report = _report(text)
    with tempfile.TemporaryDirectory(prefix="surrogate-") as tmp:
        paths = write_report(report, Path(tmp) / "out")
        written = {path.name: path.read_bytes().decode("utf-8") for path in paths}
        back = load_report(paths[0])
    assert [rv.evidence.target for rv in back.records if rv.evidence] == \
        [rv.evidence.target for rv in report.records if rv.evidence], "report.json lost the server's text"
    for name in ("report.md", "report.html", "junit.xml"):
        for escape in _lone_surrogates(text):
            assert escape in written[name], f"{name} does not show {escape}"
    stream = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    out = pipe_safe(stream)
    for line in summary_lines(report):
        out.write(line + "\n")
    out.flush()


@settings(max_examples=30, deadline=None)
@given(text=served)
def test_results_round_trip_through_their_file(text: str) -> None:
    """As the suite's plugin writes a run's results and the runner reads them back."""
    results = _results(text)
    with tempfile.TemporaryDirectory(prefix="surrogate-") as tmp:
        create_file(Path(tmp) / f"results-{slug(TARGET.spec)}.json", model_json(results, indent=2))
        again = collect_results(Path(tmp), TARGET.spec)
    assert again == results


@settings(max_examples=30, deadline=None)
@given(text=served)
def test_a_transcript_keeps_the_exact_frame(text: str) -> None:
    with tempfile.TemporaryDirectory(prefix="surrogate-") as tmp:
        path = Path(tmp) / "t.jsonl"
        transcript = Transcript(path)
        transcript.record("received", text)
        transcript.close()
        first = path.read_bytes().split(b"\n")[0]
    assert json.loads(first.decode("utf-8"))["data"] == text


@settings(max_examples=30, deadline=None)
@given(text=served)
@example(text="\ud800\x85\u2028")  # YAML reads a raw NEL or line separator back as a space
def test_a_baseline_reads_back_what_it_wrote(text: str) -> None:
    answer = short_json({"branches": [text]})
    departed = next(rv for rv in _report(text).records if rv.evidence is not None)
    assert departed.evidence is not None
    pair = pinned_pair(departed)
    assert pair is not None, "the departure's reproduced pair is pinned"
    entry = BaselineEntry(record="OBJ-4", reason="cuts labels", verdict="deviates", pair=pair,
                          witness=[WitnessAnswer(step="file-a-branch", answer=answer)])
    written = dump_baseline(Baseline(project="fork", deviations=[entry]))
    check_fits(Baseline(project="fork", deviations=[entry]), "the fork")
    check_readable(written, "the fork")
    entry_read = parse_baseline(written, "the baseline").deviations[0]
    assert entry_read.witness[0].answer == answer
    assert json.loads(answer) == {"branches": [text]}
    assert entry_read.pair is not None
    pinned, met = entry_read.pair, departed.evidence
    assert pair_difference(pinned.original, pinned.target, pinned.differences) == \
        pair_difference(met.original, met.target, met.differences), "the pinned pair covers its departure"


@settings(max_examples=30, deadline=None)
@given(text=served, encoding=st.sampled_from(["utf-8", "latin-1", "ascii"]))
def test_the_terminal_shows_what_its_encoding_cannot_carry_as_an_escape(text: str, encoding: str) -> None:
    """A command's stdout and stderr (pipe_safe) take any text: a lone surrogate, or a letter a latin-1 or
    ASCII terminal has no byte for, written as its escape."""
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding=encoding)
    pipe_safe(stream).write(text)
    stream.flush()
    shown = raw.getvalue().decode(encoding)
    for escape in _lone_surrogates(text):
        assert escape in shown
    carried = "".join(c for c in text if not 0xD800 <= ord(c) <= 0xDFFF and c.encode(encoding, "ignore"))
    assert all(c in shown for c in carried), "every character the terminal can show is shown as it is"
