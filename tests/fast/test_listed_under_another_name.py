"""A tool listed under another name while the original's name still answers (held-out-multi-15's
fork-readme-names lists `sequential_thinking`) is compared and run, not stopped; one whose original name no
longer answers still stops; and a name the server lists is never the unknown-tool check's
(tests/servers/reference_fork.py `listed-as:NAME`, `moved-to:NAME`)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.calls.other_tools import added_tools
from conformance.compare.engine import UnusableTarget, _fresh
from conformance.compare.fresh import FreshSide, compare_fresh
from conformance.compare.new_tools import new_tools
from conformance.core.jsontypes import JSON
from conformance.core.protocol import ARGUMENT_NAMES, TOOL
from tests.servers import fork_session, fork_target

NAMES = ("sequential_thinking", "sequentialThinking", "sequential-thinking", "think")
"""New names a fork may list: the README's, camelCase, kebab-case, a word of its own."""


@settings(max_examples=2, deadline=None)
@given(name=st.sampled_from(NAMES))
def test_compare_goes_on_when_the_original_name_still_answers(name: str) -> None:
    seen = _fresh(fork_target(f"listed-as:{name}"), 20.0, None)
    assert [tool.get("name") for tool in seen.tools or [] if isinstance(tool, dict)] == [name]


def test_compare_stops_when_only_the_new_name_answers() -> None:
    stop = f"does not offer the {TOOL} tool \\(it offers: sequential_thinking\\)"
    with pytest.raises(UnusableTarget, match=stop):
        _fresh(fork_target("moved-to:sequential_thinking"), 20.0, None)


def test_the_names_a_server_lists_are_known_to_the_session() -> None:
    """RTE-2's check skips a name the server lists (`assume`): fork-readme-names' `sequential_thinking` was
    called "the unknown tool" answered without isError."""
    with fork_session("listed-as:sequential_thinking", 20.0) as session:
        assert session.listed_names() == ("sequential_thinking",)
        assert session.listed_names() is session.listed_names()  # asked once


_SCHEMA: JSON = {"type": "object", "properties": {name: {"type": "string"} for name in ARGUMENT_NAMES}}


@given(name=st.sampled_from(NAMES), extra=st.booleans())
def test_the_tool_under_another_name_is_no_added_tool(name: str, extra: bool) -> None:
    """The renamed tool is the compared one, not a tool the fork added (compare called fork-readme-names'
    `sequential_thinking` with {} as a new tool); a tool listed beside it still is one."""
    original: list[JSON] = [{"name": TOOL, "inputSchema": _SCHEMA}]
    added: list[JSON] = [{"name": "clear_history", "inputSchema": {"type": "object", "properties": {}}}]
    fork: list[JSON] = [{"name": name, "inputSchema": _SCHEMA}, *(added if extra else [])]
    assert [tool.name for tool in new_tools(original, fork)] == (["clear_history"] if extra else [])
    assert [tool for tool, _ in added_tools(fork)] == (["clear_history"] if extra else [])



@given(name=st.sampled_from(NAMES), extra=st.booleans())
def test_compare_reads_the_tool_listed_under_another_name_key_by_key(name: str, extra: bool) -> None:
    """Its name is one difference of the compared tool's keys and its description is compared (fork-readme-
    names' camelCase description was never read, the rename said as "adds the tool"); a tool added beside it
    is still a listing difference."""
    original: list[JSON] = [{"name": TOOL, "description": "one", "inputSchema": _SCHEMA}]
    added: list[JSON] = [{"name": "clear_history", "inputSchema": {"type": "object", "properties": {}}}]
    renamed: JSON = {"name": name, "description": "two", "inputSchema": _SCHEMA}
    fork: list[JSON] = [renamed, *(added if extra else [])]
    found, _ = compare_fresh(_side(original), _side(fork), TOOL)
    fields = sorted((f.found.aspect, f.found.field, f.found.detail) for f in found)
    expected = [("tools_list", "description", "changed"), ("tools_list", "name", "changed")]
    if extra:
        expected.append(("tools_list", "tools", "names"))
    assert fields == sorted(expected), fields


def _side(tools: list[JSON]) -> FreshSide:
    return FreshSide(initialize={"protocolVersion": "2024-11-05"}, tools=tools)
