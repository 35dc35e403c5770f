"""The deterministic probes: fixed calls every property about an accepted answer sends before its search.

A change a fork makes behind one input shape departs only under the seeds whose search draws that shape
(issue 43): held-out-multi-4's `hardened-inputs` refuses a thoughtNumber that skips ahead of the history, and
a baseline written under dev seed 1 never listed RTE-4 or OBJ-1/a1, whose searches under seed 1 drew no
thoughtNumber above the shared process's history (about a thousand thoughts by then), where seeds 11 to 55
did. The probes are sent under every seed and profile, as hypothesis' explicit examples (which run before
anything drawn), to the same checks and on the same process the search uses, so their answers feed the same
verdicts, evidence and baseline witnesses.

Each probe is chosen to keep its shape on any process, whatever the run sent it before: a thoughtNumber of
10**9 skips ahead of any history a run builds, a thoughtNumber of 1 goes back on any process that has
answered a call. The shapes the store machine's opening calls cannot hold on a shared process (two labels
out of key order, a revision, a revision of a revision, a branch of a branch, a padded label:
calls/opening.py) are sent there; the shapes a process that has seen nothing shows (a thoughtNumber ahead of
an empty history, 0 and an empty thought refused) are the fresh runs' (suite/fresh_runs.py) and the evidence
replay's. A record whose failing example is one of these probes is "reached by the deterministic probes" in
the report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from hypothesis import example

from conformance.calls.strategies import BOUNDARY_ENVELOPES, Envelope
from conformance.core.jsontypes import JSON

FAR_AHEAD: Final = 10**9
"""A thoughtNumber past any history a run builds (a ci run retains some tens of thousands of thoughts)."""


@dataclass(frozen=True)
class Probe:
    """One fixed call and the input shape it stands for."""

    shape: str
    envelope: Envelope


MANY_LINES: Final = "probe: a long thought over many lines\n" + "\n".join(
    f"line {n}: one more step of the same plan" for n in range(2, 65))
"""Sixty-four lines (some 2,500 UTF-16 units): a fork that bounds a thought's lines (held-out-multi-8's
annotated-thoughts refused more than ten) or draws one box row per line departs on it under every seed, where
the search's multi-line thoughts have at most a few lines (round 13: "no thought over ten lines was sent")."""

MANY_LINES_PROBE: Final = Probe("a thought of many lines", Envelope(MANY_LINES, 2, 3, True))

RIGHT_TO_LEFT: Final = Probe("a thought in right-to-left scripts",
                             Envelope("probe: שלום עולם and مرحبا بالعالم", 2, 3, True))
"""Hebrew and Arabic words among Latin ones: drawn verbatim by the original, where a fork isolating them
(U+2068 … U+2069) or mirroring them changes the box row (RTE-9/a1's verbatim check sends it too)."""

TEXT_PROBES: Final[tuple[Probe, ...]] = (
    Probe("a thought carrying hashtags", Envelope("probe: tag it #cache #db-2 #café", 2, 3, True)),
    Probe("a thought carrying a URL",
          Envelope("probe: see https://example.com/a/b?c=1&d=%20#frag", 2, 3, True)),
    Probe("a thought in markdown",
          Envelope("probe: **bold**, _em_, `code` and [a link](https://example.com)", 2, 3, True)),
    Probe("a thought over several lines", Envelope("probe: line one\nline two\r\nline three", 2, 3, True)),
    Probe("a thought carrying emoji", Envelope("probe: 💭 thinking 🌿 with 👩‍💻 and ✅", 2, 3, True)),
    Probe("a thought carrying numbers", Envelope("probe: 3 of 12, 1e9, -0.5, 0x1F and 50%", 2, 3, True)),
    RIGHT_TO_LEFT,
)
"""What a fork reads in a thought's text (hashtags answered as tags or shown in the box header, links,
markdown, lines, wide characters, numbers, right-to-left scripts) shows only when a thought has that shape:
the search draws such texts under some seeds (held-out-multi-5's hashtags fork: CMP-5, OBJ-4, RTE-4, CLM-3
and BAP-2 departed under some seeds and not others), and no Hebrew or Arabic under any (held-out-multi-14's
multilingual fork boxed them in bidi isolates, never met). Sent first, with a thoughtNumber inside its
total, by every probed property."""

