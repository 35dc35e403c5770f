"""A box that only redraws the answer's changed label is the answer's difference: the entry pinning the label
dropped covers a departure whose pair also shows the box narrower (core/drawn_answer.py, issue 43).

fork-model-guard (held-out-multi-9) strips invisible characters from branch labels. Its dev seed 1 baseline
pinned OBJ-4/a1 on a call that owes no box ('"\\ufeff" dropped' from `branches`); under dev and relay seed 11
OBJ-15's check met the same label on a branching call, whose pair also showed the box one column narrower,
and the gate failed on "new OBJ-15". The pairs here are real: fresh processes of npm:0.6.2 and of the fork's
one change (its patch from tests/modified_servers/modifications.yaml), over stdio. The properties hold the
rule to the reference's own box (reference_server/thinking.py, in process): a label changed is drawn, a box
changed besides is not.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.catalog.records import default_catalog
from conformance.core.drawn_answer import box_draws_answer, drawn
from conformance.core.jsontypes import JSON
from conformance.gate import evidence
from conformance.gate.baseline import Baseline, BaselineEntry, evaluate_gate
from conformance.gate.pinned import evidence_keys
from conformance.gate.pinned_pairs import met_pairs, pinned_pair
from conformance.report.model import Evidence, RecordVerdict, Verdict
from reference_server.colour import Prefixes
from reference_server.thinking import SequentialThinkingServer
from tests.fresh_answers import TIMEOUT, built, original
from tests.modified_servers.servers import Modification, load_modifications
from tests.verdicts import judged

CANONICAL = {r.id: r.id for r in default_catalog().records}
PLAIN = Prefixes("🔄 Revision", "🌿 Branch", "💭 Thought")
INVISIBLE = re.compile("[\u200b-\u200d\u2060\ufeff\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""What the fork strips from a string branchId (its patch's character class)."""


def _stripping() -> Modification:
    """fork-model-guard's label change alone, as the fork patches npm:0.6.2's dist/index.js."""
    fork = next(m for m in load_modifications() if m.id == "fork-model-guard")
    change = next(c for c in fork.changes if c.id == "branch-labels-invisible-stripped")
    return Modification(id="fork-labels-stripped", set="tuning", change=change.change, patches=change.patches,
                        primary=change.primary)


def _frames(*calls: dict[str, JSON]) -> list[str]:
    hello = {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    frames = [json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}),
              json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})]
    return frames + [json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
        "name": "sequentialthinking", "arguments": arguments}}, ensure_ascii=False)
        for i, arguments in enumerate(calls, start=1)]


PLAIN_CALL: dict[str, JSON] = {"thought": "0", "thoughtNumber": 1, "totalThoughts": 1,
                               "nextThoughtNeeded": True}
BRANCHING: dict[str, JSON] = {**PLAIN_CALL, "branchFromThought": 1, "branchId": "\ufeff"}


def _pair(theirs: Any, ours: Any, record: str) -> Evidence:
    """The first differing request of a real replay, as the gate's evidence says it."""
    found = evidence._compared(theirs, ours, evidence._about([record]), fall_back=True)
    assert found is not None
    return evidence._pair(found, theirs, ours, "", "npm:0.6.2")


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Evidence, Evidence]:
    """OBJ-4/a1's pair as seed 1 pinned it (the label's call owes no box: the plain call after it shows the
    label dropped) and OBJ-15's as seed 11 met it (its branching call: label dropped, box narrower)."""
    fork = built(_stripping(), tmp_path_factory.mktemp("stripped") / "fork")
    theirs, ours = evidence._replay_both(original(), fork, _frames(BRANCHING, PLAIN_CALL), TIMEOUT)
    assert isinstance(theirs, list) and isinstance(ours, list), (theirs, ours)
    seed_11 = _pair(theirs, ours, "OBJ-15")
    seed_1 = _pair(theirs[1:], ours[1:], "OBJ-4/a1")  # from the plain call on: no box differs
    return seed_1, seed_11


def _rv(record: str, verdict: Verdict, found: Evidence | None = None) -> RecordVerdict:
    return judged(record, verdict, found, "branches differ")


