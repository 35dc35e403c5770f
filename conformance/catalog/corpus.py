"""Corpora of inputs the suite sends: reasoning steps (fixtures/corpus/reasoning.yaml) for
content-independence checks, and start-up environments (fixtures/colour/start_environments.yaml) for the
render's colour.

Validated against its JSON Schema on load, so a malformed step breaks the suite's import with one line
rather than silently shrinking what the strategies draw from.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import yaml

from conformance.catalog.fixtures import fixtures_dir
from conformance.core.errors import HarnessError
from conformance.core.inputs import safe_load

CORPUS_FILE: Final = "corpus/reasoning.yaml"
SCHEMA_FILE: Final = "schemas/reasoning.schema.json"


class CorpusError(HarnessError):
    """The reasoning corpus is missing or does not match its schema."""


@dataclass(frozen=True, slots=True)
class Step:
    """One reasoning step: which chain it belongs to, its place there, its kind and its text."""

    chain: str
    language: str
    index: int
    kind: str
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningCorpus:
    """Every step in file order, and the markers the corpus promises to contain."""

    markers: tuple[str, ...]
    steps: tuple[Step, ...]

    @property
    def languages(self) -> frozenset[str]:
        return frozenset(step.language for step in self.steps)

    def chain(self, chain_id: str) -> tuple[Step, ...]:
        return tuple(step for step in self.steps if step.chain == chain_id)


def load_corpus(path: Path | None = None, *, schema: Path | None = None) -> ReasoningCorpus:
    """Read and validate the corpus; `CorpusError` names the first problem."""
    base = fixtures_dir()
    source = path if path is not None else base / CORPUS_FILE
    schema_file = schema if schema is not None else base / SCHEMA_FILE
    try:
        data = safe_load(source.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise CorpusError(f"cannot read reasoning corpus {source}: {exc}") from exc
    validator = jsonschema.Draft202012Validator(json.loads(schema_file.read_text(encoding="utf-8")))
    problems = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if problems:
        where = "/".join(str(p) for p in problems[0].absolute_path) or "(top)"
        raise CorpusError(f"{source}: {where}: {problems[0].message}")
    steps = tuple(
        Step(chain["id"], chain["language"], index, step["kind"], step["text"])
        for chain in data["chains"]
        for index, step in enumerate(chain["steps"])
    )
    return ReasoningCorpus(tuple(data["markers"]), steps)


@cache
def default_corpus() -> ReasoningCorpus:
    """The shipped corpus, read once per process."""
    return load_corpus()


ENVIRONMENTS_FILE: Final = "colour/start_environments.yaml"
ENVIRONMENTS_SCHEMA: Final = "schemas/start_environments.schema.json"


@dataclass(frozen=True, slots=True)
class StartEnvironment:
    """Variables a server starts with, and whether its render's caption is then coloured."""

    env: dict[str, str]
    coloured: bool
    rule: str


@cache
def start_environments() -> tuple[StartEnvironment, ...]:
    """fixtures/colour/start_environments.yaml, validated against its schema."""
    base = fixtures_dir()
    source = base / ENVIRONMENTS_FILE
    data = safe_load(source.read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(
        json.loads((base / ENVIRONMENTS_SCHEMA).read_text(encoding="utf-8"))
    )
    problem = next(iter(validator.iter_errors(data)), None)
    if problem is not None:
        raise CorpusError(f"{source}: {problem.message}")
    return tuple(
        StartEnvironment(dict(row["env"]), row["coloured"], row["rule"]) for row in data["environments"]
    )