WHITESPACE_PROBES: Final[tuple[Probe, ...]] = (
    Probe("a whitespace thought", Envelope("   ", 2, 3, True)),
    Probe("a thought of tabs and line breaks", Envelope("\t\r\n", 2, 3, True)),
    Probe("a thought of Unicode spaces", Envelope("\u00a0\u3000\ufeff", 2, 3, True)),
)
"""Thoughts empty once trimmed, as JavaScript's `trim` and a schema library's trimming read them (spaces, the
line terminators, no-break and ideographic spaces, the byte-order mark): the original accepts each, a fork
that trims refuses each. Sent alone by every probed property and beside a wrongly typed field by RTE-8/a1's
checks (a render or bucket throw the original reaches after validation, refused first by such a fork "in
other words"): held-out-multi-6's strict-schema fork departed on RTE-8/a1 only under the seeds whose search
put a whitespace thought beside `branchFromThought: {"toString": 1}` (dev 44, 55, ci 11, 22 of round 11)."""

PROBES: Final[tuple[Probe, ...]] = (
    Probe("a thoughtNumber skipping ahead of the history",
          Envelope("probe: far ahead of the history", FAR_AHEAD, FAR_AHEAD, True)),
    Probe("totalThoughts below thoughtNumber",
          Envelope("probe: a total below the number", FAR_AHEAD + 1, 2, True)),
    Probe("a totalThoughts far above thoughtNumber",
          Envelope("probe: a plan far longer than its step", 3, FAR_AHEAD, True)),
    Probe("a thoughtNumber going back",
          Envelope("probe: back to the first thought", 1, 5, True)),
    Probe("one thought of one, the last",
          Envelope("probe: one of one", 1, 1, False)),
    *WHITESPACE_PROBES,
    Probe("a very long thought",
          Envelope("probe: a long thought " + "long " * 2000, 2, 3, True)),
    Probe("the largest safe integer above its total",
          Envelope("probe: the largest safe number", 2**53 - 1, 3, True)),
    *TEXT_PROBES,
    MANY_LINES_PROBE,
)
"""In this order, each accepted by the original on any process; none sends an optional field (a property's
own parameters carry those)."""

TEXT_ENVELOPES: Final = frozenset(probe.envelope for probe in TEXT_PROBES)
"""The text-shape probes' calls: CLM-3's and CLM-5's checks send these (their claims are about what a thought
says being kept or not), not the number shapes their own steps would override."""

PROBE_ATTRIBUTE: Final = "probe_examples"

_Test = TypeVar("_Test", bound=Callable[..., Any])


def probe_examples(*, param: str = "envelope", where: Callable[[Envelope], bool] | None = None,
                   **others: Any) -> Callable[[_Test], _Test]:
    """One explicit hypothesis example per PROBES entry (those `where` admits), given to parameter `param`
    (the other parameters take `others`). Place it under `@given`, like `@example`;
    tests/fast/test_probes.py checks the properties about an accepted answer's numbers carry it."""

    def apply(test: _Test) -> _Test:
        for probe in reversed(PROBES):
            if where is None or where(probe.envelope):
                test = example(**others, **{param: probe.envelope})(test)
        setattr(test, PROBE_ATTRIBUTE, True)
        return test

    return apply


BOUNDARY_PROBES: Final[tuple[Probe, ...]] = (
    Probe("a totalThoughts of a million", BOUNDARY_ENVELOPES[0]),
    Probe("a thoughtNumber and totalThoughts of 2**31", BOUNDARY_ENVELOPES[1]),
)
"""The boundary examples (calls/strategies.py) are probes too: fixed, sent first under every seed."""

_PROBE_ENVELOPES: Final = frozenset(probe.envelope for probe in (*PROBES, *BOUNDARY_PROBES))


def probes_first(test: object) -> None:
    """Put a probed check's probes before its own explicit examples, in place (hypothesis runs the last one
    added first, so an `@example` above `@probe_examples()` ran before every probe). A check's own example
    may change shape with what the shared process holds (thoughtNumber 9 skips ahead of a short history, not
    of a long one), and the first explicit example failing ends the check: which probes ran, and whether a
    record was reached by one, depended on which other records shared the session (`--select`)."""
    if not getattr(test, PROBE_ATTRIBUTE, False):
        return
    examples = getattr(test, "hypothesis_explicit_examples", None)
    if not isinstance(examples, list):
        return

    def probed(case: Any) -> bool:
        values = getattr(case, "kwargs", {}).values()
        return any(isinstance(value, Envelope) and value in _PROBE_ENVELOPES for value in values)

    own = [case for case in examples if not probed(case)]
    examples[:] = own + [case for case in examples if probed(case)]



