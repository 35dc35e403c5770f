"""Behaviour signatures of the specification's records: the answers a departing record's check reads.

A spec record's witness steps are its era and the parts of that era's meeting its check reads (`reads` in
fixtures/spec_records.yaml). Signing meets the target again, fresh, as each era's client the record departed
with, and hashes those answers like a seed record's (`signatures.signature_of`), each step named
`<era> <part>`: a baseline pins what the departure looked like, era by era.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from conformance.calls.meetings import Meeting, meet
from conformance.catalog.spec_records import default_spec_catalog
from conformance.core.eras import ERA_NAMES, era_named, era_of_test
from conformance.core.errors import HarnessError
from conformance.core.results import RunResults
from conformance.gate.canonical import sorted_json
from conformance.gate.signatures import RecordSignature, sign_departures, signed_answers
from conformance.targets.specs import Target

FAILED: frozenset[str] = frozenset({"failed", "error"})


def departing_eras(results: RunResults | None) -> dict[str, list[str]]:
    """Each spec record that departed, with the eras it departed in (in era order)."""
    spec = {record.id for record in default_spec_catalog().records}
    found: dict[str, set[str]] = {}
    for test in results.tests if results is not None else []:
        era = era_of_test(test.nodeid)
        if era is None or test.status not in FAILED:
            continue
        for record in spec.intersection(test.records):
            found.setdefault(record, set()).add(era)
    return {record: [name for name in ERA_NAMES if name in eras] for record, eras in found.items()}


def spec_signatures(
    target: Target, departing: Mapping[str, Sequence[str]], records: Iterable[str], *, timeout: float
) -> dict[str, RecordSignature]:
    """The signatures of those `records` that are spec records departing in some era: one fresh meeting per
    era they departed in, each record signed on the parts it reads."""
    catalog = default_spec_catalog()
    wanted = [record for record in records if departing.get(record)]
    meetings: dict[str, Meeting] = {}
    for record in wanted:
        for name in departing[record]:
            if name not in meetings:
                meetings[name] = meet(target, era_named(name), timeout=timeout)
    signed: dict[str, RecordSignature] = {}
    for record in wanted:
        reads = catalog.get(record).reads
        pairs = [(f"{name} {part}", sorted_json(meetings[name].answer(part)))
                 for name in departing[record] for part in reads]
        signed[record] = signed_answers(record, pairs)
    return signed


def sign_run_departures(
    target: Target, records: list[str], timeout: float, transcript_path: Path, results: RunResults | None
) -> dict[str, RecordSignature]:
    """A run's signatures: the seed records' on their witness process, the spec records' on fresh meetings
    of the eras they departed in (what cannot be computed is left out: the gate says "not confirmed")."""
    signed = sign_departures(target, records, timeout, transcript_path)
    with contextlib.suppress(HarnessError):
        signed.update(spec_signatures(target, departing_eras(results), records, timeout=timeout))
    return signed
