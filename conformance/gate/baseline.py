"""The gate's baseline: the records a project is known to depart from, each with the reason a human gave.

A fork's CI passes when what it observes departing is exactly its baseline: a new departure fails the
gate, and so does a baseline entry that no longer departs (stale), so the baseline never rots silently.
Format /2 names the project (any build or release of it is checked) and pins each departure's behaviour
signature, so a departure whose behaviour changes again fails too ("departure changed"); /3 writes one entry
per root cause, with the departures it explains folded under it (`explains`): one reason per behaviour
change; /4 lets an entry name the era whose client it departs under (`era`), accepting it under that era only.
/1 to /3 are still read; the gate weighs the folded departures as entries of their own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from conformance.core.eras import ERA_NAMES
from conformance.core.errors import InputError
from conformance.core.inputs import BASELINE_BYTES, MiB, max_values, parse_yaml, read_text, validated
from conformance.core.printable import encoded
from conformance.gate.carried import pinned_alike
from conformance.gate.verdicts import is_advisory
from conformance.report.model import Gate, GateEntry, RecordVerdict, WitnessAnswer

BASELINE_FORMAT: Final = "seqthink-conformance-baseline/4"
BASELINE_FORMAT_3: Final = "seqthink-conformance-baseline/3"
BASELINE_FORMAT_2: Final = "seqthink-conformance-baseline/2"
BASELINE_FORMAT_1: Final = "seqthink-conformance-baseline/1"
_NAMING_A_PROJECT: Final = (BASELINE_FORMAT_2, BASELINE_FORMAT_3, BASELINE_FORMAT)
_FOLDING: Final = (BASELINE_FORMAT_3, BASELINE_FORMAT)
"""The formats whose entries may fold the departures they explain (`explains`)."""

EraName = Literal["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "auto"]
"""An era a /4 entry may name: a revision's client or `auto` (`core/eras.py`'s ERA_NAMES, spelled out for the
baseline's schema; a test keeps the two equal)."""

ERA_DESCRIPTION: Final = (
    "/4: the era whose client the departure is accepted under (a revision or auto); absent: any era"
)

PAIR_DESCRIPTION: Final = (
    "/4: the departure's reproduced pair when the baseline was written (the call that departed, both "
    "answers): another record departing with the same difference is covered by this entry"
)

Departure = Literal["deviates", "error"]
"""The verdicts a baseline may expect; every other verdict is not a departure."""
DEPARTURES: tuple[Departure, ...] = ("deviates", "error")


class BaselineError(InputError):
    """The baseline file cannot be read or does not describe a valid baseline (CLI exit status 4)."""


PAIR_CHARS: Final = 16_384
"""The longest pair of answers a baseline pins (`PinnedPair`): a pair past it (a 10,000-character thought
echoed in a box) is left out rather than bloating the file; its entry is covered by its witness alone."""


class PinnedPair(BaseModel):
    """The call that made a departure depart when the baseline was written (its reproduced pair on fresh
    processes): the original's and the target's answers to it and what differed. A search reaching the same
    change through another record's check under another seed shows the same difference (issue 43's
    branch-depth flap: CMP-1's check met RTE-3's refusal), so the entry covers it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    at: str = Field(default="", max_length=200,
                    description="which request of the example the answers differ on")
    original: str = Field(max_length=PAIR_CHARS, description="the original's answer there, compact JSON")
    target: str = Field(max_length=PAIR_CHARS, description="the target's answer there, compact JSON")
    differences: list[str] = Field(default_factory=list, max_length=50,
                                   description="what differed there, as the report's evidence said it")


class ExplainedEntry(BaseModel):
    """/3: a departure that follows from its entry's behaviour change, accepted for the entry's reason."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    record: str = Field(description="canonical record ID (an alias is accepted and mapped)")
    verdict: Departure = Field(default="deviates", description="the expected verdict: deviates or error")
    signature: str | None = Field(default=None, pattern="^[0-9a-f]{64}$")
    witness: list[WitnessAnswer] = Field(default_factory=list)
    era: EraName | None = Field(default=None, description=ERA_DESCRIPTION)
    pair: PinnedPair | None = Field(default=None, description=PAIR_DESCRIPTION)


