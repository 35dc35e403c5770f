"""Every assert a check can fail on carries its own message: a bare one reaches the report as pytest's
rewriting of it, which says nothing in the server's terms ("the check's condition did not hold")."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Final

from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.store import StoreState
from conformance.calls.strategies import Envelope
from conformance.core.jsontypes import JSON
from conformance.gate.rootcauses import signature
from conformance.suite.answers import STATUS_KEYS, fields_unlike, reanswered
from conformance.suite.contradiction import brief, first_difference
from conformance.suite.jsvalues import expected_box
from conformance.suite.render_box import boxes, redrawn
from conformance.suite.store_model import StoreModel

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ("conformance/suite", "conformance/calls", "conformance/drivers")
"""The checks, the helpers they call to read answers and the drivers they call through: whatever they
assert can end a check."""


def bare_asserts(source: str, name: str) -> list[str]:
    """`name:line` of each assert in `source` without a message."""
    lines = sorted(node.lineno for node in ast.walk(ast.parse(source))
                   if isinstance(node, ast.Assert) and node.msg is None)
    return [f"{name}:{line}" for line in lines]


def bare_asserts_under(root: Path) -> list[str]:
    found: list[str] = []
    for folder in CHECKED:
        for path in sorted((root / folder).rglob("*.py")):
            found += bare_asserts(path.read_text(encoding="utf-8"), str(path.relative_to(root)))
    return found


def test_every_check_assert_has_a_message() -> None:
    bare = bare_asserts_under(ROOT)
    said = "asserts without a message (say what was expected and what the server did):"
    assert not bare, "\n".join([said, *bare])


_VALUE_ONLY_CALLS: Final = frozenset({"list", "sorted", "dict", "set", "tuple", "len", "str", "repr"})


def _value_only(message: ast.expr) -> bool:
    """A message that is a value and no words: a name, a tuple, a list, an item, an attribute, list(x)."""
    if isinstance(message, ast.Name | ast.Tuple | ast.List | ast.Subscript | ast.Attribute):
        return True
    return (isinstance(message, ast.Call) and isinstance(message.func, ast.Name)
            and message.func.id in _VALUE_ONLY_CALLS)


def value_only_messages(source: str, name: str) -> set[str]:
    """`name::function` of each function in `source` holding an assert whose message is a value alone."""
    found: set[str] = set()

    def walk(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                walk(child, child.name)
                continue
            if isinstance(child, ast.Assert) and child.msg is not None and _value_only(child.msg):
                found.add(f"{name}::{function}")
            walk(child, function)

    walk(ast.parse(source), "<module>")
    return found


VALUE_ONLY_LEFT: Final = frozenset({
    "conformance/calls/store.py::state_of",
    "conformance/suite/answers.py::assert_content_independent",
    "conformance/suite/answers.py::host_status",
    "conformance/suite/fresh_runs.py::state_of_answer",
    "conformance/suite/rawproc.py::request",
    "conformance/suite/store_model.py::accept",
    "conformance/suite/test_absences.py::test_every_corpus_step_is_content_free",
    "conformance/suite/test_absences.py::test_no_hypothesis_object",
    "conformance/suite/test_absences.py::test_no_representable_hypothesis",
    "conformance/suite/test_absences.py::test_reused_label_files_into_one_bucket",
    "conformance/suite/test_claims.py::check_content_independence",
    "conformance/suite/test_claims.py::check_idle",
    "conformance/suite/test_coercion.py::test_coercion_consults_only_the_two_numbers",
    "conformance/suite/test_coercion.py::test_total_never_lowered",
    "conformance/suite/test_coercion.py::test_total_raised_to_thought_number",
    "conformance/suite/test_dispatch.py::test_non_object_arguments_are_a_protocol_error",
    "conformance/suite/test_dispatch.py::test_readme_tool_name_is_not_dispatched",
    "conformance/suite/test_errors.py::test_error_after_retention_reaches_a_validating_host",
    "conformance/suite/test_errors.py::test_error_answer_after_retention",
    "conformance/suite/test_errors.py::test_render_failure_after_retention",
    "conformance/suite/test_identity.py::test_code_imports_no_persistence_module",
    "conformance/suite/test_identity.py::test_sdk_pinned_and_installed_at_0_5_0",
    "conformance/suite/test_identity.py::test_server_identity_and_capabilities",
    "conformance/suite/test_identity.py::test_yargs_declared_but_never_used",
    "conformance/suite/test_lifecycle.py::test_answers_do_not_depend_on_stderr_being_read",
    "conformance/suite/test_lifecycle.py::test_banner_without_any_request",
    "conformance/suite/test_lifecycle.py::test_end_of_stdin_ends_the_process_quietly",
    "conformance/suite/test_lifecycle.py::test_one_json_object_per_line",
    "conformance/suite/test_lifecycle.py::test_one_response_per_request_and_nothing_else",
    "conformance/suite/test_lifecycle.py::test_replay_on_fresh_processes_is_identical",
    "conformance/suite/test_render.py::test_caption_precedence",
    "conformance/suite/test_render.py::test_huge_thought_rendered_whole",
    "conformance/suite/test_render.py::test_multi_line_payload_breaks_the_box",
    "conformance/suite/test_render.py::test_no_box_for_an_error_answer_after_retention",
    "conformance/suite/test_render.py::test_one_box_per_accepted_call_none_per_rejected",
    "conformance/suite/test_render.py::test_representative_renders",
    "conformance/suite/test_store.py::_accepted",
    "conformance/suite/test_store.py::test_counter_spans_thinking_episodes",
    "conformance/suite/test_store.py::test_state_is_process_global",
    "conformance/suite/test_store.py::test_three_fields_echo_the_request",
    "conformance/suite/test_tool_spec.py::served_tools",
    "conformance/suite/test_tool_spec.py::test_assertive_block",
    "conformance/suite/test_tool_spec.py::test_description_is_not_uniformly_second_person",
    "conformance/suite/test_tool_spec.py::test_directives_delivered_but_not_enforced",
    "conformance/suite/test_tool_spec.py::test_input_schema_shape",
    "conformance/suite/test_tool_spec.py::test_one_spec_of_three_keys",
    "conformance/suite/test_tool_spec.py::test_readme_agrees_with_the_schema",
    "conformance/suite/test_tool_spec.py::test_served_spec_matches_the_original",
    "conformance/suite/test_tool_spec.py::test_tools_list_is_static_and_reaches_a_host",
    "conformance/suite/test_validation.py::test_branch_id_filed_as_its_string",
})
"""Checks whose failure still quotes a value without saying what was due ("“status object shape” does not
hold here" in a report, issue 42): each one fixed leaves this list, and no check joins it."""


def test_no_new_check_fails_with_a_value_and_no_words() -> None:
    """An assert's message says what was expected and what came (`fields_unlike`, `reanswered`, an f-string),
    never the value alone: a Python repr reaches the report's line as "the check does not hold here"."""
    found: set[str] = set()
    for folder in CHECKED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            found |= value_only_messages(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not found - VALUE_ONLY_LEFT, "asserts whose message is a value alone (say what was due):\n" + (
        "\n".join(sorted(found - VALUE_ONLY_LEFT)))
    assert not VALUE_ONLY_LEFT - found, "fixed, so to drop from VALUE_ONLY_LEFT:\n" + "\n".join(
        sorted(VALUE_ONLY_LEFT - found))


def test_an_answers_fields_are_said_by_what_it_adds_or_lacks() -> None:
    """The status-shape checks (OBJ-4, OBJ-1/a1, OBJ-8) say the fields a fork adds or drops, by name."""
    assert fields_unlike([*STATUS_KEYS, "timestamp"], STATUS_KEYS) == (
        "the answer has 1 field(s) more than thoughtNumber, totalThoughts, nextThoughtNeeded, branches, "
        "thoughtHistoryLength: timestamp")
    assert fields_unlike(["error"], ["error", "status"], "a refusal") == "a refusal has no status"
    assert fields_unlike(["b", "a"], ["a", "b"]) == "the answer has its fields in the order b, a, not a, b"


_conditions = st.sampled_from(["x", "x == 1", "not x", "isinstance(x, dict)", "(x\n    == 1)"])


@given(
    conditions=st.lists(st.tuples(_conditions, st.booleans()), min_size=1, max_size=6),
    nested=st.booleans(),
)
def test_bare_asserts_are_found_wherever_they_are(conditions: list[tuple[str, bool]], nested: bool) -> None:
    """The walk finds exactly the asserts without a message, at their lines, in functions and classes."""
    lines = ["class C:", "    def f(self, x):"] if nested else ["def f(x):"]
    indent = " " * (8 if nested else 4)
    wanted = []
    for condition, messaged in conditions:
        if not messaged:
            wanted.append(f"m.py:{len(lines) + 1}")
        statement = f"assert {condition}" + (', "says why"' if messaged else "")
        lines += [indent + part for part in statement.split("\n")]
    assert bare_asserts("\n".join(lines) + "\n", "m.py") == wanted


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=30,
)


@given(value=_json, limit=st.integers(min_value=2, max_value=300))
def test_a_quoted_value_is_the_servers_json_on_one_line_cut_at_its_limit(value: JSON, limit: int) -> None:
    """`brief` shows what was on the wire (JSON, key order kept), one line, whole when it fits."""
    whole = json.dumps(value, ensure_ascii=False)
    out = brief(value, limit)
    assert "\n" not in out and len(out) <= max(limit, 1)
    assert out == whole if len(whole) <= limit else (out.endswith("…") and whole.startswith(out[:-1]))


@given(common=st.lists(_json, max_size=4), one=_json, two=_json)
def test_the_first_difference_names_where_two_runs_parted(common: list[JSON], one: JSON, two: JSON) -> None:
    out = first_difference([*common, one], [*common, two])
    if one == two:
        assert out == f"{len(common) + 1} answers, then {len(common) + 1}"
    elif isinstance(one, dict) and isinstance(two, dict) and out.startswith(
            f"answer {len(common) + 1} differs in "):
        assert ", then " in out, out  # each differing field with both values (test_contradiction.py)
    else:
        assert out == f"answer {len(common) + 1} is {brief(one)}, then {brief(two)}"


_labels = st.lists(st.text(alphabet="abc", min_size=1, max_size=3), unique=True, max_size=4)


@given(count=st.integers(0, 50), labels=_labels, found_count=st.integers(0, 50), found_labels=_labels)
def test_a_store_unlike_the_model_is_said_field_by_field(
    count: int, labels: list[str], found_count: int, found_labels: list[str]
) -> None:
    """The probe's state beside the model's: each field that differs, with both values; a label missing or
    added by name."""
    out = StoreModel(count, tuple(labels)).unlike(StoreState(found_count, tuple(found_labels)))
    counted = f"thoughtHistoryLength {found_count}, not {count}"
    assert (counted in out) is (found_count != count), out
    for label in set(labels) ^ set(found_labels):
        assert json.dumps(label) in out, (label, out)
    if found_labels != labels and set(found_labels) == set(labels):
        assert f"in the order {brief(found_labels)}, not {brief(labels)}" in out, out
    assert ("the same state" in out) is (found_count == count and found_labels == labels), out


_envelopes = st.tuples(
    st.text(alphabet="abc xyz", min_size=1, max_size=12), st.integers(1, 9), st.integers(1, 9)
)
_contexts = st.text(alphabet="abcdefgh ={}:", min_size=1, max_size=60)


@given(one=_envelopes, two=_envelopes, contexts=st.tuples(_contexts, _contexts))
def test_two_checks_seeing_one_render_change_fail_alike(
    one: tuple[str, int, int], two: tuple[str, int, int], contexts: tuple[str, str]
) -> None:
    """Two renders that should be one: the message's first line is what the server drew differently, the
    same whichever check saw it, so root causes group the checks by it (`signature`); the calls follow."""
    drawn = [boxes(expected_box(Envelope(*e, True).arguments()).encode())[0] for e in (one, two)]
    first, second = (redrawn(drawn[0], drawn[1], context) for context in contexts)
    assert first.splitlines()[1:] == [contexts[0]] and second.splitlines()[1:] == [contexts[1]]
    assert signature(first) == signature(second)
    if drawn[0].header != drawn[1].header:
        said = first.splitlines()[0]
        assert signature(first) != "", first
        assert repr(drawn[1].header) in said and repr(drawn[0].header) in said, said


_status = st.fixed_dictionaries({key: st.integers(0, 3) | st.booleans() for key in STATUS_KEYS})


@given(before=_status, after=_status, contexts=st.tuples(_contexts, _contexts))
def test_two_checks_seeing_one_answer_change_fail_alike(
    before: dict[str, JSON], after: dict[str, JSON], contexts: tuple[str, str]
) -> None:
    """The same for two answers that should be one, the count aside: each field answered differently, with
    both values, on the first line."""
    first, second = (reanswered(before, after, context) for context in contexts)
    assert first.splitlines()[0] == second.splitlines()[0]
    for key in STATUS_KEYS:
        named = f"{key} {brief(after[key], 80)}, not {brief(before[key], 80)}" in first
        assert named is (key != "thoughtHistoryLength" and before[key] != after[key]), (key, first)
