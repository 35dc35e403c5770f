"""Meta-tests of the suite's generation: exact values of optional fields, and the reasoning corpus.

A fork that singles out `isRevision: true` exactly, or a thought saying "final answer", escapes a property
that meets those inputs only by luck; these tests make the meeting a checked fact of the suite's source.
"""

from __future__ import annotations

import ast
import importlib
import json
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance import suite
from conformance.calls import strategies
from conformance.calls.strategies import (
    BOUNDARY_ATTRIBUTE,
    BOUNDARY_ENVELOPES,
    EXACT_FIELDS_ATTRIBUTE,
    EXACT_VALUES,
)
from conformance.catalog.corpus import CorpusError, default_corpus, load_corpus
from conformance.catalog.fixtures import fixtures_dir
from conformance.core.jsontypes import JSON, Omitted

SUITE = Path(suite.__file__).resolve().parent

CLAIMS: dict[str, dict[str, tuple[str, bool]]] = {
    "test_absences.test_revision_is_a_label_only": {
        "isRevision": ("is_revision", False),
        "revisesThought": ("revises", False),
    },
    "test_absences.test_needs_more_thoughts_changes_nothing": {"needsMoreThoughts": ("needs_more", False)},
    "test_render.test_render_drops_continuation_flags": {"needsMoreThoughts": ("needs_more", False)},
    "test_validation.test_only_four_fields_enforced": {
        "isRevision": ("optionals", True),
        "revisesThought": ("optionals", True),
        "needsMoreThoughts": ("optionals", True),
        "branchFromThought": ("optionals", True),
    },
    "test_coercion.test_coercion_consults_only_the_two_numbers": {
        "isRevision": ("flags", True),
        "needsMoreThoughts": ("flags", True),
    },
}
"""Properties whose records claim independence from an optional field (ABS-6, ABS-7, RTE-9/a1, RTE-4/a1,
BAP-4/a1):
test → field → (the parameter carrying it, whether it sits in a dict under the field's name)."""

INDEPENDENCE_STRATEGIES = {"optional_values", "exact_values"}


def _key(value: JSON | Omitted) -> str:
    """Type-exact identity of a value (True is not 1, 0 is not False, absence is not null)."""
    if isinstance(value, Omitted):
        return "<absent>"
    return f"{type(value).__name__}:{json.dumps(value, sort_keys=True)}"


def _inner(test: Any) -> Any:
    hypothesis_handle = getattr(test, "hypothesis", None)
    return hypothesis_handle.inner_test if hypothesis_handle is not None else test


def _suite_test(qualified: str) -> Any:
    module_name, name = qualified.split(".")
    return getattr(importlib.import_module(f"conformance.suite.{module_name}"), name)