class BaselineEntry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    record: str = Field(description="canonical record ID (an alias is accepted and mapped)")
    reason: str = Field(min_length=1, description="why this target is expected to depart from the record")
    verdict: Departure = Field(default="deviates", description="the expected verdict: deviates or error")
    signature: str | None = Field(
        default=None,
        pattern="^[0-9a-f]{64}$",
        description="the departure's behaviour signature (sha256 hex); absent: any behaviour is accepted",
    )
    witness: list[WitnessAnswer] = Field(
        default_factory=list, description="the canonical witness answers the signature was computed from"
    )
    explains: list[ExplainedEntry] = Field(
        default_factory=list, description="/3: the departures this behaviour change explains (same reason)"
    )
    era: EraName | None = Field(default=None, description=ERA_DESCRIPTION)
    pair: PinnedPair | None = Field(default=None, description=PAIR_DESCRIPTION)

    def flattened(self) -> list[BaselineEntry]:
        """This entry and each departure it explains as an entry of its own, with this entry's reason."""
        own = self.model_copy(update={"explains": []})
        return [own, *(BaselineEntry(record=e.record, reason=self.reason, verdict=e.verdict,
                                     signature=e.signature, witness=e.witness, era=e.era, pair=e.pair)
                     for e in self.explains)]

    @field_validator("reason")
    @classmethod
    def _reason_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("reason must say why")
        return value


