"""junit.xml: one testcase per record, so any CI system lists the records and their verdicts."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from conformance.core.create import create_file
from conformance.core.failure_text import check_name, one_line
from conformance.report.evidence_parts import evidence_line, evidence_text, record_evidence
from conformance.report.markup import safe_text
from conformance.report.model import Difference, Evidence, Gate, GateEntry, RecordVerdict, Report


def _text(value: str) -> str:
    """XML 1.0 cannot carry most control characters even escaped; they become visible escapes."""
    return safe_text(value)


_FAILING: dict[str, str] = {
    "unexpected": "deviates",
    "changed": "departure changed",
    "stale": "stale baseline entry",
    "unconfirmed": "baseline entry unconfirmed",
    "unexplained": "baseline reason TODO",
}
"""The gate's failing classes and the `type` of their `failure` element."""


def _standing(gate: Gate) -> dict[str, tuple[str, GateEntry]]:
    """Record → its class in the gate (accepted, unexplained, unexpected, changed, stale, unconfirmed; a later
    class wins) and the entry."""
    classes = (
        ("advisory", gate.advisory),
        ("seen-once", gate.seen_once),
        ("accepted", gate.expected),
        ("unexplained", gate.unexplained),
        ("unexpected", gate.unexpected),
        ("changed", gate.changed),
        ("stale", gate.stale),
        ("unconfirmed", gate.unconfirmed),
    )
    return {entry.record: (name, entry) for name, entries in classes for entry in entries}


def _case(
    rv: RecordVerdict, standing: tuple[str, GateEntry] | None, primary: frozenset[str] = frozenset(),
    evidence: Evidence | None = None,
) -> ET.Element:
    """Passed, failed, errored or skipped as the gate judged the record: a departure the baseline accepts
    (and that behaves as pinned) passes, carrying properties that say so."""
    case = ET.Element(
        "testcase",
        {
            "classname": _text(f"records.{rv.kind}"),
            "name": _text(rv.id),
            "time": f"{sum(t.duration for t in rv.tests):.3f}",
        },
    )
    detail = [rv.statement]
    if rv.aliases:
        detail.append(f"aliases: {', '.join(rv.aliases)}")
    detail += [f"{check_name(t.nodeid)}: {t.status}, {t.examples} examples" for t in rv.tests]
    departs = rv.verdict in ("deviates", "error")
    klass, entry = standing if standing is not None else ("", None)
    if klass == "accepted" and entry is not None:
        props = ET.SubElement(case, "properties")
        accepted = (("verdict", rv.verdict), ("baseline", "accepted"), ("baseline-reason", entry.reason))
        for name, value in accepted:
            ET.SubElement(props, "property", {"name": name, "value": _text(value[:500])})
        pinned = "; its behaviour signature matches the pinned one" if rv.signature else ""
        detail.insert(0, f"{rv.verdict}, accepted by the baseline ({entry.reason}){pinned}")
    elif klass == "advisory":  # guidance stated without a keyword: reported, not gating, so no failure
        props = ET.SubElement(case, "properties")
        ET.SubElement(props, "property", {"name": "verdict", "value": _text(rv.verdict)})
        ET.SubElement(props, "property", {"name": "gate", "value": "advisory"})
        detail.insert(0, f"{rv.verdict}, advisory: guidance stated without a keyword, not gating "
                         f"({rv.reason})")
    elif klass == "seen-once" and entry is not None:  # fresh processes did not confirm it: no failure
        props = ET.SubElement(case, "properties")
        ET.SubElement(props, "property", {"name": "verdict", "value": _text(rv.verdict)})
        ET.SubElement(props, "property", {"name": "gate", "value": "seen-once"})
        detail.insert(0, f"{rv.verdict}, not gating: {entry.reason}")
    elif departs and klass in ("", "unexpected") and rv.verdict == "error":
        error = ET.SubElement(case, "error", {"message": _text(one_line(rv.reason, 500)), "type": "error"})
        pair = f"\n\nthe pair: {evidence_text(evidence)}" if evidence is not None else ""
        error.text = _text(rv.reason + pair)
    elif departs or klass in _FAILING:
        attributes = {"message": _text(_failure_message(rv, klass, entry, primary)),
                      "type": _FAILING.get(klass, "deviates")}
        failure = ET.SubElement(case, "failure", attributes)
        body = _failure_body(rv, klass, entry)
        if evidence is not None:
            body += f"\n\nthe pair: {evidence_text(evidence)}"
        failure.text = _text(body)
    elif rv.verdict in ("not observable", "not run"):
        ET.SubElement(case, "skipped", {"message": _text(one_line(f"{rv.verdict}: {rv.reason}", 500))})
    out = ET.SubElement(case, "system-out")
    out.text = _text("\n".join(detail))
    return case


def _failure_message(
    rv: RecordVerdict, klass: str, entry: GateEntry | None, primary: frozenset[str]
) -> str:
    if klass == "stale" and entry is not None:
        return f"holds, but the baseline expects it to {entry.expected}: {entry.reason}"[:500]
    if klass == "unconfirmed" and entry is not None:
        said = one_line(rv.reason)
        return f"{rv.verdict} ({said}), but the baseline expects {entry.expected}: {entry.reason}"[:500]
    if klass == "unexplained" and entry is not None:
        return f"{rv.verdict}; the baseline entry's reason still says TODO: {entry.reason}"[:500]
    if klass == "changed":
        said = one_line(rv.reason)
        return f"departure changed: its behaviour differs from the baseline's pin ({said})"[:500]
    lead = f"explained by {rv.explained_by}: " if rv.explained_by else ""
    lead = "root cause: " if rv.id in primary else lead
    return one_line(lead + rv.reason, 500)


