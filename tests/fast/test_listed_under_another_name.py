"""A tool listed under another name while the original's name still answers (held-out-multi-15's
fork-readme-names lists `sequential_thinking`) is compared and run, not stopped; one whose original name no
longer answers still stops; and a name the server lists is never the unknown-tool check's
(tests/servers/reference_fork.py `listed-as:NAME`, `moved-to:NAME`)."""

from __future__ import annotations

import json
import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.calls.other_tools import added_tools
from conformance.compare.engine import UnusableTarget, _fresh
from conformance.compare.explain import listing_clauses
from conformance.compare.new_tools import new_tools
from conformance.core.jsontypes import JSON
from conformance.core.protocol import ARGUMENT_NAMES, TOOL
from conformance.drivers.transcript import Transcript
from conformance.report.model import Difference
from conformance.suite.session import ServerSession
from conformance.targets.specs import Target, resolve_target
from tests.servers import command

NAMES = ("sequential_thinking", "sequentialThinking", "sequential-thinking", "think")
"""New names a fork may list: the README's, camelCase, kebab-case, a word of its own."""


def _fork(change: str) -> Target:
    return resolve_target("cmd:" + shlex.join(command("reference_fork", change)))


@settings(max_examples=2, deadline=None)
@given(name=st.sampled_from(NAMES))
def test_compare_goes_on_when_the_original_name_still_answers(name: str) -> None:
    seen = _fresh(_fork(f"listed-as:{name}"), 20.0, None)
    assert [tool.get("name") for tool in seen.tools or [] if isinstance(tool, dict)] == [name]


def test_compare_stops_when_only_the_new_name_answers() -> None:
    stop = f"does not offer the {TOOL} tool \\(it offers: sequential_thinking\\)"
    with pytest.raises(UnusableTarget, match=stop):
        _fresh(_fork("moved-to:sequential_thinking"), 20.0, None)


def test_the_names_a_server_lists_are_known_to_the_session() -> None:
    """RTE-2's check skips a name the server lists (`assume`): fork-readme-names' `sequential_thinking` was
    called "the unknown tool" answered without isError."""
    session = ServerSession(target=_fork("listed-as:sequential_thinking"), transcript=Transcript(None),
                            timeout=20.0)
    try:
        assert session.listed_names() == ("sequential_thinking",)
        assert session.listed_names() is session.listed_names()  # asked once
    finally:
        session.close()


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


@given(name=st.sampled_from(NAMES), extra=st.booleans(), head_renamed=st.booleans())
def test_the_listing_says_the_tool_is_named_otherwise_not_added(
    name: str, extra: bool, head_renamed: bool
) -> None:
    """compare's headline said fork-readme-names' tools/list "adds the tool `sequential_thinking`"; it names
    the tool otherwise, on whichever side, and a tool added beside it is still said added."""
    original: list[JSON] = [{"name": TOOL, "inputSchema": _SCHEMA}]
    added: list[JSON] = [{"name": "clear_history", "inputSchema": {"type": "object", "properties": {}}}]
    fork: list[JSON] = [{"name": name, "inputSchema": _SCHEMA}, *(added if extra else [])]
    a, b = (original, fork) if head_renamed else (fork, original)
    difference = Difference(id="tools_list.tools..names", aspect="tools_list", summary="", field="tools",
                            detail="names", a=json.dumps(a), b=json.dumps(b),
                            cause="tool-spec", program=['{"jsonrpc":"2.0","id":2,"method":"tools/list"}'])
    said = " ".join(listing_clauses(difference, "base", "head", full=True))
    renamer, other = ("head", "base") if head_renamed else ("base", "head")
    assert f"{renamer}'s tools/list names the tool `{name}` where {other} names it `{TOOL}`" in said, said
    assert f"the tool `{name}`" not in said.replace(f"names the tool `{name}`", ""), said
    assert ("clear_history" in said) == extra, said
