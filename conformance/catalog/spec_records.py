"""What each MCP revision requires of a stdio tool server, as validated data (fixtures/spec_records.yaml).

A second set beside the seed's records, cited differently: each names the revisions it belongs to, the
section of the specification, its level (the keyword its quoted words carry) and those words, each from
the revision and file it names (held against fixtures/spec_excerpts.yaml). `records.py` folds them into the
catalog as records of kind `spec`, so tests evidence them and reports judge them like any other record.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from conformance.catalog.fixtures import fixtures_dir

SPEC_FORMAT: Final = "seqthink-spec-records/1"
SPEC_FILE: Final = "spec_records.yaml"
SPEC_SCHEMA_FILE: Final = "schemas/spec_records.schema.json"

Revision = Literal["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
Level = Literal["MUST", "SHOULD", "schema", "guidance"]
"""The keyword the quoted words carry (`schema`: the schema's types, no keyword; `guidance`: none at all)."""
ADVISORY_LEVELS: Final[frozenset[str]] = frozenset({"guidance"})
"""Levels whose departures a run reports without failing the gate (unless a baseline lists them)."""
MeetingPart = Literal[
    "initialize", "offers", "capabilities", "discover", "tools/list", "calls", "ping", "unknown-method",
    "unknown-tool", "unimplemented-version", "missing-meta", "unsolicited", "batch", "tools/list-again",
    "stream", "end-of-input", "repeated-call", "cancellation",
]
"""The answers of an era's meeting (`calls/meetings.py`) a check may read: a departure's witness steps."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Quote(_Frozen):
    """The revision's own words, from `path` of the specification's repository (spec_excerpts.yaml)."""

    revision: Revision
    path: str
    text: str


class SpecRecord(_Frozen):
    """One requirement: where the specification states it, how strongly, and what a client observes."""

    id: str
    title: str
    revisions: tuple[Revision, ...]
    section: str
    level: Level
    reads: tuple[MeetingPart, ...]
    """What its check reads of an era's meeting: the answers its departure's signature is taken from."""
    quotes: tuple[Quote, ...]
    statement: str
    expectation: str
    held_by: tuple[str, ...] = ()
    """The records (records.yaml) whose expectations give the original this requirement's answer: when one of
    them departs too, this record's departure follows from it (its check relies on them)."""

    def applies_to(self, revision: str | None) -> bool:
        """Whether a server that settled on `revision` with a client is held to this requirement."""
        return revision in self.revisions

    @property
    def citation(self) -> str:
        """`2025-06-18..2026-07-28 server/tools § Output Schema (MUST)`: revisions, section, level."""
        first, last = self.revisions[0], self.revisions[-1]
        span = first if first == last else f"{first}..{last}"
        return f"{span} {self.section} ({self.level})"


class SpecProvenance(_Frozen):
    source: str
    commit: str
    levels: str
    scope: str
    reads: str
    applicability: str
    held_by: str = ""


class SpecCatalog(_Frozen):
    format: Literal["seqthink-spec-records/1"]
    provenance: SpecProvenance
    records: tuple[SpecRecord, ...]

    def get(self, record_id: str) -> SpecRecord:
        for record in self.records:
            if record.id == record_id:
                return record
        raise KeyError(record_id)


def spec_path() -> Path:
    return fixtures_dir() / SPEC_FILE


def spec_schema_path() -> Path:
    return fixtures_dir() / SPEC_SCHEMA_FILE


@cache
def default_spec_catalog() -> SpecCatalog:
    """The specification's records shipped with the harness, schema-checked, loaded once per process."""
    from conformance.catalog.records import CatalogError, load_yaml_checked

    data = load_yaml_checked(spec_path(), spec_schema_path())
    try:
        return SpecCatalog.model_validate(data)
    except ValueError as exc:
        raise CatalogError(f"{spec_path()}: {exc}") from exc
