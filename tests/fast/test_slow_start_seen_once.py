"""A check whose process did not answer initialize in time on a loaded machine is seen once, not a new
departure, when fresh processes answer the record's own witness as the original's (gate/pinned.py
`settle_unlisted`, issue 43).

fork-multilingual (held-out-multi-14, changes about labels and the box only) was gated under ci 22 with a
baseline written under dev 1, at load 20: CMP-4 and LOOP-A were new, each check failing with "no answer to
initialize within 10.0s" (a raw process of the pool starting too slowly), where every other cell saw them
hold. Their witnesses, signed on fresh processes, answered as the original's.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.catalog.records import default_catalog
from conformance.gate.pinned import NOT_CONFIRMED, PinnedReplay, settle_unlisted
from conformance.report.model import Evidence, RecordVerdict, TestRef, WitnessAnswer

CANONICAL = {r.id: r.id for r in default_catalog().records}
RAW = "no answer to initialize within 10.0s"
"""How the suite's raw processes say it (suite/rawproc `request`; the ci 22 report's words)."""
WIRE = "no answer to 'initialize' within 10s"
"""How the wire driver says it (drivers/errors `ServerTimeout`)."""
WITNESS = [WitnessAnswer(step="banner", answer='"Sequential Thinking MCP Server running on stdio\\n"'),
           WitnessAnswer(step="plain", answer='{"result":{"isError":false}}')]
WATCHED = Evidence(reproduced=False, original_spec="npm:0.6.2", own_failure=True,
                   why="its checks read the installed files or watch the process and kept no call sequence")


def _rv(record: str, messages: list[str], *, witness: list[WitnessAnswer] | None = None,
        evidence: Evidence | None = WATCHED) -> RecordVerdict:
    tests = [TestRef(nodeid=f"t{i}", status="failed", examples=1, message=m) for i, m in enumerate(messages)]
    return RecordVerdict(id=record, kind="obj", aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict="deviates", evidence_before="implemented", evidence_after="observed",
                         signature="0" * 64, witness=WITNESS if witness is None else witness,
                         evidence=evidence, reason=messages[0], tests=tests)


def _settle(verdicts: list[RecordVerdict],
            own: dict[str, frozenset[str]]) -> tuple[dict[str, str], dict[str, str]]:
    return settle_unlisted(verdicts, PinnedReplay(own=own), CANONICAL)


def test_the_ci_22_cell_slow_starts_are_seen_once() -> None:
    verdicts = [_rv("CMP-4", [RAW]), _rv("LOOP-A", [RAW, RAW])]
    covered, once = _settle(verdicts, {"CMP-4": frozenset(), "LOOP-A": frozenset()})
    assert set(once) == {"CMP-4", "LOOP-A"} and not covered
    assert once["CMP-4"].startswith(NOT_CONFIRMED) and "initialize in time" in once["CMP-4"]


@given(seconds=st.floats(min_value=0.1, max_value=600, allow_nan=False).map(lambda s: round(s, 1)),
       wire=st.booleans())
def test_either_drivers_words_for_any_timeout_are_a_slow_start(seconds: float, wire: bool) -> None:
    message = (f"no answer to 'initialize' within {seconds:g}s" if wire
               else f"no answer to initialize within {seconds}s")
    _, once = _settle([_rv("CMP-4", [message])], {"CMP-4": frozenset()})
    assert set(once) == {"CMP-4"}


@given(other=st.sampled_from([
    "no answer to tools/call within 10.0s",  # a call the server hangs on is its behaviour
    "4 requests in one write got 3 answer lines",
    "the server wrote “no answer to initialize within 1s” to stderr",  # a server's words, quoted
    "server exited with status 1",
]))
def test_a_departure_stays_new_when_anything_but_a_slow_start_tells_it(other: str) -> None:
    """Another failure beside it or alone; its witness differing from the original's; no witness signed;
    its example reproduced on fresh processes: not seen once."""
    reproduced = Evidence(reproduced=True, original_spec="npm:0.6.2", differences=["isError: false, true"])
    cases = [
        ([_rv("CMP-4", [RAW, other])], {"CMP-4": frozenset()}),
        ([_rv("CMP-4", [other])], {"CMP-4": frozenset()}),
        ([_rv("CMP-4", [RAW])], {"CMP-4": frozenset({"stderr"})}),
        ([_rv("CMP-4", [RAW], witness=[])], {"CMP-4": frozenset()}),
        ([_rv("CMP-4", [RAW], evidence=reproduced)], {"CMP-4": frozenset()}),
    ]
    for verdicts, own in cases:
        _, once = _settle(verdicts, own)
        assert once == {}, (verdicts[0].tests, own)
