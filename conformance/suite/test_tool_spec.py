"""The served tool specification (RTE-1, CMP-2, OBJ-5, OBJ-5/c1, OBJ-11, OBJ-12, OBJ-7) and its internal
disagreement with the schema (CMP-2/a2)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from hypothesis import example, given
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from conformance.calls.other_tools import what_they_do
from conformance.calls.pages import ONE_PAGE, follow, pages_said
from conformance.calls.strategies import OPTIONAL, REQUIRED, Envelope, envelopes
from conformance.catalog.records import evidences, relies_on
from conformance.core.differences import json_differences, quoted, said, text_difference
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL, the_tool
from conformance.core.refused_requests import refused_request
from conformance.drivers.sdk import SdkDriver
from conformance.suite.answers import accepted, host_answer, rejected, without_count
from conformance.suite.contradiction import brief, expect
from conformance.suite.documents import (
    content_lines,
    content_text,
    delivered_description,
    documented_parameters,
    headings,
    line_endings,
    lines_stating,
    plain,
    section_under,
    where,
)
from conformance.suite.plugin import Evidence
from conformance.suite.render_box import expect_rendered_alike
from conformance.suite.session import ServerSession, Spare
from conformance.suite.snapshots import differs_from_original, original_lines

SNAKE = {
    "nextThoughtNeeded": "next_thought_needed",
    "thoughtNumber": "thought_number",
    "totalThoughts": "total_thoughts",
    "isRevision": "is_revision",
    "revisesThought": "revises_thought",
    "branchFromThought": "branch_from_thought",
    "branchId": "branch_id",
    "needsMoreThoughts": "needs_more_thoughts",
}


def served_tools(server: ServerSession) -> list[dict[str, JSON]]:
    exchange = server.wire.list_tools()
    result = exchange.result
    assert result is not None, (
        f"tools/list was answered without a result, where the original lists its tool: "
        f"{brief(exchange.response)}")
    tools = result.get("tools")
    assert isinstance(tools, list), (
        f"tools/list answered tools {brief(tools)}, where the original answers a list of tools")
    return [tool for tool in tools if isinstance(tool, dict)]


def served_spec(server: ServerSession) -> dict[str, JSON]:
    """The served `sequentialthinking` tool, found by its name: a tool a fork adds beside it is RTE-1's
    departure on RTE-1's own check, not every description check's. A fork listing it under another name is
    read under that name (`the_tool`): the name is CMP-2's, its description and schema every other check's."""
    tools = served_tools(server)
    named = [tool for tool in tools if tool.get("name") == TOOL]
    spec = the_tool(tools)
    expect("RTE-1", spec is not None and len(named) <= 1, lambda: (
        f"tools/list serves {len(named)} tools named {TOOL} "
        f"(it lists: {', '.join(brief(tool.get('name'), 60) for tool in tools) or 'none'})"))
    assert spec is not None, "tools/list serves no tool"
    return spec


def served_description(server: ServerSession) -> str:
    description = served_spec(server).get("description")
    assert isinstance(description, str), f"the tool's description is {brief(description)}, not a string"
    return description


def description_lines(server: ServerSession) -> list[str]:
    """The served description's lines as content (`content_lines`): a line ending or trailing spaces are
    CMP-2's byte-for-byte difference, not a missing line."""
    return content_lines(served_description(server))


def section(lines: list[str], heading: str) -> list[str]:
    """The non-empty lines under `heading` up to the next blank line."""
    start = lines.index(heading) + 1
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


def input_schema(server: ServerSession) -> dict[str, JSON]:
    schema = served_spec(server).get("inputSchema")
    assert isinstance(schema, dict), f"the tool's inputSchema is {brief(schema)}, not an object"
    return schema


