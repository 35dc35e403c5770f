"""A record's witness answers do not depend on which other records are signed beside it (issue 43).

The witnesses of the records signed share one process, and a fork whose answer depends on what earlier calls
left in the store (held-out-multi-16's fork-plan-tracker raises a total to the furthest thoughtNumber taken)
answered a record's witnesses differently when a record before it departed in one run and not in the other:
its ci run, departing ABS-2/a1 no more, read ABS-3 and ABS-6 "changed". Every record before a wanted one is
now sent its calls whatever departs. Shown on tests/servers/reference_fork.py's `furthest-total`."""

from __future__ import annotations

import shlex
from functools import partial

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conformance.catalog.witnesses import default_witnesses
from conformance.gate.signatures import witness_signatures
from tests.servers import command
from tests.side_by_side import side_by_side

SPEC = "cmd:" + shlex.join(command("reference_fork", "furthest-total"))
LATER = ["ABS-3", "ABS-6"]
"""Records whose witnesses send a total below thoughtNumbers earlier records' witnesses send."""


EARLIER: list[str] = list(default_witnesses().records)[:list(default_witnesses().records).index("ABS-3")]
"""The witness records before the first of `LATER`."""


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(before=st.lists(st.sampled_from(EARLIER), min_size=1, max_size=6, unique=True),
       record=st.sampled_from(LATER))
@example(before=["ABS-2/a1"], record="ABS-3")
def test_a_record_signs_alike_whichever_records_before_it_are_signed(before: list[str], record: str) -> None:
    """The record signed alone and after any set of the records before it has one signature (before: ABS-3
    alone d0e6…, after ABS-2/a1 8388…)."""
    signed = partial(witness_signatures, SPEC, timeout=20, clockless=True)  # each on processes of its own
    alone, beside = side_by_side(partial(signed, [record]), partial(signed, [*before, record]))
    assert record in alone and record in beside, (alone, beside)
    assert alone[record].signature == beside[record].signature, (before, alone[record], beside[record])


def test_a_target_failing_the_probe_is_sent_no_other_records_calls() -> None:
    """The records before a signed one are sent for the store they leave: a server answering garbage keeps
    none, so signing the witness set's last record sends about what signing its first does (before: every
    record up to it was sent, each call failed, and a broken server's red run took 4x its green one)."""
    from conformance.drivers.transcript import Transcript

    garbage = "cmd:" + shlex.join(command("broken", "garbage"))
    order = list(default_witnesses().records)
    sent = []
    for record in (order[0], order[-1]):
        transcript = Transcript(None)
        witness_signatures(garbage, [record], timeout=5, clockless=True, transcript=transcript)
        sent.append(transcript.count("sent"))
    assert sent[1] <= 2 * sent[0] + 4, sent
