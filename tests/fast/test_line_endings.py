"""A description whose lines end in "\\r\\n" or "\\r", or carry trailing whitespace, says what the original's
says: every content check holds, and only CMP-2's byte-for-byte spec comparison departs, saying the
difference is line endings (issues 42, 47; the fork-typescript-port change description-crlf)."""

from __future__ import annotations

import shlex
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from conformance.suite.documents import content_lines, content_text, line_endings, parameter_lines
from reference_server.toolspec import load_tool_spec
from tests.servers import command

ROOT = Path(__file__).resolve().parents[2]
CAPTURED = load_tool_spec().description
"""The description the original ships (reference_server/data/tool_spec.json, captured from npm:0.6.2)."""
LINES = CAPTURED.split("\n")
ENDS = {"w": "\r\n", "r": "\r", "n": "\n"}
PADS = {"-": "", "s": " ", "t": "\t", "d": "  "}

ends = st.text(alphabet="wrn", min_size=len(LINES) - 1, max_size=len(LINES) - 1)
pads = st.text(alphabet="-std", min_size=len(LINES), max_size=len(LINES))
ALL_CRLF = "w" * (len(LINES) - 1)
NO_PADS = "-" * len(LINES)


def variant(end_letters: str, pad_letters: str) -> str:
    """The captured description with these line ends and trailing whitespace (as tests/servers/described.py
    serves it)."""
    return "".join(line + PADS[pad] + end for line, pad, end in
                   zip(LINES, pad_letters, [*(ENDS[e] for e in end_letters), ""], strict=True))


def merges(end_letters: str, pad_letters: str) -> bool:
    """Whether a "\\r" ending meets the "\\n" of the empty line after it: "\\r" + "\\n" reads as one "\\r\\n",
    a line fewer, another text."""
    return any(end == "r" and LINES[i + 1] == "" and pad_letters[i + 1] == "-" and
               end_letters[i + 1:i + 2] == "n" for i, end in enumerate(end_letters))


def test_the_captured_description_has_plain_line_ends() -> None:
    assert line_endings(CAPTURED) == "" and content_lines(CAPTURED) == LINES and len(LINES) == 54


@given(end_letters=ends, pad_letters=pads)
@example(end_letters=ALL_CRLF, pad_letters=NO_PADS)
@example(end_letters="r" * (len(LINES) - 1), pad_letters="s" * len(LINES))
def test_content_is_the_original_and_only_the_endings_differ(end_letters: str, pad_letters: str) -> None:
    assume(not merges(end_letters, pad_letters))
    text = variant(end_letters, pad_letters)
    assert content_lines(text) == LINES and content_text(text) == CAPTURED
    assert parameter_lines(text) == parameter_lines(CAPTURED)
    said = line_endings(text)
    assert bool(said) == (text != CAPTURED), said
    if end_letters == ALL_CRLF:
        assert said.startswith("each line ends in \\r\\n"), said
    if set(pad_letters) != {"-"}:
        assert said.endswith("in whitespace"), said


def run_checks(end_letters: str, pad_letters: str, tmp: Path) -> dict[str, tuple[str, str]]:
    """The description and claim checks run against the reference server serving the variant: each test's
    outcome (passed, failed, skipped) and failure message, by test name."""
    target = "cmd:" + shlex.join(command("described", end_letters, pad_letters))
    junit = tmp / "junit.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", "conformance/suite/test_tool_spec.py",
         "conformance/suite/test_claims.py", "-q", "-p", "no:cacheprovider",
         f"--basetemp={tmp / 'pytest'}", f"--junitxml={junit}",
         "--target", target],
        cwd=ROOT, capture_output=True, timeout=300, check=False)
    outcomes: dict[str, tuple[str, str]] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("name", "").split("[")[0]
        failure = case.find("failure")
        skipped = case.find("skipped")
        outcome = "failed" if failure is not None or case.find("error") is not None else (
            "skipped" if skipped is not None else "passed")
        outcomes[name] = (outcome, failure.get("message", "") if failure is not None else "")
    return outcomes


@settings(max_examples=2, deadline=None)
@given(end_letters=ends.filter(lambda letters: set(letters) != {"n"}), pad_letters=pads)
@example(end_letters=ALL_CRLF, pad_letters=NO_PADS)
@example(end_letters=ALL_CRLF, pad_letters="-" * (len(LINES) - 1) + "d")
def test_every_content_check_holds_and_cmp_2_departs(end_letters: str, pad_letters: str) -> None:
    """The real checks against the reference server, its description's line ends changed: CMP-2's exact
    comparison is the one failure, and it names the line endings."""
    assume(not merges(end_letters, pad_letters))
    with tempfile.TemporaryDirectory(prefix="crlf-") as tmp:
        outcomes = run_checks(end_letters, pad_letters, Path(tmp))
    failed = {name: message for name, (outcome, message) in outcomes.items() if outcome == "failed"}
    assert list(failed) == ["test_served_spec_matches_the_original"], failed
    message = failed["test_served_spec_matches_the_original"]
    assert "byte for byte" in message and line_endings(variant(end_letters, pad_letters)) in message, message
    held = [name for name, (outcome, _) in outcomes.items() if outcome == "passed"]
    assert {"test_description_is_static_across_calls_and_processes", "test_assertive_block",
            "test_directive_block", "test_assertive_block_delivered", "test_clm_1b_prompt_instance",
            "test_clm_1_two_channel_instances", "test_description_is_not_uniformly_second_person",
            "test_one_spec_of_three_keys"} <= set(held), outcomes
