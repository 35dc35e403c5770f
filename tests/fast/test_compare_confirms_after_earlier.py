"""compare keeps a difference that earlier calls built on the search's long-lived processes (issue 42: the
`poisoned` many_changes fork's change was never named: the poisoning call ran in an earlier program and the
confirm, on fresh processes, dropped what they did not show alone). Real processes: the reference against
tests/servers/many_changes.py."""

from __future__ import annotations

import dataclasses
import shlex
import time

from conformance.compare.attribution import default_rules
from conformance.compare.engine import _call_difference, _confirm, root_causes
from conformance.compare.observe import compare_step
from conformance.compare.pair import Side, replay_fresh, start_together
from conformance.compare.programs import Step, valid
from conformance.compare.search import Candidate, Search
from conformance.core.protocol import TOOL
from conformance.targets.specs import resolve_target
from tests.servers import command

HARMLESS = (Step(TOOL, valid(thought="unrelated")),)
POISON = (Step(TOOL, valid(branchFromThought=1, branchId="constructor")),)
LATER = (Step(TOOL, valid(thought="later")),)


def test_a_difference_built_by_an_earlier_program_is_confirmed_after_it() -> None:
    reference = resolve_target("reference")
    fork = resolve_target("cmd:" + shlex.join(command("many_changes", "poisoned")))
    a, b = Side(reference, 20.0), Side(fork, 20.0)
    start_together(a, b)
    search = Search(a, b, time.monotonic() + 600.0, cap=100)
    try:
        assert search.run(HARMLESS, set()) is None
        assert search.run(POISON, set()) is None, "both sides refuse the poisoning call alike"
        hit = search.run(LATER, set())
    finally:
        a.close()
        b.close()
    assert hit is not None, "the poisoned fork refuses the call after the poisoning one"
    search.add(hit[0][0], LATER, True)
    (candidate,) = search.candidates
    assert candidate.before == (HARMLESS, POISON)

    confirmed, dropped = _confirm(reference, fork, [candidate], 20.0)
    assert dropped == [], "a fresh process shows it after the earlier programs: it must not be dropped"
    ((kept, found),) = confirmed
    assert kept.before == (POISON,), "the one program that built the state is what the confirm keeps"
    assert found.signature == candidate.found.signature
    difference = _call_difference(kept, found, default_rules(), "a", "b")
    assert "earlier call(s)" in difference.summary
    assert any("constructor" in frame for frame in difference.program), difference.program
    # the builder not last: the shortest run of earlier programs that still shows it, then that one alone
    later = dataclasses.replace(candidate, before=(POISON, HARMLESS))
    ((kept_too, _),), _ = _confirm(reference, fork, [later], 20.0)
    assert kept_too.before == (POISON,)
    (cause,) = root_causes([difference], default_rules(), "a", "b")
    assert cause.id == "earlier-calls", "not filed under the later call's own field (validation)"
    assert '"branchId": "constructor"' in cause.summary and "push is not a function" in cause.summary, (
        cause.summary)


def test_a_difference_shown_alone_keeps_no_earlier_calls() -> None:
    """Every candidate carries the programs run before it; one a fresh process shows alone is no
    earlier-calls difference (the limited fork's three limits were all filed there once)."""
    reference = resolve_target("reference")
    fork = resolve_target("cmd:" + shlex.join(command("many_changes", "answer-key")))
    oa, ob = replay_fresh(reference, fork, HARMLESS, 20.0)
    (found, *_) = compare_step(HARMLESS[0], oa[0], ob[0])
    candidate = Candidate(found, HARMLESS, True, before=(LATER,))
    ((kept, again),), dropped = _confirm(reference, fork, [candidate], 20.0)
    assert kept.before == () and dropped == []
    assert _call_difference(kept, again, default_rules(), "a", "b").cause != "earlier-calls"
