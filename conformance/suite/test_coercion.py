"""Upward-only coercion of totalThoughts (RTE-4, ABS-8, OBJ-1/a1, RTE-4/a1): answered and rendered."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from conformance.calls.probes import probe_examples
from conformance.calls.strategies import (
    Envelope,
    adversarial_envelopes,
    content_texts,
    envelopes,
    exact_examples,
    optional_values,
    small_positive_integers,
    truthy_numbers,
)
from conformance.catalog.records import evidences, relies_on
from conformance.core.js import js_double, js_number_string
from conformance.core.jsontypes import JSON, OMIT, Omitted
from conformance.suite.answers import STATUS_KEYS, accepted, accepted_if_host_valid, describe, fields_unlike
from conformance.suite.coercion import total_record
from conformance.suite.contradiction import brief, expect
from conformance.suite.jsvalues import coerced_total, same_number
from conformance.suite.render_box import drawn_box, expect_header_in_order
from conformance.suite.session import ServerSession

_any_envelopes = st.one_of(envelopes, adversarial_envelopes)


@evidences("RTE-4")
@relies_on("RTE-3", "OBJ-4", "RTE-7", "RTE-9", "CMP-5")
@given(envelope=_any_envelopes)
@example(envelope=Envelope("t", 9, 5, True))
@example(envelope=Envelope("t", 2**53 + 1, 2**53, True))
@example(envelope=Envelope("t", -1, -5, True))
@example(envelope=Envelope("t", 1.5, 1.25, True))
@probe_examples()
def test_total_raised_to_thought_number(server: ServerSession, envelope: Envelope) -> None:
    """The answered totalThoughts is max(thoughtNumber, totalThoughts) and the header shows n/<that value>."""
    exchange = server.call(envelope.arguments())
    status = accepted_if_host_valid(exchange, envelope.arguments())
    if status is None:
        return
    expected = coerced_total(envelope.thought_number, envelope.total_thoughts)
    answered = status.get("totalThoughts")
    if not same_number(answered, expected):
        record = total_record(server, envelope.arguments(), answered)
        expect(record, False, f"totalThoughts answered {brief(answered)} for thoughtNumber "
               f"{brief(envelope.thought_number)} and totalThoughts {brief(envelope.total_thoughts)}; the "
               f"original answers {js_number_string(expected)}")
    box = drawn_box(exchange)  # nothing drawn (DISABLE_THOUGHT_LOGGING) is the render records' to judge
    if box is None:
        return
    numbers = box.numbers
    due = (js_number_string(js_double(envelope.thought_number)), js_number_string(expected))
    assert numbers == due, (
        f"the box's header reads {_fraction(numbers)} for thoughtNumber {brief(envelope.thought_number)} and "
        f"totalThoughts {brief(envelope.total_thoughts)}, where the original draws {_fraction(due)}: "
        f"{brief(box.header)}")


@evidences("ABS-8")
@relies_on("RTE-3", "OBJ-4", "RTE-7", "RTE-4")
@given(totals=st.lists(st.tuples(small_positive_integers, small_positive_integers), min_size=2, max_size=6))
@example(totals=[(1, 10), (2, 3)])
def test_total_never_lowered(server: ServerSession, totals: list[tuple[int, int]]) -> None:
    """The artifact only raises: a total at or above thoughtNumber comes back as sent, even after larger ones.

    Lowering happens only when the caller sends a smaller number — a caller capability, not a behaviour.
    """
    for number, total in totals:
        status = accepted(server.call(Envelope("t", number, total, True).arguments()))
        answered = status.get("totalThoughts")
        assert isinstance(answered, int | float) and answered >= total, (
            f"totalThoughts came back {brief(answered)} for thoughtNumber {number} and totalThoughts "
            f"{total}, "
            f"lower than sent, where the original only ever raises it: {brief(status)}")
        if total >= number:
            assert answered == total, (
                f"totalThoughts came back {brief(answered)} for thoughtNumber {number} and totalThoughts "
                f"{total}, where the original answers a total at or above thoughtNumber as sent: "
                f"{brief(status)}")


@evidences("OBJ-1/a1")
@relies_on("RTE-3", "OBJ-4", "RTE-7", "RTE-4", "RTE-9", "CMP-5")
@given(envelope=_any_envelopes.filter(lambda e: js_double(e.thought_number) > js_double(e.total_thoughts)))
@example(envelope=Envelope("t", 9, 5, True))
@probe_examples(where=lambda e: js_double(e.thought_number) > js_double(e.total_thoughts))
def test_sent_total_survives_nowhere(server: ServerSession, envelope: Envelope) -> None:
    """With thoughtNumber n above totalThoughts m, the answer says n, the stderr header reads n/n, and
    the five status keys leave no trace that m was replaced."""
    exchange = server.call(envelope.arguments())
    status = accepted_if_host_valid(exchange, envelope.arguments())
    if status is None:
        return
    number = js_number_string(js_double(envelope.thought_number))
    assert same_number(status.get("totalThoughts"), envelope.thought_number), (
        f"totalThoughts came back {brief(status.get('totalThoughts'))} for thoughtNumber "
        f"{brief(envelope.thought_number)} above totalThoughts {brief(envelope.total_thoughts)}, where it is "
        "raised to the thoughtNumber")
    # A key added or dropped is the answer's shape (OBJ-4's "exactly five fields"), whichever check reads it.
    expect("OBJ-4", sorted(status) == sorted(STATUS_KEYS), lambda: fields_unlike(list(status), STATUS_KEYS))
    box = drawn_box(exchange)  # nothing drawn (DISABLE_THOUGHT_LOGGING) is the render records' to judge
    if box is not None:
        assert box.numbers == (number, number), (
            f"the box's header reads {_fraction(box.numbers)}, not {number}/{number}, for "
            f"thoughtNumber {envelope.thought_number!r} above totalThoughts {envelope.total_thoughts!r}")


def _fraction(numbers: tuple[str, str] | None) -> str:
    """A header's thoughtNumber/totalThoughts as drawn, or that it has none."""
    return f"{numbers[0]}/{numbers[1]}" if numbers else "no n/m"


