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
from conformance.core.differences import quoted
from conformance.core.jsontypes import JSON
from conformance.drivers.wire import Exchange
from conformance.gate.rootcauses import signature
from conformance.suite.answers import STATUS_KEYS, describe, fields_unlike, reanswered
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


_VALUE_ONLY_CALLS: Final = frozenset({"list", "sorted", "dict", "set", "tuple", "len", "str", "repr",
                                       "describe", "brief", "decode"})
"""Calls that make a value and no words: Python's conversions, and the suite's dump of an answer (`describe`),
quote of a value (`brief`) and stderr's text (`decode`)."""


def _value_only(message: ast.expr) -> bool:
    """A message that is a value and no words: a name, a tuple, a list, an item, an attribute, list(x)."""
    if isinstance(message, ast.Name | ast.Tuple | ast.List | ast.Subscript | ast.Attribute):
        return True
    return (isinstance(message, ast.Call) and isinstance(message.func, ast.Name)
            and message.func.id in _VALUE_ONLY_CALLS)


_MESSAGE_ARGUMENT: Final = {"expect": 2, "expect_count": 2}
"""The suite's own assertions (`contradiction.expect`, `answers.expect_count`) and where their message is."""


def _message(node: ast.AST) -> ast.expr | None:
    """The failure message `node` gives, when it is an assert or a call of the suite's own assertions; a
    message made on failure (`lambda: ...`) by what it makes. A name handed to `expect` passes on a message
    made elsewhere (a helper's `message` parameter, a sentence built above), so it is not one."""
    if isinstance(node, ast.Assert):
        return node.msg
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return None
    position = _MESSAGE_ARGUMENT.get(node.func.id)
    if position is None or len(node.args) <= position:
        return None
    message = node.args[position]
    message = message.body if isinstance(message, ast.Lambda) else message
    return None if isinstance(message, ast.Name) else message


