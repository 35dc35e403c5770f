"""The report writers and the judging behind them, on small RunResults built here (no server needed).

Properties: whatever text a server or a generator supplies, the HTML gains no element, the Markdown no
markup outside code blocks, the JUnit stays well-formed XML and report.json stays valid. Examples pin
the verdict rules, the gate, findings, and snapshots of the human forms.
"""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from html import escape as html_escape
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from conformance.cli.main import main
from conformance.compare.arguments import stop_sentence
from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.results import (
    ClaimObservation,
    Counterexample,
    RunResults,
    TestOutcome,
    TranscriptEvent,
)
from conformance.gate.assemble import TargetSeen, assemble_report
from conformance.gate.baseline import Baseline, BaselineEntry, evaluate_gate
from conformance.gate.findings import FindingEntry, FindingsFile, resolve_findings
from conformance.gate.verdicts import alias_map, judge, judge_claims
from conformance.report.html import render_html
from conformance.report.json import generate_schema, load_report, render_json, shipped_schema
from conformance.report.junit import render_junit
from conformance.report.markdown import BUDGET, render_markdown
from conformance.report.markdown_parts import md
from conformance.report.model import (
    ArgumentCheck,
    Comparison,
    Difference,
    GateEntry,
    Preflight,
    Report,
    RunInfo,
    StdoutHygiene,
    WitnessAnswer,
)
from conformance.report.sections import stdout as stdout_section
from conformance.report.terminal import write_summary


@dataclass(frozen=True)
class FakeRecord:
    id: str
    kind: str
    statement: str = "what the record says"
    evidence_before: str = "implemented"
    aliases: tuple[str, ...] = ()
    channels: tuple[str, ...] = ("wire",)
    reason: str | None = None
    anchors: tuple[str, ...] = field(default=("003 record 4: SRC-1:1",))

    @property
    def observable(self) -> bool:
        return bool(self.channels)

    @property
    def unobservable_reason(self) -> str | None:
        return self.reason

    def channel_names(self) -> list[str]:
        return list(self.channels) or ["none"]

    def anchor_texts(self) -> list[str]:
        return list(self.anchors)


CATALOG = [
    FakeRecord("RTE-2", "rte"),
    FakeRecord("RTE-3", "rte"),
    FakeRecord("RTE-8/a1", "amendment"),
    FakeRecord("ABS-12", "abs", evidence_before="absent", aliases=("EPI-3",)),
    FakeRecord("ABS-4", "abs", channels=(), reason="analysis-record: about the register"),
    FakeRecord("CLM-1b", "clm", evidence_before="doctrine/design"),
    FakeRecord("CMP-7", "cmp"),
]
CANONICAL = alias_map(CATALOG)
HARNESS = HarnessIdentity(version="0.1.0", git_commit=None, profile="dev", seed="7", python="3.11.7")
TARGET = TargetIdentity(spec="npm:0.6.2", kind="npm", command=["node", "index.js"], package_version="0.6.2")


def event(kind: str, data: str) -> TranscriptEvent:
    return TranscriptEvent.model_validate({"kind": kind, "data": data, "t": 1.0})


def outcome(nodeid: str, records: list[str], status: str, **extra: object) -> TestOutcome:
    return TestOutcome.model_validate(
        {
            "nodeid": nodeid,
            "records": records,
            "status": status,
            "examples": 3,
            "transcript": "transcripts/npm_0.6.2.jsonl",
            **extra,
        }
    )