@dataclass(frozen=True)
class ArgumentProbe:
    """A fixed call with arguments beyond its envelope: an argument the tool does not declare, or a declared
    one in a type a fork might read otherwise. Known by its envelope's thought and numbers, like a Probe."""

    probe: Probe
    extra: Mapping[str, JSON]

    def arguments(self) -> dict[str, JSON]:
        return {**self.probe.envelope.arguments(), **self.extra}


def _undeclared(name: str, value: JSON) -> ArgumentProbe:
    shape = f"an undeclared argument {name}"
    return ArgumentProbe(Probe(shape, Envelope(f"probe: a call with {shape}", 2, 3, True)), {name: value})


UNDECLARED_ARGUMENTS: Final[tuple[ArgumentProbe, ...]] = (
    _undeclared("sessionId", "probe-session-1"),
    _undeclared("kind", "hypothesis"),
    _undeclared("type", "verification"),
    _undeclared("stage", "conclusion"),
    _undeclared("tags", ["probe", "plan"]),
    _undeclared("confidence", 0.5),
)
"""Arguments forks add to the tool, each beside a call the original accepts: the original answers and draws
it as the same call without them (OBJ-13); a fork refusing a session it does not hold, or showing a thought's
kind in its box, departs there. Round 13's held-out-multi-8 sent none of `sessionId` or `kind` under its seed,
and two of its changes went unnamed. Sent by OBJ-13's check before its search, one call each."""

LABEL_ARGUMENT: Final = Probe("an undeclared argument naming a filed label",
                              Envelope("probe: an argument naming a filed label", 2, 3, True))
LABEL_ARGUMENTS: Final[tuple[str, ...]] = (
    "mergeBranch", "closeBranch", "deleteBranch", "removeBranch", "resolveBranch", "merge")
"""Names a fork might give an argument that retires a branch label: the original keeps every label it filed
whatever a call carries (ABS-11: "extra arguments ... no label ever leaves branches"); held-out-multi-8's
branch-workflow deleted the label a `mergeBranch` named, never sent. ABS-11's label check sends
LABEL_ARGUMENT's call with each, naming a label it filed just before."""

UNFILED_FROM: Final = FAR_AHEAD + 7
"""The branchFromThought that check files its label from: no thought on a branch has that number (no search
draws it), so a fork refusing a branch from a thought that is itself on a branch still files it."""

REVISION_STRINGS: Final[tuple[ArgumentProbe, ...]] = tuple(
    ArgumentProbe(Probe(f"isRevision given as the string “{text}”",
                        Envelope(f"probe: a revision flagged by the string “{text}”", 2, 3, True)),
                  {"isRevision": text})
    for text in ("false", "0"))
"""A boolean flag sent as a string that reads false: the original renders any truthy isRevision as a revision
(RTE-9/a1's "banana"), a fork reading "false" as false draws a thought (held-out-multi-8's annotated-thoughts,
never sent "false"). Sent by RTE-9/a1's caption check before its search. (The required nextThoughtNeeded as
"false" is refused by the original: RTE-3's explicit examples send it.)"""


def argued_examples(probes: tuple[ArgumentProbe, ...],
                    parameters: Callable[[ArgumentProbe], Mapping[str, Any]]) -> Callable[[_Test], _Test]:
    """One explicit hypothesis example per ArgumentProbe, its parameters given by `parameters`, in the
    probes' order. Place it under `@given`, like `@example`."""

    def apply(test: _Test) -> _Test:
        for probe in reversed(probes):
            test = example(**parameters(probe))(test)
        return test

    return apply


DECLARED_ARGUMENT: Final = Probe("an argument only the served schema declares",
                                 Envelope("probe: a call with an argument only the served schema declares",
                                          2, 3, True))
"""The call a served schema's own extra property is sent beside (OBJ-13's declared-argument checks)."""

RANGE_PLACES: Final[tuple[str, ...]] = ("low in its range", "the top of its range", "past its range")
"""Where in an extra property's declared range a value is picked: held-out-multi-9's confidence-scores fork
declares `confidence` from 0 to 1, plans one more thought below 0.5 and refuses a value out of range; the
undeclared-argument probe sent 0.5 only, and neither change showed (round 14)."""

