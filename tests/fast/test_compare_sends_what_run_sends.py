"""compare sends what run's checks send (issue 42, held-out-multi-15): request ids that are strings ("24",
"loop-a-26"), which a fork answering them as numbers breaks, and unknown-tool calls under names no side lists
(fork-readme-names lists `sequential_thinking`: calling it was filed as "accepts calls to another tool
name"). Real processes: the reference against tests/servers/reference_fork.py."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.compare.classify import summarize
from conformance.compare.engine import _listed_names
from conformance.compare.fresh import FreshSide
from conformance.compare.programs import WITNESSES, frames, programs_among, unlisted
from conformance.compare.search import Candidate
from conformance.core.protocol import TOOL
from tests.witnessed import witness_candidates


def _witnessed(*server: str, listed: frozenset[str] = frozenset()) -> list[Candidate]:
    """The fixed witnesses on which the reference and `server` differ."""
    return witness_candidates(*server, listed=listed)


def test_a_fork_answering_string_ids_as_numbers_differs_on_a_witness() -> None:
    """`digit-ids` answers a request id of digits as a number: a witness sends "24", its frames replay it,
    and the difference says the ids in LOOP-A's check's words, not a field's value class."""
    shown = [c for c in _witnessed("reference_fork", "digit-ids") if c.program[-1].request_id is not None]
    assert shown, "no witness with a string request id differed"
    found = shown[0].found
    assert found.aspect == "request_id", found
    said = summarize(found, "reference", "digit-ids")
    assert said.startswith('digit-ids: the request with the id "24" was answered with the id 24, '), said
    sent = [frame for frame in frames(shown[0].program) if '"tools/call"' in frame]
    assert '"id":"24"' in sent[-1], sent


def test_no_unknown_tool_witness_calls_a_name_the_fork_lists() -> None:
    """`listed-as:sequential_thinking` answers the name it lists as the tool: a witness calling it showed a
    difference that is no unknown tool's."""
    listed = _listed_names(FreshSide(tools=[{"name": "sequential_thinking"}]))
    shown = _witnessed("reference_fork", "listed-as:sequential_thinking", listed=listed)
    called = [step.name for c in shown for step in c.program if step.name != TOOL]
    assert "sequential_thinking" not in called, shown


NAME = st.sampled_from(["sequential_thinking", "sequentialThinking", "sequential-thinking", "think",
                        "SequentialThinking", "unlisted_tool_0"])


@given(st.frozensets(NAME, max_size=5))
def test_the_witnesses_call_no_listed_name(listed: frozenset[str]) -> None:
    for program in WITNESSES:
        kept = unlisted(program, listed)
        assert len(kept) == len(program)
        assert not {step.name for step in kept} & listed, (listed, kept)
        assert [step.arguments for step in kept] == [step.arguments for step in program]


@settings(max_examples=60)
@given(st.frozensets(NAME, min_size=1, max_size=5), st.data())
def test_the_generated_programs_call_no_listed_name(listed: frozenset[str], data: st.DataObject) -> None:
    program = data.draw(programs_among(listed))
    assert not {step.name for step in program} & listed, (listed, program)
