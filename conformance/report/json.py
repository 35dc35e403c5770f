"""report.json: the machine-readable evidence, validated against the shipped JSON Schema on write and read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from conformance.catalog.schemas import first_violation, packaged_schema
from conformance.core.errors import HarnessError
from conformance.report.model import READABLE_FORMATS, REPORT_FORMAT, Report

SCHEMA_ID = "https://seqthink-conformance.invalid/schemas/report-3.json"


class ReportError(HarnessError):
    """A report file is unreadable, of another format, or does not validate."""


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


def validate(document: object) -> None:
    """Raise ReportError with the first violation's path when `document` does not fit the shipped schema."""
    violation = first_violation(shipped_schema(), document)
    if violation is not None:
        raise ReportError(f"report does not match {REPORT_FORMAT}: {violation}")


def render_json(report: Report) -> str:
    document = report.model_dump(mode="json")
    validate(document)
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def write_json(report: Report, path: Path) -> None:
    path.write_text(render_json(report), encoding="utf-8")


def load_report(path: Path) -> Report:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ReportError(f"{path} is not JSON: {exc}") from None
    found = document.get("format") if isinstance(document, dict) else None
    if found not in READABLE_FORMATS:
        raise ReportError(f"{path} is not a {REPORT_FORMAT} report (format: {found!r})")
    validate(document)
    try:
        return Report.model_validate(document)
    except ValidationError as exc:
        raise ReportError(f"{path}: {exc.errors()[0]['msg']}") from None