def results(hostile: str = "<b>bold</b>") -> RunResults:
    long_exchange = [
        event("sent", '{"jsonrpc":"2.0","id":9,"method":"tools/call"}'),
        event("sent", '{"jsonrpc":"2.0","id":10,"method":"tools/call"}'),
        event("received", "{}"),
    ]
    short_exchange = [
        event("sent", '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{}}'),
        event("stderr", f"\x1b[31m{hostile}\x1b[0m"),
        event("received", json.dumps({"jsonrpc": "2.0", "id": 4, "result": {"text": hostile}})),
    ]
    return RunResults(
        target=TARGET,
        harness=HARNESS,
        server_info={"name": hostile, "version": "0.2.0"},
        protocol_version="2024-11-05",
        started="2026-08-21T00:00:00+00:00",
        finished="2026-08-21T00:01:00+00:00",
        processes_started=2,
        calls_made=40,
        tests=[
            outcome("suite/test_a.py::test_dispatch", ["RTE-2"], "passed"),
            outcome(
                "suite/test_a.py::test_guard_long",
                ["RTE-3"],
                "failed",
                message=f"long {hostile}",
                counterexample=Counterexample(falsifying="Falsifying example: long", exchange=long_exchange),
            ),
            outcome(
                "suite/test_a.py::test_guard_short",
                ["RTE-3"],
                "failed",
                message=f"short {hostile}",
                counterexample=Counterexample(
                    falsifying=f"Falsifying example: {hostile}", exchange=short_exchange
                ),
            ),
            outcome("suite/test_a.py::test_guard_ok", ["RTE-3"], "passed"),
            outcome(
                "suite/test_b.py::test_rollback", ["RTE-8/a1"], "error", message="server exited with status 1"
            ),
            outcome("suite/test_b.py::test_pointers", ["ABS-12"], "passed"),
            outcome(
                "suite/test_c.py::test_clm",
                ["CLM-1b"],
                "passed",
                claims=[
                    ClaimObservation(
                        claim="CLM-1b", verdict="observed-delivered", observation="text in tools/list"
                    ),
                    ClaimObservation(
                        claim="CLM-1b",
                        verdict="unsupported",
                        observation=f"no evaluator {hostile}",
                        test="suite/test_c.py::test_clm",
                    ),
                ],
            ),
            outcome("suite/test_c.py::test_readme", ["CMP-7"], "skipped",
                    message="not an npm package target: the installed artifact is not observable"),
        ],
    )


def build(
    res: RunResults | None = None,
    *,
    baseline: Baseline | None = None,
    findings: FindingsFile | None = None,
    preflight: Preflight | None = None,
) -> Report:
    res = res if res is not None else results()
    return assemble_report(
        catalog=CATALOG,
        canonical=CANONICAL,
        results=res,
        seen=TargetSeen(
            TARGET,
            preflight or Preflight(ok=True, tool_offered=True, tools=["sequentialthinking"]),
            {},
            "2024-11-05",
        ),
        harness=HARNESS,
        run=RunInfo(
            started=res.started,
            finished=res.finished,
            duration_s=60.0,
            jobs=1,
            processes_started=res.processes_started,
            calls_made=res.calls_made,
            tests=len(res.tests),
            rerun="python -m conformance run --target npm:0.6.2 --profile dev --seed 7",
            pytest_exit=1,
        ),
        generated="2026-08-21T00:01:00+00:00",
        baseline=baseline,
        baseline_path="b.yaml" if baseline else None,
        findings=findings,
    )


# -- verdicts ------------------------------------------------------------------------------------------


def test_each_record_gets_the_verdict_its_tests_support() -> None:
    verdicts = {rv.id: rv for rv in judge(CATALOG, results())}
    assert {k: v.verdict for k, v in verdicts.items()} == {
        "RTE-2": "holds",
        "RTE-3": "deviates",
        "RTE-8/a1": "error",
        "ABS-12": "holds",
        "ABS-4": "not observable",
        "CLM-1b": "holds",
        "CMP-7": "not run",
    }
    assert verdicts["ABS-4"].reason == "analysis-record: about the register"
    assert verdicts["CMP-7"].reason == (
        "skipped: not an npm package target: the installed artifact is not observable"
    )
    assert verdicts["RTE-3"].examples == 9 and len(verdicts["RTE-3"].tests) == 3
    assert (
        verdicts["RTE-3"].evidence_after == "observed"
        and verdicts["RTE-8/a1"].evidence_after == "implemented"
    )
    assert verdicts["ABS-12"].aliases == ["EPI-3"]