DECLARED_EXTRAS_MAX: Final = 8
"""Extra properties of a served schema given values, at most (in name order): the schema is the server's."""
_SPAN_MAX: Final = 1e12
"""A bound past this is no range to pick in (the harness sends numbers a double holds exactly)."""


def _bound(schema: Mapping[str, Any], *keys: str) -> float | None:
    for key in keys:
        value = schema.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and abs(value) <= _SPAN_MAX:
            return float(value)
    return None


def _type(schema: Mapping[str, Any]) -> str | None:
    declared = schema.get("type")
    names = declared if isinstance(declared, list) else [declared]
    return next((name for name in names if isinstance(name, str) and name != "null"), None)


def declared_values(schema: object, place: str) -> list[JSON]:
    """A value for an extra property at `place` (RANGE_PLACES) of the range its served schema declares: a
    number's minimum to maximum (0 to 100 when it declares none; no value past an unbounded range), an
    enumeration's first and last entries, a string's length, a boolean's false and true. An empty list
    where the schema gives no such value."""
    if not isinstance(schema, Mapping) or place not in RANGE_PLACES:
        return []
    low_place, top_place = place == RANGE_PLACES[0], place == RANGE_PLACES[1]
    listed = schema.get("enum")
    if isinstance(listed, list) and listed and all(isinstance(v, str | bool | int | float) for v in listed):
        return [listed[0]] if low_place else [listed[-1]] if top_place else ["probe: no listed value"]
    kind = _type(schema)
    if kind in ("number", "integer"):
        low = _bound(schema, "minimum", "exclusiveMinimum")
        high = _bound(schema, "maximum", "exclusiveMaximum")
        if low is None and high is None and not (low_place or top_place):
            return []
        low = low if low is not None else (high - 100 if high is not None else 0.0)
        high = high if high is not None else low + 100
        span = max(high - low, 1.0 if kind == "integer" else 0.0)
        value = low + span / 10 if low_place else high if top_place else high + span / 2
        if isinstance(schema.get("exclusiveMaximum"), int | float) and top_place:
            value = high - span / 10
        picked = round(value, 6)
        return [math.ceil(value) if kind == "integer" or picked.is_integer() else picked]
    if kind == "boolean":
        return [False] if low_place else [True] if top_place else []
    if kind == "array":
        return _array_values(schema, place)
    if kind == "string":
        longest = _bound(schema, "maxLength")
        if low_place:
            return ["probe"]
        if longest is None or longest > 10_000:
            return []
        return ["x" * int(longest)] if top_place else ["x" * (int(longest) + 1)]
    return []


_ITEMS_MAX: Final = 8
"""Elements of one array value sent, at most (a schema's `minItems` past this gives no value)."""


def _item(items: Mapping[str, Any], place: str) -> JSON | None:
    """One element of an array of `items` at `place`: for numbers, 1 low in the range and the probe's own
    thoughtNumber (2, recorded by the plain call sent just before) at its top, each only inside the declared
    bounds (else the nearer bound), one below the minimum past it; an enumeration's first or last entry; a
    short string inside its lengths; true. None where the items' schema gives no such value."""
    listed = items.get("enum")
    if isinstance(listed, list) and listed and all(isinstance(v, str | bool | int | float) for v in listed):
        return None if place == RANGE_PLACES[2] else listed[0] if place == RANGE_PLACES[0] else listed[-1]
    kind = _type(items)
    if kind in ("number", "integer"):
        low, high = _bound(items, "minimum", "exclusiveMinimum"), _bound(items, "maximum", "exclusiveMaximum")
        if place == RANGE_PLACES[2]:
            past = low - 1 if low is not None else high + 1 if high is not None else None
            return None if past is None else math.floor(past) if kind == "integer" else past
        wanted = 1 if place == RANGE_PLACES[0] else DECLARED_ARGUMENT.envelope.thought_number
        picked = max(low, min(high, wanted) if high is not None else wanted) if low is not None else (
            min(high, wanted) if high is not None else wanted)
        return math.ceil(picked) if kind == "integer" or float(picked).is_integer() else picked
    if place == RANGE_PLACES[2]:
        return None
    if kind == "string":
        shortest, longest = _bound(items, "minLength"), _bound(items, "maxLength")
        text = "probe".ljust(int(shortest or 0), "x") if (shortest or 0) <= 10_000 else None
        return None if text is None else text[:int(longest)] if longest is not None else text
    return True if kind == "boolean" else None


