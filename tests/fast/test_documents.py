"""The suite's reading of shipped documents by content (issue 47): a claim that moved is found and said to
have moved; one that is gone is not found; a tool's name is told from a path or an image that contains it."""

from __future__ import annotations

from conformance.suite.documents import (
    documented_parameters,
    headings,
    lines_stating,
    names_as_tool,
    other_mentions,
    section_under,
    where,
)

ORIGINAL = [
    "# Sequential Thinking MCP Server", "", "An MCP server implementation.", "", "## Features", "",
    "- Break down complex problems into manageable steps", "- Generate and verify solution hypotheses", "",
    "## Tool", "", "### sequential_thinking", "",
]

MOVED = ["# Title", "", "## Features", "", "*   Generate and verify   solution hypotheses", "",
         "### `sequential_thinking`", "```json",
         '{"sequentialthinking": {"args": ["mcp/sequentialthinking"]}}', "```",
         "docker build -t mcp/sequentialthinking ."]


def test_a_claim_is_found_wherever_it_sits_and_its_move_is_said() -> None:
    assert lines_stating(ORIGINAL, "- Generate and verify solution hypotheses") == [8]
    assert where(lines_stating(ORIGINAL, "Generate and verify solution hypotheses"), 8) == "line 8"
    assert lines_stating(MOVED, "- Generate and verify solution hypotheses") == [5]
    assert where([5], 12) == "line 5 (moved from line 12)"


def test_a_claim_that_is_gone_is_not_found() -> None:
    reworded = [line.replace("verify", "check") for line in ORIGINAL]
    assert lines_stating(reworded, "Generate and verify solution hypotheses") == []
    assert where([], 12) == "absent (the records cite line 12)"


def test_a_section_is_its_lines_under_the_heading() -> None:
    assert section_under(ORIGINAL, "Features") == [
        "- Break down complex problems into manageable steps", "- Generate and verify solution hypotheses"]
    assert section_under(["Key features:", "- a", "- b", "", "- c"], "Key features:") == ["- a", "- b"]
    assert section_under(ORIGINAL, "Limitations") == []


def test_a_tool_name_is_a_heading_or_a_code_span_not_a_path_or_an_image() -> None:
    assert headings(MOVED)[-1] == (7, "sequential_thinking")
    assert names_as_tool(ORIGINAL, "sequential_thinking") == [12]
    assert names_as_tool(MOVED, "sequential_thinking") == [7]
    assert names_as_tool(MOVED, "sequentialthinking") == []
    assert "at line(s) 9, 11" in other_mentions(MOVED, "sequentialthinking")
    renamed = [*MOVED, "### sequentialthinking", "Call `sequentialthinking` from your host."]
    assert names_as_tool(renamed, "sequentialthinking") == [12, 13]


def test_a_holding_record_shows_what_its_test_noted_beside_the_verdict() -> None:
    """A claim that moved holds, and the move is said beside the verdict: in the record's test reference
    (report.json) and in the records table (report.md's reason column, empty for a holding record)."""
    from conformance.core.results import RunResults
    from conformance.gate.verdicts import judge
    from conformance.report.sections.records import _noted
    from tests.fast.test_report_writers import FakeRecord, outcome

    moved = "CLM-1a: the installed README.md states 'Generate and verify solution hypotheses' at line 11 " \
            "(moved from line 12)"
    results = RunResults.model_construct(
        tests=[outcome("suite/test_claims.py::test_clm_1a", ["CLM-1a"], "passed", notes=[moved])])
    [verdict] = judge([FakeRecord("CLM-1a", "clm")], results)
    assert verdict.verdict == "holds" and verdict.reason == ""
    assert verdict.tests[0].notes == [moved]
    assert _noted(verdict) == f"noted: {moved}"


def test_a_description_documenting_its_parameters_in_camelcase_is_said_to_document_them_all() -> None:
    """A fork that fixed the original's snake_case guidance (nalyk/sequentialthinking: 17 "- name:" lines,
    all camelCase) was said to document "1 parameter(s) (thought)": only snake_case names were looked for."""
    camel = ["thought", "nextThoughtNeeded", "thoughtNumber", "totalThoughts", "isRevision", "revisesThought",
             "branchFromThought", "branchId", "needsMoreThoughts", "thoughtType", "relatedTo"]
    description = "Parameters explained:\n" + "\n".join(f"- {name}: what it is" for name in camel)
    description += "\n- PERSISTENT SEQUENCES: not a parameter\n- Breaking down complex problems"
    snake = ["next_thought_needed", "thought_number", "total_thoughts", "is_revision", "revises_thought",
             "branch_from_thought", "branch_id", "needs_more_thoughts"]
    said = documented_parameters(description, snake)
    assert said == (
        'the description documents 11 parameter(s) as "- name:" lines (thought, nextThoughtNeeded, '
        "thoughtNumber, totalThoughts, isRevision, revisesThought, branchFromThought, branchId, "
        "needsMoreThoughts, thoughtType and 1 more), 0 of them in snake_case, where the original "
        "documents thought and the eight snake_case names"), said
    original = "\n".join(f"- {name}: what it is" for name in ["thought", *snake])
    assert "documents 9 parameter(s)" in documented_parameters(original, snake)
    assert "8 of them in snake_case" in documented_parameters(original, snake)
