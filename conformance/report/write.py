"""Every writer over one `Report`, in the order that keeps a broken report from being half written."""

from __future__ import annotations

from pathlib import Path

from conformance.core.create import ensure_folder
from conformance.report.html import write_html
from conformance.report.json import write_json
from conformance.report.junit import write_junit
from conformance.report.markdown import write_markdown
from conformance.report.model import Report

REPORT_FILES = ("report.json", "report.md", "report.html", "junit.xml")


def write_report(report: Report, out: Path) -> list[Path]:
    """report.json first (validated: a report that breaks the schema is not written), then the rest."""
    ensure_folder(out)
    paths = [out / name for name in REPORT_FILES]
    write_json(report, paths[0])
    write_markdown(report, paths[1])
    write_html(report, paths[2])
    write_junit(report, paths[3])
    return paths
