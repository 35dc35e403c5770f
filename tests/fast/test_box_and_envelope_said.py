"""Sentences about boxes and status fields are true whatever form a fork gives them (issue 42, multi-7):
an ASCII box is said as "no box in the original's form", never "0 box(es)" (fork-ascii-console's LOOP-B);
a count moved under an envelope's `result` is said as absent at the top level and found there, never "null",
and a call not flagged isError is accepted, whatever its text holds (fork-api-envelope's CMP-1 and LOOP-A).
The servers are real processes (tests/servers/reference_fork.py `ascii-box`, `enveloped`)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.core.jsontypes import JSON, OMIT
from conformance.core.key_paths import absent_said, found_at
from conformance.core.served import status_block
from conformance.suite.answers import rejected, store
from conformance.suite.contradiction import Contradiction
from conformance.suite.fresh_runs import state_of_answer
from conformance.suite.render_box import boxes_said
from conformance.suite.test_lifecycle import _status_answer
from tests.servers import VALID, command, fork_session

_CALLS = [{"thought": "hi", "thoughtNumber": 1, "totalThoughts": 2, "nextThoughtNeeded": True},
          {"thought": "", "thoughtNumber": 2, "totalThoughts": 2, "nextThoughtNeeded": False}]
"""An accepted call, then one the original refuses (isError)."""


def _session(*fork: str) -> tuple[list[dict[str, Any]], bytes]:
    """The tools/call answers of a real server process to `_CALLS`, and its whole stderr."""
    frames: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2024-11-05", "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *({"jsonrpc": "2.0", "id": i, "method": "tools/call",
           "params": {"name": "sequentialthinking", "arguments": a}} for i, a in enumerate(_CALLS, 1))]
    launched = command("reference_fork", *fork) if fork else [sys.executable, "-m", "reference_server"]
    ran = subprocess.run(launched, input=b"".join(json.dumps(f).encode() + b"\n" for f in frames),
                         capture_output=True, timeout=120, check=False)
    answers = [json.loads(line) for line in ran.stdout.splitlines() if line.strip()]
    return [a for a in answers if a.get("id") in (1, 2)], ran.stderr


def test_an_ascii_box_is_said_as_no_box_in_the_originals_form() -> None:
    answers, stderr = _session("ascii-box")
    assert not answers[0]["result"].get("isError") and answers[1]["result"].get("isError"), answers
    said = boxes_said(stderr)
    assert said.startswith("no box in the original's form (stderr: "), said
    assert "+---" in said and "0 box" not in said, said
    assert boxes_said(stderr, show=False) == "no box in the original's form"


def test_the_originals_box_is_counted() -> None:
    _, stderr = _session()
    assert boxes_said(stderr) == "1 box(es)"


def test_an_enveloped_status_is_said_where_it_is_and_accepted() -> None:
    answers, _ = _session("enveloped")
    accepted, refused = answers
    assert _status_answer(accepted["result"]) and not _status_answer(refused["result"])
    with pytest.raises(AssertionError) as failed:
        state_of_answer(accepted)
    said = str(failed.value)
    assert "null" not in said, said
    assert ("no thoughtHistoryLength and no branches at the top level (they are at "
            "`result.thoughtHistoryLength`, `result.branches`)") in said, said


def test_an_enveloped_refusal_is_said_in_json_with_where_its_message_is() -> None:
    """A refusal's message under `error.message` is said there, the answer as JSON: never a Python repr
    ("error object without a message: {'ok': False, …}", round 12's CMP-2/a2)."""
    with fork_session("enveloped", 20.0) as session:
        with pytest.raises(Contradiction) as raised:
            rejected(session.call({**VALID, "thought": ""}))
        with pytest.raises(Contradiction) as crashed:
            rejected(session.call(OMIT))
    # A crash's words are said whole, however long the envelope around them: they tie the refusal to a
    # crash cause's (cut inside a dump, they split RTE-8 off OBJ-8's cause on fork-api-envelope).
    assert "Cannot read properties of undefined (reading 'thought')\")" in str(crashed.value), crashed.value
    said = str(raised.value)
    assert raised.value.record == "OBJ-8", said
    assert "(its message is at `error.message`: \"Invalid thought: must be a string\")" in said, said
    assert '"ok": false' in said and "'ok'" not in said and "False" not in said, said


_keys = st.text(alphabet="abcdefgh", min_size=1, max_size=4)
_json = st.recursive(st.none() | st.integers() | st.text(max_size=4),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_keys, inner, max_size=3),
                     max_leaves=12)


@given(st.dictionaries(_keys, _json, max_size=4), st.lists(_keys, min_size=1, max_size=3), _json)
def test_a_key_is_found_where_it_was_put(top: dict[str, JSON], path: list[str], value: JSON) -> None:
    """A key put under an envelope of fresh names is found at a path no longer than the one it was put at,
    and that path leads to the key; at the top level it is no moved key."""
    key = "countX"
    nested: JSON = {key: value}
    for name in reversed(path):
        nested = {name: nested}
    found = found_at({**top, **nested} if isinstance(nested, dict) else top, key)
    assert found is not None and found.endswith(key) and found.count(".") <= len(path)
    assert found_at({key: 1}, key) is None
    assert absent_said({"a": 1}, key) == f"no {key} at the top level"


def test_a_summary_block_put_first_is_read_past() -> None:
    """A fork answering "Thought n of m recorded; …" before its status JSON (held-out-multi-4's
    fork-progress-meter): every check reads the status in the later block (`Exchange.text`,
    `state_of_answer`), so no record says "text is not JSON"; the extra block is OBJ-4's own check's."""
    with fork_session("summary-first", 20.0) as session:
        first = session.call(dict(VALID))
        content = first.result["content"] if first.result else None
        assert isinstance(content, list) and len(content) == 2, first.response
        counted = store(first).history_length
        assert store(session.call(dict(VALID))).history_length == counted + 1
        assert rejected(session.call({**VALID, "thought": ""})) == "Invalid thought: must be a string"
    answers, _ = _session("summary-first")
    assert state_of_answer(answers[0]).history_length == 1


@given(st.lists(st.sampled_from(["Thought 1 of 2 recorded.", '{"a": 1}', "[1]", "```json\n{}\n```", "3"]),
                min_size=1, max_size=4))
def test_the_status_block_is_the_first_unless_it_reads_as_no_json(texts: list[str]) -> None:
    """The first block is read unless it is no JSON; then the first later block holding a JSON object."""
    chosen = status_block(texts)
    if texts[0] != "Thought 1 of 2 recorded.":
        assert chosen == 0
    else:
        objects = [i for i, t in enumerate(texts) if i and t in ('{"a": 1}', "```json\n{}\n```")]
        assert chosen == (objects[0] if objects else 0)
