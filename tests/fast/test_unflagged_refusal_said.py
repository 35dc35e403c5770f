"""A call one side refuses with isError and the other answers with the same refusal's words but no isError is
said as that, never "head accepts calls to another tool name that base refuses" (nothing was accepted: the
words are the refusal's, only the flag is gone). Real processes: the reference against
tests/servers/reference_fork.py's `unknown-tool-plain`, through compare's fixed witnesses."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.compare.explain import explain
from conformance.compare.known_changes import default_known_changes
from conformance.compare.observe import Found
from conformance.report.model import Difference
from tests.witnessed import witness_candidates

_FOUND: list[Found] = []


def _unflagged() -> list[Found]:
    if not _FOUND:
        _FOUND.extend(c.found for c in witness_candidates("reference_fork", "unknown-tool-plain")
                      if c.found.aspect == "is_error")
    return _FOUND


@settings(max_examples=4, deadline=None)
@given(st.sampled_from([("base", "head"), ("reference", "fork")]), st.booleans())
def test_a_refusal_without_is_error_is_said_as_one(labels: tuple[str, str], swap: bool) -> None:
    found = _unflagged()
    assert found, "no witness called an unknown tool"
    la, lb = labels
    f = found[0]
    a, b, detail = (f.b, f.a, "refused by b") if swap else (f.a, f.b, f.detail)
    assert f.detail == "refused by a", f
    d = Difference(id="is_error.name.unknown-tool", aspect="is_error", summary="", field="name",
                   value_class="unknown tool", detail=detail, a=a, b=b)
    headline = explain([d], la, lb, default_known_changes()).headline
    plain, flagged = (la, lb) if swap else (lb, la)
    assert f"{plain} answers calls to another tool name with “Unknown tool: " in headline, headline
    assert f"as {flagged} does, but without isError" in headline, headline
    assert "accepts" not in headline, headline