@evidences("RTE-1")
def test_tools_list_is_static_and_reaches_a_host(server: ServerSession, host: SdkDriver) -> None:
    """The same single spec, unfiltered and unparameterized, whatever the store holds; a real host gets it.
    A `nextCursor` is followed as a client follows it (`calls/pages.py`), and the paged listing said with
    what its later pages hold."""
    listing = server.wire.list_tools()
    paged = pages_said(follow(listing, lambda params: server.wire.request("tools/list", params)))
    expect("RTE-1", paged is None, lambda: f"{paged}; the original lists its one tool on {ONE_PAGE}")
    first = listing.result
    assert first is not None and list(first) == ["tools"], (
        "tools/list was answered without a result" if first is None else
        f"tools/list's result has the keys {', '.join(first) or 'none'}, where the original's has tools "
        "alone")
    before = served_tools(server)
    names = [tool.get("name") for tool in before]
    # What each added tool does is learnt by calling it, each call on a process of its own
    # (calls/other_tools.py), only when the count departs: the original lists one tool and is sent nothing
    # more. Said beside whichever of this check's RTE-1 failures comes first.
    added = "" if len(names) == 1 else "; " + what_they_do(
        server.target.command, server.target.env, server.target.renames, before, server.timeout)
    variants: list[JSON] = [{}, {"cursor": "next"}, {"cursor": ""}, {"_meta": {"progressToken": 1}}]
    for params in variants:
        # Before the tools are counted: a fork listing two tools and refusing a cursor shows both changes
        # (a refusal said in the server's words, which a cause's headline repeats: core/refused_requests).
        answer = server.wire.request("tools/list", params)
        if answer.error is not None:
            error = answer.error
            words = error.get("message") if isinstance(error, dict) else brief(error)
            expect("RTE-1", False, refused_request(
                "tools/list", params if isinstance(params, dict) else None, words, "lists its tool") + added)
        assert answer.result == first, (
            f"tools/list with params {brief(params)} is not the same as without: "
            f"{said(json_differences(first, answer.result))}")
    # One tool: its name is CMP-2's (a fork listing it as `think` still serves one static spec).
    expect("RTE-1", len(names) == 1, lambda: (
        f"tools/list serves {len(names)} tools ({', '.join(brief(name, 60) for name in names)}), "
        f"not the original's one, {TOOL}{added}"))
    server.call(Envelope("changes the store", 1, 1, True).arguments(branchId="rte-1", branchFromThought=1))
    server.call({"thought": ""})
    after = served_tools(server)
    assert after == before, (
        f"tools/list answered {brief(after)} after two calls, not {brief(before)} as before")
    listed = host.list_tools()
    assert [tool.name for tool in listed.tools] == names, (
        f"the official client lists the tools {', '.join(tool.name for tool in listed.tools) or 'none'}, "
        f"not {TOOL} alone")
    assert listed.tools[0].description == before[0].get("description"), (
        f"the official client got the description {brief(listed.tools[0].description, 120)}, not the one "
        "served on the wire")
    assert listed.tools[0].input_schema == before[0].get("inputSchema"), (
        f"the official client got the inputSchema {brief(listed.tools[0].input_schema)}, not the one served "
        "on the wire")


@evidences("RTE-1", "CMP-2")
def test_served_spec_matches_the_original(
    server: ServerSession, original_snapshot: SnapshotAssertion
) -> None:
    """Name, description and input schema exactly as the original serves them."""
    spec = served_spec(server)
    # A tool listed under another name (`the_tool`) is compared under the original's: its name is CMP-2's
    # alone, on CMP-2's own check (test_one_spec_of_three_keys); RTE-1's one static spec holds of it.
    difference = differs_from_original(original_snapshot, {**spec, "name": TOOL})
    description = spec.get("description")
    # The snapshot's serializer reads "\r\n" and "\r" as "\n": a description whose lines end otherwise
    # compares equal there, so its line endings are judged here (the original's lines end in "\n" alone).
    endings = line_endings(description) if isinstance(description, str) else ""
    assert difference is None and not endings, (
        f"the served tool spec differs from the original's: {difference}" if not endings else
        "the served tool spec differs from the original's byte for byte: its description "
        + (f"is the original's text, but {endings}" if difference is None else
           f"has other line ends ({endings}); {difference}"))


