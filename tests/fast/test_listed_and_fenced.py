"""Forks that list the tool under another name or fence their answers are read, not stopped or misread: the
tool the checks read (`the_tool`), an answer read through a markdown fence (`read_answer`), an escaped label
seen as a respelling, and the preflight of a real server listing `think` while still answering
`sequentialthinking` (tests/servers/reference_fork.py). A server that truly lacks the tool still stops
(tests/fast/test_ports.py)."""

from __future__ import annotations

import json
import re
import sys
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.cli.runner.preflight import check_target
from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.jsontypes import JSON, OMIT
from conformance.core.protocol import ARGUMENT_NAMES, TOOL, the_tool, tool_name
from conformance.core.served import Unreadable, read_answer, unfenced
from conformance.gate.preflight_departures import LISTING_CHECK, with_preflight_departure
from conformance.suite.answers import accepted, rejected, store
from conformance.suite.contradiction import Contradiction
from conformance.suite.session import ServerSession
from conformance.suite.store_model import respelled
from conformance.targets.specs import resolve_target
from tests.servers import VALID, fork_session, fork_target

_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-", min_size=1, max_size=12).filter(lambda n: n != TOOL)
_others = st.lists(st.fixed_dictionaries({"name": _names, "description": st.text(max_size=20)}), max_size=4)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)


@given(others=_others, at=st.integers(min_value=0, max_value=4))
def test_the_tool_named_so_is_read_wherever_it_is_listed(others: list[dict[str, JSON]], at: int) -> None:
    named: dict[str, JSON] = {"name": TOOL, "description": "the one"}
    tools: list[JSON] = [*others[:at], named, *others[at:]]
    assert the_tool(tools) is named
    assert tool_name(tools) == TOOL


@given(others=_others, spelled=st.sampled_from(["camel", "snake"]), name=_names)
def test_a_renamed_tool_is_the_one_whose_schema_names_the_originals_arguments(
    others: list[dict[str, JSON]], spelled: str, name: str
) -> None:
    """Beside tools whose schemas name none of the original's arguments, the one that names them is read,
    in either spelling; its name is the fork's."""
    fields = list(ARGUMENT_NAMES) if spelled == "camel" else [re.sub(r"(?<!^)(?=[A-Z])", "_", n).lower()
                                                              for n in ARGUMENT_NAMES]
    renamed: dict[str, JSON] = {"name": name, "inputSchema": {"type": "object",
                                                              "properties": {f: {} for f in fields}}}
    tools: list[JSON] = [*others, renamed]
    assert the_tool(tools) is renamed
    assert tool_name(tools) == name


def test_no_tool_listed_is_none_and_a_lone_tool_is_read() -> None:
    assert the_tool([]) is None and the_tool(None) is None and the_tool({"tools": []}) is None
    lone: dict[str, JSON] = {"name": "think"}
    assert the_tool([lone]) is lone
    assert the_tool([lone, {"name": "other"}]) is None, "two tools naming no argument: none is the tool"


@given(value=st.dictionaries(st.text(max_size=8), _json, max_size=5),
       tag=st.sampled_from(["json", "", "JSON"]), indent=st.sampled_from([None, 2]),
       around=st.sampled_from(["", "\n", "  \n"]))
def test_a_fenced_answer_reads_as_the_object_inside(value: dict[str, JSON], tag: str, indent: int | None,
                                                    around: str) -> None:
    text = json.dumps(value, indent=indent)
    fenced = f"{around}```{tag}\n{text}\n```{around}"
    assert read_answer(fenced) == value
    assert unfenced(fenced) == text
    assert read_answer(text) == value and unfenced(text) is None


@pytest.mark.parametrize("text", ["```json\n{\"a\": 1}", "```json\nnot json\n```",
                                  "```json\n{}\n```\n```json\n{}\n```", "prose ```json\n{}\n```"])
def test_a_broken_or_partial_fence_is_not_read_as_an_answer(text: str) -> None:
    """Only a fence around the whole text is read through; anything else is what it says, not JSON (an object
    followed by a stray fence is an object with text after it: tests/fast/test_trailed_answers.py)."""
    with pytest.raises(Unreadable):
        read_answer(text)


@given(label=st.text(alphabet="ab_*`[]\\ c", min_size=1, max_size=10).filter(
    lambda s: any(c in s for c in "_*`[]\\")))
def test_a_label_escaped_for_markdown_is_its_respelling(label: str) -> None:
    escaped = re.sub(r"([\\`*_\[\]])", r"\\\1", label)
    assert escaped in respelled(label, ("other", escaped))


def test_a_fork_listing_think_that_answers_the_original_name_is_checked_not_stopped(tmp_path: Path) -> None:
    """The preflight goes on (the original's call to `sequentialthinking` is answered with a JSON object), and
    the listing departs as CMP-2 beside whatever the suite finds."""
    checked, _, _ = check_target(fork_target("renamed"), tmp_path / "t.jsonl", 20)
    assert checked.ok, checked.error
    assert checked.tool_offered is False and checked.tools == ["think"], checked
    target = TargetIdentity(spec="cmd:x", kind="cmd", command=["x"])
    harness = HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3")
    results = with_preflight_departure(None, checked, target, harness, "2026-01-01T00:00:00Z")
    assert results is not None
    [outcome] = [t for t in results.tests if t.nodeid == LISTING_CHECK]
    assert outcome.contradicted == ["CMP-2"], outcome
    assert outcome.message == (f"tools/list offers think, where the original offers {TOOL} (a call to {TOOL} "
                               "is still answered, so every other record was checked on it)"), outcome.message


@pytest.mark.parametrize("known", [False, True])
def test_an_unknown_tool_answer_in_json_keeps_the_tool_name_stop(tmp_path: Path, known: bool) -> None:
    """A server answering every name it does not dispatch with {"error": "Tool … not found"}, not isError,
    was read as answering the original's call: 104 records were checked on a tool it does not have (554 s,
    77 departures, for spideynolove's sequential-thinking-mcp-v2). Such an error object is no tool's answer;
    the original's status object still is."""
    server = Path(__file__).resolve().parent.parent / "servers" / "json_unknown_tool.py"
    target = resolve_target(f"cmd:{sys.executable} {server}{' known' if known else ''}")
    checked, _, _ = check_target(target, tmp_path / "t.jsonl", 20)
    assert checked.tool_offered is False and checked.tools == ["add_thought"], checked
    assert checked.ok is known, checked.error
    if not known:
        assert checked.error is not None and f"does not offer the {TOOL} tool" in checked.error, checked.error


def _session(change: str) -> AbstractContextManager[ServerSession]:
    return fork_session(change, 20.0)


def test_a_fenced_fork_is_read_through_its_fence() -> None:
    """Accepted and refused answers in a ```json fence: the status object and the refusal are read as the
    original's (no record named), the count included."""
    with _session("fenced") as session:
        first = store(session.call(dict(VALID))).history_length
        again = accepted(session.call(dict(VALID)))
        assert again["thoughtHistoryLength"] == first + 1, again
        assert rejected(session.call({**VALID, "thought": ""})) == "Invalid thought: must be a string"


@pytest.mark.parametrize("arguments", [{**VALID, "thought": ""}, OMIT], ids=["guard", "no-arguments"])
def test_a_refusal_stringified_whole_names_obj8(arguments: dict[str, JSON]) -> None:
    with _session("stringified") as session:
        with pytest.raises(Contradiction) as raised:
            rejected(session.call(arguments))
        assert raised.value.record == "OBJ-8", raised.value
        assert "stringified whole" in str(raised.value), raised.value
