"""Drift between two reports (`diff`): the records whose verdict differs, and the behaviour differences of
the comparisons both carry, computed once and written as text, Markdown or JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from conformance.report.escape import safe
from conformance.report.markdown_parts import md
from conformance.report.model import Report, Verdict

DriftFormat = Literal["text", "markdown", "json"]
Presence = Verdict | Literal["absent"]


@dataclass(frozen=True)
class Side:
    target: str
    report: str
    """The report's path as the command line named it."""


@dataclass(frozen=True)
class RecordDrift:
    record: str
    a: Presence
    b: Presence


@dataclass(frozen=True)
class DifferenceDrift:
    difference: str
    a: str
    """`differs`, `accepted` or `absent`; in B, `changed (…)` when both have it with other answers."""
    b: str
    summary: str


@dataclass(frozen=True)
class Drift:
    a: Side
    b: Side
    records: tuple[RecordDrift, ...]
    """Every record of either report, A's order first."""
    differences: tuple[DifferenceDrift, ...]
    """Every difference of either comparison; empty unless both reports carry one."""

    @property
    def changed_records(self) -> tuple[RecordDrift, ...]:
        return tuple(r for r in self.records if r.a != r.b)

    @property
    def changed_differences(self) -> tuple[DifferenceDrift, ...]:
        return tuple(d for d in self.differences if d.a != d.b)

    @property
    def differs(self) -> bool:
        return bool(self.changed_records or self.changed_differences)


def compute_drift(a: Report, b: Report, report_a: str, report_b: str) -> Drift:
    rows_a = {rv.id: rv.verdict for rv in a.records}
    rows_b = {rv.id: rv.verdict for rv in b.records}
    records = tuple(
        RecordDrift(rid, rows_a.get(rid, "absent"), rows_b.get(rid, "absent"))
        for rid in dict.fromkeys([*rows_a, *rows_b])
    )
    return Drift(Side(a.target.spec, report_a), Side(b.target.spec, report_b), records, _differences(a, b))


def _differences(a: Report, b: Report) -> tuple[DifferenceDrift, ...]:
    if a.comparison is None or b.comparison is None:
        return ()
    in_a = {d.id: d for d in a.comparison.differences}
    in_b = {d.id: d for d in b.comparison.differences}
    rows: list[DifferenceDrift] = []
    for did in dict.fromkeys([*in_a, *in_b]):
        da, db = in_a.get(did), in_b.get(did)
        va = "absent" if da is None else "accepted" if da.accepted else "differs"
        vb = "absent" if db is None else "accepted" if db.accepted else "differs"
        if da is not None and db is not None and (da.a, da.b) != (db.a, db.b):
            vb = f"changed ({vb})"
        either = da if da is not None else db
        rows.append(DifferenceDrift(did, va, vb, either.summary if either is not None else ""))
    return tuple(rows)


def render_drift(drift: Drift, fmt: DriftFormat, *, every: bool) -> list[str]:
    """The lines `diff` prints; `every` lists unchanged records and differences too (JSON never does)."""
    if fmt == "json":
        return [drift_json(drift)]
    if fmt == "markdown":
        return drift_markdown(drift, every=every)
    return drift_text(drift, every=every)


def drift_json(drift: Drift) -> str:
    return json.dumps(
        {
            "a": {"target": drift.a.target, "report": drift.a.report},
            "b": {"target": drift.b.target, "report": drift.b.report},
            "differences": [{"record": r.record, "a": r.a, "b": r.b} for r in drift.changed_records],
            "behaviour_differences": [
                {"difference": d.difference, "summary": d.summary, "a": d.a, "b": d.b}
                for d in drift.changed_differences
            ],
        },
        ensure_ascii=False,
        indent=2,
    )


def drift_markdown(drift: Drift, *, every: bool) -> list[str]:
    a, b = md(drift.a.target), md(drift.b.target)
    changed = drift.changed_records
    shown = drift.records if every else changed
    lines = [f"## Drift: {a} → {b}", "", f"{len(changed)} of {len(drift.records)} records differ."]
    if shown:
        lines += ["", f"| record | {a} | {b} |", "|---|---|---|"]
        lines += [f"| {md(r.record)} | {r.a} | {r.b} |" for r in shown]
    if drift.differences:
        drifted = drift.changed_differences
        count = f"{len(drifted)} of {len(drift.differences)} behaviour differences (comparisons) differ."
        lines += ["", count]
        rows = drift.differences if every else drifted
        if rows:
            lines += ["", f"| difference | {a} | {b} | summary |", "|---|---|---|---|"]
            lines += [f"| {md(d.difference)} | {d.a} | {d.b} | {md(d.summary, 200)} |" for d in rows]
    return lines


def drift_text(drift: Drift, *, every: bool) -> list[str]:
    name_a, name_b = safe(drift.a.target, 40), safe(drift.b.target, 40)
    if name_a == name_b:
        name_a, name_b = safe(drift.a.report, 40), safe(drift.b.report, 40)
    changed = drift.changed_records
    shown = drift.records if every else changed
    width = max((len(r.record) for r in shown), default=6)
    col = max(len(name_a), 15)
    lines = [f"{'record':<{width}}  {name_a:<{col}}  {name_b}"]
    for r in shown:
        mark = " " if r.a == r.b else "*"
        lines.append(f"{safe(r.record):<{width}}  {r.a:<{col}}  {r.b}  {mark}".rstrip())
    lines.append(f"{len(changed)} of {len(drift.records)} records differ between {name_a} and {name_b}")
    if drift.differences:
        drifted = drift.changed_differences
        for d in drift.differences if every else drifted:
            mark = " " if d.a == d.b else "*"
            lines.append(f"  {mark} {safe(d.difference)}: {d.a} → {d.b}  ({safe(d.summary, 120)})")
        lines.append(f"{len(drifted)} of {len(drift.differences)} behaviour differences (comparisons) differ")
    return lines