def test_the_counterexample_is_the_one_with_the_fewest_frames() -> None:
    rv = next(r for r in judge(CATALOG, results()) if r.id == "RTE-3")
    assert rv.counterexample is not None
    assert rv.counterexample.test == "suite/test_a.py::test_guard_short"
    assert json.loads(rv.counterexample.replay[0])["method"] == "initialize"
    assert json.loads(rv.counterexample.replay[1])["method"] == "notifications/initialized"
    assert json.loads(rv.counterexample.replay[2])["id"] == 4 and len(rv.counterexample.replay) == 3


def test_records_named_by_alias_count_for_the_canonical_record() -> None:
    res = RunResults.model_validate(
        {**results().model_dump(), "tests": [outcome("t::x", ["EPI-3"], "failed", message="m").model_dump()]}
    )
    assert next(r for r in judge(CATALOG, res) if r.id == "ABS-12").verdict == "deviates"


def test_claims_take_their_most_severe_observation() -> None:
    claims = {c.claim: c for c in judge_claims(CATALOG, results())}
    assert claims["CLM-1b"].verdict == "unsupported"
    assert [o.verdict for o in claims["CLM-1b"].observations] == ["observed-delivered", "unsupported"]
    assert claims["CLM-1b"].observations[0].test == "suite/test_c.py::test_clm"


def test_without_results_every_observable_record_is_not_run() -> None:
    verdicts = judge(CATALOG, None, not_run_reason="target cannot start")
    assert {rv.verdict for rv in verdicts if rv.id != "ABS-4"} == {"not run"}
    assert all(rv.reason == "target cannot start" for rv in verdicts if rv.id != "ABS-4")


# -- the gate ------------------------------------------------------------------------------------------


def entry(record: str, verdict: str = "deviates") -> BaselineEntry:
    return BaselineEntry.model_validate({"record": record, "reason": "known", "verdict": verdict})


@pytest.mark.parametrize(
    ("entries", "passed", "unexpected", "stale", "unconfirmed"),
    [
        ([entry("RTE-3"), entry("RTE-8/a1", "error")], True, [], [], []),
        ([entry("RTE-3")], False, ["RTE-8/a1"], [], []),
        ([entry("RTE-3"), entry("RTE-8/a1", "error"), entry("RTE-2")], False, [], ["RTE-2"], []),
        ([entry("RTE-3"), entry("RTE-8/a1"), entry("CMP-7")], False, [], [], ["RTE-8/a1", "CMP-7"]),
        ([entry("RTE-3"), entry("RTE-8/a1", "error"), entry("EPI-3")], False, [], ["ABS-12"], []),
    ],
    ids=["exact", "new-departure", "stale", "unconfirmed", "alias-stale"],
)
def test_gate_passes_exactly_when_departures_equal_the_baseline(
    entries: list[BaselineEntry],
    passed: bool,
    unexpected: list[str],
    stale: list[str],
    unconfirmed: list[str],
) -> None:
    gate = evaluate_gate(
        judge(CATALOG, results()),
        Baseline(target="npm:0.6.2", deviations=entries),
        baseline_path="b.yaml",
        canonical=CANONICAL,
    )
    assert gate.passed is passed
    assert [e.record for e in gate.unexpected] == unexpected
    assert [e.record for e in gate.stale] == stale
    assert [e.record for e in gate.unconfirmed] == unconfirmed


def test_an_unusable_target_never_passes_the_gate() -> None:
    report = build(
        RunResults.model_validate({**results().model_dump(), "tests": []}),
        preflight=Preflight(ok=False, error="server exited with status 3"),
    )
    assert report.gate.passed is False


# -- findings ------------------------------------------------------------------------------------------