def _array_values(schema: Mapping[str, Any], place: str) -> list[JSON]:
    """An array of the declared `items` at `place` (_item), as many as `minItems` asks (one at least, at
    most `maxItems` and _ITEMS_MAX): held-out-multi-12's thought-dependencies fork declares `dependsOn`, an
    array of integers from 1, no enum or default, and acts on it; no call carried it (issue 42, round 17).
    An empty list where the items give no value."""
    items = schema.get("items")
    element = _item(items, place) if isinstance(items, Mapping) else None
    fewest, most = _bound(schema, "minItems"), _bound(schema, "maxItems")
    count = max(int(fewest or 0), 1)
    if element is None or count > _ITEMS_MAX or (most is not None and count > most):
        return []
    return [[element] * count]


LATE_THROW: Final = Envelope("t", 1, 1, True).arguments(branchId="__proto__", branchFromThought=1)
"""A call that passes validation and then throws (RTE-8/a1): refused, yet retained by the original."""
STREAK_END: Final = Probe("a valid call after four refused calls in a row",
                          Envelope("probe: a valid call after four refused calls in a row", 2, 3, True))
REFUSAL_STREAK: Final[tuple[tuple[str, dict[str, JSON]], ...]] = (
    ("accept", STREAK_END.envelope.arguments()),
    ("reject", {"thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": True}),
    ("reject", {"thought": "t", "thoughtNumber": "1", "totalThoughts": 1, "nextThoughtNeeded": True}),
    ("reject", {"thought": "t", "thoughtNumber": 1, "totalThoughts": [1], "nextThoughtNeeded": True}),
    ("late-throw", LATE_THROW),
    ("accept", STREAK_END.envelope.arguments()),
)
"""A valid call (a fork counting refusals in a row starts from zero), four refused calls in a row (three
refused by validation, then a late throw, which passed validation), then a valid call again: the original
retains each call that passed validation whatever came before (OBJ-2, RTE-5), the late throw included.
Held-out-multi-9's fork-model-guard refuses any call after three refusals in a row; only some seeds' search
drew such a streak (issue 43: OBJ-2 new under six of eight seeds). Sent by OBJ-2's append check
(suite/test_store.py) before its search."""


_KEYED: Final = ("thought", "thoughtNumber", "totalThoughts")


def _key(arguments: Mapping[str, JSON]) -> tuple[str, ...]:
    return tuple(repr(arguments.get(name)) for name in _KEYED)


_BY_CALL: Final[Mapping[tuple[str, ...], Probe]] = {
    _key(probe.envelope.arguments()): probe for probe in (
        *PROBES, *BOUNDARY_PROBES, LABEL_ARGUMENT, STREAK_END, DECLARED_ARGUMENT,
        *(argued.probe for argued in (*UNDECLARED_ARGUMENTS, *REVISION_STRINGS)))}


_BY_NUMBERS: Final[Mapping[tuple[str, ...], Probe]] = {
    _key(probe.envelope.arguments())[1:]: probe for probe in PROBES
    if FAR_AHEAD in (probe.envelope.thought_number, probe.envelope.total_thoughts)
    or probe.envelope.thought_number == FAR_AHEAD + 1}
"""Probes known by their numbers alone (no search draws 10**9 or 10**9 + 1): a check of what a thought
says (ABS-3) sends a probe's numbers with thoughts of its own."""


def probe_of(arguments: Mapping[str, JSON]) -> Probe | None:
    """The probe this call sends (its thought and two numbers, or the far-ahead numbers alone; a property may
    add optional fields or send it with nextThoughtNeeded false first; a text probe's thought with a marker
    after it, as CLM-5's check sends it, or the many-lines thought at numbers of its own, as RTE-9/a1's
    check sends it), or None."""
    key = _key(arguments)
    found = _BY_CALL.get(key) or _BY_NUMBERS.get(key[1:])
    if found is None:
        thought = arguments.get("thought")
        found = next((probe for probe in (*TEXT_PROBES, MANY_LINES_PROBE)
                      if isinstance(thought, str) and thought.startswith(probe.envelope.thought)), None)
    return found

