"""The claim audit: for each claim, what reaches a consumer (the tool list through a real host, the installed
README) and what the server is observed to do, with a verdict in the records' vocabulary.

A claim test passes when observation matches what the records say of the claim; a fork that implemented
(say) verification of hypotheses would fail here, as a deviation from the record.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.probes import TEXT_ENVELOPES, probe_examples
from conformance.calls.strategies import (
    CONCLUSION_LIKE,
    HYPOTHESIS_LIKE,
    VERIFICATION_LIKE,
    Envelope,
    claim_like_texts,
    envelopes,
    small_positive_integers,
)
from conformance.catalog.records import evidences, relies_on
from conformance.core.differences import quoted
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.drivers.errors import ServerTimeout
from conformance.drivers.sdk import SdkDriver
from conformance.suite.answers import (
    STATUS_KEYS,
    accepted,
    assert_content_independent,
    describe,
    expect_count,
    expect_one_more,
    fields_unlike,
    reanswered,
    store,
    without_count,
)
from conformance.suite.contradiction import brief
from conformance.suite.documents import (
    content_lines,
    delivered_description,
    delivered_tool,
    lines_stating,
    plain,
    section_under,
    where,
)
from conformance.suite.plugin import Evidence
from conformance.suite.render_box import drawn_box
from conformance.suite.session import ServerSession
from conformance.targets.project import package_dir_of
from conformance.targets.specs import Target

CLM_1B_LINES = (
    "- Generates a solution hypothesis",
    "- Verifies the hypothesis based on the Chain of Thought steps",
    "- Repeats the process until satisfied",
    "- Provides a correct answer",
)
README_LINES = {
    "CLM-1": (12, "- Generate and verify solution hypotheses"),
    "CLM-2": (9, "- Revise and refine thoughts as understanding deepens"),
    "CLM-3": (10, "- Branch into alternative paths of reasoning"),
    "CLM-4": (11, "- Adjust the total number of thoughts dynamically"),
    "CLM-5": (38, "- Tasks that need to maintain context over multiple steps"),
    "CLM-6": (39, "- Situations where irrelevant information needs to be filtered out"),
    "CLM-7": (
        4,
        "An MCP server implementation that provides a tool for dynamic and reflective problem-solving "
        "through a structured thinking process.",
    ),
}
"""Where the installed README states each claim (1-based line, exact text)."""


def assert_delivered(host: SdkDriver, evidence: Evidence, claim: str, *phrases: str) -> None:
    description = content_lines(delivered_description(host))
    missing = [p for p in phrases if p not in description]
    assert not missing, (
        f"{claim}: the tool description the official client got has no line "
        f"{', '.join(map(quoted, missing))}, "
        f"where the original delivers it")
    evidence.claim(
        claim,
        "observed-delivered",
        "tools/list through the official mcp client delivers: " + " / ".join(phrases),
    )


def readme_lines(target: Target) -> list[str] | None:
    found = package_dir_of(target)
    if found is None:
        return None
    return content_lines(Path(found, "README.md").read_text(encoding="utf-8"))


def check_readme(target: Target, evidence: Evidence, claim: str) -> bool:
    """The installed README states the claim's words somewhere (npm targets): the line the records cite is
    provenance, said beside the verdict when the claim moved; False when not observable."""
    lines = readme_lines(target)
    if lines is None:
        evidence.note(f"{claim}: README channel not observable for this target (not an npm package)")
        return False
    number, text = README_LINES[claim.split("/")[0].rstrip("ab")]
    found = lines_stating(lines, text)
    assert found, f"{claim}: the installed README.md does not state {plain(text)!r} on any line"
    evidence.note(f"{claim}: the installed README.md states {plain(text)!r} at {where(found, number)}")
    return True


def check_content_independence(server: ServerSession) -> None:
    """Answers never depend on what a thought says — incl. thoughts that look like hypotheses, verifications
    and conclusions: the same envelope with two texts gets the same answer, bar the count."""

    @given(envelope=envelopes, first=claim_like_texts, second=claim_like_texts)
    def same_answer(envelope: Envelope, first: str, second: str) -> None:
        assert_content_independent(server, envelope, first, second)

    same_answer()
    for texts in zip(HYPOTHESIS_LIKE, VERIFICATION_LIKE, CONCLUSION_LIKE, strict=True):
        for number, text in enumerate(texts, start=1):
            envelope = Envelope(text, number, 3, number < 3)
            neutral = Envelope("neutral", number, 3, number < 3)
            claimed = without_count(server.call(envelope.arguments()))
            control = without_count(server.call(neutral.arguments()))
            assert claimed == control, reanswered(
                control, claimed, f"for the thought {brief(text)} in place of \"neutral\"")


def check_nothing_to_verify(host: SdkDriver, server: ServerSession) -> None:
    """No argument can hold a hypothesis or an answer, and no answer field can."""
    properties = delivered_tool(host).input_schema.get("properties", {})
    named = [p for p in properties if any(w in p.lower() for w in ("hypothes", "verif", "answer"))]
    assert not named, (f"the {TOOL} tool takes argument(s) that can hold a hypothesis or an answer: "
                       f"{', '.join(named)}")
    concluded = accepted(server.call(Envelope("Conclusion: 42.", 1, 1, False).arguments()))
    assert list(concluded) == STATUS_KEYS, (
        f"for a call concluding \"Conclusion: 42.\", {fields_unlike(list(concluded), STATUS_KEYS)}")


def check_idle(server: ServerSession) -> None:
    """The server does nothing between calls (no verification pass, no message)."""
    accepted(server.call(Envelope("Hypothesis: pending verification.", 1, 2, True).arguments()))
    try:
        unsolicited: dict[str, JSON] | None = server.wire.read_message(timeout=0.5)
    except ServerTimeout:
        unsolicited = None
    assert unsolicited is None, (
        f"the server sent {brief(unsolicited)} unasked, within 0.5 s of an answer, where the original sends "
        f"nothing between calls")


@evidences("CLM-1")
@relies_on("RTE-1", "CMP-2", "OBJ-11", "RTE-3", "RTE-5", "OBJ-4", "RTE-7", "ABS-3", "ABS-10")
def test_clm_1_generate_and_verify(
    server: ServerSession, host: SdkDriver, target: Target, evidence: Evidence
) -> None:
    """Delivered as stated; observed: answers ignore content, nothing can hold a hypothesis or an answer, and
    nothing happens between calls - so unsupported, and "Provides a correct answer" contradicted."""
    assert_delivered(host, evidence, "CLM-1", *CLM_1B_LINES)
    check_readme(target, evidence, "CLM-1")
    check_content_independence(server)
    check_nothing_to_verify(host, server)
    check_idle(server)
    evidence.claim(
        "CLM-1",
        "unsupported",
        "answers to hypothesis-, verification- and conclusion-like thoughts equal those to neutral "
        "thoughts bar the count; no field holds a hypothesis; the server never acts between calls",
    )
    evidence.claim(
        "CLM-1",
        "contradicted",
        "'Provides a correct answer': every answer holds only the five status fields, none an answer",
    )


@evidences("CLM-1/a1")
@relies_on("RTE-1", "CMP-2", "OBJ-11")
def test_clm_1_two_channel_instances(host: SdkDriver, target: Target, evidence: Evidence) -> None:
    """The same content on two channels: the description's four Key-features lines (lines 20-23 in the
    original) and the README's "Generate and verify solution hypotheses" (its line 12), wherever each sits."""
    lines = content_lines(delivered_description(host))
    starts = [i for i in range(len(lines)) if tuple(lines[i:i + len(CLM_1B_LINES)]) == CLM_1B_LINES]
    assert starts, (f"the description does not deliver the four lines {brief(list(CLM_1B_LINES))} together; "
                    f"its Key features are {brief(section_under(lines, 'Key features:'))}")
    evidence.note(f"CLM-1/a1: the description delivers the four lines at {where([starts[0] + 1], 20)}")
    if check_readme(target, evidence, "CLM-1/a1"):
        assert README_LINES["CLM-1"][1] not in lines, "the README wording is delivered in the prompt too"