def test_findings_carry_this_runs_evidence_anchor() -> None:
    findings = FindingsFile(
        findings=[
            FindingEntry(
                record="RTE-3", finding="the guard is not what was registered", superseded="four checks"
            ),
            FindingEntry(record="EPI-3", finding="pointers do dangle"),
            FindingEntry(record="RTE-2", finding="on another target", target="npm:2026.8.31"),
        ]
    )
    verdicts = judge(CATALOG, results())
    found, unregistered = resolve_findings(findings, "npm:0.6.2", verdicts, CANONICAL)
    assert [(f.amendment, f.annotates, f.reproduced) for f in found] == [
        ("RTE-3/o1", "RTE-3", True),
        ("EPI-3/o1", "ABS-12", False),
    ]
    assert found[0].evidence_anchor[0] == "transcripts/npm_0.6.2.jsonl"
    assert "suite/test_a.py::test_guard_short (failed)" in found[0].evidence_anchor
    assert found[0].superseded == "four checks" and found[1].superseded == "none"
    assert unregistered == []
    _, unregistered = resolve_findings(FindingsFile(), "npm:0.6.2", verdicts, CANONICAL)
    assert [u.record for u in unregistered] == ["RTE-3"]
    found, unregistered = resolve_findings(findings, "reference", verdicts, CANONICAL)
    assert found == [] and unregistered == []


# -- the writers ---------------------------------------------------------------------------------------


def test_shipped_schema_is_generated_from_the_model() -> None:
    assert shipped_schema() == generate_schema(), "run: python -m scripts.generate_report_schema"


def test_the_schema_says_the_stdout_finding_as_the_report_and_drivers_do() -> None:
    """Since the drivers read past a stray line (issue 46), report.md says a stdio client "reports each as an
    error"; the schema's description once still said a client "breaks on each"."""
    described = " ".join(shipped_schema()["$defs"]["StdoutHygiene"]["description"].split())
    said = stdout_section.headline(StdoutHygiene(lines_seen=1))
    assert "reports each as an error" in said
    assert "reports each as an error" in described
    assert "breaks" not in described


def test_report_json_round_trips(tmp_path: Path) -> None:
    report = build()
    path = tmp_path / "report.json"
    path.write_text(render_json(report), encoding="utf-8")
    assert load_report(path) == report


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attrs: set[str] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attrs.update(name for name, _ in attrs)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


HTML_TAGS = {
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "h1",
    "h2",
    "h3",
    "h4",
    "section",
    "p",
    "code",
    "table",
    "tr",
    "th",
    "td",
    "span",
    "strong",
    "details",
    "summary",
    "pre",
    "ul",
    "li",
    "a",
    "thead",
    "tbody",
    "div",
    "nav",
    "figure",
    "figcaption",
    "wbr",
}
SVG_TAGS = {"svg", "path", "circle", "rect", "line", "polyline", "text"}
"""The pictures' elements (conformance/report/svg.py): shapes and text only, never script or foreignObject."""
HTML_ATTRS = {"charset", "http-equiv", "content", "name", "lang", "class", "id", "href", "open", "style"}
SVG_ATTRS = {
    "viewbox", "width", "height", "xmlns", "role", "aria-label", "aria-hidden", "focusable", "d", "fill",
    "stroke", "stroke-width", "stroke-linecap", "stroke-linejoin", "cx", "cy", "r", "x", "y", "x1", "x2",
    "y1", "y2", "rx", "points", "text-anchor", "font-size", "font-family", "font-weight", "transform",
    "preserveaspectratio",
}
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
hostile_text = st.one_of(
    st.text(),
    st.sampled_from(
        [
            "<script>alert(1)</script>",
            "</pre><img src=x onerror=alert(1)>",
            "\"'><svg onload=x>",
            "```\n# heading\n```",
            "| a | b |",
            "\x1b]0;title\x07",
            "]]><!--",
            "&amp;<&>",
        ]
    ),
)