@evidences("CMP-2")
@relies_on("RTE-1")
def test_one_spec_of_three_keys(server: ServerSession) -> None:
    """One tool with exactly name, description and inputSchema: a 54-line description, 9 properties, 4
    required."""
    names = [tool.get("name") for tool in served_tools(server)]
    assert len(names) == 1, (
        f"tools/list serves {len(names)} tools ({', '.join(brief(name, 60) for name in names)}), where the "
        f"original's single tool spec is {TOOL}")
    spec = served_spec(server)
    extra = [key for key in spec if key not in ("name", "description", "inputSchema")]
    assert sorted(spec) == ["description", "inputSchema", "name"], (
        f"the tool spec has {len(spec)} keys where the original has 3 (name, description, inputSchema); "
        f"adds {', '.join(extra) or 'none'}")
    served = description_lines(server)
    assert len(served) == 54, (
        f"the description has {len(served)} lines, not 54; its last is {brief(served[-1], 120)}")
    schema = input_schema(server)
    properties, required = schema.get("properties"), schema.get("required")
    assert isinstance(properties, dict) and len(properties) == 9, (
        f"the inputSchema's properties are {brief(properties)}, not an "
        "object" if not isinstance(properties, dict)
        else f"the inputSchema has {len(properties)} properties where the original has 9: "
             f"{', '.join(properties) or 'none'}")
    assert isinstance(required, list) and len(required) == 4, (
        f"the inputSchema requires {brief(required)}, where the original requires 4 fields: thought, "
        f"nextThoughtNeeded, thoughtNumber, totalThoughts")
    assert names == [TOOL], (  # last: a fork listing `think` still has the rest of its spec checked first
        f"the tool is listed as {brief(names[0], 60)}, where the original lists it as {TOOL}")


@evidences("OBJ-5")
@relies_on("RTE-1")
def test_description_is_static_across_calls_and_processes(
    server: ServerSession, spare: Spare, evidence: Evidence
) -> None:
    """The same 54-line string on every call and in a fresh process, its first line as shipped. The
    original's last line is provenance, said beside the verdict: a reworded rule 11 (2025.12.18:
    next_thought_needed → nextThoughtNeeded) leaves the text one static 54-line string (audit M4)."""
    served = served_description(server)
    lines = content_lines(served)
    assert len(lines) == 54, f"the description has {len(lines)} lines, not 54"
    assert lines[0] == "A detailed tool for dynamic and reflective problem-solving through thoughts.", (
        f"the description's first line is {quoted(lines[0])}, where the original's is “A detailed tool for "
        f"dynamic and reflective problem-solving through thoughts.”")
    if not lines[-1].endswith(ORIGINAL_LAST_LINE):
        evidence.note(f"OBJ-5: the last line is {brief(lines[-1], 120)}, the original's ends "
                      f"{ORIGINAL_LAST_LINE!r}")
    again = served_description(server)
    assert again == served, (
        f"the description changed between two tools/list requests: "
        f"{_changed(served, again, 'the second time', 'the first')}")
    with spare() as driver:
        result = driver.list_tools().result
    assert result is not None, "tools/list on a second process answered no result"
    tools = result.get("tools")
    assert isinstance(tools, list) and isinstance(tools[0], dict), (
        f"tools/list on a second process answered tools {brief(tools)}")
    other = tools[0].get("description")
    assert other == served, (
        "a second process serves another description: " + (
            _changed(served, other, "on the second process", "the first process")
            if isinstance(other, str) else brief(other)))


@evidences("OBJ-5", "OBJ-5/c1")
@relies_on("RTE-1")
def test_description_is_not_uniformly_second_person(server: ServerSession) -> None:
    """54 lines: a third-person opening, a Key-features list whose subject switches after five items,
    parameter documentation, and only then the numbered second-person block."""
    lines = description_lines(server)
    assert len(lines) == 54, (
        f"the description has {len(lines)} lines where the original's has 54; its last is "
        f"{brief(lines[-1], 120)}")
    first_words = [line.split()[0] if line.split() else "" for line in lines[:3]]
    assert first_words == ["A", "This", "Each"], (
        f"the description's first three lines begin {', '.join(map(quoted, first_words))}, where the "
        f"original's third-person opening begins “A”, “This”, “Each”")
    opening = lines[: lines.index("Key features:")]
    addressing = [line for line in opening if re.search(r"\byou\b", line, re.I)]
    assert opening and not addressing, (
        "the description has no lines before “Key features:”" if not opening else
        f"the description's opening addresses “you” in {brief(addressing)}, where the original's opening is "
        f"third-person")
    features = section(lines, "Key features:")
    assert len(features) == 9, (
        f"“Key features:” lists {len(features)} items where the original lists 9: {brief(features)}")
    addressed = [bool(re.search(r"\byou\b", line, re.I)) for line in features]
    you = ", ".join(str(i + 1) for i, a in enumerate(addressed) if a) or "none"
    assert addressed == [True] * 5 + [False] * 4, (
        f"the Key features addressing “you” are items {you} of {len(features)}, where the original's are "
        "items "
        f"1-5 and items 6-9 state what the tool does")
    parameters = section(lines, "Parameters explained:")
    assert parameters and lines.index("Parameters explained:") > lines.index("Key features:"), (
        f"the description's 'Parameters explained:' section is empty or before 'Key features:': "
        f"{brief(parameters)}")
    directives = section(lines, "You should:")
    marks = [line.split(" ", 1)[0] for line in directives]
    assert marks == [f"{n}." for n in range(1, 12)], (
        f"“You should:” marks its {len(directives)} rules {brief(marks)}, where the original numbers 11 "
        "rules 1 to 11")
    assert lines.index("You should:") > lines.index("Parameters explained:"), (
        "the description's 'You should:' section comes before 'Parameters explained:'")
    numbered = [line for line in lines if re.match(r"^\d+\. ", line)]
    assert numbered == directives, "a numbered list outside the You-should block"