@evidences("CLM-1a")
def test_clm_1a_readme_instance(server: ServerSession, target: Target, evidence: Evidence) -> None:
    """The README states "Generate and verify solution hypotheses" (line 12 under "## Features" in the
    original; where it sits now is a note); the README is not served; no answer depends on content."""
    lines = readme_lines(target)
    if lines is None:
        evidence.note(
            "CLM-1a is a README-channel claim: not observable for a target that is not an npm package"
        )
        pytest.skip("README channel: not an npm package target")
    claim = plain(README_LINES["CLM-1"][1])
    found = lines_stating(lines, claim)
    assert found, f"the installed README.md does not state {claim!r} on any of its {len(lines)} lines"
    at = where(found, README_LINES["CLM-1"][0])
    evidence.note(f"CLM-1a: the installed README.md states {claim!r} at {at}")
    served = json.dumps(server.wire.list_tools().response)
    assert claim not in served, f"tools/list serves the README's {claim!r}"
    check_content_independence(server)
    evidence.claim(
        "CLM-1a",
        "unsupported",
        f"the installed README.md states {claim!r}; no answer depends on thought content",
    )


@evidences("CLM-1b")
@relies_on("RTE-1", "CMP-2", "OBJ-11", "RTE-3", "RTE-5", "OBJ-4", "RTE-7", "ABS-3")
def test_clm_1b_prompt_instance(server: ServerSession, host: SdkDriver, evidence: Evidence) -> None:
    """The four Key-features lines reach a real host under "Key features:"; verification is not observed."""
    assert_delivered(host, evidence, "CLM-1b", *CLM_1B_LINES)
    lines = content_lines(delivered_description(host))
    assert lines.index("Key features:") < lines.index(CLM_1B_LINES[0]), (
        f"the description's {CLM_1B_LINES[0]!r} comes before its 'Key features:' line")
    check_nothing_to_verify(host, server)
    check_content_independence(server)
    evidence.claim(
        "CLM-1b",
        "unsupported",
        "delivered into the model's context, yet answers never depend on what a thought says and "
        "a hypothesis is not representable in the schema",
    )


