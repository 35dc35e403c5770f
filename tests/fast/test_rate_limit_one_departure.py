"""A time-dependent limit gives one verdict under every seed (gate/pinned.py `settle_unlisted`, issue 43).

held-out-multi-5's rate-limited fork refuses the 26th thought in ten seconds. Which records' checks run into
the limit depends on how fast the run's calls come, so on the seed and the load: under ci 11 OBJ-6, RTE-9,
CLM-4, ABS-7 ... were "new" against a dev seed 1 baseline. Their examples, replayed on a fresh process, run
into the limit again (25 calls come as fast there), so their pairs reproduce: the limit's refusal, in its own
words, is the bound's departure (RTE-5's), not theirs. A failure in other words, or a pair showing another
refusal, stays new. Both forks run for real: the catalogue's rate-limited fork and a copy with a second
refusal.
"""

from __future__ import annotations

import json

import pytest

from conformance.catalog.records import default_catalog
from conformance.core.jsontypes import JSON
from conformance.gate.baseline import BaselineEntry
from conformance.gate.pinned import BOUND_RECORD, LIMIT_REFUSED, NOT_CONFIRMED, PinnedReplay, settle_unlisted
from conformance.gate.signatures import Exhaustion, exhaustion_refusal
from conformance.report.model import Evidence, GateEntry, RecordVerdict, TestRef, WitnessAnswer
from conformance.report.text import LIMIT_REFUSED_WORDS, NOT_CONFIRMED_WORDS, seen_once_kinds
from conformance.targets.specs import Target
from tests.fresh_answers import built, original, reproduced
from tests.modified_servers.servers import Modification, Patch, load_modifications

CANONICAL = {r.id: r.id for r in default_catalog().records}
LIMIT_WORDS = "Rate limit exceeded: at most 25 thoughts per 10 seconds"
SECOND = "Invalid thought: a tag is not allowed here"
PLAIN = [WitnessAnswer(step="plain", answer='{"result":{"isError":false}}')]


def _fork() -> Modification:
    return next(m for m in load_modifications() if m.id == "fork-rate-limited")


def _copy() -> Modification:
    """The rate-limited fork refusing, besides, a thought that carries a hashtag."""
    fork = _fork()
    extra = Patch(find="            const validatedInput = this.validateThoughtData(input);\n",
                  replace=("            const validatedInput = this.validateThoughtData(input);\n"
                           "            if (validatedInput.thought.includes('#')) {\n"
                           f"                throw new Error('{SECOND}');\n"
                           "            }\n"))
    return Modification(id="fork-rate-limited-and-tags", set="tuning", change=fork.change + ", tags refused",
                        patches=(*fork.patches, extra), primary=())


def _call(number: int, thought: str = "step") -> dict[str, JSON]:
    return {"thought": f"{thought} {number}", "thoughtNumber": number, "totalThoughts": 30,
            "nextThoughtNeeded": True}


BURST = [_call(n) for n in range(1, 27)]
"""26 thoughts at once: the 26th is the first the limit refuses."""


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> tuple[Target, Target, Target, Exhaustion]:
    folder = tmp_path_factory.mktemp("rate-limited")
    fork = built(_fork(), folder / "fork")
    found = exhaustion_refusal(fork, timeout=30)
    assert found is not None and LIMIT_WORDS in found.refusal and found.accepted >= 25
    return original(), fork, built(_copy(), folder / "copy"), found


def _rv(record: str, messages: list[str], evidence: Evidence) -> RecordVerdict:
    tests = [TestRef(nodeid=f"t{i}", status="failed", examples=1, message=m) for i, m in enumerate(messages)]
    return RecordVerdict(id=record, kind="obj", aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict="deviates", evidence_before="implemented", evidence_after="observed",
                         signature="0" * 64, witness=PLAIN, evidence=evidence, reason="r", tests=tests)


def _rejected(evidence: Evidence) -> str:
    """How a wire check says it got the target's answer."""
    return f"call was rejected: {evidence.target}"


