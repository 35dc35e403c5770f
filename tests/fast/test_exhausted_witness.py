"""A witness process whose state runs out is replaced (gate/signatures.py, `_WitnessSession.renew`): a
record's signature on a bounded-session server is the same alone as after every other record's witnesses
(issue 43, fork-bounded-session: which records came back "changed" depended on how many the run signed)."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

from conformance.catalog.witnesses import default_witnesses
from conformance.drivers import process
from conformance.drivers.stray_lag import STRAY_GRACE
from conformance.gate.canonical import CARRIED
from conformance.gate.signatures import RecordSignature, witness_signatures
from conformance.targets.specs import resolve_target
from tests.servers import command
from tests.side_by_side import side_by_side


def signing(spec: str, records: list[str]) -> Callable[[], dict[str, RecordSignature]]:
    """The signing of `records` on a fresh process of `spec`, to make beside the test's others."""
    return partial(witness_signatures, spec, records, timeout=20)


LIMITED = Path(__file__).resolve().parents[1] / "servers" / "session_limit.py"


def test_a_records_signature_does_not_depend_on_how_many_records_were_witnessed_before_it() -> None:
    """The catalogue up to RTE-4 (about 160 calls: a 12-thought state runs out a dozen times) ends on RTE-3,
    whose 13 steps run past the limit even alone, and the two after it: signed among the others, RTE-3 must
    be re-signed whole on the renewed process (without that it differs from alone), and those after it must
    meet no exhausted state. The whole catalogue (80 records) repeats the same renewals, at twice the cost."""
    spec = f"cmd:{sys.executable} {LIMITED} 12"
    catalogue = list(default_witnesses().records)
    records = catalogue[: catalogue.index("RTE-4") + 1]
    last = ["RTE-3", "RTE-3/a1", "RTE-4"]
    among, *singly = side_by_side(signing(spec, records), *(signing(spec, [rid]) for rid in last))
    assert [rid for rid in records if rid in among][-3:] == last, among.keys()
    alone = {rid: signed[rid] for rid, signed in zip(last, singly, strict=True)}
    for rid in last:
        assert among[rid].signature == alone[rid].signature, (rid, among[rid].witness, alone[rid].witness)
    assert not any("limit reached" in w.answer for rid in last[1:] for w in among[rid].witness)


def test_a_server_that_refuses_the_probe_on_a_fresh_process_too_is_signed_with_its_refusal() -> None:
    """A limit of 0 refuses every call from the start: the refusal is its behaviour, signed as such."""
    spec = f"cmd:{sys.executable} {LIMITED} 0"
    signed = witness_signatures(spec, ["RTE-3", "OBJ-4"], timeout=20)
    assert any("limit reached" in w.answer for w in signed["OBJ-4"].witness)


def test_a_server_failing_the_probe_on_fresh_processes_is_not_signed_again_alone() -> None:
    """A server answering every call with garbage fails the probe on a fresh process as after other
    records: each record after the first was signed again alone on one more fresh process, each witness the
    same failure there (the red run's signing: twice the calls and processes). The run's learner already
    knows its stray lines go unanswered (as after its preflight), so each call costs the short grace."""
    target = resolve_target("cmd:" + shlex.join(command("broken", "garbage")))
    target.lateness.strays.note_unanswered(target.command, STRAY_GRACE)
    started = process.processes_started()
    signed = witness_signatures(target, ["CMP-5", "ABS-3"], timeout=20)
    # The two fresh processes of the start and the idle witness's (CMP-5 pins stderr), no more.
    assert process.processes_started() - started == 3
    for rid in ("CMP-5", "ABS-3"):
        assert [w.answer for w in signed[rid].witness] == ['{"failure":"ProtocolViolation"}'] * len(
            signed[rid].witness), (rid, signed[rid].witness)


HISTORY_LABELS = Path(__file__).resolve().parents[1] / "servers" / "history_labels.py"


def test_a_label_one_record_leaves_behind_never_reaches_another_records_signature() -> None:
    """Each record's witnesses go to a fresh process: on a server listing the labels of its history as sent,
    the number and object labels RTE-8/a1's and BAP-4/a1's witnesses send stayed in every later record's
    branches on a shared process, so a baseline (every departure signed) and a gate (a few) disagreed
    (typescript-port, held-out-multi-4: RTE-7 and OBJ-14 stale, RTE-8/a1 changed)."""
    spec = f"cmd:{sys.executable} {HISTORY_LABELS}"
    later = ["OBJ-14", "RTE-7"]
    among, alone = side_by_side(signing(spec, ["OBJ-4/a1", "RTE-8/a1", "BAP-4/a1", *later]),
                                signing(spec, later))
    for rid in later:
        assert among[rid].signature == alone[rid].signature, (rid, among[rid].witness, alone[rid].witness)
        assert not any('"branches":[42' in w.answer for w in among[rid].witness), among[rid].witness


