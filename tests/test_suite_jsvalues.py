"""The suite's JavaScript model (conformance/suite/jsvalues.py) checked against node itself.

The suite computes expectations the way JavaScript would; these tests keep that model honest by asking a
real node for the same values in one batch per test.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.calls.strategies import json_values
from conformance.core.js import MAX_ARRAY_INDEX, PROTOTYPE_KEYS, js_number_string, keys_after_insert
from conformance.core.jsontypes import JSON
from conformance.suite.jsvalues import js_string, js_stringify

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def node_eval(script: str, payload: object) -> object:
    """Run `script` with `input` bound to the JSON payload; its last expression is printed as JSON."""
    assert NODE is not None
    program = f"const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n{script}"
    out = subprocess.run(
        [NODE, "-e", program], input=json.dumps(payload).encode(), capture_output=True, timeout=30, check=True
    )
    return json.loads(out.stdout)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=200))
def test_number_to_string_matches_node(values: list[float]) -> None:
    expected = node_eval("console.log(JSON.stringify(input.map(x => `${x}`)))", values)
    assert [js_number_string(v) for v in values] == expected


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.integers(min_value=0, max_value=2**40).map(str),
            st.text(max_size=4),
            st.sampled_from(["01", "-1", "1.5", str(MAX_ARRAY_INDEX), str(MAX_ARRAY_INDEX + 1)]),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_object_keys_order_matches_node(keys: list[str]) -> None:
    own = [k for k in keys if k not in PROTOTYPE_KEYS]
    expected = node_eval(
        "const o = {}; for (const k of input) { if (!Object.hasOwn(o, k)) o[k] = 1; }"
        "console.log(JSON.stringify(Object.keys(o)))",
        own,
    )
    order: tuple[str, ...] = ()
    for key in own:
        order = keys_after_insert(order, key)
    assert list(order) == expected


@settings(max_examples=25, deadline=None)
@given(st.lists(json_values, min_size=1, max_size=30))
def test_string_and_stringify_match_node(values: list[JSON]) -> None:
    expected = node_eval(
        "console.log(JSON.stringify(input.map(v => [String(v), JSON.stringify(v, null, 2)])))", values
    )
    assert [[js_string(v), js_stringify(v)] for v in values] == expected