@given(text=hostile_text)
def test_html_never_gains_markup_from_server_text(text: str) -> None:
    page = render_html(build(results(text)))
    parser = _Tags()
    parser.feed(page)
    assert parser.tags <= HTML_TAGS | SVG_TAGS
    assert parser.attrs <= HTML_ATTRS | SVG_ATTRS
    assert not CONTROL.search(page)


def _outside_code(markdown: str) -> str:
    return re.sub(r"^(`{3,})[^\n]*\n.*?^\1$", "", markdown, flags=re.S | re.M)


@given(text=hostile_text)
def test_markdown_keeps_server_text_inert(text: str) -> None:
    markdown = render_markdown(build(results(text)))
    prose = _outside_code(markdown)
    # a `<` after an odd run of backslashes is Markdown's escape of it, shown as written
    assert not re.search(r"(?:^|[^\\])(?:\\\\)*<(?!/?(details|summary|br)>)", prose, re.M), prose
    assert not CONTROL.search(markdown)
    assert prose.count("```") == 0


@given(text=hostile_text)
def test_junit_stays_well_formed(text: str) -> None:
    root = ET.fromstring(render_junit(build(results(text))))
    cases = root.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == [r.id for r in CATALOG]
    verdict_tags = {c.get("name"): [child.tag for child in c if child.tag != "system-out"] for c in cases}
    assert verdict_tags == {
        "RTE-2": [],
        "RTE-3": ["failure"],
        "RTE-8/a1": ["error"],
        "ABS-12": [],
        "ABS-4": ["skipped"],
        "CLM-1b": [],
        "CMP-7": ["skipped"],
    }


def test_markdown_sheds_detail_to_fit_a_pull_request_comment() -> None:
    huge = "x" * 5000
    res = results(huge)
    many = [
        outcome(
            f"suite/test_d.py::test_{i}",
            ["RTE-3"],
            "failed",
            message=huge,
            counterexample=Counterexample(falsifying=huge, exchange=[event("received", huge)] * 40),
        )
        for i in range(60)
    ]
    res = RunResults.model_validate({**res.model_dump(), "tests": [t.model_dump() for t in res.tests + many]})
    assert len(render_markdown(build(res))) <= BUDGET


def test_markdown_snapshot(snapshot: SnapshotAssertion) -> None:
    assert render_markdown(build()) == snapshot


def test_junit_snapshot(snapshot: SnapshotAssertion) -> None:
    assert render_junit(build()) == snapshot


def test_html_snapshot(snapshot: SnapshotAssertion) -> None:
    assert render_html(build()) == snapshot


def _changed(report: Report) -> Report:
    """The report with a baseline whose pinned departure of RTE-3 now answers otherwise."""
    pinned = '{"content":[{"text":"' + "x" * 300 + '1"}]}'
    entry = GateEntry(
        record="RTE-3", verdict="deviates", expected="deviates", reason="pinned <b>guard</b>",
        before=[WitnessAnswer(step="string-number", answer=pinned), WitnessAnswer(step="gone", answer="[]")],
        after=[WitnessAnswer(step="string-number", answer=pinned.replace("1", "2")),
               WitnessAnswer(step="added", answer="\x1b[31m")],
    )
    gate = report.gate.model_copy(update={"passed": False, "baseline": "b.yaml", "changed": [entry]})
    return report.model_copy(update={"gate": gate})


def test_terminal_summary_snapshot(snapshot: SnapshotAssertion) -> None:
    out = io.StringIO()
    write_summary(_changed(build()), out)
    assert out.getvalue() == snapshot


def _difference(did: str, *, accepted: bool = False, b: str = "rejected") -> Difference:
    return Difference(id=did, aspect="answer", summary=f"{did} <i>differs</i>", records=["RTE-3"],
                      a="accepted", b=b, accepted=accepted)


