"""A call to a tool a server does not have, answered with content and no isError, is said as that answer,
never as the call accepted (issue 42): there is no tool whose call it could accept. `run`'s evidence said
"and this server accepts it" of the original's own “Unknown tool: …” answered without the flag, and
compare said "head accepts calls to another tool name" of words of the fork's own. Real processes: the
reference against `reference_fork.py unknown-tool-plain` and `unknown-tool-answered`."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.attribution import default_rules
from conformance.compare.engine import _call_difference, explained
from conformance.compare.observe import compare_step
from conformance.compare.pair import replay_fresh
from conformance.compare.programs import Step, valid
from conformance.compare.search import Candidate
from conformance.core.differences import explain
from conformance.core.jsontypes import JSON
from conformance.targets.specs import resolve_target
from tests.servers import fork_session, fork_target, session_on

UNKNOWN = "sequential_thinking"


def _said(mode: str) -> str:
    with session_on(resolve_target("reference")) as original, fork_session(mode) as fork:
        a = original.call(valid(), name=UNKNOWN).response
        b = fork.call(valid(), name=UNKNOWN).response
    [difference] = explain(a, b)
    return difference.said()


def test_runs_evidence_says_what_an_unknown_tools_answer_is() -> None:
    plain = _said("unknown-tool-plain")
    assert plain.endswith("and this server answers the same refusal without isError: true"), plain
    own = _said("unknown-tool-answered")
    assert "accepts" not in own, own
    assert own.endswith(f"and this server answers it with content and no isError, “Tool {UNKNOWN} is not "
                        "available here”"), own


def test_compares_headline_says_what_an_unknown_tools_answer_is() -> None:
    step = Step(UNKNOWN, valid())
    oa, ob = replay_fresh(resolve_target("reference"), fork_target("unknown-tool-answered"), (step,), 20.0)
    found = [f for f in compare_step(step, oa[0], ob[0]) if f.aspect == "is_error"]
    differences = [_call_difference(Candidate(f, (step,), True), f, default_rules(), "ref", "fork")
                   for f in found]
    [cause] = explained(differences, default_rules(), "ref", "fork", None)
    assert "accepts" not in cause.summary, cause.summary
    assert [d.summary for d in differences] == [
        "a call to another tool name: refused (isError) by ref, answered with content and no isError by fork"]
    assert (f"fork answers calls to another tool name with content and no isError, “Tool {UNKNOWN} is not "
            "available here”, where ref refuses with isError") in cause.summary, cause.summary


def _result(text: str, flagged: bool) -> JSON:
    result: dict[str, JSON] = {"content": [{"type": "text", "text": text}]}
    if flagged:
        result["isError"] = True
    return {"jsonrpc": "2.0", "id": 3, "result": result}


@given(st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=200),
       st.from_regex(r"[a-z_]{1,20}", fullmatch=True))
def test_no_answer_to_an_unknown_tool_is_said_to_accept_it(text: str, name: str) -> None:
    """Whatever text answers the call without the flag, it is quoted as an answer with content, or as the
    same refusal when it is the original's words."""
    refused = f"Unknown tool: {name}"
    [difference] = explain(_result(refused, True), _result(text, False))
    said = difference.said()
    assert "accepts" not in said, said
    if text == refused:
        assert said.endswith("answers the same refusal without isError: true"), said
    else:
        assert "answers it with content and no isError, “" in said, said