def _settle(verdicts: list[RecordVerdict], found: Exhaustion, *, bound_listed: bool
            ) -> tuple[dict[str, str], dict[str, str]]:
    members = ({BOUND_RECORD: (BOUND_RECORD, BaselineEntry(record=BOUND_RECORD, reason="intended"))}
               if bound_listed else {})
    replay = PinnedReplay(own={rv.id: frozenset() for rv in verdicts}, members=members,
                          pinned={BOUND_RECORD: frozenset()} if bound_listed else {})
    return settle_unlisted(verdicts, replay, CANONICAL, exhausted=lambda: found)


def test_the_limit_met_again_on_a_fresh_process_is_the_bounds_departure(
        sides: tuple[Target, Target, Target, Exhaustion]) -> None:
    theirs, fork, _, found = sides
    pair = reproduced(theirs, fork, BURST)
    assert pair.reproduced and LIMIT_WORDS in pair.target and pair.at.endswith("tools/call 26")
    verdicts = [_rv("OBJ-6", [_rejected(pair)], pair),
                _rv("CLM-4", [f"RTE-5 contradicted: the call was refused by a bound, {LIMIT_WORDS!r}"], pair)]
    covered, once = _settle(verdicts, found, bound_listed=True)
    assert covered == {"OBJ-6": BOUND_RECORD, "CLM-4": BOUND_RECORD} and once == {}
    # RTE-5 not listed: not gating, under the limit's own heading, not as unconfirmed.
    covered, once = _settle(verdicts, found, bound_listed=False)
    assert covered == {} and set(once) == {"OBJ-6", "CLM-4"}
    assert all(why.startswith(LIMIT_REFUSED) and NOT_CONFIRMED not in why for why in once.values())
    rows = [GateEntry(record=r, verdict="deviates", expected="holds", reason=w) for r, w in once.items()]
    assert [words for words, _ in seen_once_kinds(rows)] == [LIMIT_REFUSED_WORDS]


def test_a_failure_in_other_words_or_another_refusal_stays_new(
        sides: tuple[Target, Target, Target, Exhaustion]) -> None:
    theirs, fork, copy, found = sides
    limit = reproduced(theirs, fork, BURST)
    tagged = reproduced(theirs, copy, [_call(1, "tag #this")])
    assert tagged.reproduced and SECOND in tagged.target
    verdicts = [_rv("OBJ-6", [_rejected(limit), "branches is ['a'] after filing 'b'"], limit),
                _rv("RTE-9", [_rejected(tagged)], tagged),
                _rv("ABS-7", [_rejected(limit)], tagged)]
    for listed in (True, False):
        assert _settle(verdicts, found, bound_listed=listed) == ({}, {})


def test_the_copy_still_has_the_limit(sides: tuple[Target, Target, Target, Exhaustion]) -> None:
    """The copy's second refusal does not hide its limit: its burst's 26th call is refused in the limit's
    words, and that departure is the bound's."""
    theirs, _, copy, found = sides
    pair = reproduced(theirs, copy, BURST)
    assert LIMIT_WORDS in pair.target
    covered, _ = _settle([_rv("CLM-4", [_rejected(pair)], pair)], found, bound_listed=True)
    assert covered == {"CLM-4": BOUND_RECORD}


def test_the_seen_once_headings_keep_the_unconfirmed_apart() -> None:
    rows = [GateEntry(record="A", verdict="deviates", expected="holds", reason=f"{NOT_CONFIRMED}: x"),
            GateEntry(record="B", verdict="deviates", expected="holds", reason=f"{LIMIT_REFUSED}: y")]
    kinds = dict(seen_once_kinds(rows))
    assert [e.record for e in kinds[LIMIT_REFUSED_WORDS]] == ["B"]
    assert [e.record for e in kinds[NOT_CONFIRMED_WORDS]] == ["A"]
    assert json.dumps(sorted(kinds)) == json.dumps(sorted([LIMIT_REFUSED_WORDS, NOT_CONFIRMED_WORDS]))
