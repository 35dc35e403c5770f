"""A witness process whose state runs out is replaced (gate/signatures.py, `_WitnessSession.renew`): a
record's signature on a bounded-session server is the same alone as after every other record's witnesses
(issue 43, fork-bounded-session: which records came back "changed" depended on how many the run signed)."""

from __future__ import annotations

import sys
from pathlib import Path

from conformance.catalog.witnesses import default_witnesses
from conformance.gate.signatures import witness_signatures

LIMITED = Path(__file__).resolve().parents[1] / "servers" / "session_limit.py"


def test_a_records_signature_does_not_depend_on_how_many_records_were_witnessed_before_it() -> None:
    spec = f"cmd:{sys.executable} {LIMITED} 12"
    records = list(default_witnesses().records)
    among = witness_signatures(spec, records, timeout=20)
    last = [rid for rid in records if rid in among][-3:]
    alone = {rid: witness_signatures(spec, [rid], timeout=20)[rid] for rid in last}
    for rid in last:
        assert among[rid].signature == alone[rid].signature, (rid, among[rid].witness, alone[rid].witness)
    assert not any("limit reached" in w.answer for rid in last for w in among[rid].witness)


def test_a_server_that_refuses_the_probe_on_a_fresh_process_too_is_signed_with_its_refusal() -> None:
    """A limit of 0 refuses every call from the start: the refusal is its behaviour, signed as such."""
    spec = f"cmd:{sys.executable} {LIMITED} 0"
    signed = witness_signatures(spec, ["RTE-3", "OBJ-4"], timeout=20)
    assert any("limit reached" in w.answer for w in signed["OBJ-4"].witness)
