"""Dispatch by exact name equality (RTE-2) and the README's other tool name (CMP-2/a1)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import assume, example, given
from hypothesis import strategies as st

from conformance.calls.probes import probe_examples
from conformance.calls.strategies import Envelope, envelopes, json_values, strings, unknown_tool_names
from conformance.catalog.records import evidences, relies_on
from conformance.core.differences import json_differences, quoted, said
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.suite.answers import accepted, describe
from conformance.suite.contradiction import brief, expect
from conformance.suite.documents import content_lines, names_as_tool, other_mentions, where
from conformance.suite.plugin import Evidence
from conformance.suite.session import ServerSession
from conformance.suite.store_model import StoreModel

PROTOCOL_REFUSALS = (-32602, -32603)
"""Invalid params, internal error: the codes an SDK answers a request it refuses to hand to a handler."""

README_TOOL_NAME = "sequential_thinking"
"""The name SRC-2:16 documents (CMP-2/a1)."""


@evidences("RTE-2")
@relies_on("RTE-3", "RTE-5", "OBJ-4")
@given(name=unknown_tool_names(), envelope=envelopes)
@example(name="SequentialThinking", envelope=Envelope("t", 1, 1, True))
@example(name="sequentialthinking ", envelope=Envelope("t", 1, 1, True))
@example(name="constructor", envelope=Envelope("t", 1, 1, True))
@example(name="server__sequentialthinking", envelope=Envelope("t", 1, 1, True))
@example(name="mcp__" + "sequential-thinking-" * 4 + "sequentialthinking", envelope=Envelope("t", 1, 1, True))
@probe_examples(name="SequentialThinking")
def test_unknown_names_get_an_error_result(server: ServerSession, name: str, envelope: Envelope) -> None:
    """Any other name is answered with an isError text block naming it — not a protocol error — and
    nothing is retained; only the exact name dispatches. The unknown-tool answer is judged before any
    accepted call is read: a fork that also changes accepted answers fails this check on RTE-2's own answer,
    not on the probe's (issue 42, fork-api-envelope: the unknown-tool envelope was never seen). The store is
    then read around a second call of the same name. A name the server lists is not unknown to it."""
    assume(name not in server.listed_names())
    exchange = server.call(envelope.arguments(), name=name)
    assert exchange.error is None, f"protocol error for an unknown tool: {describe(exchange)}"
    assert exchange.is_error, (
        f"a call of the unknown tool {brief(name)} was answered without isError, where the original flags "
        f"it: {describe(exchange)}")
    result = exchange.result
    due: JSON = [{"type": "text", "text": f"Unknown tool: {name}"}]
    assert result is not None and result.get("content") == due, (
        f"a call of the unknown tool {brief(name)} is answered {describe(exchange)}, where the original "
        f"answers isError {quoted(f'Unknown tool: {name}')}: "
        f"{said(json_differences(due, None if result is None else result.get('content')))}")
    model = StoreModel.from_state(server.probe())
    server.call(envelope.arguments(), name=name)
    model.probe()
    model.expect_state(server.probe(), context="an unknown-tool call changed the store")
    accepted(server.call(envelope.arguments(), name=TOOL))


@evidences("CMP-2/a1")
@relies_on("RTE-2", "RTE-1", "CMP-2")
def test_readme_tool_name_is_not_dispatched(server: ServerSession, evidence: Evidence) -> None:
    """A host wired from the README's tool name reaches no tool: the call is refused (an isError result, as
    the original answers, or a JSON-RPC error) and tools/list serves another name. The refusal's words
    ("Unknown tool: sequential_thinking" in the original) are RTE-2's, said here beside the verdict."""
    listed = server.wire.list_tools().result
    assert listed is not None, "tools/list answered no result"
    tools = listed.get("tools")
    assert isinstance(tools, list), (
        f"tools/list answered tools {brief(tools)}, where the original answers a list of tools")
    names = [tool.get("name") for tool in tools if isinstance(tool, dict)]
    assert TOOL in names and README_TOOL_NAME not in names, (
        f"tools/list serves {', '.join(brief(name, 60) for name in names) or 'no tool'}: "
        f"{TOOL} should be among them and {README_TOOL_NAME} not")
    exchange = server.call(Envelope("t", 1, 1, True).arguments(), name=README_TOOL_NAME)
    assert exchange.error is not None or exchange.is_error, (
        f"a call named {README_TOOL_NAME} was answered as a tool's: {describe(exchange)}")
    words = exchange.text if exchange.error is None else exchange.error.get("message")
    how = "an isError result" if exchange.error is None else f"JSON-RPC error {exchange.error.get('code')}"
    evidence.note(f"CMP-2/a1: a call named {README_TOOL_NAME} is refused as {how}: {brief(words, 120)} "
                  f"(the original: an isError result, 'Unknown tool: {README_TOOL_NAME}')")


