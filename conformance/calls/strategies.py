"""Hypothesis strategies for what callers send: JSON of every type, falsy values, odd numbers and strings.

Values are judged by JavaScript semantics (the original is a JS artifact): a JSON number is a double
once parsed, `-0.0` and `0` are falsy, an empty object or array is truthy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeVar

from hypothesis import example
from hypothesis import strategies as st

from conformance.catalog.corpus import default_corpus
from conformance.core.js import MAX_ARRAY_INDEX, MAX_SAFE_INTEGER, PROTOTYPE_KEYS
from conformance.core.jsontypes import JSON, OMIT, Omitted
from conformance.core.protocol import TOOL

REQUIRED: Final[tuple[str, ...]] = ("thought", "thoughtNumber", "totalThoughts", "nextThoughtNeeded")
OPTIONAL: Final[tuple[str, ...]] = (
    "isRevision",
    "revisesThought",
    "branchFromThought",
    "branchId",
    "needsMoreThoughts",
)
FALSY: Final[tuple[JSON, ...]] = (None, False, 0, 0.0, -0.0, "")
"""Every JSON value JavaScript treats as falsy (NaN is not JSON; undefined is a missing key)."""


# -- scalars -------------------------------------------------------------------------------------------

safe_integers = st.integers(min_value=-MAX_SAFE_INTEGER, max_value=MAX_SAFE_INTEGER)
positive_integers = st.integers(min_value=1, max_value=10**6)
small_positive_integers = st.integers(min_value=1, max_value=50)
finite_floats = st.floats(allow_nan=False, allow_infinity=False)

numbers: st.SearchStrategy[int | float] = st.one_of(
    positive_integers,
    st.integers(min_value=-(10**6), max_value=0),
    st.integers(min_value=MAX_SAFE_INTEGER - 5, max_value=MAX_SAFE_INTEGER + 5),
    st.integers(min_value=10**15, max_value=10**300),
    finite_floats,
    st.floats(min_value=-1e3, max_value=1e3, allow_nan=False).filter(lambda f: not f.is_integer()),
)
"""JSON numbers a validating client would never send: negative, zero, fractional, beyond 2**53, huge.