@evidences("CLM-2")
@relies_on("RTE-3", "RTE-5", "OBJ-4", "RTE-9", "CMP-5", "ABS-6", "RTE-1", "CMP-2", "OBJ-11", "RTE-7")
def test_clm_2_revision(server: ServerSession, host: SdkDriver, target: Target, evidence: Evidence) -> None:
    """Delivered; a revision changes nothing retained beyond the count - only the stderr caption differs."""
    assert_delivered(host, evidence, "CLM-2", "- You can question or revise previous thoughts")
    check_readme(target, evidence, "CLM-2")

    @given(envelope=envelopes, revises=small_positive_integers)
    def label_only(envelope: Envelope, revises: int) -> None:
        plain = server.call(envelope.arguments())
        revision = server.call(envelope.arguments(isRevision=True, revisesThought=revises))
        expect_one_more(store(plain).history_length, store(revision).history_length, describe(revision),
                        call=revision)
        assert without_count(plain) == without_count(revision), reanswered(
            without_count(plain), without_count(revision),
            f"for the same call with isRevision true and revisesThought {revises}")
        box = drawn_box(revision)  # switched off (DISABLE_THOUGHT_LOGGING): the render records' departure
        assert box is None or box.kind == "Revision", (
            f"a revision drew {quoted(box.header)}, not a Revision box")

    label_only()
    evidence.claim(
        "CLM-2",
        "bounded",
        "revision is a caller-set label shown on stderr; no retained thought is replaced or removed",
    )