class Baseline(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal[
        "seqthink-conformance-baseline/1",
        "seqthink-conformance-baseline/2",
        "seqthink-conformance-baseline/3",
        "seqthink-conformance-baseline/4",
    ] = BASELINE_FORMAT
    project: str | None = Field(
        default=None,
        min_length=1,
        description="/2: the project (npm package or fork name) whose builds and releases this is for",
    )
    target: str | None = Field(
        default=None,
        min_length=1,
        description="/1: the exact target spec it is for; /2: the target its signatures were taken from",
    )
    deviations: list[BaselineEntry] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _format_by_content(cls, data: object) -> object:
        """A file without `format:` is /1 when it names a target and no project (as /1 files were written)."""
        if isinstance(data, dict) and "format" not in data and "project" not in data and "target" in data:
            return {**data, "format": BASELINE_FORMAT_1}
        return data

    @model_validator(mode="after")
    def _names_what_it_is_for(self) -> Baseline:
        if self.format == BASELINE_FORMAT_1 and self.target is None:
            raise ValueError("a /1 baseline needs `target:`")
        if self.format in _NAMING_A_PROJECT and self.project is None:
            raise ValueError("a /2, /3 or /4 baseline needs `project:` (the npm package or fork it is for)")
        if self.format not in _FOLDING and any(e.explains for e in self.deviations):
            raise ValueError("`explains` is /3's: write `format: seqthink-conformance-baseline/4`")
        if self.format != BASELINE_FORMAT and any(
                flat.era is not None for e in self.deviations for flat in e.flattened()):
            raise ValueError("`era` is /4's: write `format: seqthink-conformance-baseline/4`")
        return self

    @field_validator("deviations")
    @classmethod
    def _unique(cls, entries: list[BaselineEntry]) -> list[BaselineEntry]:
        seen: set[str] = set()
        for entry in (flat for e in entries for flat in e.flattened()):
            if entry.record in seen:
                raise ValueError(f"record {entry.record} is listed twice")
            seen.add(entry.record)
        return entries


def load_baseline(path: Path) -> Baseline:
    return parse_baseline(read_text(path, what="baseline", limit=BASELINE_BYTES, error=BaselineError),
                          f"baseline {path}")


def parse_baseline(text: str, where: str) -> Baseline:
    """A baseline's text as `run --baseline` reads it (the limits of a baseline: `core/inputs.py`)."""
    raw = parse_yaml(text, where, values=max_values(BASELINE_BYTES, yaml_syntax=True), error=BaselineError,
                     served=True)
    if raw is None:
        raise BaselineError(f"{where} is empty: it needs at least `format:` and `project:`")
    return validated(Baseline, raw, where, BaselineError)


def check_fits(baseline: Baseline, where: str) -> None:
    """A baseline whose strings alone are over a baseline's size (long witness answers), refused before it is
    written out as YAML (its emitter takes a minute on 20 MB)."""
    strings = sum(len(encoded(e.reason)) + sum(len(encoded(w.answer)) for w in e.witness)
                  + sum(len(encoded(p.original)) + len(encoded(p.target))
                        for p in (e.pair, *(x.pair for x in e.explains)) if p is not None)
                  for e in baseline.deviations)
    _check_size(strings, where)


def check_readable(text: str, where: str) -> None:
    """What `baseline` writes, `run --baseline` reads back: a baseline over a baseline's limits (long witness
    answers) is refused before it is written, not after."""
    _check_size(len(encoded(text)), where)
    parse_baseline(text, f"the baseline for {where}")


def _check_size(size: int, where: str) -> None:
    if size > BASELINE_BYTES:
        raise BaselineError(
            f"the baseline for {where} would be {size / MiB:.1f} MiB, more than the "
            f"{BASELINE_BYTES // MiB} MiB `run --baseline` reads (its departures' witness answers are that "
            "long)"
        )


def canonical_entries(baseline: Baseline, canonical: Mapping[str, str]) -> dict[str, BaselineEntry]:
    """Entries keyed by canonical record ID; `canonical` maps every ID and alias to its canonical ID."""
    keyed: dict[str, BaselineEntry] = {}
    for entry in (flat for e in baseline.deviations for flat in e.flattened()):
        record = canonical.get(entry.record)
        if record is None:
            raise BaselineError(f"baseline lists {entry.record!r}, which is not a record of the catalog")
        if record in keyed:
            raise BaselineError(f"baseline lists {record} twice (once as {entry.record!r})")
        keyed[record] = entry
    return keyed


def folded_owners(baseline: Baseline, canonical: Mapping[str, str]) -> dict[str, str]:
    """Each folded departure's canonical ID mapped to the canonical ID of the entry it is folded under, so
    the gate can count reasons (one per entry) rather than the departures that share them."""
    return {canonical.get(e.record, e.record): canonical.get(entry.record, entry.record)
            for entry in baseline.deviations for e in entry.explains}


def dump_baseline(baseline: Baseline) -> str:
    """YAML a human can edit: one entry per departure, reasons kept as written, signatures pinned below."""
    body = baseline.model_dump(mode="json", exclude_none=True)
    for entry in body.get("deviations", []):
        for part in [entry, *entry.get("explains", [])]:
            if not part.get("witness"):
                part.pop("witness", None)
        if not entry.get("explains"):
            entry.pop("explains", None)
    header = (
        "# Records this project is expected to depart from, one entry per behaviour change (root cause)\n"
        "# with why, the departures it explains folded under it (`explains`), and the behaviour each\n"
        "# departure showed on its witness calls. `python -m conformance run --baseline <this file>`\n"
        "# exits 0 only when the observed departures are exactly these and behave as pinned; refresh\n"
        "# the signatures with `python -m conformance baseline REPORT --refresh <this file>`\n"
        "# (docs/baselines.md).\n"
    )
    return header + yaml.safe_dump(body, sort_keys=False, allow_unicode=True, width=100)


def check_spec(baseline: Baseline, path: Path, spec: str) -> None:
    """A /1 baseline is for one exact target spec (a /2 one is checked by project, once it is known)."""
    if baseline.format == BASELINE_FORMAT_1 and baseline.target != spec:
        raise BaselineError(
            f"baseline {path} (format /1) is for target {baseline.target!r}, not {spec!r}; "
            "`baseline REPORT --refresh FILE` rewrites it as /2, which names a project instead"
        )


def check_project(baseline: Baseline, path: Path, spec: str, project: str | None) -> None:
    """A /2 baseline applies to any build or release of its project; another project's is refused."""
    if baseline.format in _NAMING_A_PROJECT and project is not None and baseline.project != project:
        raise BaselineError(
            f"baseline {path} is for project {baseline.project!r}, but target {spec} is {project!r}"
        )


TODO_REASON: Final = re.compile(r"\s*TODO\b", re.IGNORECASE)
"""A reason still as `baseline -o` wrote it ("TODO say why; observed: ..."): no human has said why."""


def evaluate_gate(
    verdicts: Sequence[RecordVerdict],
    baseline: Baseline | None,
    *,
    baseline_path: str | None,
    canonical: Mapping[str, str],
    strict: bool = False,
    reobserved: Mapping[str, str] | None = None,
    covered: Mapping[str, str] | None = None,
    seen_once: Mapping[str, str] | None = None,
) -> Gate:
    """Pass exactly when the observed departures (deviates, error) are the baseline's, verdict for verdict,
    and every pinned departure still shows the behaviour signature it was pinned with; `strict` also fails
    every weighed entry whose reason still says TODO. `reobserved` (listed records the search saw hold whose
    pinned witness still departs, `gate/pinned.py`) are not stale; `covered` (unlisted departures that are an
    entry's pinned difference, mapped to that entry) are not new; nor are `seen_once` (unlisted departures
    fresh processes did not confirm, mapped to why), reported apart without failing it."""
    reobserved = reobserved or {}
    seen_once = seen_once or {}
    covered = covered or {}
    expected_by_id = canonical_entries(baseline, canonical) if baseline is not None else {}
    owners = folded_owners(baseline, canonical) if baseline is not None else {}
    expected: list[GateEntry] = []
    unexpected: list[GateEntry] = []
    stale: list[GateEntry] = []
    unconfirmed: list[GateEntry] = []
    changed: list[GateEntry] = []
    unexplained: list[GateEntry] = []
    advisory: list[GateEntry] = []
    once: list[GateEntry] = []
    for rv in verdicts:
        entry = expected_by_id.get(rv.id)
        departs = rv.verdict in DEPARTURES
        if entry is not None and strict and TODO_REASON.match(entry.reason):
            unexplained.append(GateEntry(record=rv.id, verdict=rv.verdict, expected=entry.verdict,
                                         reason=entry.reason, folded_under=owners.get(rv.id)))
        if entry is None and departs and rv.id in covered:
            owner = expected_by_id.get(covered[rv.id])
            expected.append(GateEntry(
                record=rv.id, verdict=rv.verdict, expected=rv.verdict,
                reason=owner.reason if owner is not None else "", folded_under=covered[rv.id],
                witnessed=f"not listed, but its difference is {covered[rv.id]}'s pinned one: what its own "
                          "witness and its reproduced example differ about from the original is what "
                          f"{covered[rv.id]}'s pinned witnesses or pinned pair differ about"))
            continue
        if entry is None and departs and rv.id in seen_once and not is_advisory(rv):
            once.append(GateEntry(record=rv.id, verdict=rv.verdict, expected="holds",
                                  reason=seen_once[rv.id]))
            continue
        if entry is None:
            if departs:
                row = GateEntry(record=rv.id, verdict=rv.verdict, expected="holds", reason=rv.reason)
                (advisory if is_advisory(rv) else unexpected).append(row)
            continue
        row = GateEntry(record=rv.id, verdict=rv.verdict, expected=entry.verdict, reason=entry.reason,
                        folded_under=owners.get(rv.id))
        if departs and entry.era is not None and entry.era not in departed_under(rv):
            under = ", ".join(sorted(departed_under(rv))) or "no era named in its tests"
            unexpected.append(row.model_copy(update={
                "expected": "holds",
                "reason": f"departs under {under}; the baseline accepts it under {entry.era} only: "
                          f"{rv.reason}"}))
            continue
        if rv.verdict == entry.verdict:
            if pinned_alike(entry.signature, entry.witness, rv.signature, rv.witness):
                expected.append(row)
            elif rv.signature is None:
                why = "no behaviour signature: its witness process would not start or timed out"
                unconfirmed.append(row.model_copy(update={"reason": why}))
            else:
                before, after = changed_answers(entry.witness, rv.witness)
                changed.append(row.model_copy(update={"before": before, "after": after}))
        elif rv.verdict == "holds" and rv.id in reobserved:
            expected.append(row.model_copy(update={"witnessed": reobserved[rv.id]}))
        elif rv.verdict == "holds":
            stale.append(row)
        else:
            unconfirmed.append(row)
    return Gate(
        baseline=baseline_path,
        passed=not (unexpected or stale or unconfirmed or changed or unexplained),
        expected=expected,
        unexpected=unexpected,
        stale=stale,
        unconfirmed=unconfirmed,
        changed=changed,
        unexplained=unexplained,
        advisory=advisory,
        seen_once=once,
    )


def departed_under(rv: RecordVerdict) -> set[str]:
    """The eras whose clients a record departed under: its failed (or erroring) tests whose id ends with an
    era's name (`test_batches_as_the_revision_says[npm:2026.7.4-2025-03-26]`); none for the seed's records."""
    eras: set[str] = set()
    for test in rv.tests:
        if test.status not in ("failed", "error") or not test.nodeid.endswith("]"):
            continue
        param = test.nodeid[test.nodeid.rfind("[") + 1:-1]
        eras |= {name for name in ERA_NAMES if param == name or param.endswith(f"-{name}")}
    return eras


def changed_answers(
    before: Sequence[WitnessAnswer], after: Sequence[WitnessAnswer]
) -> tuple[list[WitnessAnswer], list[WitnessAnswer]]:
    """The witness answers that differ, step by step; all of both when the witness steps changed."""
    if [w.step for w in before] != [w.step for w in after]:
        return list(before), list(after)
    pairs = [(b, a) for b, a in zip(before, after, strict=True) if b.answer != a.answer]
    return [b for b, _ in pairs], [a for _, a in pairs]