@evidences("OBJ-11")
@relies_on("RTE-1")
def test_assertive_block(server: ServerSession, original_snapshot: SnapshotAssertion) -> None:
    """"When to use this tool:" with 7 items, a blank line, "Key features:" with 9 items (lines 5-23 in the
    original) - verbatim, including the four assertions no route implements. The lists are found by their
    headings and compared as sequences: an item inserted is said as inserted, never as the items it moved
    (a check reading items by position called four features gone that sat one line lower)."""
    lines = description_lines(server)
    missing = [heading for heading in ASSERTIVE_HEADINGS if heading not in lines]
    # A description without the lists (stopuncle-js' one line) is said as such, never as the IndexError
    # "list index out of range" that read as the server's words (as OBJ-12's, round 13).
    assert not missing, (
        f"the description's {len(lines)} lines have no {' and no '.join(map(quoted, missing))} line, where "
        "the original's lines 5-23 hold “When to use this tool:” with 7 items, a blank line and “Key "
        "features:” with 9")
    start, block = _block(lines, ASSERTIVE_HEADINGS[0], ASSERTIVE_HEADINGS[1])
    original = original_lines(original_snapshot)
    difference = differs_from_original(original_snapshot, block)
    if difference is None:
        return
    assert original is not None, f"description lines 5-23 differ from the original's: {difference}"
    kept = [line for line in original[-4:] if line in block]
    four = (f"the original's four assertions ({', '.join(quoted(line, 40) for line in original[-4:])}) are "
            "all still there" if len(kept) == 4 else
            f"it lacks {', '.join(quoted(line) for line in original[-4:] if line not in kept)}")
    raise AssertionError(
        f"description lines {start + 1}-{start + len(block)} (“When to use this tool:” to the last Key "
        f"features item; the original's 5-23) differ from the original's: "
        f"{text_difference(chr(10).join(original), chr(10).join(block)).replace('{here}', 'here')}; {four}")


ASSERTIVE_HEADINGS: Final = ("When to use this tool:", "Key features:")


def _block(lines: list[str], first: str, last: str) -> tuple[int, list[str]]:
    """The lines from the heading `first` to the end of the list under the heading `last` (its first blank
    line after it, or the text's end), and where they start: found by their headings, never by position."""
    start, under = lines.index(first), lines.index(last)
    end = next((i for i in range(under + 1, len(lines)) if not lines[i].strip()), len(lines))
    return start, lines[start:max(end, start + 1)]


def _changed(first: str, second: str, here: str, there: str) -> str:
    """Two texts the same server served as the lines that differ (`text_difference`, said of two answers of
    one server rather than against the original)."""
    return text_difference(first, second).replace("{here}", here).replace("the original", there)


ORIGINAL_LAST_LINE = (
    "Only set next_thought_needed to false when truly done and a satisfactory answer is reached")