All stay finite after parsing as a double (ints below 10**300); non-finite numbers get their own tests.
"""

truthy_numbers = numbers.filter(lambda n: n != 0)

_awkward_chars = st.sampled_from(
    [
        "",
        " ",
        "\t",
        "\n",
        "\r\n",
        "\u0000",
        "\u0007",
        "\u001b[31m",
        "\u2028",
        "\u00a0",
        "é",
        "中",
        "😀",
        "𝔘",
        "\U0010fffd",
        "\ufeff",
        "e\u0301",
        "\u212b",
        "\ufb01",
        "\uff21",
        "\u1100\u1161",
        "│",
        "─",
        "%s",
        "${x}",
        '"',
        "\\",
        "</script>",
    ]
)

strings = st.one_of(
    st.text(max_size=40),
    st.lists(_awkward_chars, max_size=6).map("".join),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=20),
)
"""Strings incl. empty, whitespace-only, astral, newlines and control characters (never lone surrogates), and
ones Unicode normalization changes (a combining accent, the Angstrom sign, a ligature, a full-width letter,
Hangul jamo): a fork that normalizes what it keeps is seen only on these."""

UNNORMALIZED: Final[tuple[str, ...]] = (
    "cafe\u0301 au lait",
    "\u212bngstr\u00f6m",
    "\ufb01nal \uff21nswer \u2460",
    "\u1100\u1161\u11a8 and \uac01",
)
"""Thoughts that NFC or NFKC would rewrite (decomposed accents, canonical singletons, compatibility forms)."""

truthy_strings = strings.filter(bool)
single_line_strings = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="\n\r\u2028\u2029\u0085\u000b\u000c"),
    min_size=1,
    max_size=60,
)

terminal_texts = st.lists(
    st.sampled_from([
        "\u001b[31m", "\u001b[0m", "\u001b[1;32m", "\u001b[2K", "\u001b[1A", "\u001b]0;title\u0007",
        "\u0007", "\u0000", "\t", "\u200b", "\u202e", "\ufeff", "\u00ad", "plain", " words ", "中",
    ]),
    min_size=1,
    max_size=8,
).map("".join)
"""Single-line thoughts a terminal would act on (colour and cursor escapes, bell, bidi and zero-width
characters): a fork that sanitizes what it renders changes these, and arbitrary text rarely spells one."""

_TOKEN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
secret_texts = st.tuples(
    st.sampled_from(["the key is ", "export API_KEY=", "token: ", ""]),
    st.one_of(
        st.text(_TOKEN_CHARS, min_size=20, max_size=48).map(lambda t: "sk-" + t),
        st.text(_TOKEN_CHARS, min_size=36, max_size=36).map(lambda t: "ghp_" + t),
        st.text(_TOKEN_CHARS[:26] + _TOKEN_CHARS[52:], min_size=16, max_size=16).map(lambda t: "AKIA" + t),
        st.text(_TOKEN_CHARS, min_size=24, max_size=40).map(lambda t: "xoxb-" + t),
        st.text(_TOKEN_CHARS, min_size=8, max_size=24).map(lambda t: "password=" + t),
    ),
).map("".join)
"""Thoughts quoting a credential (API keys, tokens, a password): a fork that masks secrets in its log
changes these, and arbitrary text never spells one."""

# -- JSON values -------------------------------------------------------------------------------------

_json_keys = st.text(alphabet="abcdefgh_xyz0123456789", max_size=6)
"""Object keys that can never spell toString or valueOf."""

json_scalars: st.SearchStrategy[JSON] = st.one_of(st.none(), st.booleans(), numbers, strings)

json_values: st.SearchStrategy[JSON] = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(_json_keys, children, max_size=4),
    ),
    max_leaves=12,
)
"""Any JSON value; objects never carry their own toString/valueOf (those get a dedicated test)."""

falsy_values: st.SearchStrategy[JSON] = st.sampled_from(FALSY)
truthy_values: st.SearchStrategy[JSON] = json_values.filter(
    lambda v: not (v is None or v is False or v == "" or (isinstance(v, int | float) and v == 0))
)
non_strings: st.SearchStrategy[JSON] = json_values.filter(lambda v: not isinstance(v, str))
non_numbers: st.SearchStrategy[JSON] = json_values.filter(
    lambda v: isinstance(v, bool) or not isinstance(v, int | float)
)
non_booleans: st.SearchStrategy[JSON] = json_values.filter(lambda v: not isinstance(v, bool))


# -- thoughts and calls --------------------------------------------------------------------------------

CASINGS: Final[tuple[Callable[[str], str], ...]] = (str, str.lower, str.upper, str.title, str.swapcase)
"""A content-sniffing fork may compare case-sensitively or not: every step is drawn in each casing."""

reasoning_texts: st.SearchStrategy[str] = st.builds(
    lambda text, casing: casing(text),
    st.sampled_from([step.text for step in default_corpus().steps]),
    st.sampled_from(CASINGS),
)
"""Chain-of-thought-like steps from fixtures/corpus/reasoning.yaml ("thus", "final answer", "QED", "wait,
let me reconsider", ... in several languages), in any casing."""

thought_texts = st.one_of(reasoning_texts, truthy_strings, single_line_strings)

HYPOTHESIS_LIKE: Final[tuple[str, ...]] = (
    "Hypothesis: the bug is in the parser.",
    "Hypothesis 1: x = 4 satisfies 2x + 1 = 9.",
    "I hypothesize that the answer is 42.",
    "Solution hypothesis: use a binary search over the sorted list.",
    "Proposed hypothesis: the cache is stale after a deploy.",
)
VERIFICATION_LIKE: Final[tuple[str, ...]] = (
    "Verification: substituting x = 4 gives 9. The hypothesis is verified.",
    "Verifying the hypothesis against steps 1-3: it is FALSE, 2*4+1 = 9 but we needed 11.",
    "Check: the hypothesis fails on the empty input; hypothesis rejected.",
    "The hypothesis is confirmed by the chain of thought above.",
    "Hypothesis verification: contradiction found in thought 2.",
)
CONCLUSION_LIKE: Final[tuple[str, ...]] = (
    "Conclusion: the correct answer is 42.",
    "Final answer: 17. I am satisfied with this solution.",
    "Therefore the answer is x = 4. No more thoughts needed.",
    "Done. The satisfactory answer has been reached.",
    "Answer: impossible; the premises are inconsistent.",
)

claim_like_texts: st.SearchStrategy[str] = st.one_of(
    st.sampled_from(HYPOTHESIS_LIKE + VERIFICATION_LIKE + CONCLUSION_LIKE),
    st.builds(
        lambda kind, body: f"{kind}: {body}",
        st.sampled_from(
            [
                "Hypothesis",
                "Verification",
                "Conclusion",
                "Final answer",
                "Refuted",
                "Verified",
                "Correct answer",
            ]
        ),
        single_line_strings,
    ),
)
"""Thoughts that look like hypotheses, verifications and conclusions (the claim audit's inputs)."""

SENTENCE_ENDINGS: Final[tuple[str, ...]] = ("?", "？", " ?", "?!", "¿?", "!", "…", "...", ";", ":", ".")
punctuated_texts: st.SearchStrategy[str] = st.builds(
    lambda text, ending: text + ending,
    st.one_of(reasoning_texts, single_line_strings),
    st.sampled_from(SENTENCE_ENDINGS),
)
"""Thoughts ending in a question mark (ASCII, full-width, spaced), an exclamation, an ellipsis...: a fork that
decides something from how a thought ends is seen only if some thought ends that way."""

content_texts: st.SearchStrategy[str] = st.one_of(
    reasoning_texts, thought_texts, claim_like_texts, punctuated_texts
)

TRUNK_NAMES: Final[tuple[str, ...]] = (
    "main", "master", "trunk", "default", "root", "HEAD", "origin", "none", "null", "undefined",
)
"""Branch ids a fork could take for the main line or for no branch and leave unfiled: the original files
every truthy one alike."""

branch_labels = st.one_of(
    truthy_strings,
    st.integers(min_value=0, max_value=MAX_ARRAY_INDEX).map(str),
    st.integers(min_value=MAX_ARRAY_INDEX + 1, max_value=2**60).map(str),
    st.sampled_from(["01", "-1", "1.5", "1e3", " 1", "0x10", "4294967295", "NaN", "Infinity"]),
    st.integers(min_value=65, max_value=2_000).map(lambda n: "label-" + "x" * n),
    st.builds(lambda name, casing: casing(name), st.sampled_from(TRUNK_NAMES), st.sampled_from(CASINGS)),
).filter(lambda s: s not in PROTOTYPE_KEYS)
"""Truthy branch ids incl. integer-like ones (JS orders array-index keys first, ascending), long ones (a
fork capping labels shows only past its cap) and the names of a trunk or of nothing, in any casing."""

EXACT_VALUES: Final[tuple[JSON | Omitted, ...]] = (
    True,
    False,
    OMIT,
    None,
    0,
    1,
    "",
    "true",
    [],
    [True],
    {},
    {"value": True},
)
"""The values a fork could single out in an optional field: each exact boolean, absence, null, and a falsy
(or empty) and a truthy (or non-empty) value of every other JSON type. Every property claiming independence
from an optional field meets each of them (`exact_examples`)."""

exact_values: st.SearchStrategy[JSON | Omitted] = st.sampled_from(EXACT_VALUES)

optional_values: st.SearchStrategy[JSON | Omitted] = st.one_of(exact_values, json_values)
"""Any value of an optional field, half the draws from EXACT_VALUES (so `true` exactly comes up in about one
draw in 24, not one in a few hundred as from json_values alone)."""

_Test = TypeVar("_Test", bound=Callable[..., Any])
EXACT_FIELDS_ATTRIBUTE: Final = "exact_value_fields"


def exact_examples(
    field: str, *, param: str, keyed: bool = False, **others: Any
) -> Callable[[_Test], _Test]:
    """One explicit hypothesis example per EXACT_VALUES entry of optional `field`, given to parameter `param`
    (as `{field: value}` merged over `others[param]` when `keyed`); the other parameters take `others`.

    Place it under `@given`, like `@example`. tests/fast/test_strategy_coverage.py checks every property that
    claims independence from an optional field carries these examples.
    """
    if field not in OPTIONAL:
        raise ValueError(f"exact_examples: {field!r} is not an optional field ({', '.join(OPTIONAL)})")
    base: Mapping[str, JSON | Omitted] = others.pop(param, {}) if keyed else {}

    def apply(test: _Test) -> _Test:
        for value in EXACT_VALUES:
            chosen: object = {**base, field: value} if keyed else value
            test = example(**others, **{param: chosen})(test)
        fields: set[str] = set(getattr(test, EXACT_FIELDS_ATTRIBUTE, ()))
        setattr(test, EXACT_FIELDS_ATTRIBUTE, frozenset(fields | {field}))
        return test

    return apply



@dataclass(frozen=True)
class Envelope:
    """The four validated fields of one call (OBJ-10's validated half)."""

    thought: str
    thought_number: int | float
    total_thoughts: int | float
    next_thought_needed: bool

    def arguments(self, **extra: JSON | Omitted) -> dict[str, JSON]:
        args: dict[str, JSON] = {
            "thought": self.thought,
            "thoughtNumber": self.thought_number,
            "totalThoughts": self.total_thoughts,
            "nextThoughtNeeded": self.next_thought_needed,
        }
        for key, value in extra.items():
            if not isinstance(value, Omitted):
                args[key] = value
        return args


envelopes: st.SearchStrategy[Envelope] = st.builds(
    Envelope, thought_texts, small_positive_integers, small_positive_integers, st.booleans()
)
"""What a validating host would send: a non-empty thought, positive integers, a boolean."""

adversarial_envelopes: st.SearchStrategy[Envelope] = st.builds(
    Envelope, thought_texts, truthy_numbers, truthy_numbers, st.booleans()
)
"""Envelopes that pass the falsy/type guards but break the schema's minimum and integer type."""

BOUNDARY_ENVELOPES: Final[tuple[Envelope, ...]] = (
    Envelope("a plan of a million thoughts", 1, 10**6, True),
    Envelope("far into a long plan", 2**31, 2**31, True),
)
"""Accepted calls past the sizes a fork might bound (a totalThoughts or thoughtNumber at most 1000, 65535, a
32-bit count): the search draws such a value under some seeds only, so a change visible only above a value
departed under one seed and not the next (issue 43, held-out-multi-2's long-running fork). Sent first, under
every seed, by each property carrying `boundary_examples`."""

BOUNDARY_ATTRIBUTE: Final = "boundary_examples"


def boundary_examples(*, param: str = "envelope", **others: Any) -> Callable[[_Test], _Test]:
    """One explicit hypothesis example per BOUNDARY_ENVELOPES entry, given to parameter `param` (the other
    parameters take `others`). Place it under `@given`, like `@example`; tests/fast/test_strategy_coverage.py
    checks every property about the accepted answer's numbers carries it."""

    def apply(test: _Test) -> _Test:
        for envelope in BOUNDARY_ENVELOPES:
            test = example(**others, **{param: envelope})(test)
        setattr(test, BOUNDARY_ATTRIBUTE, True)
        return test

    return apply


numeric_strings: st.SearchStrategy[JSON] = st.one_of(
    numbers.map(str),
    st.sampled_from(["1", "5", " 3 ", "+2", "07", "1e1", "0x10", "1.5", "-2", "Infinity", "NaN", "1_000"]),
)
"""Strings a lenient guard could read as numbers (`Number(x)`, `parseInt`, `parseFloat`)."""

LOOKALIKES: Final[Mapping[str, st.SearchStrategy[JSON]]] = {
    "thought": st.one_of(truthy_numbers, st.booleans(), st.lists(truthy_strings, min_size=1, max_size=2)),
    "thoughtNumber": numeric_strings,
    "totalThoughts": numeric_strings,
    "nextThoughtNeeded": st.sampled_from(["true", "false", "True", "1", "0", "yes", 1, 0, None, [True]]),
}
"""Per required field, values of the wrong JSON type that a fork's guard could coerce into the right one:
the original refuses every one (its guards check typeof), so a guard that converts is seen."""


def field_values(name: str) -> st.SearchStrategy[JSON | Omitted]:
    """Any value for a required field, weighted toward the ones its guard has to decide on."""
    typed: dict[str, st.SearchStrategy[JSON]] = {
        "thought": strings,
        "thoughtNumber": numbers,
        "totalThoughts": numbers,
        "nextThoughtNeeded": st.booleans(),
    }
    return st.one_of(st.just(OMIT), falsy_values, typed[name], LOOKALIKES[name], json_values)


@st.composite
def _one_field_off(draw: st.DrawFn) -> dict[str, JSON]:
    """A valid call with one required field replaced: the later guards are reached as often as the first."""
    arguments: dict[str, JSON] = draw(envelopes).arguments()
    name = draw(st.sampled_from(REQUIRED))
    value = draw(field_values(name))
    if isinstance(value, Omitted):
        del arguments[name]
    else:
        arguments[name] = value
    return arguments


raw_arguments: st.SearchStrategy[dict[str, JSON]] = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={name: field_values(name) for name in REQUIRED},
    ).map(lambda d: {k: v for k, v in d.items() if not isinstance(v, Omitted)}),
    _one_field_off(),
)
"""Arguments objects whose four required fields are each missing, falsy, mistyped, lookalike or valid, half
of them valid but for one field."""


