"""Behaviour signatures computed by the real witness run on real server processes (never on mocks): the
reference and the original agree, a record's digest does not depend on its company, and 2026.7.4's changes
show in its signatures. The rest of the baselines' API is in tests/fast/test_baseline.py."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from conformance.catalog.witnesses import default_witnesses
from conformance.gate.signatures import witness_signatures


def _wire_only(record: str) -> bool:
    """Records whose witnesses are all on the wire or stderr (the reference has no npm package files)."""
    return all(step.artifact is None for _, step in default_witnesses().steps_of(record))


def test_signatures_agree_where_reference_and_original_agree() -> None:
    """The reference equals the original on every tool-level behaviour; SDK-owned details are normalized."""
    records = [rid for rid in default_witnesses().records if _wire_only(rid)]
    with ThreadPoolExecutor(2) as pool:  # side by side: each holds its idle witness's process 6 s (ABS-10)
        original, reference = pool.map(lambda spec: witness_signatures(spec, records, timeout=60),
                                       ["npm:0.6.2", "reference"])
    assert set(original) == set(reference) == set(records)
    differing = [rid for rid in records if original[rid].signature != reference[rid].signature]
    assert differing == [], {rid: (original[rid].witness, reference[rid].witness) for rid in differing}


def test_signatures_do_not_depend_on_what_else_was_witnessed() -> None:
    """A record's store effects are read relative to its own probe: the same digest alone or among all."""
    # Signed as the gate signs the original (`clockless`): store effects are read on the witness process,
    # never on the idle witness's, which would hold a process 6 s for ABS-10's step.
    alone = witness_signatures("npm:0.6.2", ["OBJ-3", "RTE-5"], clockless=True)
    among = witness_signatures("npm:0.6.2", list(default_witnesses().records), clockless=True)
    assert {r: alone[r].signature for r in alone} == {r: among[r].signature for r in alone}


def test_coercion_and_annotations_change_the_signatures_of_2026_7_4() -> None:
    """Upstream #3428 (string numbers and "false" accepted) and the tool's new annotations sit inside
    records that already deviate on 2025.12.18; their signatures say so."""
    records = ["RTE-3", "OBJ-10", "OBJ-8", "RTE-1", "CMP-2", "OBJ-7", "OBJ-5"]
    with ThreadPoolExecutor(2) as pool:  # two releases, side by side
        before, after = pool.map(lambda spec: witness_signatures(spec, records),
                                 ["npm:2025.12.18", "npm:2026.7.4"])
    changed = {rid for rid in records if before[rid].signature != after[rid].signature}
    # Installed as released, 2026.7.4's SDK (1.29.0, 2025.12.18 has 1.25.1) also serves another inputSchema
    # (OBJ-7); the description is the same.
    assert changed == {"RTE-3", "OBJ-10", "OBJ-8", "RTE-1", "CMP-2", "OBJ-7"}
    shown = {w.step: w.answer for w in after["CMP-2"].witness}
    assert "annotations" in shown["tool-keys"]
    coerced = {w.step: w.answer for w in after["RTE-3"].witness}
    assert '"isError":false' in coerced["string-number"] and '"isError":false' in coerced["string-flag"]
