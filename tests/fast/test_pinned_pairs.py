"""A baseline entry pins the call that made it depart, and a departure reproducing that difference through
another record's check is the entry's (gate/pinned_pairs.py, issue 43's branch-depth flap).

Round 10's blind branch-depth fork refused branches nested more than 2 deep. Its baseline, written under dev
seed 1, pinned RTE-3's canonical witness, not the depth-3 call that made RTE-3 depart; under dev seed 33
CMP-1's check met the same refusal and the gate failed with "new CMP-1". The pairs here are real: each side
is a fresh process of the fork (tests/modified_servers/branch_depth.py) or of npm:0.6.2, over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.catalog.records import default_catalog
from conformance.core.jsontypes import JSON
from conformance.gate.baseline import Baseline, BaselineEntry, ExplainedEntry, evaluate_gate
from conformance.gate.pinned_pairs import met_pairs, pair_difference, pinned_pair
from conformance.report.model import Evidence, RecordVerdict, Verdict
from conformance.targets.specs import Target
from tests.fresh_answers import built, original, reproduced
from tests.modified_servers.branch_depth import BRANCH_DEPTH, DEPTH_REFUSAL
from tests.modified_servers.servers import Modification, Patch
from tests.verdicts import judged

CANONICAL = {r.id: r.id for r in default_catalog().records}
OTHER_RULE = "Invalid branchFromThought: must be below thoughtNumber"
SECOND_REFUSAL = Modification(
    id="fork-branch-depth-and-order", set="tuning", change="the branch-depth fork, also refusing a branch "
    "point at or after its thought", patches=(*BRANCH_DEPTH.patches, Patch(
        find="            const validatedInput = this.validateThoughtData(input);\n",
        replace=("            const validatedInput = this.validateThoughtData(input);\n"
                 "            if (validatedInput.branchFromThought >= validatedInput.thoughtNumber) {\n"
                 f"                throw new Error('{OTHER_RULE}');\n"
                 "            }\n"))),
    primary=("RTE-3",))
"""A copy of the fork with a second refusal naming the same field in other words: another change."""


def _call(number: int, *, source: int | None = None, label: str = "") -> dict[str, JSON]:
    arguments: dict[str, JSON] = {"thought": f"step {number}", "thoughtNumber": number, "totalThoughts": 12,
                                  "nextThoughtNeeded": True}
    if source is not None:
        arguments |= {"branchFromThought": source, "branchId": label}
    return arguments


NESTED_FROM_ONE = [_call(1), _call(2, source=1, label="a"), _call(3, source=2, label="b"),
                   _call(4, source=3, label="c")]
"""RTE-3's example under seed 1: the third nesting, refused."""
NESTED_FROM_FIVE = [_call(5), _call(6, source=5, label="p"), _call(8, source=6, label="q"),
                    _call(11, source=8, label="r")]
"""CMP-1's under seed 33: other numbers and labels, the same refusal."""
BRANCH_POINT_AFTER = [_call(1), _call(2, source=5, label="x")]
"""The copy's second rule: refused in other words, naming the same field."""


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> tuple[Target, Target, Target]:
    folder = tmp_path_factory.mktemp("branch-depth")
    return original(), built(BRANCH_DEPTH, folder / "fork"), built(SECOND_REFUSAL, folder / "copy")


def _rv(record: str, verdict: Verdict, evidence: Evidence | None = None) -> RecordVerdict:
    return judged(record, verdict, evidence, "call was rejected")


def _baseline(pinned: Evidence) -> Baseline:
    """Written under seed 1: RTE-3's entry with its reproduced pair, OBJ-3 folded under it."""
    pair = pinned_pair(_rv("RTE-3", "deviates", pinned))
    assert pair is not None
    return Baseline(project="modified-fork-branch-depth", deviations=[BaselineEntry(
        record="RTE-3", reason="intended: branches nest at most 2 deep", pair=pair,
        explains=[ExplainedEntry(record="OBJ-3")])])


def _gate(verdicts: list[RecordVerdict], baseline: Baseline) -> tuple[dict[str, str], dict[str, str], bool]:
    covered, reobserved = met_pairs(verdicts, baseline, CANONICAL, {})
    gate = evaluate_gate(verdicts, baseline, baseline_path="b.yaml", canonical=CANONICAL, covered=covered,
                         reobserved=reobserved)
    return covered, reobserved, gate.passed


def test_the_same_refusal_met_by_another_check_is_the_entrys(sides: tuple[Target, Target, Target]) -> None:
    theirs, fork, _ = sides
    seed_1 = reproduced(theirs, fork, NESTED_FROM_ONE)
    seed_33 = reproduced(theirs, fork, NESTED_FROM_FIVE)
    assert seed_1.reproduced and DEPTH_REFUSAL in seed_1.target and seed_33.reproduced
    baseline = _baseline(seed_1)
    # Under seed 33 the search missed RTE-3's and OBJ-3's depth-3 calls; CMP-1's check met one.
    verdicts = [_rv("RTE-3", "holds"), _rv("OBJ-3", "holds"), _rv("CMP-1", "deviates", seed_33)]
    covered, reobserved, passed = _gate(verdicts, baseline)
    assert covered == {"CMP-1": "RTE-3"}
    assert set(reobserved) == {"RTE-3", "OBJ-3"} and "CMP-1's check met it" in reobserved["RTE-3"]
    assert passed
    # Without the pinned pair (round 10's baseline): new CMP-1 and a stale entry.
    bare = Baseline(project=baseline.project, deviations=[
        baseline.deviations[0].model_copy(update={"pair": None})])
    assert _gate(verdicts, bare) == ({}, {}, False)


