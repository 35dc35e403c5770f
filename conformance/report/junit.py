"""junit.xml: one testcase per record, so any CI system lists the records and their verdicts."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from conformance.report.markup import safe_text
from conformance.report.model import Difference, RecordVerdict, Report


def _text(value: str) -> str:
    """XML 1.0 cannot carry most control characters even escaped; they become visible escapes."""
    return safe_text(value)


def _case(rv: RecordVerdict, primary: frozenset[str] = frozenset()) -> ET.Element:
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
    detail += [f"{t.nodeid}: {t.status}, {t.examples} examples" for t in rv.tests]
    if rv.verdict == "deviates":
        body = rv.reason
        if rv.counterexample is not None:
            body = "\n".join([rv.counterexample.falsifying, "", "replay:", *rv.counterexample.replay])
        lead = f"explained by {rv.explained_by}: " if rv.explained_by else ""
        lead = "root cause: " if rv.id in primary else lead
        message = _text((lead + rv.reason)[:500])
        failure = ET.SubElement(case, "failure", {"message": message, "type": "deviates"})
        failure.text = _text(body)
    elif rv.verdict == "error":
        error = ET.SubElement(case, "error", {"message": _text(rv.reason[:500]), "type": "error"})
        error.text = _text(rv.reason)
    elif rv.verdict in ("not observable", "not run"):
        ET.SubElement(case, "skipped", {"message": _text(f"{rv.verdict}: {rv.reason}"[:500])})
    out = ET.SubElement(case, "system-out")
    out.text = _text("\n".join(detail))
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
    counts = report.summary.counts
    suite = ET.Element(
        "testsuite",
        {
            "name": _text(f"seqthink-conformance {report.target.spec}"),
            "tests": str(len(report.records)),
            "failures": str(counts.get("deviates", 0)),
            "errors": str(counts.get("error", 0)),
            "skipped": str(counts.get("not observable", 0) + counts.get("not run", 0)),
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
    for cause in report.root_causes:
        ET.SubElement(props, "property", {"name": "root-cause", "value": _text(cause.summary[:500])})
    primary = frozenset(r for cause in report.root_causes for r in cause.records)
    for rv in report.records:
        suite.append(_case(rv, primary))
    root = ET.Element("testsuites")
    root.append(suite)
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
    path.write_text(render_junit(report), encoding="utf-8")
