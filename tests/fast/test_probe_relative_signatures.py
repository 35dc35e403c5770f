"""A record's witness answers are read relative to the probe by the probe's own fields (gate/canonical.py,
`store_base`), not by the original's names: a fork that renames its history counter (fork-audit-clock's
`historyLength`) is signed the same whether the record is witnessed alone or after every other record.

Before, such a fork's probe read as "no store" and its answers kept the process's raw count and every label
earlier records had filed; LOOP-B, signed beside 59 departures in the baseline run and alone when its pinned
witness was replayed, came back with another count and went stale (and, the other way round, 51 entries came
back "changed" in a run where LOOP-B departed and was signed among them), issue 43.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from conformance.catalog.witnesses import default_witnesses
from conformance.core.jsontypes import JSON
from conformance.drivers.wire import Exchange
from conformance.gate.canonical import StoreBase, canonical_response, store_base
from conformance.gate.signatures import witness_signatures

SERVERS = Path(__file__).resolve().parents[1] / "servers"
RENAMED = SERVERS / "renamed_count.py"


def _answer(status: dict[str, JSON]) -> Exchange:
    response: dict[str, JSON] = {"jsonrpc": "2.0", "id": 1, "result": {
        "content": [{"type": "text", "text": json.dumps(status, indent=2, ensure_ascii=False)}]}}
    return Exchange("tools/call", {}, response, b"", 0.0, 0.0)


def _status(count_key: str, count: int, labels: list[str]) -> dict[str, JSON]:
    return {"thoughtNumber": 1, "totalThoughts": 3, "nextThoughtNeeded": True, "branches": list(labels),
            count_key: count}


@given(before=st.integers(min_value=0, max_value=10**6),
       earlier=st.lists(st.text(min_size=1, max_size=8), unique=True, max_size=6),
       grown=st.integers(min_value=1, max_value=20),
       key=st.sampled_from(["thoughtHistoryLength", "historyLength", "count"]))
def test_an_answer_reads_the_same_whatever_the_process_answered_before(
    before: int, earlier: list[str], grown: int, key: str
) -> None:
    """The record's own answer (`grown` thoughts since the probe, one label of its own) canonicalizes alike
    after any earlier count and labels, whatever the count's name."""
    probe = store_base(_status(key, before, earlier))
    assert probe is not None
    answer = canonical_response(_answer(_status(key, before + grown, [*earlier, "mine"])), probe)
    fresh = canonical_response(_answer(_status(key, grown, ["mine"])), store_base(_status(key, 0, [])))
    assert answer == fresh
    shown = answer["result"]["content"][0]["json"]  # type: ignore[call-overload,index]
    assert shown[key] == f"+{grown}" and shown["branches"] == ["mine"]


def test_the_originals_fields_read_as_before_and_echoes_are_kept() -> None:
    """The original's probe gives the same base as before (its count, its labels); the echoed thoughtNumber
    and totalThoughts (sent by the probe) are values, not counts; no status at all is no base."""
    probe = store_base(_status("thoughtHistoryLength", 7, ["a"]))
    assert probe == StoreBase({"thoughtHistoryLength": 7}, {"branches": frozenset({"a"})})
    shown = canonical_response(_answer(_status("thoughtHistoryLength", 9, ["a", "b"])), probe)
    assert shown["result"]["content"][0]["json"] == {  # type: ignore[call-overload,index]
        "thoughtNumber": 1, "totalThoughts": 3, "nextThoughtNeeded": True, "branches": ["b"],
        "thoughtHistoryLength": "+2"}
    assert store_base({"ok": True}) is None
    unread = canonical_response(_answer(_status("thoughtHistoryLength", 9, [])), None)
    assert unread["result"]["content"][0]["json"]["thoughtHistoryLength"] == "?"  # type: ignore[call-overload,index]


def test_a_renamed_counters_record_is_signed_alike_alone_and_after_every_other_record() -> None:
    """On a real process of a server answering `historyLength`: the last records' signatures alone equal
    theirs after every other record's witnesses (which add dozens of thoughts and labels before them)."""
    spec = f"cmd:{sys.executable} {RENAMED}"
    records = list(default_witnesses().records)
    signed = [rid for rid in records if default_witnesses().steps_of(rid)]
    # Each signing on processes of its own (the server keeps nothing outside them), side by side: the signing
    # of every record holds its idle witness's process 6 s (ABS-10's step), the others theirs a while.
    with ThreadPoolExecutor(5) as pool:
        signing = pool.submit(witness_signatures, spec, records, timeout=20)
        alone = {rid: pool.submit(witness_signatures, spec, [rid], timeout=20)
                 for rid in [*signed[-3:], "LOOP-B"]}
        among = signing.result()
    last = [rid for rid in records if rid in among][-3:]
    assert "LOOP-B" in among and last == signed[-3:], (last, signed[-3:])
    for rid in [*last, "LOOP-B"]:
        once = alone[rid].result()[rid]
        assert among[rid].signature == once.signature, (rid, among[rid].witness, once.witness)
    assert any('"historyLength":"+' in w.answer for w in among["LOOP-B"].witness)


@given(before=st.integers(min_value=0, max_value=10**6), grown=st.integers(min_value=1, max_value=20),
       revisions=st.integers(min_value=0, max_value=5),
       where=st.sampled_from([("summary", "thoughts"), ("stats", "stored"), ("meta", "history")]))
def test_a_count_inside_an_object_reads_the_same_whatever_the_process_answered_before(
    before: int, grown: int, revisions: int, where: tuple[str, str]
) -> None:
    """A count the status holds inside an object (fork-summaries' final answer: `summary.thoughts`, the
    history's size) is read relative to the probe's same count, as a top-level one is: its OBJ-14 witness,
    signed after more records on the same process through the relay, came back "changed" (held-out-multi-15).
    The probe's own arguments inside an object stay as sent."""
    outer, inner = where

    def status(count: int) -> dict[str, JSON]:
        return {**_status("thoughtHistoryLength", count, []),
                outer: {inner: count, "revisions": revisions, "thoughtNumber": 1}}

    answer = canonical_response(_answer(status(before + grown)), store_base(status(before)))
    fresh = canonical_response(_answer(status(grown)), store_base(status(0)))
    assert answer == fresh
    shown = answer["result"]["content"][0]["json"]  # type: ignore[call-overload,index]
    assert shown[outer] == {inner: f"+{grown}", "revisions": "+0", "thoughtNumber": 1}
