"""Findings: records that observation on the original contradicts, registered as amendments.

`fixtures/findings.yaml` holds what a human concluded (record annotated, finding, superseded value); a
run adds the evidence anchor (its transcripts and tests) and says whether it reproduced the finding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from conformance.core.errors import HarnessError
from conformance.core.inputs import read_yaml, validated
from conformance.report.model import Finding, RecordVerdict, UnregisteredDeviation

FINDINGS_FORMAT: Final = "seqthink-conformance-findings/1"
ORIGINAL = "npm:0.6.2"
"""The target findings are about unless an entry names another: the TypeScript original."""


class FindingsError(HarnessError):
    """fixtures/findings.yaml cannot be read or is not valid."""


class FindingEntry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    record: str = Field(description="the record the amendment annotates (canonical ID or alias)")
    finding: str = Field(min_length=1, description="what observation showed, in the documents' register")
    superseded: str = Field(default="none", description="the record text this replaces, or `none`")
    id: str | None = Field(default=None, description="amendment ID; default <record>/o<n> in file order")
    target: str = Field(default=ORIGINAL, description="the target spec the finding was observed on")
    observed_by: list[str] = Field(
        default_factory=list,
        description="test functions whose passing observes the finding (when the record's main statement "
        "holds and only a part of it is contradicted); empty: the record deviating is the observation",
    )


class FindingsFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["seqthink-conformance-findings/1"] = FINDINGS_FORMAT
    findings: list[FindingEntry] = Field(default_factory=list)

    def numbered(self) -> list[tuple[str, FindingEntry]]:
        """Each entry with its amendment ID (`o` for observed: RTE-8/a1/o1 annotates RTE-8/a1)."""
        counts: dict[str, int] = {}
        out: list[tuple[str, FindingEntry]] = []
        for entry in self.findings:
            counts[entry.record] = counts.get(entry.record, 0) + 1
            out.append((entry.id or f"{entry.record}/o{counts[entry.record]}", entry))
        return out


def load_findings(path: Path) -> FindingsFile:
    if not path.exists():
        return FindingsFile()
    raw = read_yaml(path, what="findings", error=FindingsError)
    return validated(FindingsFile, raw if raw is not None else {}, str(path), FindingsError)


def check_findings(findings: FindingsFile, canonical: Mapping[str, str]) -> None:
    """Fail before a run, not after it, when a finding annotates a record the catalog lacks."""
    for amendment, entry in findings.numbered():
        if entry.record not in canonical:
            raise FindingsError(
                f"finding {amendment} annotates {entry.record!r}, which is not in the catalog"
            )


def _names(nodeid: str, function: str) -> bool:
    """Whether a node id is a run of that test function (any module, any parametrization)."""
    name = nodeid.rsplit("::", 1)[-1]
    return name == function or name.startswith(f"{function}[")


def resolve_findings(
    findings: FindingsFile, target_spec: str, verdicts: Sequence[RecordVerdict], canonical: Mapping[str, str]
) -> tuple[list[Finding], list[UnregisteredDeviation]]:
    """The findings about this target with this run's evidence anchors, and deviations nobody registered.

    Only a run against the original the finding names carries it; any other target's deviations are
    drift, reported by the gate, not findings about the records.
    """
    rows = {rv.id: rv for rv in verdicts}
    out: list[Finding] = []
    covered: set[str] = set()
    for amendment, entry in findings.numbered():
        if entry.target != target_spec:
            continue
        record = canonical.get(entry.record)
        if record is None:
            raise FindingsError(
                f"finding {amendment} annotates {entry.record!r}, which is not in the catalog"
            )
        covered.add(record)
        rv = rows[record]
        observers = [t for t in rv.tests if any(_names(t.nodeid, name) for name in entry.observed_by)]
        anchor = [*rv.transcripts, *(f"{t.nodeid} ({t.status})" for t in (observers or rv.tests)
                                     if t.status != "skipped")]
        if entry.observed_by:
            reproduced = bool(observers) and all(t.status == "passed" for t in observers)
        else:
            reproduced = rv.verdict == "deviates"
        out.append(
            Finding(
                amendment=amendment,
                annotates=record,
                finding=entry.finding,
                evidence_anchor=anchor or ["not observed in this run"],
                superseded=entry.superseded,
                reproduced=reproduced,
                verdict=rv.verdict,
            )
        )
    unregistered: list[UnregisteredDeviation] = []
    if target_spec in {e.target for e in findings.findings} | {ORIGINAL}:
        unregistered = [
            UnregisteredDeviation(record=rv.id, message=rv.reason)
            for rv in verdicts
            if rv.verdict == "deviates" and rv.id not in covered
        ]
    return out, unregistered