@evidences("OBJ-12")
@relies_on("RTE-1")
def test_directive_block(
    server: ServerSession, original_snapshot: SnapshotAssertion, evidence: Evidence
) -> None:
    """Lines 25-54: "Parameters explained:" with nine parameter entries, a blank line, then "You should:" with
    items numbered 1 to 11. How they differ from the original's words (renamed parameters, indentation) is
    said beside the verdict: they still instruct the caller, which is what OBJ-12 states (audit M3)."""
    lines = description_lines(server)
    # Found by its heading: a line inserted above it moves the block, which is OBJ-5's line count, not this
    # block's words (an item added to Key features read as "line 25 is “”").
    start = lines.index("Parameters explained:") if "Parameters explained:" in lines else None
    # A description shorter than the block (chinng-py's 15 lines) is said as such, never as the IndexError
    # "list index out of range" that read as the server's words.
    assert start is not None or len(lines) > 24, (
        f"the description has {len(lines)} lines, where the original's lines 25-54 hold "
        "“Parameters explained:” and the rules numbered 1 to 11 under “You should:”")
    assert start is not None, (
        f"the description has no “Parameters explained:” line; its line 25 is {brief(lines[24])}, where "
        "the original has “Parameters explained:”")
    block = lines[start:]
    if start != 24:
        evidence.note(f"OBJ-12: “Parameters explained:” at line {start + 1}, the original's at line 25")
    blank = block.index("") if "" in block else len(block)
    entries = [line for line in block[1:blank] if line.startswith("- ")]
    assert len(entries) == 9, (
        f"description lines {start + 2}-{start + blank} hold {len(entries)} “- ” parameter entries, where "
        f"the original has 9: {brief(entries, 120)}")
    after = block[blank + 1] if blank + 1 < len(block) else None
    shown = brief(after) if after is not None else "none (the text ends)"
    assert after == "You should:", f"the line after the parameter entries is {shown}, not “You should:”"
    numbers = [line.split(".")[0] for line in block[blank + 2:]]
    assert numbers == [str(n) for n in range(1, 12)], (
        f"the lines under “You should:” are numbered {', '.join(numbers) or 'nothing'}, where the original "
        f"numbers them 1 to 11: {brief(block[blank + 2:], 120)}")
    difference = differs_from_original(original_snapshot, block)
    if difference is not None:
        evidence.note(f"OBJ-12: worded otherwise than the original's lines 25-54: {brief(difference, 300)}")


def parameters_documented(lines: list[str]) -> list[str]:
    """The input parameters a description documents as "- name:" lines, in either spelling (the original's
    snake_case or the schema's camelCase)."""
    spellings = {"thought": "thought", **{snake: camel for camel, snake in SNAKE.items()},
                 **{camel: camel for camel in SNAKE}}
    named = (re.match(r"^- ([A-Za-z_]+):", line) for line in lines)
    return list(dict.fromkeys(spellings[m.group(1)] for m in named if m and m.group(1) in spellings))


@evidences("BAP-1")
@relies_on("RTE-1", "RTE-3", "OBJ-4")
def test_directives_delivered_but_not_enforced(
    server: ServerSession, host: SdkDriver, evidence: Evidence
) -> None:
    """The parameter guidance and the numbered You-should rules reach a real host, and calls that ignore
    them are accepted like any other. Their wording (rule 11 naming next_thought_needed in the original) is
    OBJ-12's: here the rules are found by what they are, numbered lines under "You should:"."""
    description = delivered_description(host)
    lines = content_lines(description)
    rules = section_under(lines, "You should:")
    numbered = [line for line in rules if re.match(r"^\d+\. ", line)]
    assert numbered, (f"the description the official client got has no numbered rules under 'You should:': "
                      f"{brief(description[-200:])}")
    documented = parameters_documented(lines)
    assert len(documented) == 1 + len(SNAKE), (
        f"the description the official client got documents {len(documented)} of the 9 parameters as "
        f"\"- name:\" lines ({', '.join(documented) or 'none'})")
    evidence.note(f"BAP-1: {len(numbered)} numbered rule(s) under 'You should:' (the original has 11), "
                  f"the last {brief(numbered[-1], 100)}; guidance for the 9 parameters")
    ignoring = [
        Envelope("done", 1, 1, False).arguments(),
        Envelope("more after done", 2, 1, True).arguments(),
        Envelope("far past the estimate", 9, 2, True).arguments(),
        Envelope("Actually, thought 1 was wrong (revision left unmarked).", 3, 9, True).arguments(),
    ]
    for arguments in ignoring:
        result = host.call_tool(TOOL, arguments)
        assert not result.is_error, (
            f"{brief(arguments)}, a call the description's rules advise against, was refused through the "
            f"official client ({host_answer(result)}), where the original accepts it")
        accepted(server.call(arguments))


