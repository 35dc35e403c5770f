"""Every assert a check can fail on carries its own message: a bare one reaches the report as pytest's
rewriting of it, which says nothing in the server's terms ("the check's condition did not hold")."""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

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