def _failure_body(rv: RecordVerdict, klass: str, entry: GateEntry | None) -> str:
    body = [rv.reason]
    if rv.counterexample is not None:
        body = [rv.counterexample.falsifying, "", "replay:", *rv.counterexample.replay]
    if klass == "changed" and entry is not None:
        body += ["", "baseline's witness answers:", *(f"{w.step}: {w.answer}" for w in entry.before),
                 "", "this run's answers:", *(f"{w.step}: {w.answer}" for w in entry.after)]
    return "\n".join(body)


def _run_case(report: Report, failing: int) -> ET.Element | None:
    """The run itself, when the gate failed for a reason no record carries: the target would not start,
    the run was interrupted, or no results came back."""
    if report.gate.passed:
        return None
    failed_start = "" if report.preflight.ok else report.preflight.error or "the target failed its preflight"
    why = report.run.interrupted or failed_start
    if not why and failing == 0:
        why = f"the gate failed with nothing failing: no results (pytest exit {report.run.pytest_exit})"
    if not why:
        return None
    case = ET.Element("testcase", {"classname": "run", "name": "run", "time": f"{report.run.duration_s:.3f}"})
    ET.SubElement(case, "error", {"message": _text(why[:500]), "type": "run"}).text = _text(why)
    return case


def _difference_case(d: Difference) -> ET.Element:
    """One testcase per difference: failed unless the baseline accepts it."""
    classname = _text(f"differences.{d.cause or d.aspect}")
    case = ET.Element("testcase", {"classname": classname, "name": _text(d.id)})
    body = "\n".join([d.summary, f"records: {', '.join(d.records)}", f"A: {d.a}", f"B: {d.b}", "",
                      "replay on a fresh process of each target:", *d.program])
    if d.accepted:
        out = ET.SubElement(case, "system-out")
        out.text = _text("accepted by the baseline\n" + body)
    else:
        failure = ET.SubElement(case, "failure", {"message": _text(d.summary[:500]), "type": "differs"})
        failure.text = _text(body)
    return case


def render_junit(report: Report) -> str:
    """Totals agree with the gate: failures and errors are its failing entries (and a run that failed as
    a whole), so a run that passes its gate shows no failure."""
    standing = _standing(report.gate)
    primary = frozenset(r for cause in report.root_causes for r in cause.records)
    replayed = record_evidence(report)
    cases = [_case(rv, standing.get(rv.id), primary, replayed.get(rv.id)) for rv in report.records]
    failures = sum(c.find("failure") is not None for c in cases)
    errors = sum(c.find("error") is not None for c in cases)
    suite = ET.Element(
        "testsuite",
        {
            "name": _text(f"seqthink-conformance {report.target.spec}"),
            "tests": str(len(cases)),
            "failures": str(failures),
            "errors": str(errors),
            "skipped": str(sum(c.find("skipped") is not None for c in cases)),
            "time": f"{report.run.duration_s:.3f}",
            "timestamp": report.run.started,
        },
    )
    props = ET.SubElement(suite, "properties")
    for name, value in (
        ("target", report.target.spec),
        ("profile", report.harness.profile),
        ("seed", report.harness.seed or ""),
        ("gate", "passed" if report.gate.passed else "failed"),
    ):
        ET.SubElement(props, "property", {"name": name, "value": _text(value)})
    if report.gate.baseline is not None:
        ET.SubElement(props, "property", {"name": "baseline", "value": _text(report.gate.baseline)})
    for cause in report.root_causes:
        ET.SubElement(props, "property", {"name": "root-cause", "value": _text(cause.summary[:500])})
        if cause.evidence is not None:
            shown = evidence_line(cause.evidence)
            if cause.evidence.reproduced:
                shown += (f" | {cause.evidence.original_named()}: {cause.evidence.original}"
                          f" | this server: {cause.evidence.target}")
            ET.SubElement(props, "property", {"name": "root-cause-evidence", "value": _text(shown[:2000])})
    suite.extend(cases)
    root = ET.Element("testsuites")
    root.append(suite)
    differing = sum(not d.accepted for d in report.comparison.differences) if report.comparison else 0
    run_case = _run_case(report, failures + errors + differing)
    if run_case is not None:
        run_suite = ET.SubElement(
            root,
            "testsuite",
            {"name": _text(f"seqthink-conformance run {report.target.spec}"), "tests": "1", "failures": "0",
             "errors": "1", "skipped": "0"},
        )
        run_suite.append(run_case)
    if report.comparison is not None:
        c = report.comparison
        differences = ET.SubElement(
            root,
            "testsuite",
            {
                "name": _text(f"seqthink-conformance compare {c.a.spec} vs {c.b.spec}"),
                "tests": str(len(c.differences)),
                "failures": str(sum(not d.accepted for d in c.differences)),
                "errors": "0",
                "skipped": "0",
            },
        )
        for d in c.differences:
            differences.append(_difference_case(d))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(report: Report, path: Path) -> None:
    create_file(path, render_junit(report), replace=True)
