"""The suite's oracle (conformance/suite/jsvalues.py) checked against node itself.

The suite computes expectations the way JavaScript would; these tests keep that model honest by asking a
real node for the same values in one batch per test. The JavaScript primitives it rests on (truthiness,
number formatting, key order, UTF-16 length) are checked in tests/test_core_js.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.calls.strategies import json_values
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
@given(st.lists(json_values, min_size=1, max_size=30))
def test_string_and_stringify_match_node(values: list[JSON]) -> None:
    expected = node_eval(
        "console.log(JSON.stringify(input.map(v => [String(v), JSON.stringify(v, null, 2)])))", values
    )
    assert [[js_string(v), js_stringify(v)] for v in values] == expected