def test_entries_of_two_roots_pinning_one_difference_are_both_re_observed(
        sides: tuple[Target, Target, Target]) -> None:
    """Two entries, not folded together, each pinned the same refusal (strict-schema: OBJ-4's probe and
    OBJ-4/a2's official-client check both met the blank thought refused); a run whose search reached
    neither, while a third record's check met that refusal, re-observes both, not only the first written."""
    theirs, fork, _ = sides
    seed_1 = reproduced(theirs, fork, NESTED_FROM_ONE)
    first = _baseline(seed_1)
    pair = first.deviations[0].pair
    baseline = Baseline(project=first.project, deviations=[
        *first.deviations,
        BaselineEntry(record="OBJ-4/a2", reason="the same refusal, met by the host", pair=pair)])
    verdicts = [_rv("RTE-3", "holds"), _rv("OBJ-3", "holds"), _rv("OBJ-4/a2", "holds"),
                _rv("CMP-1", "deviates", reproduced(theirs, fork, NESTED_FROM_FIVE))]
    covered, reobserved, passed = _gate(verdicts, baseline)
    assert covered == {"CMP-1": "RTE-3"}
    assert set(reobserved) == {"RTE-3", "OBJ-3", "OBJ-4/a2"}, reobserved
    assert passed


def test_another_refusal_of_the_same_field_stays_new(sides: tuple[Target, Target, Target]) -> None:
    """The copy with a second rule: its refusal names branchFromThought too, in other words."""
    theirs, fork, copy = sides
    baseline = _baseline(reproduced(theirs, fork, NESTED_FROM_ONE))
    other = reproduced(theirs, copy, BRANCH_POINT_AFTER)
    assert other.reproduced and OTHER_RULE in other.target
    verdicts = [_rv("RTE-3", "holds"), _rv("OBJ-3", "holds"), _rv("CMP-1", "deviates", other)]
    assert _gate(verdicts, baseline) == ({}, {}, False)
    # The copy still refuses the third nesting: that departure is the entry's, the other rule is not.
    both = [_rv("RTE-3", "deviates", reproduced(theirs, copy, NESTED_FROM_FIVE)), _rv("OBJ-3", "holds"),
            _rv("CMP-1", "deviates", other)]
    covered, _, passed = _gate(both, baseline)
    assert "CMP-1" not in covered and not passed


def test_the_original_is_still_stale(sides: tuple[Target, Target, Target]) -> None:
    theirs, fork, _ = sides
    baseline = _baseline(reproduced(theirs, fork, NESTED_FROM_ONE))
    same = reproduced(theirs, theirs, NESTED_FROM_FIVE)
    assert not same.reproduced
    verdicts = [_rv("RTE-3", "holds"), _rv("OBJ-3", "holds"), _rv("CMP-1", "holds", same)]
    assert _gate(verdicts, baseline) == ({}, {}, False)


def test_a_pair_not_where_its_checks_failed_is_not_pinned() -> None:
    """Another change showing first on a record's sequence is no pair of its own (`not_its_failure`)."""
    pair = Evidence(reproduced=True, original_spec="npm:0.6.2", original='{"result":{}}',
                    target='{"error":{}}', not_its_failure=True)
    assert pinned_pair(_rv("RTE-3", "deviates", pair)) is None
    own = pair.model_copy(update={"not_its_failure": False})
    assert pinned_pair(_rv("RTE-3", "deviates", own)) is not None
    long = pair.model_copy(update={"not_its_failure": False, "target": '{"x":"' + "y" * 20_000 + '"}'})
    assert pinned_pair(_rv("RTE-3", "deviates", long)) is None


_ACCEPTED = '{"jsonrpc":"2.0","result":{"content":[{"text":"{}","type":"text"}]}}'


def _refused(words: str) -> str:
    text = json.dumps({"error": words, "status": "failed"})
    content = [{"text": text, "type": "text"}]
    return json.dumps({"jsonrpc": "2.0", "result": {"content": content, "isError": True}})


@given(a=st.integers(0, 10**6), b=st.integers(0, 10**6),
       rule=st.sampled_from(["nest at most {} deep", "at most {} thoughts per 10 seconds", "{} is too far"]),
       other=st.sampled_from(["must be below {}", "{} labels at most"]))
def test_a_refusal_is_the_same_difference_whatever_its_numbers_and_another_in_other_words(
        a: int, b: int, rule: str, other: str) -> None:
    first = pair_difference(_ACCEPTED, _refused(f"Invalid branchFromThought: {rule.format(a)}"), [])
    again = pair_difference(_ACCEPTED, _refused(f"Invalid branchFromThought: {rule.format(b)}"), [])
    elsewhere = pair_difference(_ACCEPTED, _refused(f"Invalid branchFromThought: {other.format(a)}"), [])
    assert first == again and first != elsewhere
    boxed = pair_difference(_ACCEPTED, _refused(f"x {rule.format(a)}"), ["stderr: a box here, none there"])
    assert boxed == pair_difference(_ACCEPTED, _refused(f"x {rule.format(b)}"), [])


def test_the_benchmark_builds_the_fork_it_measures(tmp_path: Path) -> None:
    from benchmarks.flap import FORKS, build

    assert FORKS["branch-depth"] == (BRANCH_DEPTH.id,)
    spec = build("branch-depth", tmp_path)
    assert DEPTH_REFUSAL in Path(spec.split()[-1]).read_text(encoding="utf-8")
