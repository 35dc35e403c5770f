"""The gate's baseline: the records a target is known to depart from, each with the reason a human gave.

A fork's CI passes when what it observes departing is exactly its baseline: a new departure fails the
gate, and so does a baseline entry that no longer departs (stale), so the baseline never rots silently.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from conformance.drivers.errors import HarnessError
from conformance.report.model import Gate, GateEntry, RecordVerdict

BASELINE_FORMAT: Final = "seqthink-conformance-baseline/1"

Departure = Literal["deviates", "error"]
"""The verdicts a baseline may expect; every other verdict is not a departure."""
DEPARTURES: tuple[Departure, ...] = ("deviates", "error")


class BaselineError(HarnessError):
    """The baseline file cannot be read or does not describe a valid baseline (CLI exit status 2)."""


class BaselineEntry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    record: str = Field(description="canonical record ID (an alias is accepted and mapped)")
    reason: str = Field(min_length=1, description="why this target is expected to depart from the record")
    verdict: Departure = Field(default="deviates", description="the expected verdict: deviates or error")

    @field_validator("reason")
    @classmethod
    def _reason_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("reason must say why")
        return value


class Baseline(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["seqthink-conformance-baseline/1"] = BASELINE_FORMAT
    target: str = Field(
        min_length=1, description="the target spec this baseline is for, as given to --target"
    )
    deviations: list[BaselineEntry] = Field(default_factory=list)

    @field_validator("deviations")
    @classmethod
    def _unique(cls, entries: list[BaselineEntry]) -> list[BaselineEntry]:
        seen: set[str] = set()
        for entry in entries:
            if entry.record in seen:
                raise ValueError(f"record {entry.record} is listed twice")
            seen.add(entry.record)
        return entries


def load_baseline(path: Path) -> Baseline:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BaselineError(f"cannot read baseline {path}: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise BaselineError(f"baseline {path} is not YAML: {_one_line(str(exc))}") from None
    if raw is None:
        raise BaselineError(f"baseline {path} is empty: it needs at least `target:`")
    try:
        return Baseline.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise BaselineError(f"baseline {path}: {where}: {first['msg']}") from None


def canonical_entries(baseline: Baseline, canonical: Mapping[str, str]) -> dict[str, BaselineEntry]:
    """Entries keyed by canonical record ID; `canonical` maps every ID and alias to its canonical ID."""
    keyed: dict[str, BaselineEntry] = {}
    for entry in baseline.deviations:
        record = canonical.get(entry.record)
        if record is None:
            raise BaselineError(f"baseline lists {entry.record!r}, which is not a record of the catalog")
        if record in keyed:
            raise BaselineError(f"baseline lists {record} twice (once as {entry.record!r})")
        keyed[record] = entry
    return keyed


def dump_baseline(baseline: Baseline) -> str:
    """YAML a human can edit: one entry per departure, reasons kept as written."""
    body = baseline.model_dump(mode="json")
    header = (
        "# Records this target is expected to depart from, each with why.\n"
        "# `python -m conformance run --baseline <this file>` exits 0 only when the observed\n"
        "# departures are exactly these; see docs/reports.md.\n"
    )
    return header + yaml.safe_dump(body, sort_keys=False, allow_unicode=True, width=100)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def evaluate_gate(
    verdicts: Sequence[RecordVerdict],
    baseline: Baseline | None,
    *,
    baseline_path: str | None,
    canonical: Mapping[str, str],
) -> Gate:
    """Pass exactly when the observed departures (deviates, error) are the baseline's, verdict for verdict."""
    expected_by_id = canonical_entries(baseline, canonical) if baseline is not None else {}
    expected: list[GateEntry] = []
    unexpected: list[GateEntry] = []
    stale: list[GateEntry] = []
    unconfirmed: list[GateEntry] = []
    for rv in verdicts:
        entry = expected_by_id.get(rv.id)
        departs = rv.verdict in DEPARTURES
        if entry is None:
            if departs:
                unexpected.append(
                    GateEntry(record=rv.id, verdict=rv.verdict, expected="holds", reason=rv.reason)
                )
            continue
        row = GateEntry(record=rv.id, verdict=rv.verdict, expected=entry.verdict, reason=entry.reason)
        if rv.verdict == entry.verdict:
            expected.append(row)
        elif rv.verdict == "holds":
            stale.append(row)
        else:
            unconfirmed.append(row)
    return Gate(
        baseline=baseline_path,
        passed=not (unexpected or stale or unconfirmed),
        expected=expected,
        unexpected=unexpected,
        stale=stale,
        unconfirmed=unconfirmed,
    )