@evidences("CLM-3")
@relies_on("RTE-3", "RTE-5", "OBJ-4", "RTE-6", "OBJ-3", "RTE-1", "CMP-2", "OBJ-11", "RTE-7", "OBJ-4/a1")
def test_clm_3_branching(server: ServerSession, host: SdkDriver, target: Target, evidence: Evidence) -> None:
    """Delivered; branching records a caller label and nothing else, and no answer returns a branch's
    thoughts."""
    assert_delivered(
        host, evidence, "CLM-3", "- Not every thought needs to build linearly - you can branch or backtrack"
    )
    check_readme(target, evidence, "CLM-3")

    @given(envelope=envelopes, label=st.text(alphabet="bcd", min_size=1, max_size=3))
    @probe_examples(where=lambda e: e in TEXT_ENVELOPES, label="b")
    def labels_only(envelope: Envelope, label: str) -> None:
        branch_id = f"clm3-{label}"
        marker = f"⟦clm3 {uuid.uuid4().hex}⟧"
        filed = Envelope(
            marker, envelope.thought_number, envelope.total_thoughts, envelope.next_thought_needed
        )
        branched = server.call(filed.arguments(branchFromThought=1, branchId=branch_id))
        plain = server.call(envelope.arguments())
        assert branch_id in store(branched).branches, (
            f"branches is {brief(list(store(branched).branches))} after filing {branch_id!r}: "
            f"{describe(branched)}")
        assert without_count(branched) == without_count(plain), reanswered(
            without_count(plain), without_count(branched),
            f"for a call filed under branchId {branch_id!r}, beside the same call without it")
        assert marker not in json.dumps(plain.response, ensure_ascii=False), (
            f"a later answer quotes the branch thought {marker!r}: {describe(plain)}")

    labels_only()
    evidence.claim(
        "CLM-3",
        "bounded",
        "a branch is a label in the answer's list; its thoughts never come back; nothing backtracks",
    )


@evidences("CLM-4")
@relies_on("RTE-3", "OBJ-4", "RTE-4", "ABS-8", "RTE-1", "CMP-2", "OBJ-11", "RTE-7")
def test_clm_4_adjust_total(
    server: ServerSession, host: SdkDriver, target: Target, evidence: Evidence
) -> None:
    """Delivered (with a parameter name the schema lacks); the server only raises totalThoughts."""
    assert_delivered(host, evidence, "CLM-4", "- You can adjust total_thoughts up or down as you progress")
    check_readme(target, evidence, "CLM-4")

    @given(number=small_positive_integers, total=small_positive_integers)
    def upward_only(number: int, total: int) -> None:
        status = accepted(server.call(Envelope("t", number, total, True).arguments()))
        assert status["totalThoughts"] == max(number, total), (
            f"totalThoughts is {brief(status['totalThoughts'])} for thoughtNumber={number} and "
            f"totalThoughts={total} sent, not {max(number, total)}")

    upward_only()
    evidence.claim(
        "CLM-4",
        "bounded",
        "the server raises totalThoughts to thoughtNumber and never lowers it; 'down' is only the "
        "caller sending a smaller number",
    )


@evidences("CLM-5")
@relies_on("RTE-3", "RTE-5", "OBJ-4", "ABS-2", "RTE-1", "CMP-2", "OBJ-11", "RTE-7")
def test_clm_5_maintain_context(
    server: ServerSession, host: SdkDriver, target: Target, evidence: Evidence
) -> None:
    """Delivered; no retained thought ever returns - only a process-lifetime count and a label list carry
    over."""
    assert_delivered(host, evidence, "CLM-5", "- Tasks that need to maintain context over multiple steps")
    check_readme(target, evidence, "CLM-5")

    @given(envelope=envelopes)
    @probe_examples(where=lambda e: e in TEXT_ENVELOPES)
    def no_content_returns(envelope: Envelope) -> None:
        marker = f"{envelope.thought} ⟦{uuid.uuid4().hex}⟧"
        first = server.call(Envelope(marker, 1, 2, True).arguments())
        second = server.call(Envelope("next step", 2, 2, False).arguments())
        restart = server.call(Envelope("a new episode", 1, 1, False).arguments())
        for exchange in (first, second, restart):
            assert marker not in json.dumps(exchange.response, ensure_ascii=False), (
                f"an answer quotes an earlier thought {marker!r}: {describe(exchange)}")
            assert list(accepted(exchange)) == STATUS_KEYS, (
                f"{fields_unlike(list(accepted(exchange)), STATUS_KEYS, 'an answer')}: {describe(exchange)}")
        assert store(restart).history_length == store(second).history_length + 1 > 1, (
            f"thoughtHistoryLength is {store(second).history_length}, then {store(restart).history_length} "
            f"on an episode restarting at thoughtNumber 1: {describe(restart)}")

    no_content_returns()
    evidence.claim(
        "CLM-5",
        "unsupported",
        "no retained thought content is ever returned; only a process-lifetime count and the branch "
        "labels carry over between calls",
    )