@evidences("BAP-6")
@relies_on("RTE-1")
def test_assertive_block_delivered(host: SdkDriver, evidence: Evidence) -> None:
    """OBJ-11's two lists reach a real host with every tools/list: "When to use this tool:" and "Key
    features:" (lines 5 and 14 in the original; where they sit now is a note), the latter with "- Provides a
    correct answer"."""
    description = delivered_description(host)
    lines = content_lines(description)
    when, features = section_under(lines, "When to use this tool:"), section_under(lines, "Key features:")
    assert when and features, (
        f"the description the official client got lacks "
        f"{'a When-to-use list' if not when else 'a Key-features list'}: {brief(description[:200])}")
    assert "- Provides a correct answer" in features, (
        f"the Key-features lines the official client got lack '- Provides a correct answer': "
        f"{brief(features)}")
    at_when = where(lines_stating(lines, "When to use this tool:"), 5)
    evidence.note(f"BAP-6: 'When to use this tool:' at {at_when}, "
                  f"'Key features:' at {where(lines_stating(lines, 'Key features:'), 14)}")


@evidences("BAP-6")
def test_readme_feature_list_shipped(package_dir: Path, evidence: Evidence) -> None:
    """The installed README has its Features list stating "Generate and verify solution hypotheses"
    (lines 6-12 in the original; where they sit now is a note)."""
    lines = content_lines((package_dir / "README.md").read_text(encoding="utf-8"))
    features = section_under(lines, "Features")
    claim = "Generate and verify solution hypotheses"
    assert any(claim in plain(line) for line in features), (
        f"the installed README.md's Features list does not state {claim!r}: "
        f"{brief(features) if features else 'it has no Features heading'}")
    heading = where([n for n, text in headings(lines) if text == "Features"], 6)
    evidence.note(f"BAP-6: README.md's 'Features' heading at {heading}, "
                  f"{claim!r} at {where(lines_stating(lines, claim), 12)}")


_TYPES: dict[str, JSON] = {
    "thought": "string",
    "nextThoughtNeeded": "boolean",
    "thoughtNumber": "integer",
    "totalThoughts": "integer",
    "isRevision": "boolean",
    "revisesThought": "integer",
    "branchFromThought": "integer",
    "branchId": "string",
    "needsMoreThoughts": "boolean",
}
"""The original's property types (OBJ-7)."""
_MINIMUMS: dict[str, JSON] = dict.fromkeys(
    ("thoughtNumber", "totalThoughts", "revisesThought", "branchFromThought"), 1)
"""The original's minimums: 1 on the four integer fields (OBJ-7)."""


@evidences("OBJ-7")
@relies_on("RTE-1")
def test_input_schema_shape(server: ServerSession) -> None:
    """An object schema: nine typed properties, four required, minimum 1 on the four integer fields, no
    minLength and no additionalProperties."""
    schema = input_schema(server)
    assert schema.get("type") == "object" and "additionalProperties" not in schema, (
        f"the inputSchema has type {brief(schema.get('type'))} and additionalProperties "
        f"{brief(schema.get('additionalProperties')) if 'additionalProperties' in schema else 'left out'}, "
        f"where the original's is an object schema without additionalProperties")
    properties = schema.get("properties")
    assert isinstance(properties, dict), (
        f"the inputSchema's properties are {brief(properties)}, not an object")
    types = {name: field.get("type") for name, field in properties.items() if isinstance(field, dict)}
    assert types == _TYPES, (
        f"the inputSchema's property types are not the original's: {said(json_differences(_TYPES, types))}")
    assert schema.get("required") == ["thought", "nextThoughtNeeded", "thoughtNumber", "totalThoughts"], (
        f"the inputSchema's required is {brief(schema.get('required'))}, not [\"thought\", "
        "\"nextThoughtNeeded\", \"thoughtNumber\", \"totalThoughts\"]")
    minimums = {
        name: field.get("minimum")
        for name, field in properties.items()
        if isinstance(field, dict) and "minimum" in field
    }
    assert minimums == _MINIMUMS, (
        "the inputSchema's minimums are not the original's (1 on thoughtNumber, totalThoughts, "
        "revisesThought "
        f"and branchFromThought): {said(json_differences(_MINIMUMS, minimums))}")
    assert not [n for n, f in properties.items() if isinstance(f, dict) and "minLength" in f], (
        f"the inputSchema gives minLength to "
        f"{', '.join(n for n, f in properties.items() if isinstance(f, dict) and 'minLength' in f)}, "
        f"where the original gives it to none")


