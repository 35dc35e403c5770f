"""reference_server.jsvalue against the real thing: every JS rule the reference relies on, checked on node.

One node process per module answers batches of questions (one JSON line in, one out), so thousands
of generated examples cost milliseconds each. Values travel as JSON text and are parsed on both sides
with the same grammar the servers use (node: JSON.parse; reference: transport.loads_js).
"""

from __future__ import annotations

import json
import math
import random
import select
import shutil
import struct
import subprocess
from collections.abc import Iterator, Sequence
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from reference_server import jsvalue
from reference_server.jsvalue import (
    MAX_STRING_LENGTH,
    OBJECT_PROTOTYPE_KEYS,
    STACK_DEPTH_LIMIT,
    UNDEFINED,
    JSRangeError,
    JSTypeError,
    PlainObject,
    json_number,
    json_quote,
    number_to_string,
    to_double,
    to_string,
    truthy,
    typeof,
    utf8_bytes,
    utf16_len,
)
from reference_server.transport import loads_js

NODE_ORACLE: Final = r"""
const readline = require('readline');
const rl = readline.createInterface({input: process.stdin, crlfDelay: Infinity});
function outcome(f) {
  try { return {ok: f()}; } catch (e) { return {error: [e.constructor.name, e.message]}; }
}
function branches(keys) {
  const o = {};
  const errors = [];
  for (const k of keys) {
    try { if (!o[k]) { o[k] = []; } o[k].push(1); errors.push(null); } catch (e) { errors.push(e.message); }
  }
  return {keys: Object.keys(o), errors};
}
const ops = {
  string: (v) => `${v}`,
  truthy: (v) => !!v,
  typeof: (v) => typeof v,
  stringify: (v) => JSON.stringify(v),
  length: (v) => v.length,
  utf8: (v) => Buffer.from(v, 'utf8').toString('hex'),
  number: (v) => String(v),
  branches: (v) => branches(v.map((k) => `${k}`)),
  parseInt: (v) => { const n = Number.parseInt(v, 10); return Number.isNaN(n) ? 'NaN' : String(n); },
  padEnd: (v) => v[0].padEnd(v[1]),
  eval: (v) => eval(v),
};
rl.on('line', (line) => {
  const batch = JSON.parse(line);
  const answers = batch.map(([op, text]) => outcome(() => ops[op](JSON.parse(text))));
  process.stdout.write(JSON.stringify(answers) + '\n');
});
"""


class NodeOracle:
    """A node process answering [op, json-text] questions in batches."""

    def __init__(self) -> None:
        node = shutil.which("node")
        if node is None:
            pytest.fail("node is required: the JS semantics are checked against it")
        self.proc = subprocess.Popen(
            [node, "-e", NODE_ORACLE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
        )

    def ask_many(self, questions: Sequence[tuple[str, str]], timeout: float = 30.0) -> list[dict[str, Any]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        line = json.dumps([list(q) for q in questions], ensure_ascii=True) + "\n"
        self.proc.stdin.write(line.encode("ascii"))
        chunks = bytearray()
        while not chunks.endswith(b"\n"):
            ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
            if not ready:
                raise TimeoutError("node oracle did not answer")
            chunk = self.proc.stdout.read(1 << 20)
            if not chunk:
                raise RuntimeError("node oracle exited")
            chunks += chunk
        answers: list[dict[str, Any]] = json.loads(bytes(chunks))
        return answers

    def ask(self, op: str, text: str) -> dict[str, Any]:
        return self.ask_many([(op, text)])[0]

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


@pytest.fixture(scope="module")
def node() -> Iterator[NodeOracle]:
    oracle = NodeOracle()
    try:
        yield oracle
    finally:
        oracle.close()


def reference(fn: Any, value: Any) -> dict[str, Any]:
    """The reference's answer in the oracle's shape."""
    try:
        return {"ok": fn(value)}
    except (JSTypeError, JSRangeError) as exc:
        return {"error": [exc.js_name, exc.message]}


def as_json(value: Any) -> str:
    """JSON text for a parsed value; a non-finite double is written as a literal that parses back to it."""
    if isinstance(value, float) and not math.isfinite(value):
        return "1e999" if value > 0 else "-1e999"
    if isinstance(value, list):
        return "[" + ",".join(as_json(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k) + ":" + as_json(v) for k, v in value.items()) + "}"
    return json.dumps(value, ensure_ascii=True)


# -- strategies ------------------------------------------------------------------------------------

SPECIAL_KEYS: Final = [*sorted(OBJECT_PROTOTYPE_KEYS), "toString", "valueOf", "length", "0", "push"]

def round_trip(value: Any) -> Any:
    """A value as a server sees it after the wire: adjacent surrogate halves have become one character."""
    return loads_js(as_json(value))


texts = (
    st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
    | st.sampled_from(
        ["", " ", "\t\n", "\ud800", "\udc00x", "😀", "\ud83d\ude00", "a\u0000b", "\u2028", "é", "%s%%",
         "\x1b[31m"]
    )
).map(round_trip)
number_literals = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr).map(lambda r: r.replace("inf", "1e999")),
    st.sampled_from(
        ["1e400", "-1e400", "1e-400", "-0", "-0.0", "0e0", "1E2", "9007199254740993", "4294967294",
         "4294967295", "1e21", "1e-7", "123456789012345678901234567890", "5e-324", "2.5e-324",
         "1.7976931348623157e308", "1.7976931348623158e308", "1" + "0" * 5000]
    ),
)
json_scalars = st.one_of(st.none(), st.booleans(), texts, number_literals.map(loads_js))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(SPECIAL_KEYS) | texts, inner, max_size=3),
    max_leaves=12,
)