def value_only_messages(source: str, name: str) -> set[str]:
    """`name::function` of each function in `source` holding an assert (or an `expect`) whose message is a
    value alone."""
    found: set[str] = set()

    def walk(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                walk(child, child.name)
                continue
            message = _message(child)
            if message is not None and _value_only(message):
                found.add(f"{name}::{function}")
            walk(child, function)

    walk(ast.parse(source), "<module>")
    return found


def test_no_check_fails_with_a_value_and_no_words() -> None:
    """An assert's message says what was expected and what came (`fields_unlike`, `reanswered`, an f-string),
    never the value alone: a Python repr or a bare number reached the report's line as the departure itself
    ("CMP-7 departs — 222", issue 42). The last of them left with issue 42; none may come back."""
    found: set[str] = set()
    for folder in CHECKED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            found |= value_only_messages(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not found, "asserts whose message is a value alone (say what was due and what came):\n" + (
        "\n".join(sorted(found)))


_VALUES: Final = ("x", "(x, y)", "[x]", "x[0]", "x.header", "list(x)", "len(x)", "describe(exchange)",
                  "brief(x)", "decode(stderr)", "sorted(x)", "repr(x)")
"""Messages that are a value alone: what the detector must find."""
_WORDS: Final = ('"says why"', 'f"x is {x}, not 1"', '"due " + brief(x)', 'reanswered(a, b, "c")',
                 "fields_unlike(list(x), KEYS)", 'f"{said(json_differences(a, b))}"')
"""Messages that say what was due and what came, or call a helper that does."""


@given(messages=st.lists(st.tuples(st.sampled_from(_VALUES + _WORDS), st.booleans()), min_size=1, max_size=6))
def test_a_value_alone_is_found_in_the_function_holding_it(messages: list[tuple[str, bool]]) -> None:
    """Each function whose assert's message is a value and no words is named, nested ones by their own name;
    a message with words (a literal, an f-string, a helper that says what differs) is not."""
    lines: list[str] = []
    wanted: set[str] = set()
    for index, (message, nested) in enumerate(messages):
        name = f"f{index}"
        body = [f"assert x == 1, {message}", f'expect("OBJ-2", x == 1, {message})',
                f'expect("OBJ-2", x == 1, lambda: {message})', f"expect_count(x, 1, {message})"][index % 4]
        lines += ([f"def outer{index}():", f"    def {name}():", f"        {body}"] if nested
                  else [f"def {name}():", f"    {body}"])
        if message in _VALUES and not (index % 4 and message == "x"):  # a name handed to expect passes one on
            wanted.add(f"m.py::{name}")
    assert value_only_messages("\n".join(lines) + "\n", "m.py") == wanted


_CONTAINERS: Final = frozenset({"list", "sorted", "dict", "tuple", "set"})


def container_reprs(source: str, name: str) -> list[str]:
    """`name:line` of each f-string value in `source` that formats a Python container (`{list(x)}`,
    `{sorted(keys)}`): Python's repr of it, quotes and brackets, where a message says names or JSON."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FormattedValue) and isinstance(node.value, ast.Call) and isinstance(
                node.value.func, ast.Name) and node.value.func.id in _CONTAINERS:
            found.append(f"{name}:{node.lineno}")
    return found


def test_no_check_quotes_a_python_container() -> None:
    """A list of fields or labels in a message is said as names (`fields_unlike`, ", ".join) or as the
    server's JSON (`brief`): "an answer's fields are ['thoughtNumber', …]" was Python's spelling
    (issue 42)."""
    found = [hit for folder in CHECKED for path in sorted((ROOT / folder).rglob("*.py"))
             for hit in container_reprs(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))]
    assert not found, "f-strings formatting a Python container (say names or JSON):\n" + "\n".join(found)


def test_a_container_repr_is_found_and_words_are_not() -> None:
    source = ('m = f"fields {list(x)}, not {STATUS}"\n'
              'n = f"labels {sorted(y)!r} and {brief(list(y))}"\n'
              'o = f"{\', \'.join(sorted(y))} and {len(y)}"\n')
    assert container_reprs(source, "m.py") == ["m.py:1", "m.py:2"]


def test_an_answers_fields_are_said_by_what_it_adds_or_lacks() -> None:
    """The status-shape checks (OBJ-4, OBJ-1/a1, OBJ-8) say the fields a fork adds or drops, by name."""
    assert fields_unlike([*STATUS_KEYS, "timestamp"], STATUS_KEYS) == (
        "the answer has 1 field(s) more than thoughtNumber, totalThoughts, nextThoughtNeeded, branches, "
        "thoughtHistoryLength: timestamp")
    assert fields_unlike(["error"], ["error", "status"], "a refusal") == "a refusal has no status"
    assert fields_unlike(["b", "a"], ["a", "b"]) == "the answer has its fields in the order b, a, not a, b"


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)


@given(renamed=st.sets(st.sampled_from(STATUS_KEYS), min_size=1), extra=st.booleans())
def test_keys_spelled_otherwise_are_said_renamed(renamed: set[str], extra: bool) -> None:
    """A fork answering `thought_number` for `thoughtNumber` renamed a key; "4 field(s) more …; no …" read as
    keys dropped (issue 42, held-out-multi-11's toolkit-port). A key added beside them is still said added."""
    found = [_snake(k) if k in renamed else k for k in STATUS_KEYS] + (["timestamp"] if extra else [])
    line = fields_unlike(found, STATUS_KEYS)
    multi = [k for k in renamed if _snake(k) != k]
    if not multi:  # `branches` spelled the same: nothing renamed
        return
    assert line.startswith("the answer has its fields renamed: ")
    for key in multi:
        assert f"{key} → {_snake(key)}" in line
        assert f"no {key}" not in line and not line.endswith(key)
    assert ("1 field(s) more" in line and line.endswith(": timestamp")) is extra


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
        assert quoted(drawn[1].header) in said and quoted(drawn[0].header) in said, said
        assert "'" + drawn[0].header not in said, said  # no Python repr


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


@given(status=_status, flagged=st.booleans(), indent=st.sampled_from([None, 2, 4]))
def test_an_answer_is_described_by_its_text_on_one_line(
    status: dict[str, JSON], flagged: bool, indent: int | None
) -> None:
    """A tool result is quoted by its text, whatever its indentation: one line, no escaped line breaks (the
    JSON-RPC dump showed `"{\\n  \\"thoughtNumber…`), the same JSON when read back, isError said first."""
    result: dict[str, JSON] = {"content": [{"type": "text", "text": json.dumps(status, indent=indent)}]}
    if flagged:
        result["isError"] = True
    out = describe(Exchange("tools/call", {}, {"jsonrpc": "2.0", "id": 1, "result": result}, b"", 0.0, 0.0))
    assert "\n" not in out and "\\n" not in out, out
    head = "isError " if flagged else "the answer "
    assert out.startswith(head) and json.loads(out.removeprefix(head)) == status, out


def test_a_protocol_error_is_described_by_its_code_and_words() -> None:
    error: JSON = {"code": -32602, "message": "Invalid params", "data": {"field": "thought"}}
    out = describe(Exchange("tools/call", {}, {"jsonrpc": "2.0", "id": 1, "error": error}, b"", 0.0, 0.0))
    assert out == 'JSON-RPC error -32602, "Invalid params", with {"data": {"field": "thought"}}'
