"""compare's fixed witnesses reach what the many_changes forks change where the generated search did not:
a render that throws (the original refuses; `render-logged` accepts and logs) and a thought over 10,000
characters (`max-thought`). Real processes: the reference against tests/servers/many_changes.py."""

from __future__ import annotations

from conformance.compare.engine import _suspects_retested
from conformance.compare.observe import compare_step, with_suspect
from conformance.compare.pair import replay_fresh
from conformance.compare.programs import Step, valid
from conformance.compare.search import Candidate
from conformance.core.protocol import TOOL
from conformance.targets.specs import resolve_target
from tests.servers import fork_target
from tests.witnessed import witness_candidates


def test_the_witnesses_reach_a_throwing_render_and_a_long_thought() -> None:
    shown = _witnessed("many_changes", "render-logged", "max-thought=10000")
    assert any(isinstance(args, dict) and args.get("revisesThought") == {"toString": 1} for args in shown), (
        f"no witness showed the render that throws; differences at {shown}"
    )
    assert any(isinstance(args, dict) and len(str(args.get("thought"))) > 10_000 for args in shown), (
        f"no witness showed the thought over 10,000 characters; differences at {shown}"
    )


def _witnessed(*server: str) -> list[object]:
    """The arguments of the last call of each fixed witness on which the reference and `server` differ."""
    return [candidate.program[-1].arguments for candidate in witness_candidates(*server)]


def test_the_witnesses_reach_a_revision_carrying_a_label_and_a_right_to_left_thought() -> None:
    """Inputs no search drew (held-out-multi-14): a revision with a branchId and no branch point, which
    `revision-filed` files under its label, and a thought in Hebrew and Arabic, which `rtl-isolated` boxes in
    bidi isolates."""
    filed = _witnessed("reference_fork", "revision-filed")
    assert any(isinstance(args, dict) and args.get("isRevision") is True and "branchId" in args
               and "branchFromThought" not in args for args in filed), filed
    isolated = _witnessed("reference_fork", "rtl-isolated")
    assert any(isinstance(args, dict) and "שלום" in str(args.get("thought")) for args in isolated), isolated


def test_a_field_is_named_beside_a_box_only_when_the_box_needs_it() -> None:
    """held-out-multi-14's multilingual: a box sized otherwise was headed "the stderr of a multi-line thought
    with zero for `revisesThought` differs", the zero playing no part. Replayed without it, the box still
    differs: the smaller call is kept and no field named; a field the difference needs stays."""
    fork = fork_target("rtl-isolated")
    reference = resolve_target("reference")
    bent = (Step(TOOL, valid(thought="שלום עולם", revisesThought=0)),)
    oa, ob = replay_fresh(reference, fork, bent, 20.0)
    [found] = [f for f in compare_step(bent[0], oa[0], ob[0]) if f.aspect == "stderr"]
    assert with_suspect(found, bent[0]).suspect == "revisesThought"
    [(candidate, again)] = _suspects_retested(reference, fork, [(Candidate(found, bent, True), found)], 20.0)
    last = candidate.program[-1]
    assert isinstance(last.arguments, dict) and "revisesThought" not in last.arguments, candidate
    assert not with_suspect(again, last).suspect, again
