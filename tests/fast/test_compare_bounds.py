"""The rule behind a refused value found by re-testing in-range values on fresh calls, not its type class
(issue 42): "`totalThoughts` given as a fraction" when 1.5 is accepted and the rule is ≥ 1, "`branchId`
given as a string" when only labels past 256 characters are refused. Against `tests/servers/bounded.py`."""

from __future__ import annotations

import re
import shlex
import sys
from functools import partial

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.compare.bounds import Bound, find_bound
from conformance.compare.engine import _with_bounds
from conformance.compare.explain import explain
from conformance.compare.known_changes import default_known_changes
from conformance.compare.programs import Step, frames, valid
from conformance.core.protocol import TOOL
from conformance.report.model import Difference
from conformance.targets.specs import Target, resolve_target
from tests.servers import command, fork_target
from tests.side_by_side import side_by_side


def _server(*rules: str) -> Target:
    return resolve_target("cmd:" + shlex.join(command("bounded", *rules)))


def _refusal(field: str, value_class: str, args: dict[str, object], text: str) -> Difference:
    return Difference(id=f"is_error.{field}.{value_class}.refused-by-b", aspect="is_error", summary="",
                      field=field, value_class=value_class, detail="refused by b", a='{"ok": true}',
                      b=f"isError {text}", program=frames((Step(TOOL, args),)))  # type: ignore[arg-type]


def test_a_lower_bound_with_fractions_accepted_is_said_as_the_bound() -> None:
    d = _refusal("totalThoughts", "fraction", valid(totalThoughts=0.5),
                 "Invalid totalThoughts: must be at least 1")
    bound, marked = side_by_side(
        partial(find_bound, _server("falsy"), _server("falsy", "min-total"), "totalThoughts", "b",
                valid(totalThoughts=0.5), 10),
        partial(_with_bounds, _server("falsy"), _server("falsy", "min-total"), [d], 10, lambda _: None))
    assert isinstance(bound, Bound) and bound.rule == "`totalThoughts` below 1", bound
    assert bound.holds(0.5) and not bound.holds(1.5) and 0 in bound.both
    assert isinstance(marked, list)
    headline = explain(marked, "base", "head", default_known_changes()).headline
    assert "head refuses `totalThoughts` below 1" in headline, headline
    assert "1.5 accepted" in headline and "fraction" not in headline, headline


def test_a_length_bound_is_found_exactly() -> None:
    label = "x" * 300
    args = valid(branchFromThought=1, branchId=label)
    d = _refusal("branchId", "string", args, "Invalid branchId: at most 256 characters")
    bound, marked = side_by_side(
        partial(find_bound, _server(), _server("max-label"), "branchId", "b", args, 10),
        partial(_with_bounds, _server(), _server("max-label"), [d], 10, lambda _: None))
    assert isinstance(bound, Bound) and bound.rule == "`branchId` longer than 256 characters", bound
    assert bound.refused == (257,) and bound.accepted == (256,)
    assert isinstance(marked, list)
    headline = explain(marked, "base", "head", default_known_changes()).headline
    assert "head refuses `branchId` longer than 256 characters" in headline, headline
    assert "257 characters refused, 256 characters accepted" in headline, headline


def test_a_length_bound_is_said_in_the_unit_wider_characters_show() -> None:
    """Re-tested with one-byte letters alone, a 256-byte bound read "256 characters" (issue 42,
    held-out-multi-11's notebook: 4096 bytes of UTF-8 said as characters). Two-byte and four-byte characters
    tell bytes of UTF-8, UTF-16 units and code points apart."""
    args = valid(branchFromThought=1, branchId="x" * 300)
    said = {}
    for rule in ("max-label-bytes", "max-label-units", "max-label"):
        bound = find_bound(_server(), _server(rule), "branchId", "b", args, 10)
        assert isinstance(bound, Bound) and bound.refused == (257,) and bound.accepted == (256,), bound
        said[rule] = bound
    assert said["max-label-bytes"].rule == "`branchId` longer than 256 bytes of UTF-8"
    assert "129 “é” (258 bytes) refused, 128 (256 bytes) accepted" in said["max-label-bytes"].value_class
    assert said["max-label-bytes"].holds("é" * 129) and not said["max-label-bytes"].holds("é" * 128)
    assert said["max-label-units"].rule == "`branchId` longer than 256 UTF-16 code units"
    assert said["max-label-units"].holds("😀" * 129) and not said["max-label-units"].holds("é" * 256)
    assert said["max-label"].rule == "`branchId` longer than 256 characters"
    assert "256 “é” and 256 “😀” accepted" in said["max-label"].value_class


def test_an_integer_rule_is_no_bound_and_keeps_its_class() -> None:
    """Fractions refused between accepted integers: the type class ("a fraction") is the rule."""
    d = _refusal("totalThoughts", "fraction", valid(totalThoughts=1.5),
                 "Invalid totalThoughts: must be an integer")
    bound, marked = side_by_side(
        partial(find_bound, _server(), _server("integer-total"), "totalThoughts", "b",
                valid(totalThoughts=1.5), 10),
        partial(_with_bounds, _server(), _server("integer-total"), [d], 10, lambda _: None))
    assert bound is None
    assert isinstance(marked, list) and marked[0].value_class == "fraction"