_COERCION_BASE: dict[str, object] = {
    "number": 9,
    "total": 5,
    "first": "Hypothesis: the total is 5.",
    "second": "Wait, let me reconsider. Final answer: 9.",
    "interleaved": Envelope("between", 1, 1, True),
}


@evidences("RTE-4/a1")
@relies_on("RTE-3", "OBJ-4", "RTE-7", "RTE-4", "RTE-9", "CMP-5")
@given(
    number=truthy_numbers,
    total=truthy_numbers,
    first=content_texts,
    second=content_texts,
    flags=st.fixed_dictionaries({"isRevision": optional_values, "needsMoreThoughts": optional_values}),
    interleaved=envelopes,
)
@exact_examples(
    "isRevision", param="flags", keyed=True, **_COERCION_BASE, flags={"needsMoreThoughts": OMIT}
)
@exact_examples(
    "needsMoreThoughts", param="flags", keyed=True, **_COERCION_BASE, flags={"isRevision": OMIT}
)
def test_coercion_consults_only_the_two_numbers(
    server: ServerSession,
    number: int | float,
    total: int | float,
    first: str,
    second: str,
    flags: dict[str, JSON | Omitted],
    interleaved: Envelope,
) -> None:
    """The raised total depends on this call's thoughtNumber and totalThoughts alone, never on content,
    other fields or earlier calls; and the rendered header never reads n/m with n > m."""
    plain = Envelope(first, number, total, True).arguments()
    one = server.call(plain)
    server.call(interleaved.arguments())
    flagged = Envelope(second, number, total, False).arguments(**flags)
    two = server.call(flagged)
    found = [accepted_if_host_valid(one, plain), accepted_if_host_valid(two, flagged)]
    if found[0] is None or found[1] is None:
        return
    answers = [found[0].get("totalThoughts"), found[1].get("totalThoughts")]
    assert answers[0] == answers[1], (
        f"totalThoughts came back {brief(answers[0])}, then {brief(answers[1])} for the same thoughtNumber "
        f"{brief(number)} and totalThoughts {brief(total)} with other content, flags "
        f"{brief({k: v for k, v in flags.items() if v is not OMIT})} and a call "
        f"between, where the original's depends on the two numbers alone: {describe(two)}")
    for exchange in (one, two):
        expect_header_in_order(exchange)