def test_a_box_narrower_around_the_dropped_label_is_the_entrys_difference(
        pairs: tuple[Evidence, Evidence]) -> None:
    seed_1, seed_11 = pairs
    assert not any(d.startswith("stderr") for d in seed_1.differences), seed_1.differences
    boxed = [d for d in seed_11.differences if d.startswith("stderr")]
    assert boxed and all(drawn(d) for d in boxed) and "1 narrower" in boxed[0], seed_11.differences
    assert evidence_keys(seed_11.original, seed_11.target, seed_11.differences) == {"branches"}
    pair = pinned_pair(_rv("OBJ-4/a1", "deviates", seed_1))
    assert pair is not None
    baseline = Baseline(project="fork-model-guard", deviations=[
        BaselineEntry(record="OBJ-4/a1", reason="intended: invisible characters stripped", pair=pair)])
    verdicts = [_rv("OBJ-4/a1", "deviates", seed_1), _rv("OBJ-15", "deviates", seed_11)]
    covered, reobserved = met_pairs(verdicts, baseline, CANONICAL, {})
    assert covered == {"OBJ-15": "OBJ-4/a1"}
    gate = evaluate_gate(verdicts, baseline, baseline_path="b.yaml", canonical=CANONICAL, covered=covered,
                         reobserved=reobserved)
    assert gate.passed


# -- the rule, held to the reference's own box -------------------------------------------------------------

def _answered(label: str, thought: str = "a branch", boxed: Callable[[str], str] = str) -> tuple[JSON, str]:
    """The reference's answer and box for a branching call filing `label` (after a first thought)."""
    written: list[bytes] = []
    server = SequentialThinkingServer(PLAIN, written.append)
    server.process_thought({**PLAIN_CALL, "totalThoughts": 2})
    written.clear()
    text, _ = server.process_thought({"thought": thought, "thoughtNumber": 2, "totalThoughts": 2,
                                      "nextThoughtNeeded": False, "branchFromThought": 1, "branchId": label})
    answer: JSON = {"result": {"content": [{"type": "text", "text": text}]}}
    return answer, boxed(b"".join(written).decode())


LABELS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
INVISIBLES = st.text(st.sampled_from("\u200b\u200c\u200d\u2060\ufeff\u200e\u200f\u202a\u202e\u2066\u2069"),
                     min_size=1, max_size=3)


@given(head=LABELS, hidden=INVISIBLES, tail=LABELS)
def test_a_label_filed_without_its_invisible_characters_is_drawn_as_the_answer_says(
        head: str, hidden: str, tail: str) -> None:
    label = head + hidden + tail
    (a, box_a), (b, box_b) = _answered(label), _answered(INVISIBLE.sub("", label))
    assert box_draws_answer(box_a, box_b, a, b)


@given(head=LABELS, hidden=INVISIBLES, tail=LABELS)
def test_a_box_changed_besides_the_label_is_a_difference_of_its_own(head: str, hidden: str,
                                                                    tail: str) -> None:
    label = head + hidden + tail
    (a, box_a) = _answered(label)
    (b, box_b) = _answered(INVISIBLE.sub("", label), boxed=lambda box: box.replace("🌿 Branch", "🌿 BRANCH"))
    assert not box_draws_answer(box_a, box_b, a, b)
    (c, box_c) = _answered(INVISIBLE.sub("", label), thought="another branch")  # the thought is not answered
    assert not box_draws_answer(box_a, box_c, a, c)


def test_answers_alike_or_no_box_draw_nothing() -> None:
    (a, box_a), (b, box_b) = _answered("x"), _answered("x", boxed=lambda box: box.replace("x", "y"))
    assert not box_draws_answer(box_a, box_b, a, a)  # the answers agree: the box changed alone
    assert not box_draws_answer("Error: x\n", "Error: \n", a, b)  # no box on either side
    deep: JSON = {"text": "[" * 5000 + "]" * 5000}  # a hostile answer's text: read bounded, never raises
    assert not box_draws_answer(box_a, box_b, deep, b)
