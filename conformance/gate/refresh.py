"""A baseline written or refreshed from a report, keeping what humans wrote: the reasons of entries that
still depart, the entries the report cannot speak for (records it did not run), and the file's comments.
Entries that no longer depart are listed and dropped only when asked; a report of a run that was stopped,
of a target that could not be used, or of another project is refused."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from conformance.core.failure_text import spoken
from conformance.gate.baseline import (
    TODO_REASON,
    Baseline,
    BaselineEntry,
    BaselineError,
    EraName,
    ExplainedEntry,
    PinnedPair,
)
from conformance.gate.pinned_pairs import pinned_pair
from conformance.report.model import RecordVerdict, Report

DEPARTED = ("deviates", "error")
_ITEM = re.compile(r"^(\s*)- ")
_KEY = re.compile(r"^[A-Za-z_][\w-]*\s*:")


@dataclass(frozen=True)
class Refreshed:
    baseline: Baseline
    kept: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    resigned: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    """Entries whose record the report saw not depart: removed only with `drop_stale`."""
    unchecked: list[str] = field(default_factory=list)
    """Entries whose record the report did not run (or could not observe): kept as written."""


def check_report(report: Report, path: Path) -> None:
    """A report that can say what departs: a finished run of a target that could be used, records run."""
    if report.run.interrupted is not None:
        raise BaselineError(
            f"report {path} is of a run that was stopped ({report.run.interrupted}): a baseline needs a "
            "finished run"
        )
    if not report.preflight.ok:
        raise BaselineError(f"report {path} is of a target that could not be used: nothing was judged")
    if report.records and all(r.verdict == "not run" for r in report.records):
        raise BaselineError(f"report {path} ran no record: nothing was judged")


def check_project(report_project: str | None, existing: Baseline, path: Path, report_path: Path) -> None:
    """Refreshing a baseline of one project from another's report would drop every reason."""
    if existing.project is not None and report_project is not None and existing.project != report_project:
        raise BaselineError(
            f"baseline {path} is for project {existing.project!r}, report {report_path} is of "
            f"{report_project!r}: pass --project to write it for another project"
        )


def refresh(
    report: Report, project: str, kept: Mapping[str, BaselineEntry], *, drop_stale: bool
) -> Refreshed:
    """The report's departures with `kept`'s reasons, one entry per root cause with the departures it explains
    folded under it; `kept`'s other entries kept unless stale and dropped."""
    verdicts = {r.id: r.verdict for r in report.records}
    out = Refreshed(Baseline(project=project, target=report.target.spec))
    # An advisory departure (guidance, not gating) is written only when the baseline already declares it: a
    # reason to fill in (TODO fails --strict-baseline) for what never fails the gate would be a trap. So is a
    # departure seen once that fresh processes did not confirm: pinned, it would be stale on the next run.
    advisory = {e.record for e in [*report.gate.advisory, *report.gate.seen_once]} - set(kept)
    departing = {rv.id: rv for rv in report.records if rv.verdict in DEPARTED and rv.id not in advisory}
    under = folded_under(report, set(departing))
    entries: list[BaselineEntry] = []
    for rv in departing.values():
        old = kept.get(rv.id)
        if old is None:
            out.added.append(rv.id)
        else:
            out.kept.append(rv.id)
            if old.signature != rv.signature:
                out.resigned.append(rv.id)
        if rv.id in under:
            continue
        folded = [departing[r] for r, top in under.items() if top == rv.id]
        entries.append(
            BaselineEntry(
                record=rv.id,
                verdict="error" if rv.verdict == "error" else "deviates",
                reason=_reason(rv, folded, kept),
                signature=rv.signature,
                witness=rv.witness,
                explains=[
                    ExplainedEntry(record=f.id, verdict="error" if f.verdict == "error" else "deviates",
                                   signature=f.signature, witness=f.witness, era=_era(kept, f.id),
                                   pair=_pair(f, kept))
                    for f in folded
                ],
                era=_era(kept, rv.id),
                pair=_pair(rv, kept),
            )
        )
    for record, old in kept.items():
        if verdicts.get(record) in DEPARTED:
            continue
        if verdicts.get(record) != "holds":
            out.unchecked.append(record)
        else:
            out.stale.append(record)
            if drop_stale:
                continue
        entries.append(old)
    return Refreshed(
        out.baseline.model_copy(update={"deviations": entries}),
        out.kept,
        out.added,
        out.resigned,
        out.stale,
        out.unchecked,
    )


