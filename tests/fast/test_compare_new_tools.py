"""A tool one side lists and the other does not is called by compare, and what it does to the store is said
(issue 42): against small servers (`tests/servers/extra_tool.py`) that list `reset`, `noop` or `crash`."""

from __future__ import annotations

import json
import shlex
from functools import cache

from conformance.compare.attribution import default_rules
from conformance.compare.engine import _called_difference
from conformance.compare.explain import explain
from conformance.compare.fresh import fresh_side
from conformance.compare.known_changes import default_known_changes
from conformance.compare.new_tools import Called, NewTool, arguments, call_new_tools, clauses, new_tools
from conformance.core.jsontypes import JSON
from conformance.targets.specs import Target, resolve_target
from tests.servers import command


def _server(*args: str) -> Target:
    return resolve_target("cmd:" + shlex.join(command("extra_tool", *args)))


@cache
def _base_tools() -> list[JSON] | None:
    """The plain server's listing, read once: what every test's new tool is told apart from (the calls of
    the new tool, the point of each test, are each made on fresh processes)."""
    return fresh_side(_server(), 10).tools


@cache
def _call(extra: str) -> tuple[list[NewTool], Called]:
    """The one tool `extra` adds, called on both sides once per module: the reset server's call is read by
    the clauses and the headline alike."""
    base, head = _server(), _server(extra)
    tools = new_tools(_base_tools(), fresh_side(head, 10).tools)
    called = call_new_tools(base, head, tools, 10)
    assert len(called) == 1
    return tools, called[0]


def _called(extra: str) -> list[str]:
    tools, called = _call(extra)
    assert [t.name for t in tools] == [extra]
    return clauses(called.found.a, called.found.b, "base", "head")


def test_a_tool_that_empties_the_store_is_called_and_said_to() -> None:
    said = " ".join(_called("reset"))
    assert "`reset` (new on head), called with {} after two thoughts: answers “reset done”; the history " \
        'then holds 0 entries where it held 2, branches [] where ["probe-b"] were (it empties the history ' \
        "and it drops every branch)" in said, said
    assert "base refuses the name with “Unknown tool: reset”" in said, said


def test_a_tool_that_changes_nothing_is_said_to_leave_the_store() -> None:
    said = " ".join(_called("noop"))
    assert "the history unchanged (2 entries), the branches too" in said, said


def test_a_tool_that_ends_the_process_is_said_to() -> None:
    said = " ".join(_called("crash"))
    assert "`crash` (new on head), called with {} after two thoughts: the process exits (status 3); called " \
        'with {"level": 2} and {"level": 2, "keep": false}: to the same effect' in said, said


def test_minimal_arguments_come_from_the_schema_bounded() -> None:
    schema = {"type": "object", "required": ["level", 7], "properties": {
        "keep": {"type": "boolean"}, "level": {"type": "integer", "minimum": 2},
        "mode": {"enum": ["fast", "slow"]}, "name": {"type": "string", "minLength": 10**9},
        **{f"p{i}": {"type": "string"} for i in range(40)}}}
    calls = arguments(schema)
    assert calls[0] == {} and calls[1] == {"level": 2}
    assert calls[2]["keep"] is False and calls[2]["mode"] == "fast" and calls[2]["name"] == "probe-b"
    assert len(calls[2]) <= 12
    assert arguments("not a schema") == [{}]


def test_hostile_listings_call_few_tools_never_the_compared_one() -> None:
    listed = [{"name": "sequentialthinking"}, *({"name": f"t{i}"} for i in range(50)), {"name": "x" * 10_000},
              {"name": 7}, "junk"]
    tools = new_tools([{"name": "sequentialthinking"}], listed)
    assert len(tools) == 8 and all(len(t.name) <= 200 and t.name != "sequentialthinking" for t in tools)


def test_the_headline_says_the_call_after_the_added_tool() -> None:
    difference = _called_difference(_call("reset")[1], default_rules(), "base", "head")
    assert difference.id == "tools_list.tools.called.reset" and difference.cause == "tool-spec"
    assert json.loads(difference.b)["offered"] is True
    headline = explain([difference], "base", "head", default_known_changes()).headline
    assert headline.startswith(
        '`reset` (new on head), called after two thoughts, takes {}, {"level": 2} and {"level": 2, "keep": '
        'false}, it empties the history and it drops every branch'), headline


def test_what_an_added_tool_does_is_folded_into_the_clause_that_adds_it() -> None:
    """A short page cuts a headline at its clauses: the tool's effect rides on the clause naming it."""
    called = _called_difference(_call("reset")[1], default_rules(), "base", "head")
    base = [{"name": "sequentialthinking"}]
    names = called.model_copy(update={
        "id": "tools_list.tools.names", "detail": "names", "a": json.dumps(base),
        "b": json.dumps([*base, {"name": "reset", "inputSchema": {"type": "object"}}])})
    headline = explain([names, called], "base", "head", default_known_changes()).headline
    assert headline.startswith("head's tools/list adds the tool `reset`"), headline
    assert ", which, called after two thoughts, takes {}" in headline.split("; ")[0], headline
    assert "it empties the history" in headline.split("; ")[0] and "(new on head)" not in headline, headline
