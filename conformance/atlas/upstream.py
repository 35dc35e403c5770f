"""Upstream-reported problems located by release: which columns show each, with evidence anchors.

The list is data (`fixtures/upstream.yaml`, schema `fixtures/schemas/upstream.schema.json`); each entry
names a detector here, which reads only this harness's observations: the column's run report and probe.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Final, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from conformance.atlas.model import Column, Location, UpstreamProblem
from conformance.catalog.fixtures import fixtures_dir
from conformance.catalog.schemas import first_violation
from conformance.core.errors import HarnessError
from conformance.core.inputs import safe_load
from conformance.report.model import Report

UPSTREAM_FORMAT: Final = "seqthink-conformance-upstream/1"
Detector = Literal[
    "unbounded-history", "prototype-branch-ids", "long-description", "stateful-readonly-annotations"
]


class UpstreamError(HarnessError):
    """fixtures/upstream.yaml is unreadable or does not match its schema."""


class UpstreamEntry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    title: str
    url: str
    detector: Detector
    records: list[str] = Field(default_factory=list)
    findings: list[str] = Field(default_factory=list)
    limit: int | None = None


@cache
def load_upstream(path: Path | None = None) -> tuple[UpstreamEntry, ...]:
    where = path or fixtures_dir() / "upstream.yaml"
    schema_path = fixtures_dir() / "schemas" / "upstream.schema.json"
    try:
        document = safe_load(where.read_text(encoding="utf-8"))
        schema = json.loads(schema_path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, ValueError) as exc:
        raise UpstreamError(f"cannot read {where}: {' '.join(str(exc).split())[:300]}") from None
    violation = first_violation(schema, document)
    if violation is not None:
        raise UpstreamError(f"{where}: {violation}")
    return tuple(UpstreamEntry.model_validate(p) for p in document["problems"])


Locate = Callable[[UpstreamEntry, Column, Report | None], Location]


def _record(report: Report | None, rid: str) -> str:
    if report is None:
        return "absent"
    return next((rv.verdict for rv in report.records if rv.id == rid), "absent")


def _record_anchors(column: Column, report: Report | None, rid: str) -> list[str]:
    if report is None:
        return []
    rv = next((rv for rv in report.records if rv.id == rid), None)
    if rv is None:
        return []
    return [
        f"{column.folder}/report.json#/records/{rid}",
        *(f"{column.folder}/{t}" for t in rv.transcripts[:2]),
    ]


def _unbounded(entry: UpstreamEntry, column: Column, report: Report | None) -> Location:
    retention, reset = _record(report, "RTE-5"), _record(report, "ABS-11")
    tool = column.tool
    grows = (
        tool is not None
        and len(tool.history_after_repeat) == 2
        and (tool.history_after_repeat[1] == tool.history_after_repeat[0] + 1)
    )
    evidence = _record_anchors(column, report, "RTE-5") + _record_anchors(column, report, "ABS-11")
    if tool is not None and "repeat" in tool.anchors:
        evidence.append(tool.anchors["repeat"])
    present: bool | None
    if retention == "holds" and reset in ("holds", "absent", "not observable", "not run"):
        present = True
    elif retention == "deviates":
        present = False
    else:
        present = None
    detail = f"RTE-5 {retention}, ABS-11 {reset}; the same call twice grows the store: {grows}"
    return Location(column=column.label, present=present, evidence=evidence, detail=detail)


def _finding_anchor(folder: str, anchor: str) -> str:
    """A finding's anchor is a transcript path or a test id; a test id is anchored in its report."""
    return f"{folder}/{anchor}" if anchor.startswith("transcripts/") else f"{folder}/report.json#{anchor}"


def _prototype(entry: UpstreamEntry, column: Column, report: Report | None) -> Location:
    tool = column.tool
    evidence: list[str] = []
    if tool is not None and "__proto__" in tool.anchors:
        evidence.append(tool.anchors["__proto__"])
    if report is not None:
        for finding in report.findings:
            if finding.annotates in entry.findings and finding.reproduced:
                evidence += [
                    f"{column.folder}/report.json#/findings/{finding.amendment}",
                    *(_finding_anchor(column.folder, a) for a in finding.evidence_anchor[:2]),
                ]
    if tool is None or not tool.ok:
        return Location(column=column.label, present=None, evidence=evidence, detail="probe did not run")
    present = bool(tool.proto_branch_retained)
    detail = (
        f"branchId __proto__ answered {tool.proto_branch}; "
        f"retained before the error: {tool.proto_branch_retained}"
    )
    return Location(column=column.label, present=present, evidence=evidence, detail=detail)


def _long_description(entry: UpstreamEntry, column: Column, report: Report | None) -> Location:
    tool = column.tool
    if tool is None or not tool.ok or tool.description_length is None:
        return Location(column=column.label, present=None, detail="probe did not run")
    limit = entry.limit or 1024
    return Location(
        column=column.label,
        present=tool.description_length > limit,
        evidence=[tool.anchors.get("tools/list", tool.transcript or "")],
        detail=f"description of {tool.description_length} UTF-16 code units (limit {limit})",
    )


def _readonly_annotations(entry: UpstreamEntry, column: Column, report: Report | None) -> Location:
    tool = column.tool
    if tool is None or not tool.ok:
        return Location(column=column.label, present=None, detail="probe did not run")
    hints = tool.annotations
    stateful = (
        len(tool.history_after_repeat) == 2 and tool.history_after_repeat[1] > tool.history_after_repeat[0]
    )
    claims = hints.get("readOnlyHint") is True and hints.get("idempotentHint") is True
    lengths = " → ".join(str(n) for n in tool.history_after_repeat) or "unknown"
    return Location(
        column=column.label,
        present=claims and stateful,
        evidence=[a for a in (tool.anchors.get("tools/list"), tool.anchors.get("repeat")) if a],
        detail=f"readOnlyHint {hints.get('readOnlyHint', 'absent')}, idempotentHint "
        f"{hints.get('idempotentHint', 'absent')}; the same call twice: thoughtHistoryLength {lengths}",
    )


DETECTORS: Final[dict[str, Locate]] = {
    "unbounded-history": _unbounded,
    "prototype-branch-ids": _prototype,
    "long-description": _long_description,
    "stateful-readonly-annotations": _readonly_annotations,
}


def locate(columns: Sequence[Column], reports: dict[str, Report | None]) -> list[UpstreamProblem]:
    """Each upstream problem over the release columns (switch variants share their release's code)."""
    releases = [c for c in columns if c.variant_of is None]
    problems = []
    for entry in load_upstream():
        located = [DETECTORS[entry.detector](entry, c, reports.get(c.spec)) for c in releases]
        seen = [loc.column for loc in located if loc.present]
        problems.append(
            UpstreamProblem(
                id=entry.id,
                title=entry.title,
                url=entry.url,
                records=entry.records,
                located=located,
                first_seen=seen[0] if seen else None,
                last_seen=seen[-1] if seen else None,
            )
        )
    return problems