@evidences("CLM-6")
@relies_on("RTE-3", "RTE-5", "OBJ-4", "ABS-9", "RTE-9", "CMP-5", "RTE-1", "CMP-2", "OBJ-11", "RTE-7")
def test_clm_6_filter_irrelevant(
    server: ServerSession, host: SdkDriver, target: Target, evidence: Evidence
) -> None:
    """Delivered; nothing is filtered, summarized or selected - answers keep the five fields whatever the
    content."""
    assert_delivered(
        host, evidence, "CLM-6", "- Situations where irrelevant information needs to be filtered out"
    )
    check_readme(target, evidence, "CLM-6")

    @given(relevant=claim_like_texts)
    def nothing_filtered(relevant: str) -> None:
        start = server.probe().history_length
        for offset, text in enumerate((relevant, "IRRELEVANT: the weather is nice."), start=1):
            exchange = server.call(Envelope(text, 1, 1, True).arguments())
            assert list(accepted(exchange)) == STATUS_KEYS, (
                f"{fields_unlike(list(accepted(exchange)), STATUS_KEYS, 'an answer')}: {describe(exchange)}")
            expect_count(store(exchange).history_length, start + offset, (
                f"thoughtHistoryLength is {store(exchange).history_length} after accepted call {offset} of 2 "
                f"from {start}, not {start + offset}: {describe(exchange)}"))
            box = drawn_box(exchange)  # nothing drawn with the switch set: RTE-9's and CMP-5's departure
            assert box is None or text in box.text, (
                f"the render does not show the thought {brief(text, 80)}: {quoted(box.text, 300)}")

    nothing_filtered()
    evidence.claim(
        "CLM-6",
        "unsupported",
        "no filtering, selection or condensation: every thought is counted and "
        "rendered whole, and answers keep the same five fields",
    )


@evidences("CLM-7")
@relies_on("RTE-3", "OBJ-4", "RTE-1", "CMP-2", "OBJ-11", "RTE-7")
def test_clm_7_provides_a_tool(
    server: ServerSession, host: SdkDriver, target: Target, evidence: Evidence
) -> None:
    """Delivered (README line 4, description line 1); the callable tool is served with a structured schema
    (a tool a fork lists beside it is RTE-1's) - supported in the literal reading; the thinking is the
    caller's."""
    lines = content_lines(delivered_description(host))
    opening = "A detailed tool for dynamic and reflective problem-solving through thoughts."
    found = lines_stating(lines, opening)
    assert found, f"the description does not state {opening!r}; its first line is {brief(lines[0])}"
    evidence.claim("CLM-7", "observed-delivered", f"description {where(found, 1)}: {opening!r}")
    check_readme(target, evidence, "CLM-7")
    schema = delivered_tool(host).input_schema
    assert schema.get("type") == "object", (
        f"the tool's inputSchema has type {brief(schema.get('type'))}, not 'object'")
    assert len(schema.get("properties", {})) == 9, (
        f"the inputSchema has {len(schema.get('properties', {}))} properties, not 9")
    accepted(server.call(Envelope("a structured step", 1, 2, True).arguments()))
    through_host = host.call_tool(TOOL, Envelope("through a host", 1, 1, False).arguments())
    assert not through_host.is_error, (
        f"a call through the official client was refused: {brief(through_host.model_dump(mode='json'))}")
    evidence.claim(
        "CLM-7",
        "supported",
        "exactly one callable tool with a structured input schema is served and answers calls; the "
        "problem-solving itself happens in the caller",
    )