_SETTINGS: Final = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- truthiness and typeof -------------------------------------------------------------------------


@_SETTINGS
@given(json_values)
@example(0)
@example(-0.0)
@example("")
@example([])
@example({})
@example("0")
@example(loads_js("1e-400"))
def test_truthiness_matches_node(node: NodeOracle, value: Any) -> None:
    assert node.ask("truthy", as_json(value)) == {"ok": truthy(value)}


@_SETTINGS
@given(json_values)
def test_typeof_matches_node(node: NodeOracle, value: Any) -> None:
    assert node.ask("typeof", as_json(value)) == {"ok": typeof(value)}


# -- String() in template literals -----------------------------------------------------------------


@_SETTINGS
@given(json_values)
@example({"toString": 1})
@example({"toString": None})
@example({"valueOf": 1})
@example({"__proto__": {"toString": 1}})
@example([{"toString": 1}])
@example([[], [[]], {}, None, True, 1e21, 1e-7, -0.0, "x"])
@example(loads_js('{"a": 1, "toString": 2, "toString": 3}'))
def test_string_of_any_json_value_matches_node(node: NodeOracle, value: Any) -> None:
    assert node.ask("string", as_json(value)) == reference(to_string, value)


def test_nested_arrays_join_until_the_stack_limit(node: NodeOracle) -> None:
    """Nesting up to the limit joins in both; past it both throw V8's stack overflow RangeError."""
    ok_depth = STACK_DEPTH_LIMIT - 4
    deep_ok = "[" * ok_depth + "1" + "]" * ok_depth
    assert node.ask("string", deep_ok) == reference(to_string, loads_js(deep_ok)) == {"ok": "1"}
    for depth in (STACK_DEPTH_LIMIT, 10 * STACK_DEPTH_LIMIT):
        deep = "[" * depth + "1" + "]" * depth
        expected = {"error": ["RangeError", "Maximum call stack size exceeded"]}
        assert node.ask("string", deep) == expected
        assert reference(to_string, loads_js(deep)) == expected


# -- numbers ---------------------------------------------------------------------------------------


@_SETTINGS
@given(number_literals)
def test_number_literal_becomes_the_same_double(node: NodeOracle, literal: str) -> None:
    """JSON.parse rounds every literal to a double; to_double(json.loads) must land on the same one."""
    answer = node.ask("number", literal)
    assert answer == {"ok": number_to_string(to_double(loads_js(literal)))}


@_SETTINGS
@given(st.floats(allow_nan=False, allow_infinity=True))
@example(0.1)
@example(1e21)
@example(1e-7)
@example(123e-20)
@example(5e-324)
@example(2**53)
@example(0.000001)
@example(1.5e300)
def test_number_to_string_matches_node(node: NodeOracle, x: float) -> None:
    text = "1e999" if x == math.inf else "-1e999" if x == -math.inf else repr(x)
    assert node.ask("number", text) == {"ok": number_to_string(x)}
    assert node.ask("stringify", text) == {"ok": json_number(x)}


def test_number_to_string_on_random_bit_patterns(node: NodeOracle) -> None:
    """20,000 doubles drawn from raw bit patterns (every exponent), one batch, one node process."""
    rng = random.Random(20)
    doubles = []
    while len(doubles) < 20_000:
        x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if math.isfinite(x):
            doubles.append(x)
    answers = node.ask_many([("number", repr(x)) for x in doubles])
    mismatches = [(x, a) for x, a in zip(doubles, answers, strict=True) if a != {"ok": number_to_string(x)}]
    assert mismatches == []


# -- JSON.stringify of strings, UTF-16 lengths, UTF-8 output ---------------------------------------


@_SETTINGS
@given(texts)
@example("\ud800")
@example("\udc00\ud800")
@example("\u007f\u2028\u2029")
@example('"\\/\b\f\n\r\t\x00\x1f')
def test_json_stringify_of_strings_matches_node(node: NodeOracle, text: str) -> None:
    assert node.ask("stringify", as_json(text)) == {"ok": json_quote(text)}


