"""The harness's one model of JavaScript values (conformance/core/js.py) checked against node itself.

Every room judges servers by these rules, so each is asked of a real node (one process for the module), a
batch of generated values per example. Values travel tagged, so that what JSON cannot carry reaches node
too: undefined (a missing key), NaN and the infinities, and lone surrogates (as \\u escapes, which
JSON.parse turns into one code unit each).
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from collections.abc import Iterator
from typing import Final

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance.calls.strategies import FALSY, json_values
from conformance.core.js import (
    MAX_ARRAY_INDEX,
    PROTOTYPE_KEYS,
    js_double,
    js_number_string,
    js_truthy,
    keys_after_insert,
    object_keys,
    utf16_length,
)
from conformance.core.jsontypes import JSON, OMIT, Omitted
from tests.servers import OVERRUN

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

NODE_ANSWERS: Final = r"""
const decode = (t) => t.undefined ? undefined : 'number' in t ? Number(t.number) : JSON.parse(t.json);
require('readline').createInterface({input: process.stdin}).on('line', (line) => {
  const {question, values} = JSON.parse(line);
  const answer = new Function('values', `return (${question});`)(values.map(decode));
  process.stdout.write(JSON.stringify(answer) + '\n');
});
"""
"""One node for the module: each line holds a JS expression over `values` and the tagged batch."""


def _tag(value: JSON | Omitted) -> dict[str, object]:
    if isinstance(value, Omitted):
        return {"undefined": True}
    if isinstance(value, float) and not math.isfinite(value):
        return {"number": repr(value).replace("inf", "Infinity").replace("nan", "NaN")}
    return {"json": json.dumps(value, ensure_ascii=True)}


class Node:
    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process

    def ask(self, question: str, values: list[JSON | Omitted]) -> object:
        """`question`'s value, as node computes it over the decoded `values`."""
        assert self.process.stdin is not None and self.process.stdout is not None
        line = json.dumps({"question": question, "values": [_tag(v) for v in values]})
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        assert answer, "node ended without an answer"
        return json.loads(answer)


@pytest.fixture(scope="module")
def node() -> Iterator[Node]:
    assert NODE is not None
    with subprocess.Popen([NODE, "-e", NODE_ANSWERS], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True) as process:
        try:
            yield Node(process)
        finally:
            assert process.stdin is not None
            process.stdin.close()
            process.wait(timeout=OVERRUN)  # ends once node does: a loaded machine's exit may take seconds


any_number: st.SearchStrategy[int | float] = st.one_of(
    st.floats(),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.integers(min_value=2**53 - 3, max_value=2**53 + 3),
    st.sampled_from([0.0, -0.0, 5e-324, 1e21, 1e-7, 123e-20, 0.1 + 0.2]),
)
"""Every double, NaN and the infinities included; integers past 2**53 and past the largest double."""

lone_surrogates = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
any_text = st.text(
    alphabet=st.one_of(st.characters(), lone_surrogates, st.sampled_from(["😀", "𝔘", "\U0010fffd"])),
    max_size=12,
)
"""Strings with astral characters (two code units) and lone surrogates (one each)."""

keys = st.one_of(
    st.integers(min_value=0, max_value=2**34).map(str),
    st.sampled_from(
        ["0", "00", "01", "-0", "-1", "1.5", "1e3", " 1", "1 ", "+1", "", "٣", str(MAX_ARRAY_INDEX),
         str(MAX_ARRAY_INDEX + 1), str(MAX_ARRAY_INDEX - 1), *PROTOTYPE_KEYS]
    ),
    st.text(max_size=4),
)
"""Canonical array indices, the strings around them that JavaScript orders as text, and prototype keys."""


@settings(max_examples=25, deadline=None)
@given(st.lists(st.one_of(json_values, st.sampled_from(FALSY), any_number, st.just(OMIT)), min_size=1,
                max_size=60))
@example([OMIT, None, False, True, 0, -0.0, math.nan, math.inf, "", "0", " ", [], {}, [0], 10**400])
def test_truthiness_matches_node(node: Node, values: list[JSON | Omitted]) -> None:
    expected = node.ask("values.map((v) => !!v)", values)
    assert [js_truthy(v) for v in values] == expected


@settings(max_examples=25, deadline=None)
@given(st.lists(any_text, min_size=1, max_size=40))
@example(["", "a", "😀", "\ud800", "\udfff", "\ud83d\ude00", "\ude00\ud83d", "a\udc00b", "é", "\u0000"])
def test_utf16_length_matches_node_with_lone_surrogates(node: Node, texts: list[str]) -> None:
    expected = node.ask("values.map((s) => s.length)", list(texts))
    assert [utf16_length(t) for t in texts] == expected


@settings(max_examples=25, deadline=None)
@given(st.lists(any_number, min_size=1, max_size=100))
@example([0.0, -0.0, math.nan, math.inf, -math.inf, 1e21, 1e-7, 1e-6, 123456789012345680000.0, 5e-324,
          2**53 + 1, 10**400, -(10**400), 0.1 + 0.2, 1.5, -1e-7])
def test_number_formatting_matches_node(node: Node, values: list[int | float]) -> None:
    """Number.prototype.toString of the double JSON.parse makes of each number."""
    expected = node.ask("values.map((n) => String(n))", list(values))
    assert [js_number_string(js_double(v)) for v in values] == expected


@settings(max_examples=25, deadline=None)
@given(st.lists(keys, min_size=1, max_size=30))
@example(["b", "1", "a", "0", "__proto__", "01", str(MAX_ARRAY_INDEX + 1), str(MAX_ARRAY_INDEX), "toString"])
def test_key_order_after_inserts_matches_node(node: Node, inserted: list[str]) -> None:
    """Object.keys after own properties are created one by one (defined, so `__proto__` is a key too)."""
    order: tuple[str, ...] = ()
    for key in inserted:
        order = keys_after_insert(order, key)
    expected = node.ask(
        "Object.keys(values.reduce((o, k) => Object.hasOwn(o, k) ? o : Object.defineProperty(o, k, "
        "{value: 1, enumerable: true, writable: true, configurable: true}), {}))",
        list(inserted),
    )
    assert list(order) == expected


@settings(max_examples=25, deadline=None)
@given(st.lists(st.dictionaries(keys, st.integers(0, 9), max_size=12), min_size=1, max_size=20))
@example([{"b": 1, "2": 2, "a": 3, "1": 4, "__proto__": 5, str(MAX_ARRAY_INDEX + 1): 6}])
def test_key_order_of_parsed_objects_matches_node(node: Node, objects: list[dict[str, JSON]]) -> None:
    """Object.keys of what JSON.parse makes of an object: array indices ascending, then source order."""
    expected = node.ask("values.map(Object.keys)", list(objects))
    assert [object_keys(o) for o in objects] == expected
