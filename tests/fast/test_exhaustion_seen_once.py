"""A departure whose every failure is the refusal a process gives once its state ran out is seen once, not new
(gate/pinned.py `settle_unlisted`, gate/signatures.py `exhaustion_refusal`), issue 43.

fork-bounded-session refuses every call once a process holds 100 thoughts. Which check the suite's shared
process happens to exhaust it on differs from seed to seed: OBJ-4/a2 under dev seed 1 (its check goes through
the SDK host, which keeps no call sequence to replay), written into the baseline and stale under the next
seed; OBJ-13, ABS-2 and ABS-2/a1 new under ci 11, their sequences past the replay budget. Their own witnesses
answer as the original's on fresh processes; the refusal is the store's bound (RTE-5's departure), not theirs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from conformance.catalog.records import default_catalog
from conformance.gate.pinned import BOUND_RECORD, PinnedReplay, refused_by_exhaustion, settle_unlisted
from conformance.gate.signatures import Exhaustion, exhaustion_refusal
from conformance.report.model import Evidence, RecordVerdict, TestRef, WitnessAnswer
from conformance.targets.specs import resolve_target

SERVERS = Path(__file__).resolve().parents[1] / "servers"
CANONICAL = {r.id: r.id for r in default_catalog().records}
REFUSAL = json.dumps({"error": "Thought limit reached (100)", "status": "failed"}, indent=2)
LIMIT = Exhaustion(100, REFUSAL)
REJECTED = ('call was rejected: {"result": {"content": [{"type": "text", "text": '
            + json.dumps(REFUSAL) + '}], "isError": true}, "jsonrpc": "2.0", "id": 252}')
"""How the suite's wire checks say it (OBJ-13's failure under ci 11)."""
HOSTED = f"meta=None content=[TextContent(type='text', text={REFUSAL!r}, annotations=None)] is_error=True"
"""How a check through the SDK host says it (OBJ-4/a2's under dev seed 1)."""
NO_STATUS = "no key 'thoughtHistoryLength' where the check read one"
"""A check that read the count from the refusal (ABS-11's test_nothing_resets_the_store under ci 11)."""
PLAIN = [WitnessAnswer(step="plain", answer='{"result":{"isError":false}}')]
OWN_ONLY = Evidence(reproduced=False, original_spec="npm:0.6.2", own_failure=True, why="no call sequence")
PAST_BUDGET = Evidence(reproduced=False, original_spec="npm:0.6.2", why="not replayed", not_replayed="budget")
REPRODUCED = Evidence(reproduced=True, original_spec="npm:0.6.2", differences=["isError: false, true"])


def _rv(record: str, messages: list[str], evidence: Evidence | None) -> RecordVerdict:
    tests = [TestRef(nodeid=f"t{i}", status="failed", examples=1, message=m) for i, m in enumerate(messages)]
    return RecordVerdict(id=record, kind="obj", aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict="deviates", evidence_before="implemented", evidence_after="observed",
                         signature="0" * 64, witness=PLAIN, evidence=evidence, reason="r", tests=tests)


def _settle(verdicts: list[RecordVerdict], own: dict[str, frozenset[str]],
            found: Exhaustion | None = LIMIT) -> tuple[dict[str, str], dict[str, str], int]:
    asked: list[int] = []

    def exhausted() -> Exhaustion | None:
        asked.append(1)
        return found

    covered, once = settle_unlisted(verdicts, PinnedReplay(own=own), CANONICAL, exhausted=exhausted)
    return covered, once, len(asked)


def test_failures_that_are_the_exhaustion_refusal_with_a_witness_like_the_originals_are_seen_once() -> None:
    verdicts = [_rv("OBJ-4/a2", [HOSTED], OWN_ONLY), _rv("OBJ-13", [REJECTED], PAST_BUDGET),
                _rv("ABS-2/a1", [f"unreliable: an example failed, then passed when run again: {REJECTED}"],
                    PAST_BUDGET),
                _rv("ABS-11", [NO_STATUS, REJECTED], PAST_BUDGET)]
    covered, once, asked = _settle(verdicts, {rv.id: frozenset() for rv in verdicts})
    assert set(once) == {"OBJ-4/a2", "OBJ-13", "ABS-2/a1", "ABS-11"} and not covered
    assert "accepted 100 calls" in once["OBJ-13"] and "Thought limit reached (100)" in once["OBJ-13"]
    assert asked == 1  # one fresh process asked, for all of them


def test_a_departure_stays_new_when_anything_but_the_refusal_tells_it() -> None:
    """Its witness differs from the original's; a failure of another kind beside the refusal; its example
    reproduced on fresh processes; the target never refuses on a fresh process: not seen once."""
    verdicts = [_rv("OBJ-13", [REJECTED], PAST_BUDGET),
                _rv("RTE-3", [REJECTED, "no key 'isError' where the check read one"], PAST_BUDGET),
                _rv("ABS-2", [REJECTED], REPRODUCED)]
    own = {"OBJ-13": frozenset({"stderr"}), "RTE-3": frozenset(), "ABS-2": frozenset()}
    _, once, _ = _settle(verdicts, own)
    assert once == {}
    _, once, _ = _settle([_rv("OBJ-13", [REJECTED], PAST_BUDGET)], {"OBJ-13": frozenset()}, found=None)
    assert once == {}


NOT_AGAIN = Evidence(reproduced=False, original_spec="npm:0.6.2", no_difference=True, why="nothing again")


def test_the_bound_itself_is_confirmed_by_the_fresh_process_that_runs_out() -> None:
    """RTE-5 ("no size bound"): its checks met an exhausted process, and their examples replay alike on fresh
    processes; the fresh process that refuses after 100 calls confirms it, so it stays new. Without a
    bound found, the same evidence is seen once."""
    bound = [_rv(BOUND_RECORD, [REJECTED, "no key 'thoughtHistoryLength' where the check read one"],
                 NOT_AGAIN)]
    _, once, _ = _settle(bound, {BOUND_RECORD: frozenset()})
    assert once == {}
    _, once, _ = _settle(bound, {BOUND_RECORD: frozenset()}, found=None)
    assert set(once) == {BOUND_RECORD}


@given(words=st.text(st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="\\\"'"),
                     min_size=8, max_size=40).filter(lambda w: w.strip() == w))
def test_the_refusal_is_found_however_a_check_quoted_it(words: str) -> None:
    refusal = json.dumps({"error": words, "status": "failed"}, indent=2, ensure_ascii=False)
    for message in (f"call was rejected: {json.dumps(refusal)}", f"text={refusal!r}", refusal):
        assert refused_by_exhaustion(_rv("OBJ-13", [message], None), refusal)
    assert not refused_by_exhaustion(_rv("OBJ-13", ["call was rejected: something else entirely"], None),
                                     refusal)


def test_a_fresh_process_that_runs_out_says_when_and_how() -> None:
    bounded = resolve_target(f"cmd:{sys.executable} {SERVERS / 'session_limit.py'} 12")
    found = exhaustion_refusal(bounded, timeout=20)
    assert found is not None and found.accepted == 12 and "Thought limit reached (12)" in found.refusal
    refuses_at_once = resolve_target(f"cmd:{sys.executable} {SERVERS / 'session_limit.py'} 0")
    assert exhaustion_refusal(refuses_at_once, timeout=20) is None  # its refusal is its behaviour
    never = resolve_target(f"cmd:{sys.executable} {SERVERS / 'renamed_count.py'}")
    assert exhaustion_refusal(never, timeout=20, calls=250) is None
