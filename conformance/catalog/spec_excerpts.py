"""The specification's own words the spec records quote, as validated data (fixtures/spec_excerpts.yaml).

Each excerpt is a span of lines copied unchanged from the specification's repository at one commit, so a
record's `quote` can be held against the revision and file it cites: a quote must be a substring of one
excerpt of its revision and path once layout is set aside (`normalized`), which a paraphrase is not.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from conformance.catalog.fixtures import fixtures_dir

EXCERPTS_FILE: Final = "spec_excerpts.yaml"
EXCERPTS_SCHEMA_FILE: Final = "schemas/spec_excerpts.schema.json"

_COMMENT_LEADER: Final = re.compile(r"^(?:/\*\*|\*/|\*)(?=\s|$)")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Excerpt(_Frozen):
    """Lines `lines[0]..lines[1]` of `path` at the provenance's commit, exactly (trailing spaces dropped)."""

    revision: str
    path: str
    lines: tuple[int, int]
    text: str


class ExcerptProvenance(_Frozen):
    repository: str
    commit: str = Field(pattern=r"^[0-9a-f]{40}$")
    commit_date: str
    how: str


class ExcerptFile(_Frozen):
    format: Literal["seqthink-spec-excerpts/1"]
    provenance: ExcerptProvenance
    excerpts: tuple[Excerpt, ...]

    def of(self, revision: str, path: str) -> list[Excerpt]:
        """The excerpts copied from `path` of `revision` (several paragraphs of one file are kept apart)."""
        return [e for e in self.excerpts if e.revision == revision and e.path == path]


def normalized(text: str, path: str) -> str:
    """`text` with its layout set aside: whitespace collapsed and, in a .ts file, each line's comment leader
    (`/**`, `*`, `*/`) dropped. Nothing else: every word, mark and emphasis stays."""
    lines = text.split("\n")
    if path.endswith(".ts"):
        lines = [_COMMENT_LEADER.sub("", line.strip()) for line in lines]
    return " ".join(" ".join(lines).split())


def holds_quote(excerpts: ExcerptFile, revision: str, path: str, quote: str) -> bool:
    """Whether `quote` is, word for word, part of one excerpt of `revision`'s `path`."""
    wanted = normalized(quote, path)
    return bool(wanted) and any(wanted in normalized(e.text, path) for e in excerpts.of(revision, path))


def excerpts_path() -> Path:
    return fixtures_dir() / EXCERPTS_FILE


@cache
def default_excerpts() -> ExcerptFile:
    """The excerpts shipped with the harness, schema-checked, loaded once per process."""
    from conformance.catalog.records import CatalogError, load_yaml_checked

    data = load_yaml_checked(excerpts_path(), fixtures_dir() / EXCERPTS_SCHEMA_FILE)
    try:
        return ExcerptFile.model_validate(data)
    except ValueError as exc:
        raise CatalogError(f"{excerpts_path()}: {exc}") from exc
