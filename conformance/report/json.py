"""report.json: the machine-readable evidence, validated against the shipped JSON Schema on write and read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conformance.catalog.schemas import first_violation, packaged_schema
from conformance.core.create import create_file
from conformance.core.errors import HarnessError, InputError
from conformance.core.inputs import REPORT_BYTES, read_json, validated
from conformance.report.model import READABLE_FORMATS, REPORT_FORMAT, Report

SCHEMA_ID = "https://seqthink-conformance.invalid/schemas/report-3.json"


class ReportError(HarnessError):
    """A report does not validate (written or read)."""


class ReportFileError(ReportError, InputError):
    """A report file is unreadable, too large, of another format, or does not validate (CLI exit status 4)."""


def generate_schema() -> dict[str, Any]:
    """The JSON Schema of `Report` as serialized; `schema.json` is this, written by the generator script."""
    schema = Report.model_json_schema(mode="serialization")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"{REPORT_FORMAT} report",
        **schema,
    }


def schema_text() -> str:
    return json.dumps(generate_schema(), indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def shipped_schema() -> dict[str, Any]:
    return packaged_schema("conformance.report")


def validate(document: object, where: str = "report", error: type[ReportError] = ReportError) -> None:
    """Raise `error` with the first violation's path when `document` does not fit the shipped schema."""
    violation = first_violation(shipped_schema(), document)
    if violation is not None:
        raise error(f"{where} does not match {REPORT_FORMAT}: {violation}")


def render_json(report: Report) -> str:
    document = report.model_dump(mode="json")
    validate(document)
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def write_json(report: Report, path: Path) -> None:
    create_file(path, render_json(report), replace=True)


def load_report(path: Path) -> Report:
    document = read_json(path, what="report", limit=REPORT_BYTES, error=ReportFileError, served=True)
    found = document.get("format") if isinstance(document, dict) else None
    if found not in READABLE_FORMATS:
        raise ReportFileError(f"{path} is not a {REPORT_FORMAT} report (format: {str(found)[:80]!r})")
    validate(document, f"report {path}", ReportFileError)
    return validated(Report, document, f"report {path}", ReportFileError)
