"""A box header's numbers are what the server wrote (issue 42): reading them never raises a harness error
under the record that asked. Grouped digits read as their number; words where the original draws n/m are
CMP-5's departure, said in words."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.strategies import Envelope
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.drivers.wire import Exchange
from conformance.suite.contradiction import Contradiction
from conformance.suite.jsvalues import expected_box
from conformance.suite.render_box import expect_header_in_order, only_box

BIG = 9007199254740986
ARGUMENTS: dict[str, JSON] = Envelope("t", BIG, BIG, True).arguments()


def _drew(header_numbers: str) -> Exchange:
    """An accepted call whose box writes `header_numbers` where the original writes n/m."""
    box = expected_box(ARGUMENTS).replace(f"{BIG}/{BIG}", header_numbers)
    status: dict[str, JSON] = {"thoughtNumber": BIG, "totalThoughts": BIG, "nextThoughtNeeded": True,
                               "branches": [], "thoughtHistoryLength": 1}
    result: dict[str, JSON] = {"content": [{"type": "text", "text": json.dumps(status, indent=2)}]}
    request: dict[str, JSON] = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                "params": {"name": TOOL, "arguments": ARGUMENTS}}
    return Exchange("tools/call", request, {"jsonrpc": "2.0", "id": 2, "result": result},
                    box.encode(), 0.0, 0.0)


def test_grouped_digits_read_as_their_number() -> None:
    """“9,007,199,254,740,986/…” crashed float() and the crash stood as RTE-4/a1's headline."""
    expect_header_in_order(_drew("9,007,199,254,740,986/9,007,199,254,740,986"))


@pytest.mark.parametrize("written", ["…", "x/y", "one/two"])
def test_words_where_the_original_draws_numbers_are_the_boxs_departure(written: str) -> None:
    with pytest.raises(Contradiction) as raised:
        expect_header_in_order(_drew(written))
    assert raised.value.record == "CMP-5"
    assert "where the original draws n/m" in str(raised.value)


@given(st.text(alphabet="0123456789,._ -/…e+x", min_size=1, max_size=12))
def test_whatever_the_header_writes_reading_it_never_raises_a_harness_error(written: str) -> None:
    try:
        expect_header_in_order(_drew(written))
    except Contradiction as departure:
        assert departure.record == "CMP-5"
    except AssertionError as order:
        assert str(order).startswith("header reads ")


@given(st.sampled_from(["✅ Conclusion", "🔚 Final", "Step", "💭 Thought"]),
       st.integers(min_value=1, max_value=10**6), st.integers(min_value=1, max_value=10**6))
def test_a_label_changed_is_not_the_numbers_changed(label: str, number: int, total: int) -> None:
    """emoji-status drew “✅ Conclusion 5/5” then “💭 Thought 5/5”: RTE-4/a1's check read no numbers under the
    unknown label and said the total depended on more than the two numbers, which was false."""
    arguments = Envelope("t", number, total, True).arguments()
    drawn = only_box(expected_box(arguments).replace("💭 Thought", label).encode())
    shown = str(max(number, total))
    assert drawn.written_numbers == (str(number), shown)
    assert drawn.written_numbers == only_box(expected_box(arguments).encode()).written_numbers
