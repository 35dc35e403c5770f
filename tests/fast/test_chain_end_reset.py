"""A server emptying its store after each call that ends a chain is never said to keep no state between
calls: every long-probe call ends a chain (`nextThoughtNeeded: false`), so a side left at one by each of
them is tried again on calls that do not (held-out-multi-18's fork-notes-console: compare said "keeps no
state between calls", FALSE). Real processes of tests/servers/reference_fork.py."""

from __future__ import annotations

import pytest

from conformance.compare.probes import FORGETS_FINISHED, NO_STATE, run_probes
from conformance.targets.specs import resolve_target
from tests.servers import fork_target


@pytest.mark.parametrize(("mode", "words"),
                         [("final-forgets", FORGETS_FINISHED), ("store-per-call", NO_STATE)])
def test_a_side_left_at_one_by_every_probe_call_is_said_by_what_calls_not_ending_a_chain_do(
    mode: str, words: str
) -> None:
    probed = run_probes(resolve_target("reference"), fork_target(mode), 20.0, 40, 8.0, lambda line: None)
    said = [found.found.b for found in probed.found]
    assert {found.found.field for found in probed.found} == {"thoughtHistoryLength", "branches"}, said
    assert all(s.startswith(f"{words}: it is 1 after each of calls 1 to ") for s in said), said
    assert all(found.found.a.startswith("keeps it growing by one a call") for found in probed.found)