@evidences("CMP-2/a2")
@relies_on("RTE-1", "OBJ-8", "RTE-3", "CMP-2")
def test_prompt_names_parameters_the_schema_rejects(server: ServerSession) -> None:
    """The in-prompt documentation spells eight of nine parameters in snake_case; the schema declares and
    the server requires camelCase, so a call written from the prompt is rejected."""
    description = content_text(served_description(server))
    properties = input_schema(server).get("properties")
    assert isinstance(properties, dict), (
        f"the inputSchema's properties are {brief(properties)}, not an object")
    documented = set(re.findall(r"^- ([a-z_]+):", description, flags=re.M))
    assert documented == {"thought", *SNAKE.values()}, (
        documented_parameters(description, list(SNAKE.values())))
    assert not set(SNAKE.values()) & set(properties) and set(SNAKE) <= set(properties), (
        f"the inputSchema's properties are {', '.join(sorted(properties))}, not the camelCase names "
        f"{', '.join(sorted(SNAKE))}")
    assert "total_thoughts up or down" in description, (
        f"the description lacks 'total_thoughts up or down': {brief(description[-200:])}")
    message = rejected(
        server.call({"thought": "t", "thought_number": 1, "total_thoughts": 1, "next_thought_needed": True})
    )
    # The refusal's words are RTE-3's fixed message: a reworded one is the guard's change, not the prompt's.
    expect("RTE-3", message == "Invalid thoughtNumber: must be a number",
           f"the refusal reads {quoted(message)}, not RTE-3's fixed “Invalid thoughtNumber: must be a "
           "number”")


@evidences("CMP-2/a2")
@relies_on("RTE-3", "OBJ-4", "RTE-9", "CMP-5")
@given(envelope=envelopes, names=st.sets(st.sampled_from(sorted(SNAKE)), min_size=1))
@example(envelope=Envelope("t", 1, 2, True), names=set(SNAKE))
def test_prompt_spelling_beside_the_schema_spelling_is_ignored(
    server: ServerSession, envelope: Envelope, names: set[str]
) -> None:
    """A call carrying the prompt's snake_case names (with other values) beside the schema's camelCase ones
    is answered and rendered as the camelCase call alone: the server reads only the schema's names."""
    plain = server.call(envelope.arguments())
    arguments = envelope.arguments()
    other: dict[str, JSON] = {
        "nextThoughtNeeded": not envelope.next_thought_needed, "thoughtNumber": 7, "totalThoughts": 9,
        "isRevision": True, "revisesThought": 1, "branchFromThought": 1, "branchId": "prompt-spelling",
        "needsMoreThoughts": True,
    }
    snake = {SNAKE[name]: other[name] for name in sorted(names)}
    marked = server.call({**arguments, **snake})
    accepted(marked)
    # The fields the prompt's names would set; any other field is OBJ-4's business.
    read = ("thoughtNumber", "totalThoughts", "nextThoughtNeeded", "branches")
    one, two = ({k: without_count(e).get(k) for k in read} for e in (plain, marked))
    expect("CMP-2/a2", one == two,
           lambda: f"the same call with the prompt's names {brief(snake)} added is answered {brief(two)}, "
                   f"where the original reads only the schema's names: {brief(one)}")
    expect_rendered_alike(plain, marked, f"for the same call with the prompt's names {brief(snake)} added")


@evidences("CMP-2/a2")
@relies_on("CMP-2")
def test_readme_agrees_with_the_schema(package_dir: Path) -> None:
    """The shipped README lists the inputs in camelCase, as the schema does."""
    readme = (package_dir / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"^- `([A-Za-z_]+)` \(", readme, flags=re.M)
    due = [*REQUIRED[:1], "nextThoughtNeeded", "thoughtNumber", "totalThoughts", *OPTIONAL]
    assert listed == due, (
        f"README.md lists the inputs {', '.join(listed) or 'none'}, where the schema's names in the "
        f"original's order are {', '.join(due)}")