def _pair(rv: RecordVerdict, kept: Mapping[str, BaselineEntry]) -> PinnedPair | None:
    """The departure's reproduced pair (gate/pinned_pairs.py); a kept entry's pair when this report's
    evidence reproduced none (a refresh from a run that missed the call keeps the one that departed)."""
    found = pinned_pair(rv)
    old = kept.get(rv.id)
    return found if found is not None or old is None else old.pair


def _era(kept: Mapping[str, BaselineEntry], record: str) -> EraName | None:
    """The era a kept entry named (/4): a refresh keeps it, as it keeps the reason."""
    old = kept.get(record)
    return old.era if old is not None else None


def folded_under(report: Report, departing: set[str]) -> dict[str, str]:
    """Record → the record whose entry it is folded under: a root cause's other records and the departures
    it explains go under its first record, so the baseline asks one reason per behaviour change."""
    under: dict[str, str] = {}
    for cause in report.root_causes:
        top = cause.records[0] if cause.records else None
        if top is None or top not in departing:
            continue
        for record in [*cause.records[1:], *cause.explains]:
            if record in departing and record != top and record not in under:
                under[record] = top
    return under


def _reason(rv: RecordVerdict, folded: Sequence[RecordVerdict], kept: Mapping[str, BaselineEntry]) -> str:
    """The entry's kept reason; else one a folded departure had (an older baseline gave each its own);
    else TODO with what was observed."""
    for record in [rv.id, *(f.id for f in folded)]:
        old = kept.get(record)
        if old is not None and not TODO_REASON.match(old.reason):
            return old.reason
    old = kept.get(rv.id)
    if old is not None:
        return old.reason
    also = f"; explains {', '.join(f.id for f in folded)}" if folded else ""
    failing = next((t.nodeid for t in rv.tests if t.status in ("failed", "error")), rv.id)
    observed = spoken(rv.reason, failing, 400) if rv.reason else rv.verdict
    return f"TODO say why; observed: {observed}{also}"


def carry_comments(original: str, written: str, records: Sequence[str]) -> tuple[str, int]:
    """`written` with the full-line comments of `original` put back: a comment above (or inside) the n-th
    deviation goes above the same record's entry, any other after the header; `records` names the
    original's deviations in order. Returns the text and how many comment lines were carried."""
    written_lines = written.splitlines()
    generated = {line for line in written_lines if line.startswith("#")}
    header, by_record = _comments(original, records)
    header = [line for line in header if line not in generated]
    carried = len(header) + sum(len(c) for c in by_record.values())
    lines: list[str] = []
    for line in written_lines:
        if header and not line.startswith("#"):
            lines += header
            header = []
        item = re.match(r"^- record: ['\"]?([^'\"\s]+)", line)
        if item is not None:
            lines += by_record.pop(item.group(1), [])
        lines.append(line)
    lines += header
    for rest in by_record.values():  # comments of entries no longer written stay, at the end
        lines += rest
    return "\n".join(lines) + "\n", carried


def _comments(text: str, records: Sequence[str]) -> tuple[list[str], dict[str, list[str]]]:
    """The full-line comments of a baseline's text: those of the file, and those of each deviation (above
    its first line or among its lines), the n-th list item of `deviations:` being `records[n]`."""
    header: list[str] = []
    by_record: dict[str, list[str]] = {}
    pending: list[str] = []
    in_list = False
    indent: int | None = None
    index = -1
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            pending.append(stripped)
            continue
        if not stripped:
            continue
        item = _ITEM.match(line)
        if _KEY.match(line):
            in_list = line.startswith("deviations")
            header += pending
        elif in_list and item is not None and (indent is None or len(item.group(1)) == indent):
            indent = len(item.group(1))
            index += 1
            (by_record.setdefault(records[index], []) if index < len(records) else header).extend(pending)
        elif in_list and 0 <= index < len(records):
            by_record.setdefault(records[index], []).extend(pending)
        else:
            header += pending
        pending = []
    header += pending
    return header, by_record