def unknown_tool_names(known: Sequence[str] = (TOOL,)) -> st.SearchStrategy[str]:
    """Tool names that are not the dispatched one, incl. near misses (case, underscores, whitespace), the
    names every JavaScript object answers for (a fork dispatching through an object of handlers) and names
    longer than hosts allow."""
    near = st.sampled_from(
        [
            "sequential_thinking",
            "SequentialThinking",
            "sequentialThinking",
            "sequentialthinking ",
            " sequentialthinking",
            "sequentialthinking\n",
            "sequential-thinking",
            "SEQUENTIALTHINKING",
            "",
            "mcp-server-sequential-thinking",
            "sequentialthinking\u0000",
            "server__sequentialthinking",
            "sequential-thinking__sequentialthinking",
            "mcp__sequentialthinking",
            *PROTOTYPE_KEYS,
        ]
    )
    # Past the 64 characters many hosts allow a tool name: a fork may cut or refuse what it echoes.
    long = st.text(min_size=65, max_size=300)
    return st.one_of(near, strings, long).filter(lambda n: n not in known)


@st.composite
def episodes(draw: st.DrawFn, *, max_size: int = 6) -> list[Envelope]:
    """One thinking episode as a host would run it: thoughts 1..n of n, the last one ending it."""
    size = draw(st.integers(min_value=1, max_value=max_size))
    texts = draw(st.lists(content_texts, min_size=size, max_size=size))
    return [Envelope(text, number, size, number < size) for number, text in enumerate(texts, start=1)]


LabelKind = Literal["text", "index", "beyond-index", "empty"]
LABEL_OFFSETS: Final = 10_000

label_specs: st.SearchStrategy[tuple[LabelKind, str | int]] = st.one_of(
    st.tuples(st.just("text"), single_line_strings),
    st.tuples(st.just("index"), st.integers(min_value=0, max_value=LABEL_OFFSETS - 1)),
    st.tuples(st.just("beyond-index"), st.integers(min_value=0, max_value=LABEL_OFFSETS - 1)),
    st.tuples(st.just("empty"), st.just("")),
)
"""Branch labels described relative to a per-example namespace (see `LabelSpace`): text, an integer-like key
JS orders numerically, an integer-like key past the array-index range, or the empty (falsy) label."""