def _given_tests() -> Iterator[tuple[str, ast.FunctionDef]]:
    for path in sorted(SUITE.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and any(
                isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == "given"
                for d in node.decorator_list
            ):
                yield f"{path.stem}.{node.name}", node


def _draws_optional_values(node: ast.FunctionDef) -> bool:
    return any(
        isinstance(name, ast.Name) and name.id in INDEPENDENCE_STRATEGIES
        for decorator in node.decorator_list
        for name in ast.walk(decorator)
    )


@pytest.mark.parametrize("qualified", sorted(CLAIMS))
def test_independence_claims_meet_every_exact_value(qualified: str) -> None:
    """Each claimed field meets true, false, absence, null and a falsy and a truthy of every other JSON type
    as explicit examples, which run in every profile before any generated one."""
    inner = _inner(_suite_test(qualified))
    examples = getattr(inner, "hypothesis_explicit_examples", [])
    for field, (param, keyed) in CLAIMS[qualified].items():
        met: set[str] = set()
        for found in examples:
            value = found.kwargs.get(param)
            if keyed and isinstance(value, dict) and field in value:
                met.add(_key(value[field]))
            elif not keyed and param in found.kwargs:
                met.add(_key(value))
        missing = sorted({_key(v) for v in EXACT_VALUES} - met)
        assert not missing, f"{qualified}: {field} never meets {missing}"
        assert field in getattr(inner, EXACT_FIELDS_ATTRIBUTE, frozenset())


def test_every_property_drawing_optional_values_claims_its_fields() -> None:
    """A property drawing an optional field from `optional_values` is an independence claim: it must be in
    CLAIMS (and so carry the exact examples), or this table is out of date."""
    drawing = {name for name, node in _given_tests() if _draws_optional_values(node)}
    assert drawing - set(CLAIMS) == set(), "add these to CLAIMS and give them @exact_examples"
    assert set(CLAIMS) - drawing == set(), "CLAIMS names tests that no longer draw optional_values"


def test_exact_values_cover_every_json_type() -> None:
    """Both booleans, absence, null, and a falsy and a truthy (or empty and non-empty) of each other type."""
    keys = [_key(v) for v in EXACT_VALUES]
    assert len(set(keys)) == len(keys)
    kinds = Counter(k.split(":")[0] for k in keys)
    expected = {"bool": 2, "<absent>": 1, "NoneType": 1, "int": 2, "str": 2, "list": 2, "dict": 2}
    assert kinds == Counter(expected)


def test_exact_examples_refuses_a_required_field() -> None:
    with pytest.raises(ValueError, match="not an optional field"):
        strategies.exact_examples("thought", param="x")


def test_optional_values_weighted_toward_exact_values() -> None:
    """Generation alone meets every exact value within a ci profile's 60 draws (hypothesis never repeats an
    input, so the 12 values come early or not at all); the dev profile relies on the explicit examples."""
    seen: set[str] = set()

    @settings(max_examples=60, derandomize=True, database=None)
    @given(value=strategies.optional_values)
    def draw(value: JSON | Omitted) -> None:
        seen.add(_key(value))

    draw()
    missing = [_key(v) for v in EXACT_VALUES if _key(v) not in seen]
    assert not missing, missing


BOUNDED: tuple[str, ...] = (
    "test_store.test_status_object_shape",
    "test_store.test_three_fields_echo_the_request",
    "test_store.test_answers_are_information_only",
    "test_validation.test_next_thought_needed_is_a_type_check_only",
)
"""Properties about an accepted answer's numbers (OBJ-4, OBJ-14, RTE-7, BAP-2, RTE-3/a1): a fork refusing a
totalThoughts above 1000 departs them only when the search draws one, so each meets BOUNDARY_ENVELOPES first,
under every seed (issue 43)."""


@pytest.mark.parametrize("qualified", BOUNDED)
def test_properties_about_answered_numbers_meet_the_boundary_envelopes(qualified: str) -> None:
    inner = _inner(_suite_test(qualified))
    sent = [found.kwargs.get("envelope") for found in getattr(inner, "hypothesis_explicit_examples", [])]
    assert all(envelope in sent for envelope in BOUNDARY_ENVELOPES), f"{qualified}: no @boundary_examples()"
    assert getattr(inner, BOUNDARY_ATTRIBUTE, False)


def test_boundary_envelopes_pass_any_bound_a_fork_might_set() -> None:
    """Above 1000 (held-out-multi-2's long-running fork), 65535 and a signed 32-bit count, in both numbers."""
    assert min(e.total_thoughts for e in BOUNDARY_ENVELOPES) > 1000
    assert max(e.thought_number for e in BOUNDARY_ENVELOPES) >= 2**31
    assert max(e.total_thoughts for e in BOUNDARY_ENVELOPES) >= 2**31


# -- the reasoning corpus --------------------------------------------------------------------------------


def test_corpus_covers_markers_languages_casings_and_lengths() -> None:
    corpus = default_corpus()
    texts = [step.text for step in corpus.steps]
    lowered = "\n".join(texts).lower()
    for marker in corpus.markers:
        assert marker.lower() in lowered, marker
    assert len(corpus.languages - {"mixed"}) >= 6, sorted(corpus.languages)
    assert {step.kind for step in corpus.steps} == {"hypothesis", "verification", "revision", "conclusion"}
    assert any(t.isupper() for t in texts) and any(t.islower() for t in texts)
    chains = Counter(step.chain for step in corpus.steps)
    assert max(chains.values()) >= 80 and min(chains.values()) <= 5, chains


def test_corpus_has_its_provenance() -> None:
    text = (fixtures_dir() / "corpus" / "reasoning.yaml").read_text(encoding="utf-8")
    assert "written for this project" in text.split("\n\n")[0].lower()
    assert "not copied" in yaml.safe_load(text)["provenance"]["source"]


def test_corpus_schema_refuses_a_multi_line_step(tmp_path: Path) -> None:
    broken = tmp_path / "reasoning.yaml"
    broken.write_text(
        yaml.safe_dump(
            {
                "provenance": {"written_for": "x", "source": "y"},
                "markers": ["thus"],
                "chains": [{"id": "c", "language": "en", "steps": [{"kind": "hypothesis", "text": "a\nb"}]}],
            }
        ),
        encoding="utf-8",
    )
    with pytest.raises(CorpusError, match=r"chains/0/steps/0/text"):
        load_corpus(broken)


def _draws(strategy: st.SearchStrategy[str], count: int) -> list[str]:
    found: list[str] = []

    @settings(max_examples=count, derandomize=True, database=None)
    @given(text=strategy)
    def draw(text: str) -> None:
        found.append(text)

    draw()
    return found


@pytest.mark.parametrize("name", ["thought_texts", "content_texts"])
def test_thought_strategies_draw_from_the_corpus(name: str) -> None:
    """Every strategy that generates thoughts mixes corpus steps in, in several casings."""
    strategy: st.SearchStrategy[str] = getattr(strategies, name)
    casings: list[Callable[[str], str]] = list(strategies.CASINGS)
    variants = {casing(step.text) for step in default_corpus().steps for casing in casings}
    drawn = [t for t in _draws(strategy, 300) if t in variants]
    assert len(drawn) >= 300 // 10, len(drawn)
    assert len({t for t in drawn if t.isupper()}) >= 1
