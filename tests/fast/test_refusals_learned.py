"""A red run's signing learns whether a target's refusals carry (gate/signatures.py `REFUSAL_CHECKS`).

A record refused after other records' calls was signed again alone on a fresh process, one per such record:
16 of npm:2026.8.31's 20 signing processes (issue 46). Once `REFUSAL_CHECKS` of them answer alone exactly as
on the shared process, the rest are not; a target whose refusals do carry (each refusal counts those before
it) is signed again alone record by record, as before. Real processes of tests/servers/refusals.py; no clock
is read.
"""

from __future__ import annotations

import shlex
import tempfile
from collections.abc import Callable
from pathlib import Path

from conformance.catalog.witnesses import default_witnesses
from conformance.drivers.transcript import Transcript
from conformance.gate.signatures import REFUSAL_CHECKS, witness_signatures
from tests.servers import command
from tests.side_by_side import side_by_side

REFUSED = [rid for rid in default_witnesses().records
           if rid.startswith(("OBJ-8", "OBJ-10", "RTE-3", "RTE-8", "RTE-9"))]
"""Records whose witnesses send calls the original refuses, most of them after another such record."""


NEVER = 10**6
"""A number of checks past any catalogue: every record refused after others signed again alone (as before)."""


def _spec(mode: str) -> str:
    return "cmd:" + shlex.join(command("refusals", mode))


def _signing(spec: str, *, carry: bool = True, checks: int = REFUSAL_CHECKS
             ) -> Callable[[], tuple[dict[str, str], int]]:
    """A signing of `REFUSED` on `spec`, to make beside the test's others: each signature, and the processes
    it started (counted by the pids its transcript names: signings side by side count their own)."""

    def signing() -> tuple[dict[str, str], int]:
        with tempfile.TemporaryDirectory(prefix="refusals-") as folder, \
                Transcript(Path(folder) / "witnesses.jsonl") as transcript:
            signed = witness_signatures(spec, REFUSED, timeout=20, refusals_carry=carry,
                                        refusal_checks=checks, transcript=transcript)
            started = (Path(folder) / "witnesses.jsonl").read_text().count('"started pid')
        return {rid: s.signature for rid, s in signed.items()}, started

    return signing


def test_refusals_that_carry_nothing_are_signed_again_alone_only_to_learn_so() -> None:
    """Keeping nothing from a refusal: the start's two processes and `REFUSAL_CHECKS` more, not one per
    refused record (8 for these 9 records before, and 2 spares), each signature the one it has alone."""
    spec = _spec("plain")
    (learned, started), (alone, _) = side_by_side(_signing(spec), _signing(spec, checks=NEVER))
    assert len(REFUSED) > REFUSAL_CHECKS + 3
    assert started == 2 + REFUSAL_CHECKS + 1, started  # and the idle witness's (they pin a box's stderr)
    assert learned == alone and len(learned) == len(REFUSED)


def test_refusals_that_carry_are_signed_again_alone_each() -> None:
    """A refusal counting the refusals before it answers otherwise alone from the first check on: every such
    record is signed again alone, so each signature is still the one it has alone (taken as carrying nothing,
    they would not be: the server tells the two apart)."""
    spec = _spec("counted")
    (learned, started), (alone, alone_started), (trusted, _) = side_by_side(
        _signing(spec), _signing(spec, checks=NEVER), _signing(spec, carry=False))
    assert learned == alone and len(learned) == len(REFUSED)
    assert started == alone_started > 2 + REFUSAL_CHECKS
    assert trusted != alone, "the counted refusals made no difference: the test tells nothing apart"
