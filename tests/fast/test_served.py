"""What a server sends is read by one bounded reader (`core/served.py`): whatever the text (nested 200,000
deep, not JSON, not UTF-8, a million values), every path that reads a server's line or answer text returns
or raises its typed failure, never a RecursionError, and in time linear in the text (issue 45).

The time bounds are on this process's CPU seconds (`time.process_time`), not the wall clock: they bound the
reader's work, which a loaded machine does not change, where wall time grew past 20 s for one 300,000-deep
text under two busy loops and a load average of 25 (issue 43's flake hunt)."""

from __future__ import annotations

import contextlib
import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.calls.store import status_of
from conformance.compare.explain import _listed
from conformance.compare.observe import Base, observe
from conformance.core.differences import json_differences
from conformance.core.jsontypes import JSON
from conformance.core.served import SERVED_DEPTH, SERVED_VALUES, Unreadable, read_served
from conformance.drivers.errors import ProtocolViolation
from conformance.drivers.wire import BEYOND_LIMITS, NOT_JSON_RPC, Exchange, WireDriver
from conformance.gate.canonical import StoreBase, accepted_status, canonical_response
from conformance.suite.answers import answer_status, refusal_text, refused_as_invalid
from conformance.suite.contradiction import stdout_message


def _deep(levels: int, opener: str = "[") -> str:
    closer = {"[": "]", '{"a":': "}"}[opener]
    return opener * levels + ("0" if opener != "[" else "") + closer * levels


def _depth(value: object) -> int:
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            level += 1
            deepest = max(deepest, level)
            stack.extend((child, level) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


@pytest.mark.parametrize(("text", "said"), [
    (_deep(200_000), "nests deeper than 128 levels"),
    (_deep(100_000, '{"a":'), "nests deeper than 128 levels"),
    (_deep(SERVED_DEPTH + 1), "nests deeper than 128 levels"),
    ("this is not json: <html>502 Bad Gateway</html>", "is not JSON"),
    ("[NaN]", "is not JSON: NaN is not JSON"),
    ("[" + "0," * SERVED_VALUES + "0]", "holds more than 100,000 values"),
    ('{"a": 1} trailing', "is not JSON"),
])
def test_the_reader_refuses_each_hostile_shape_in_one_typed_line(text: str, said: str) -> None:
    started = time.process_time()
    with pytest.raises(Unreadable, match=said) as refused:
        read_served(text, "answer text")
    assert time.process_time() - started < 2, "CPU seconds"
    assert "\n" not in str(refused.value) and len(str(refused.value)) < 400


def test_the_reader_takes_what_a_conforming_server_sends() -> None:
    assert read_served(_deep(SERVED_DEPTH)) == json.loads(_deep(SERVED_DEPTH))
    assert read_served(b'{"jsonrpc":"2.0","id":1,"result":{"text":"[[[[[[[[[{{{{"}}') == {
        "jsonrpc": "2.0", "id": 1, "result": {"text": "[[[[[[[[[{{{{"}}
    assert read_served('"' + "x" * (1 << 20) + '"') == "x" * (1 << 20)
    with pytest.raises(Unreadable, match="not UTF-8"):
        read_served(b'"\xff"')
    with pytest.raises(Unreadable, match="longer than 10 bytes"):
        read_served("[1, 2, 3, 4]", limit=10)


def test_a_line_past_the_limits_is_the_targets_error_not_cmp4s() -> None:
    driver = WireDriver(["true"])
    with pytest.raises(ProtocolViolation) as deep:
        driver._parse(_deep(200_000).encode())
    assert str(deep.value).startswith(BEYOND_LIMITS)
    with pytest.raises(ProtocolViolation) as garbage:
        driver._parse(b"<html>")
    assert str(garbage.value).startswith(NOT_JSON_RPC)


_FRAGMENTS = st.sampled_from(["[", "]", "{", "}", '"a":', ",", "0", '"', "\\", "NaN", "1e400", " ", "\n"])
_HOSTILE = st.one_of(
    st.builds(_deep, st.integers(0, 300_000), st.sampled_from(["[", '{"a":'])),
    st.builds("".join, st.lists(_FRAGMENTS, max_size=400)),
    st.builds(lambda unit, n: unit * n, _FRAGMENTS, st.integers(0, 200_000)),
    st.builds(lambda head, n: head + "[" * n, st.sampled_from(['{"x": ', "[1, ", ""]),
              st.integers(0, 50_000)),
    st.text(max_size=300),
    st.binary(max_size=300).map(lambda data: data.decode("latin-1")),
    st.recursive(st.none() | st.integers() | st.text(max_size=5),
                 lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                            max_size=3),
                 max_leaves=20).map(json.dumps),
)


def _answer(text: str) -> Exchange:
    result: dict[str, JSON] = {"content": [{"type": "text", "text": text}]}
    return Exchange("tools/call", {}, {"jsonrpc": "2.0", "id": 1, "result": result}, b"", 0.0, 0.0)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_HOSTILE)
def test_every_path_that_reads_a_servers_text_returns_or_raises_its_typed_failure(text: str) -> None:
    started = time.process_time()
    try:
        value = read_served(text)
    except Unreadable:
        value = None
    else:
        assert _depth(value) <= SERVED_DEPTH
        json.dumps(value)
    exchange = _answer(text)
    paths = [
        lambda: answer_status(exchange),
        lambda: answer_status(exchange, "OBJ-4"),
        lambda: refusal_text(text),
        lambda: refused_as_invalid(exchange),
        lambda: observe(exchange, Base()),
        lambda: canonical_response(exchange, StoreBase({"thoughtHistoryLength": 0},
                                                       {"branches": frozenset()})),
        lambda: accepted_status(exchange),
        lambda: status_of(exchange),
        lambda: json_differences({"text": text}, {"text": "[]"}),
        lambda: _listed(text),
        lambda: stdout_message(text.encode("utf-8", "surrogatepass"), "an answer"),
        lambda: WireDriver(["true"])._parse(text.encode("utf-8", "surrogatepass")),
    ]
    for path in paths:
        with contextlib.suppress(Unreadable, ProtocolViolation, AssertionError):
            path()
    assert time.process_time() - started < 20, "each path is linear in the text (CPU seconds)"
