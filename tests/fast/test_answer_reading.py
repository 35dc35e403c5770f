"""A status answer's numbers are read as a JavaScript client reads them, whatever a server wrote there:
a huge integer is Infinity, a boolean or a string is no number, and no text makes the reading raise."""

from __future__ import annotations

import json
import math

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.jsontypes import JSON
from conformance.drivers.wire import Exchange
from conformance.suite.coercion import answered_number

_SCALARS = (st.none() | st.booleans() | st.integers(-(2**53), 2**53)
            | st.floats(allow_nan=False, allow_infinity=False))
_VALUES = st.recursive(
    _SCALARS | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


def _answer(text: str) -> Exchange:
    result: dict[str, JSON] = {"content": [{"type": "text", "text": text}]}
    return Exchange("tools/call", {}, {"jsonrpc": "2.0", "id": 1, "result": result}, b"", 0.0, 0.0)


@given(_VALUES)
def test_a_value_is_a_number_only_when_json_says_number(value: JSON) -> None:
    got = answered_number(_answer(json.dumps({"totalThoughts": value})), "totalThoughts")
    if isinstance(value, bool) or not isinstance(value, int | float):
        assert got is None
    else:
        assert got == float(value)


@given(st.integers(min_value=400, max_value=4000), st.booleans())
def test_a_huge_integer_reads_as_infinity(digits: int, negative: bool) -> None:
    written = ("-" if negative else "") + "9" * digits
    got = answered_number(_answer('{"thoughtNumber": ' + written + "}"), "thoughtNumber")
    assert got == (-math.inf if negative else math.inf)


@given(st.text(max_size=40))
def test_any_text_reads_without_raising(text: str) -> None:
    got = answered_number(_answer(text), "thoughtNumber")
    assert got is None or isinstance(got, float)