JOURNAL = Path(__file__).resolve().parents[1] / "servers" / "journal.py"
JOURNALED = ["CMP-1", "RTE-6", "ABS-11"]
"""A first call, branches, and a count: what a restored journal changes from run to run."""


def test_state_carried_across_processes_is_found_and_its_counts_and_labels_not_read(tmp_path: Path) -> None:
    """Each signing starts where the last one's processes left the journal: without the finding, each record's
    counts and labels differ run to run (disk-journal, held-out-multi-4: 'changed' in 7 of 7 cells)."""
    spec = f"cmd:{sys.executable} {JOURNAL} {tmp_path / 'journal.json'}"
    first = witness_signatures(spec, JOURNALED, timeout=20)
    again = witness_signatures(spec, JOURNALED, timeout=20)
    for rid in JOURNALED:
        assert first[rid].signature == again[rid].signature, (rid, first[rid].witness, again[rid].witness)
        assert any(CARRIED in w.answer for w in first[rid].witness), first[rid].witness


def test_labels_restored_alone_are_found_carried_whatever_the_file_held(tmp_path: Path) -> None:
    """A fork restoring only its labels (fork-remembered-labels, held-out-multi-13) answered the probe alike
    on two fresh processes unless another process rewrote its file between their starts: its baseline run read
    the store as carried, the ci seed 22 gate did not, and every entry went "changed". Signed three times,
    the first on no file at all, each finds the labels carried and signs alike."""
    spec = f"cmd:{sys.executable} {JOURNAL} {tmp_path / 'labels.json'} --labels-only"
    first, again, third = (witness_signatures(spec, JOURNALED, timeout=20) for _ in range(3))
    for rid in JOURNALED:
        assert first[rid].signature == again[rid].signature == third[rid].signature, (
            rid, first[rid].witness, third[rid].witness)
    assert all(any(CARRIED in w.answer for w in first[rid].witness) for rid in ("CMP-1", "RTE-6"))


def test_a_server_whose_fresh_processes_start_alike_is_read_as_before() -> None:
    """No journal: the counts and labels are compared as ever, relative to the probe."""
    signed = witness_signatures(f"cmd:{sys.executable} {HISTORY_LABELS}", JOURNALED, timeout=20)
    answers = [w.answer for rid in JOURNALED for w in signed[rid].witness]
    assert not any(CARRIED in answer for answer in answers)
    assert any('"thoughtHistoryLength":"+1"' in answer for answer in answers)


def test_a_label_two_records_file_is_signed_as_each_files_it_alone() -> None:
    """OBJ-2, RTE-8/a1 and LOOP-B each file "__proto__": on a server listing labels as sent, the probe finds
    the label an earlier record filed, so read relative to it the label vanished from the later record's own
    answer (typescript-port: RTE-8/a1 "changed" under one seed). Such a record goes to a fresh process."""
    spec = f"cmd:{sys.executable} {HISTORY_LABELS}"
    shared = ["OBJ-2", "RTE-8/a1", "LOOP-B"]
    together, *singly = side_by_side(signing(spec, shared), *(signing(spec, [rid]) for rid in shared))
    for rid, alone in zip(shared, singly, strict=True):
        assert together[rid].signature == alone[rid].signature, (
            rid, together[rid].witness, alone[rid].witness)


def test_a_lockout_built_by_earlier_records_refusals_never_reaches_a_later_records_signature() -> None:
    """On a fork refusing any call after three refusals in a row (held-out-multi-9's fork-model-guard), one
    record's refused witnesses (OBJ-8/a1's) left a streak that refused the next record's probe, so its counts
    read "?" and its signature depended on which records came first (issue 43: OBJ-9 stale, OBJ-10 changed,
    by seed). A record refused after other records' calls is signed again alone on a fresh process."""
    spec = "cmd:" + shlex.join(command("reference_fork", "lockout"))
    later = ["OBJ-10", "OBJ-9"]
    among, *singly = side_by_side(signing(spec, ["OBJ-8/a1", *later]),
                                  *(signing(spec, [rid]) for rid in later))
    for rid, alone in zip(later, singly, strict=True):
        assert among[rid].signature == alone[rid].signature, (rid, among[rid].witness, alone[rid].witness)