@pytest.mark.parametrize("every", [False, True], ids=["changed", "all"])
@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_diff_snapshot(
    fmt: str, every: bool, snapshot: SnapshotAssertion, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records that change verdict or appear on one side, and differences kept, changed, gone or new."""
    a = build()
    later = TARGET.model_copy(update={"spec": "npm:2026.8.31"})
    b = a.model_copy(update={
        "target": later,
        "records": [rv.model_copy(update={"verdict": "holds"}) if rv.id == "RTE-3" else rv
                    for rv in a.records if rv.id != "CMP-7"],
    })
    compared = Comparison(a=TARGET, b=later, calls=40, programs=4)
    a = a.model_copy(update={"comparison": compared.model_copy(update={
        "differences": [_difference("kept"), _difference("changed"), _difference("gone")]})})
    b = b.model_copy(update={"comparison": compared.model_copy(update={
        "differences": [_difference("kept"), _difference("changed", b="crashed"),
                        _difference("new", accepted=True)]})})
    for name, report in (("a", a), ("b", b)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "report.json").write_text(render_json(report), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    code = main(["diff", "a/report.json", "b/report.json", "--format", fmt, *(["--all"] if every else [])],
                stdout=out, stderr=err)
    assert (code, err.getvalue()) == (1, "")
    assert out.getvalue() == snapshot


def test_after_a_preflight_stop_the_verdict_table_says_not_checked_not_not_run() -> None:
    """dhkts1-py and younis-ali-py (issue 42): the summary said "nothing else was checked" while the verdict
    table under it still read "· not run | 100", as if those records had been tried."""
    stopped = build(
        RunResults.model_validate({**results().model_dump(), "tests": []}),
        preflight=Preflight(ok=False, error="server exited with status 3"),
    )
    # The suite never ran: no pytest exit status (cli/runner stops before it).
    report = stopped.model_copy(update={"run": stopped.run.model_copy(update={"pytest_exit": None})})
    markdown = render_markdown(report)
    assert "nothing else was checked" in markdown
    rows = [line for line in markdown.splitlines() if line.startswith("| · ")]
    assert rows and all("not run" not in row for row in rows), rows
    assert any("not checked (the run stopped at start-up)" in row for row in rows), rows
    assert "not run" not in markdown, [line for line in markdown.splitlines() if "not run" in line]
    html = render_html(report)
    assert "not checked (the run stopped at start-up) (6)" in html and "not run (6)" not in html
    # A run that ran its checks keeps the verdict's own name.
    assert "| · not run |" in render_markdown(build())


def test_after_a_preflight_stop_no_record_row_says_not_run() -> None:
    """dhkts1-py, younis-ali-py, arben-adm-py (round 9, issue 46): below "nothing else was checked",
    report.md's Claims and All-records tables still said "· not run" on every row, and report.html each
    record's badge."""
    ran = build()
    stopped = build(
        RunResults.model_validate({**results().model_dump(), "tests": []}),
        preflight=Preflight(ok=False, error="server exited with status 3"),
    )
    report = stopped.model_copy(update={"run": stopped.run.model_copy(update={"pytest_exit": None})})
    unchecked = [rv.id for rv in report.records if rv.verdict == "not run"]
    assert unchecked
    markdown, html = render_markdown(report), render_html(report)
    assert "not run" not in markdown.replace("not run (", ""), [
        line for line in markdown.splitlines() if "not run" in line]
    for record in unchecked:
        row = next(line for line in markdown.splitlines() if line.startswith(f"| **{md(record)}**"))
        assert "| · not checked" in row, row
    assert "not run</span>" not in html and "not checked (the run stopped at start-up)</span>" in html
    # A run that ran its checks keeps the verdict's own name in its rows.
    assert any(line.startswith("| **") and "| · not run |" in line
               for line in render_markdown(ran).splitlines())


@pytest.mark.parametrize("stop", [
    Preflight(ok=False, error="server exited with status 1; its stderr: ModuleNotFoundError: No module"),
    Preflight(ok=False, error="it does not offer the sequentialthinking tool (it offers: think)",
              tool_offered=False, tools=["think"]),
], ids=["crash", "tool-name"])
def test_a_stopped_gate_says_no_word_of_records_departing(stop: Preflight) -> None:
    """vulkanfry-py under mcp 2.x (a crash at start): the summary said "no record departs" beside "nothing
    else was checked", good news of records no check had weighed. A stopped gate says what stopped it and that
    nothing else was checked, in every writer; a run that ran its checks still says how many depart."""
    stopped = build(RunResults.model_validate({**results().model_dump(), "tests": []}), preflight=stop)
    report = stopped.model_copy(update={"run": stopped.run.model_copy(update={"pytest_exit": None})})
    out = io.StringIO()
    write_summary(report, out)
    for said in (render_markdown(report), render_html(report), out.getvalue()):
        lead = next(line for line in said.splitlines() if "nothing else was checked" in line)
        assert "record departs" not in said.lower() and "no record" not in said.lower(), lead
        assert "departure" not in lead.partition("were not checked")[2], lead
    ran = build(RunResults.model_validate({**results().model_dump(), "tests": []}))
    out = io.StringIO()
    write_summary(ran, out)
    assert "no record departs" in out.getvalue(), out.getvalue()


def test_an_argument_stop_keeps_its_conclusion_in_report_md() -> None:
    """dhkts1-py (round 9, issue 46): report.md's blockquote cut the stop at 600 characters, at "…; it takes
    the…", losing what the terminal said whole: that --arguments-map cannot nest and nothing else can be
    checked. Both sides' fields, a refusal at its 300-character cap, and the conclusion all stay."""
    fields = ["thought", "next_thought_needed", "thought_number", "total_thoughts", "is_revision",
              "revises_thought", "branch_from_thought", "branch_id", "needs_more_thoughts"]
    sent = ["thought", "thoughtNumber", "totalThoughts", "nextThoughtNeeded"]
    check = ArgumentCheck(accepted=False, sent=sent, required=["data"], nested={"data": fields},
                          refusal="r" * 300)
    said = stop_sentence(check)
    assert len(said) > 600 and said.endswith("so nothing else of this server can be checked"), len(said)
    stopped = build(RunResults.model_validate({**results().model_dump(), "tests": []}),
                    preflight=Preflight(ok=False, error=said, arguments=check))
    report = stopped.model_copy(update={"run": stopped.run.model_copy(update={"pytest_exit": None})})
    quote = next(line for line in render_markdown(report).splitlines() if line.startswith("> The target"))
    assert quote.endswith("so nothing else of this server can be checked"), quote[-120:]
    assert "needs\\_more\\_thoughts" in quote and "thoughtNumber" in quote, quote


def test_a_stray_line_and_a_tool_name_stop_are_both_named_in_the_summary_with_the_conclusion() -> None:
    """A FastMCP port printing a start line and offering `sequential_thinking` (wild46's xd3an): report.md's
    summary cut the joined stop at 400 characters twice, once keeping its conclusion and once more as Markdown
    ("…; and it…; its sequential_thinking takes …, where the…"): the tool-name stop and the original's side
    were both lost. Each stop's lead and the conclusion now stay, on the terminal and in report.md."""
    fields = ", ".join(f"field_number_{n}" for n in range(12))
    said = ("stdout line is not JSON, so not a JSON-RPC message (it stops being JSON at its character 1): "
            "'Starting the Sequential Thinking server, version 0.1.0, on stdio...'; and it does not offer "
            "the sequentialthinking tool (it offers: sequential_thinking); its sequential_thinking takes "
            f"{fields} (requiring {fields}), where the original's sequentialthinking takes thought, "
            "thoughtNumber, totalThoughts, nextThoughtNeeded")
    stopped = build(RunResults.model_validate({**results().model_dump(), "tests": []}),
                    preflight=Preflight(ok=False, error=said, tool_offered=False,
                                        tools=["sequential_thinking"]))
    report = stopped.model_copy(update={"run": stopped.run.model_copy(update={"pytest_exit": None})})
    conclusion = ("where the original's sequentialthinking takes thought, thoughtNumber, totalThoughts, "
                  "nextThoughtNeeded")
    markdown = render_markdown(report)
    summary = next(line for line in markdown.splitlines() if "nothing else was checked" in line)
    assert md(conclusion, None) in summary, summary
    assert "and it does not offer the sequentialthinking tool" in summary, summary
    assert "stdout line is not JSON" in summary, summary
    out = io.StringIO()
    write_summary(report, out)
    line = next(line for line in out.getvalue().splitlines() if "nothing else was checked" in line)
    assert conclusion in line and "and it does not offer the sequentialthinking tool" in line, line


def test_the_replay_step_starts_the_target_with_its_environment() -> None:
    """agiprolabs-ts was gated with DATA_PATH and TRANSPORT_MODE; its `next:` replay piped the example into
    the bare command, another configuration of the server (and one writing ./data where it was run)."""
    from conformance.report.text import next_steps

    report = build()
    bare = [command for when, command in next_steps(report, "out") if when.startswith("replay ")]
    assert bare and bare[0].endswith("| node index.js"), bare
    env = {"DATA_PATH": "/tmp/a b/data", "TRANSPORT_MODE": "stdio"}
    seen = report.model_copy(update={"target": report.target.model_copy(update={"env": env})})
    [step] = [command for when, command in next_steps(seen, "out") if when.startswith("replay ")]
    assert step.endswith("| env 'DATA_PATH=/tmp/a b/data' TRANSPORT_MODE=stdio node index.js"), step


RULE_TEXT = st.one_of(
    st.sampled_from(["`thoughtNumber` > 10 × `totalThoughts`", "`revisesThought` ≥ `thoughtNumber`",
                     "a <b> & c", "&amp; &#62; &gt", "> quoted", "x<y && y>z"]),
    st.text(alphabet="ab1 `<>&;#×≥", min_size=1, max_size=30).map(str.strip).filter(bool),
)


@given(text=RULE_TEXT)
def test_markdown_escapes_only_what_markdown_needs(text: str) -> None:
    """Inline text renders back to itself (CommonMark), and report.md raw shows `>` and `&` as written,
    escaped where Markdown would read them; the only entities it adds are `&lt;` for each `<` (a renderer of
    the first Markdown honours no backslash before it) and `&amp;` for an `&` that would start one."""
    from markdown_it import MarkdownIt

    written = md(text, None)
    assert MarkdownIt("commonmark").render(written) == f"<p>{html_escape(text, quote=False)}</p>\n", written
    assert written.count("&") == text.count("&") + text.count("<") and "<" not in written, written
    assert ">" not in text or ">" in written, written


@given(text=RULE_TEXT)
def test_each_writer_shows_a_rule_text_as_written(text: str) -> None:
    """A rule text in a cause's headline, through every writer: report.md's line renders back to it and holds
    `>` as written, its `<details>` summary too; report.html and the JUnit file hold it as their markup's
    entities read back to it, the terminal as it is."""
    from markdown_it import MarkdownIt

    report = build(results(text))
    lines = render_markdown(report).splitlines()
    headline = next(line for line in lines if line.startswith("RTE\\-3 departs"))
    rendered = MarkdownIt("commonmark").render(headline)
    assert f"short {html_escape(text, quote=False)} (2 checks fail)" in rendered, (headline, rendered)
    summary = next(line for line in lines if line.startswith("<details><summary>✗ RTE-3"))
    for written in (headline, summary):
        assert "&gt;" not in written and written.count(">") >= text.count(">"), written
    assert f"short {html_escape(text, quote=False)}" in render_html(report).replace("&quot;", '"')
    root = ET.fromstring(render_junit(report))
    assert any(f"short {text}" in (el.get("value") or "") for el in root.iter("property"))
    out = io.StringIO()
    write_summary(report, out)
    assert f"short {text}" in out.getvalue()
