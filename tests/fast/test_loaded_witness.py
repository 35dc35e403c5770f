"""A witness pass that times out on a loaded machine is tried again before a pinned departure is called not
confirmed (issue 43: a gate that never flaps): the slowness of one process is not the server's behaviour."""

from __future__ import annotations

import shlex
from pathlib import Path

from conformance.catalog.witnesses import default_witnesses
from conformance.drivers.errors import ServerTimeout
from conformance.gate.signatures import sign_departures, witness_signatures
from conformance.targets.specs import resolve_target
from tests.servers import command
from tests.side_by_side import side_by_side

RECORDS = ["OBJ-4/a1", "RTE-4"]
TIMEOUT = 4.0
SLOW = 3 * TIMEOUT
"""The first process answers each call later than the first pass's timeout and the second's (twice it)."""


def _target(tmp_path: Path) -> str:
    return "cmd:" + shlex.join(command("slow_first_process", str(tmp_path / "mark"), str(SLOW)))


def test_one_slow_pass_leaves_records_unsigned(tmp_path: Path) -> None:
    """The premise: the first process answers past the call timeout, so a single pass signs nothing."""
    planned = [rid for rid in default_witnesses().records if rid in RECORDS]
    assert planned == RECORDS, "these records have witnesses"
    try:
        signed = witness_signatures(resolve_target(_target(tmp_path)), RECORDS, timeout=TIMEOUT)
    except ServerTimeout:
        signed = {}
    assert signed == {}


def test_a_witness_pass_that_timed_out_is_tried_again(tmp_path: Path) -> None:
    target = resolve_target(_target(tmp_path))
    signed, reference = side_by_side(  # the slow process's waits beside the reference's signing
        lambda: sign_departures(target, RECORDS, TIMEOUT, tmp_path / "witnesses.jsonl"),
        lambda: witness_signatures(resolve_target("reference"), RECORDS, timeout=SLOW))
    assert set(signed) == set(reference) == set(RECORDS)
    assert {rid: s.signature for rid, s in signed.items()} == {
        rid: s.signature for rid, s in reference.items()}