@_SETTINGS
@given(texts)
def test_lengths_are_utf16_code_units(node: NodeOracle, text: str) -> None:
    assert node.ask("length", as_json(text)) == {"ok": utf16_len(text)}


@_SETTINGS
@given(texts, st.integers(min_value=0, max_value=40))
def test_pad_end_pads_to_utf16_length(node: NodeOracle, text: str, width: int) -> None:
    padded = text + " " * max(0, width - utf16_len(text))
    assert node.ask("padEnd", as_json([text, width])) == {"ok": padded}


@_SETTINGS
@given(texts)
@example("a\ud83d")
@example("\ud83d\ude00\ud83d")
def test_utf8_output_replaces_lone_surrogates_like_node(node: NodeOracle, text: str) -> None:
    assert node.ask("utf8", as_json(text)) == {"ok": utf8_bytes(text).hex()}


def test_max_string_length_is_v8s(node: NodeOracle) -> None:
    answer = node.ask("eval", as_json("require('buffer').constants.MAX_STRING_LENGTH"))
    assert answer == {"ok": MAX_STRING_LENGTH}


# -- plain objects used as maps ----------------------------------------------------------------------


def test_object_prototype_keys_are_node_20s(node: NodeOracle) -> None:
    answer = node.ask("eval", as_json("Object.getOwnPropertyNames(Object.prototype)"))
    assert set(answer["ok"]) == OBJECT_PROTOTYPE_KEYS


key_values = st.one_of(
    st.sampled_from(SPECIAL_KEYS),
    st.sampled_from(["0", "01", "1", "10", "2", "-1", "1.5", "4294967294", "4294967295", "9007199254740993",
                     "", " ", "1e+21"]),
    st.integers(min_value=0, max_value=2**33).map(str),
    texts,
)


def reference_branches(keys: list[str]) -> dict[str, Any]:
    branches = PlainObject()
    errors: list[str | None] = []
    for key in keys:
        entry = branches.get(key)
        if entry is UNDEFINED:
            branches.set(key, [])
            entry = branches.get(key)
        errors.append(None if isinstance(entry, list) else "push is not a function")
        if isinstance(entry, list):
            entry.append(1)
    return {"keys": branches.keys(), "errors": errors}


@_SETTINGS
@given(st.lists(key_values, max_size=12))
@example(["b", "4294967295", "4294967294", "1", "01", "-1", "0"])
@example(["__proto__", "constructor", "toString", "x"])
def test_plain_object_map_matches_node(node: NodeOracle, keys: list[str]) -> None:
    """Own keys, inherited Object.prototype members (truthy, no push) and Object.keys order."""
    answer = node.ask("branches", as_json(keys))["ok"]
    mine = reference_branches(keys)
    assert answer["keys"] == mine["keys"]
    assert [e is None for e in answer["errors"]] == [e is None for e in mine["errors"]]


# -- exception texts ---------------------------------------------------------------------------------

ERROR_PROBES: Final = [
    ("(function(data){ return data.thought; })(undefined)", jsvalue.cannot_read(UNDEFINED, "thought")),
    ("(function(data){ return data.thought; })(null)", jsvalue.cannot_read(None, "thought")),
    (
        "(new (class { branches = {}; go(validatedInput) {"
        " this.branches[validatedInput.branchId].push(validatedInput); } })()).go({branchId: '__proto__'})",
        jsvalue.not_a_function("this.branches[validatedInput.branchId].push"),
    ),
    ("`${JSON.parse('{\"toString\":1}')}`", JSTypeError(jsvalue.CANNOT_CONVERT)),
    ("'─'.repeat(2 ** 29)", JSRangeError(jsvalue.INVALID_STRING_LENGTH)),
    ("'x'.padEnd(2 ** 29)", JSRangeError(jsvalue.INVALID_STRING_LENGTH)),
    ("(function f(){ return f(); })()", JSRangeError(jsvalue.STACK_OVERFLOW)),
]


@pytest.mark.parametrize(("source", "expected"), ERROR_PROBES, ids=[e.message for _, e in ERROR_PROBES])
def test_exception_texts_are_v8s(node: NodeOracle, source: str, expected: jsvalue.JSError) -> None:
    assert node.ask("eval", as_json(source)) == {"error": [expected.js_name, expected.message]}


@_SETTINGS
@given(st.text(max_size=10) | st.sampled_from([" 12", "\u00a0-3x", "+7", "0x10", "1e3", "", "-", "\u3000 4"]))
def test_parse_int_matches_node(node: NodeOracle, text: str) -> None:
    from reference_server.colour import js_parse_int

    expected = js_parse_int(text)
    shown = "NaN" if math.isnan(expected) else number_to_string(expected)
    assert node.ask("parseInt", as_json(text)) == {"ok": shown}