def test_a_label_refused_as_an_integer_does_not_hide_the_length_bound() -> None:
    """Two refusals of one field, of two kinds: each is re-tested as its own kind."""
    as_integer = _refusal("branchId", "integer", valid(branchFromThought=1, branchId=7), "Invalid branchId")
    long = valid(branchFromThought=1, branchId="x" * 300)
    too_long = _refusal("branchId", "string", long, "Invalid branchId: at most 256 characters")
    too_long = too_long.model_copy(update={"id": "is_error.branchId.string.refused-by-b"})
    marked = _with_bounds(_server(), _server("string-label", "max-label"), [as_integer, too_long], 10,
                          lambda _: None)
    assert marked[0].value_class == "integer"
    assert marked[1].value_class.startswith("bound: `branchId` longer than 256 characters"), marked[1]


def test_a_call_breaking_another_rule_too_is_re_tested_in_a_settled_call() -> None:
    """PR #3007's head refuses a branch from thought 1 at thought 1 as well as a label past 256 characters:
    the ladder is sent again at thought 3 of 3, and says so."""
    args = valid(branchFromThought=1, branchId="x" * 300)
    bound = find_bound(_server(), _server("branch-before", "max-label"), "branchId", "b", args, 10)
    assert bound is not None and bound.rule == "`branchId` longer than 256 characters", bound
    assert bound.value_class.endswith('with `thoughtNumber` 3 and `totalThoughts` 3'), bound.value_class


@given(n=st.integers(3, 300), rule=st.sampled_from(["min-label", "min-label-bytes", "min-label-units"]))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_minimum_length_is_found_exactly_and_said_in_its_unit(n: int, rule: str) -> None:
    """A label shorter than N refused: the lower bound is found as the upper one is, and its unit re-tested
    both ways (only an upper bound's unit was: a minimum in bytes read as characters)."""
    args = valid(branchFromThought=1, branchId="ab")
    bound = find_bound(_server(), _server(f"{rule}={n}"), "branchId", "b", args, 10)
    unit = {"min-label": "characters", "min-label-bytes": "bytes of UTF-8",
            "min-label-units": "UTF-16 code units"}[rule]
    assert isinstance(bound, Bound) and bound.rule == f"`branchId` shorter than {n} {unit}", bound
    assert bound.refused == (n - 1,) and bound.accepted == (n,), bound
    h = (n + 1) // 2
    assert bound.holds("é" * (h - 1)) and bound.holds("b" * (n - 1)) and not bound.holds("b" * n)
    assert bound.holds("😀" * h) == (rule == "min-label"), bound
    assert bound.holds("é" * h) == (rule != "min-label-bytes"), bound


@given(n=st.integers(2, 50))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_numeric_lower_bound_other_than_one_is_found(n: int) -> None:
    """totalThoughts refused below N (the original's guard refuses only 0): said as the bound, not as "an
    integer" refused."""
    d = _refusal("totalThoughts", "integer", valid(totalThoughts=n - 1),
                 f"Invalid totalThoughts: at least {n}")
    marked = _with_bounds(_server(), _server(f"least-total={n}"), [d], 10, lambda _: None)
    headline = explain(marked, "base", "head", default_known_changes()).headline
    assert f"head refuses `totalThoughts` below {n} (" in headline, headline
    shown = re.search(rf"re-tested on fresh calls: ([\d.]+) refused, {n}\b", headline)
    assert shown is not None and n - 1 < float(shown[1]) < n, headline
    assert "integer" not in headline, headline


def test_a_thought_too_short_is_said_in_utf16_units_on_the_reference_fork() -> None:
    """The reference's fork refusing a thought shorter than 8 UTF-16 units (JavaScript's `length`)."""
    reference = resolve_target("cmd:" + shlex.join([sys.executable, "-m", "reference_server"]))
    fork = fork_target("short-refused")
    bound = find_bound(reference, fork, "thought", "b", valid(thought="ab"), 10)
    assert isinstance(bound, Bound) and bound.rule == "`thought` shorter than 8 UTF-16 code units", bound
    assert "4 “é” refused, 4 “😀” (8 UTF-16 units) accepted" in bound.value_class, bound.value_class


@given(witness=st.text(alphabet=" \t\n\u3000\u00a0", min_size=1, max_size=6))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_whitespace_refusal_is_said_as_its_kind_never_as_a_length(witness: str) -> None:
    """A fork refusing a blank thought (held-out-multi-14's typed-arguments): "\\t" re-tested with letters
    read "`thought` shorter than 2 characters; 1 refused, 2 accepted" where "x" is accepted. Re-tested in
    the witness's own characters, the rule is their kind."""
    reference = resolve_target("cmd:" + shlex.join([sys.executable, "-m", "reference_server"]))
    fork = fork_target("blank-refused")
    d = _refusal("thought", "string", valid(thought=witness), "Invalid thought: must not be blank")
    marked = _with_bounds(reference, fork, [d], 10, lambda _: None)
    headline = explain(marked, "base", "head", default_known_changes()).headline
    assert "head refuses `thought` made only of whitespace" in headline, headline
    assert "shorter than" not in headline and "letters of those lengths accepted" in headline, headline