@evidences("CMP-2/a1")
@relies_on("CMP-2")
def test_installed_readme_documents_the_other_name(package_dir: Path, evidence: Evidence) -> None:
    """The shipped README documents the tool as sequential_thinking (a heading or a code span naming it;
    "### sequential_thinking" at line 16 in the original) and never as the dispatched name. The dispatched
    name inside a config key, a path or a container image ("mcp/sequentialthinking") names no tool."""
    lines = content_lines((package_dir / "README.md").read_text(encoding="utf-8"))
    documented = names_as_tool(lines, README_TOOL_NAME)
    assert documented, (f"the installed README.md ({len(lines)} lines) no longer documents a tool named "
                        f"{README_TOOL_NAME} (no heading or code span names it)")
    dispatched = names_as_tool(lines, TOOL)
    assert not dispatched, (f"the installed README.md documents the tool as {TOOL} too, at line(s) "
                            f"{', '.join(map(str, dispatched))}: {brief(lines[dispatched[0] - 1], 80)}")
    also = other_mentions(lines, TOOL)
    evidence.note(f"CMP-2/a1: README.md documents the tool as {README_TOOL_NAME} at "
                  f"{where(documented, 16)}" + (f"; {also}" if also else ""))


@evidences("EXT-1")
@relies_on("RTE-5")
@given(
    arguments=st.one_of(st.none(), st.lists(json_values, max_size=3), strings, st.integers(), st.booleans(),
                        envelopes.map(lambda e: json.dumps(e.arguments())))
)
@example(arguments=None)
@example(arguments=json.dumps(Envelope("arguments as a JSON string", 1, 1, True).arguments()))
def test_non_object_arguments_are_a_protocol_error(
    server: ServerSession, arguments: JSON, evidence: Evidence
) -> None:
    """The SDK refuses non-object arguments before the tool runs: a JSON-RPC error, never a tool result,
    and nothing retained, a string holding valid arguments as JSON (as some hosts send them) included.
    SDK 0.5.0 answers -32603 with a zod "Expected object" message; the code and text belong to each SDK
    (docs/reference-server.md), so the check is the class: invalid params or internal error."""
    model = StoreModel.from_state(server.probe())
    exchange = server.call(arguments)
    error = exchange.error
    assert error is not None, (
        f"arguments {brief(arguments)} (not an object) were answered as a tool's call, where the original's "
        f"SDK refuses them with a JSON-RPC error: {describe(exchange)}")
    assert error.get("code") in PROTOCOL_REFUSALS, (
        f"arguments {brief(arguments)} (not an object) were refused with JSON-RPC error "
        f"{brief(error.get('code'))}, {brief(error.get('message'))}, where an SDK answers invalid params "
        f"(-32602) or internal error (-32603)")
    evidence.note(f"non-object arguments refused with JSON-RPC {error.get('code')}: "
                  f"{quoted(str(error.get('message')))}")
    model.probe()
    found = server.probe()
    model.expect_state(found)


UNREGISTERED: dict[str, JSON] = {
    "resources/list": {},
    "prompts/list": {},
    "resources/templates/list": {},
    "resources/read": {"uri": "file:///conformance"},
    "prompts/get": {"name": "conformance"},
    "tools/run": {},
    "sequentialthinking": {},
    "completion/complete": {
        "ref": {"type": "ref/prompt", "name": "p"},
        "argument": {"name": "a", "value": ""},
    },
    "logging/setLevel": {"level": "info"},
    "shutdown": {},
}
"""Methods the original registers no handler for, each with well-formed params so that the missing
handler is the only reason to refuse them: MCP's for capabilities it does not declare, and lifecycle
methods of neighbouring protocols (LSP's shutdown) a fork may add."""


@evidences("EXT-1")
@given(method=st.sampled_from(sorted(UNREGISTERED)))
def test_unregistered_methods_are_method_not_found(server: ServerSession, method: str) -> None:
    """Methods without a handler are answered by the SDK: -32601 "Method not found". A method answered at
    all has a handler the original does not register: CMP-3's "exactly two request handlers"."""
    exchange = server.wire.request(method, UNREGISTERED[method])
    error = exchange.error
    expect("CMP-3", error is not None,
           lambda: f"{method} is answered where the original has no handler for it (-32601 \"Method not "
                   f"found\"): {describe(exchange)}")
    assert error is not None, f"{method} is answered: {describe(exchange)}"
    expect("CMP-3", error.get("code") == -32601,
           f"{method} is refused with {brief(error)}: a handler's own refusal, where the original has no "
           f"handler for it (-32601 \"Method not found\")")
    assert error.get("code") == -32601 and error.get("message") == "Method not found", (
        f"{method} is refused with {brief(error)}, not the SDK's -32601 \"Method not found\""
    )
