"""A refusal for want of a companion field that names the missing field ("Invalid revisesThought: required
when isRevision is true"; upstream #4100's "revisesThought is required when isRevision is true") is said as
the rule between the two, `isRevision` without `revisesThought`, never "base accepts missing for
`revisesThought`". Real ordered servers over stdio (tests/servers/ordered.py `revision-target-named`),
re-tested as compare re-tests them."""

from __future__ import annotations

import shlex

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.compare.explain import explain
from conformance.compare.known_changes import default_known_changes
from conformance.compare.observe import observe
from conformance.compare.pair import EMPTY, fresh_pair, retested
from conformance.compare.programs import Step, frames, valid
from conformance.compare.retests import with_retests
from conformance.core.protocol import TOOL
from conformance.report.model import Difference
from conformance.targets.specs import resolve_target
from tests.servers import command

PLAIN = resolve_target("cmd:" + shlex.join(command("ordered")))
NAMED = resolve_target("cmd:" + shlex.join(command("ordered", "revision-target-named")))


@settings(max_examples=3, deadline=None)
@given(st.integers(2, 5), st.sampled_from([("base", "head"), ("a", "b")]))
def test_a_refusal_naming_the_missing_companion_is_said_as_the_rule(number: int,
                                                                    labels: tuple[str, str]) -> None:
    la, lb = labels
    call = valid(thoughtNumber=number, totalThoughts=number, isRevision=True)
    with fresh_pair(PLAIN, NAMED, 20.0) as (da, db):
        a, b = (observe(d.call_tool(TOOL, call), EMPTY).show() for d in (da, db))
    d = Difference(id="is_error.revisesThought.missing.refused-by-b", aspect="is_error", summary="",
                   field="revisesThought", value_class="missing", detail="refused by b", a=a, b=b,
                   program=frames((Step(TOOL, call),)))
    found = with_retests([d], retested(PLAIN, NAMED, 20.0), la, lb, lambda _: None)
    headline = explain(found, la, lb, default_known_changes()).headline
    assert f"{lb} refuses `isRevision` without `revisesThought`" in headline, headline
    assert "missing" not in headline, headline
