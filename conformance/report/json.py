"""report.json: the machine-readable evidence, validated against the shipped JSON Schema on write and read."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, cast

import jsonschema  # type: ignore[import-untyped, unused-ignore]
from pydantic import ValidationError

from conformance.drivers.errors import HarnessError
from conformance.report.model import READABLE_FORMATS, REPORT_FORMAT, Report

SCHEMA_ID = "https://seqthink-conformance.invalid/schemas/report-2.json"


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


@cache
def shipped_schema() -> dict[str, Any]:
    text = resources.files("conformance.report").joinpath("schema.json").read_text(encoding="utf-8")
    return cast(dict[str, Any], json.loads(text))


def validate(document: object) -> None:
    """Raise ReportError with the first violation's path when `document` does not fit the shipped schema."""
    validator = jsonschema.Draft202012Validator(shipped_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        raise ReportError(f"report does not match {REPORT_FORMAT}: at {where}: {error.message[:300]}")


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
