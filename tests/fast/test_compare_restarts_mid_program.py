"""A side whose store cannot be read after the probe is closed and started again for the program's
first step (a fork answering with other keys: held-out-multi-11's snake_case answers, before compare read a
store key spelled otherwise under its new name; stopuncle-js' `activeBranches`, a name no rename rule
reads). `compare` crashed there with an IndexError, a traceback in the terminal and no report, once a
program ran past that step."""

from __future__ import annotations

from conformance.compare.pair import Side, start_together
from conformance.compare.programs import Step, valid
from conformance.compare.search import Search
from conformance.targets.specs import resolve_target
from tests.servers import fork_target


def test_a_program_runs_on_past_a_step_that_restarted_a_process() -> None:
    """The first step, refused alike by both sides, runs on a process restarted for it; the program goes on to
    the accepted call, whose answer keys differ."""
    a = Side(resolve_target("reference"), 30.0)
    b = Side(fork_target("active-branches"), 30.0)
    start_together(a, b)
    program = (Step(arguments={"thought": ""}), Step(arguments=valid(1, 3, more=True)))
    search = Search(a, b, deadline=float("inf"), cap=40)
    try:
        hit = search.run(program, set())
    finally:
        a.close()
        b.close()
    assert b.starts >= 2, b.starts  # the probe's store is unreadable: the program's first step restarts it
    assert hit is not None and hit[1] == 1, hit
    assert any("activeBranches" in f.signature for f in hit[0]), [f.signature for f in hit[0]]
    assert search.ran == [program], search.ran
