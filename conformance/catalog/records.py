"""The records catalog as validated data, and the markers that tie tests to record IDs.

`evidences` names what a test checks; `relies_on` names what it takes for granted on the way (a test
counting `thoughtHistoryLength` relies on RTE-5, "every accepted call is appended"). Root causes read
both: a departure whose failing tests all rely on another departing behaviour is explained by it.

The catalog (fixtures/records.yaml) is the harness's requirements manifest: every record of the
canonical register, how it can be observed, and what must be seen. It is checked twice on load —
against fixtures/schemas/records.schema.json and against the models below — so that neither the file
format nor the cross-references can drift silently.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Final, Literal, TypeVar, get_args

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import yaml
from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError, model_validator

from conformance.catalog.channels import Channel
from conformance.catalog.fixtures import fixtures_dir
from conformance.core.inputs import safe_load

CATALOG_FORMAT: Final = "seqthink-records/1"
CATALOG_FILE: Final = "records.yaml"
SCHEMA_FILE: Final = "schemas/records.schema.json"
MARKER: Final = "records"
RELIES_MARKER: Final = "relies"

Kind = Literal[
    "cmp", "obj", "rte", "clm", "abs", "bap", "ext", "loop", "source", "amendment", "correction", "spec"
]
UnobservableReason = Literal[
    "doctrine-only",
    "build-time",
    "host-owned",
    "model-owned",
    "external-sdk",
    "container-record",
    "boundary-declaration",
    "analysis-record",
    "source-register",
]
EvidenceBefore = Literal[
    "implemented", "absent", "doctrine/design", "claimed", "uninspected", "out-of-boundary", "inspected"
]
SeedCode = Literal["000", "001", "002", "003"]
AnchorSource = Literal["000", "001", "002", "003", "MCP"]
"""Where a record is stated: a seed document, or (`MCP`) the protocol specification for a `spec` record."""
LensCode = Literal["000", "001", "002"]
AliasRelation = Literal["registered-as", "corresponds"]

_ID_BY_KIND: Final[dict[str, re.Pattern[str]]] = {
    "cmp": re.compile(r"CMP-[0-9]+"),
    "obj": re.compile(r"OBJ-[0-9]+"),
    "rte": re.compile(r"RTE-[0-9]+"),
    "clm": re.compile(r"CLM-[0-9]+[ab]?"),
    "abs": re.compile(r"ABS-[0-9]+"),
    "bap": re.compile(r"BAP-[0-9]+"),
    "ext": re.compile(r"EXT-[0-9]+"),
    "loop": re.compile(r"LOOP-[A-Z]"),
    "source": re.compile(r"SRC-[0-9]+"),
    "amendment": re.compile(r"(?:CMP|OBJ|RTE|CLM|ABS|BAP)-[0-9]+[ab]?/a[0-9]+"),
    "correction": re.compile(r"(?:CMP|OBJ|RTE|CLM|ABS|BAP)-[0-9]+[ab]?/c[0-9]+"),
    "spec": re.compile(r"SPEC-[0-9]+"),
}
_SOURCE_REF = re.compile(r"^(SRC-[0-9]+)(?::|$)")

_T = TypeVar("_T", bound=Callable[..., object])


class CatalogError(ValueError):
    """The catalog file is unreadable, violates its JSON Schema, or fails the model's cross-checks."""


class UnknownRecordError(LookupError):
    """A name that is not a canonical record ID; `canonical` is set when the name is a lens alias."""

    def __init__(self, name: str, *, canonical: str | None = None, alias_seed: str | None = None) -> None:
        self.name = name
        self.canonical = canonical
        if canonical is None:
            message = f"unknown record ID {name!r}: not in the records catalog"
        else:
            message = (
                f"{name!r} is a lens-local alias (seed {alias_seed}) of {canonical}; "
                f"name the canonical ID {canonical!r} instead"
            )
        super().__init__(message)

    def __str__(self) -> str:
        return str(self.args[0])


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Alias(_Frozen):
    """A lens-local ID that names this record: registered as it (001, 002) or mapped by content (000)."""

    id: str
    seed: LensCode
    relation: AliasRelation
    note: str = ""

    @property
    def qualified(self) -> str:
        return f"{self.seed}:{self.id}"

    @property
    def bare(self) -> bool:
        """000's IDs reuse canonical-looking numbers for other records, so they resolve only qualified."""
        return self.seed != "000"

    @model_validator(mode="after")
    def _relation_matches_seed(self) -> Alias:
        expected = "corresponds" if self.seed == "000" else "registered-as"
        if self.relation != expected:
            raise ValueError(f"alias {self.qualified}: seed {self.seed} aliases must be {expected!r}")
        return self


class Anchor(_Frozen):
    """Where a seed states the record, with its line references copied as written."""

    seed: AnchorSource
    section: str
    refs: tuple[str, ...] = ()

    @property
    def sources(self) -> tuple[str, ...]:
        found = (_SOURCE_REF.match(ref) for ref in self.refs)
        return tuple(m.group(1) for m in found if m is not None)


class Record(_Frozen):
    id: str
    kind: Kind
    title: str
    statement: str
    evidence_before: EvidenceBefore
    annotates: tuple[str, ...] = ()
    split_of: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    aliases: tuple[Alias, ...] = ()
    anchors: tuple[Anchor, ...]
    channels: tuple[Channel, ...] = ()
    expectation: str | None = None
    unobservable_reason: UnobservableReason | None = None
    unobservable_note: str | None = None

    @property
    def observable(self) -> bool:
        return bool(self.channels)

    @property
    def base_id(self) -> str:
        """The record an amendment or correction ID is numbered under (`OBJ-4/a2` -> `OBJ-4`)."""
        return self.id.split("/", 1)[0]

    @model_validator(mode="after")
    def _consistent(self) -> Record:
        if not _ID_BY_KIND[self.kind].fullmatch(self.id):
            raise ValueError(f"{self.id}: ID does not fit kind {self.kind!r}")
        if self.kind in ("amendment", "correction"):
            if not self.annotates:
                raise ValueError(f"{self.id}: a {self.kind} must name the records it annotates")
            if self.annotates[0] != self.base_id:
                raise ValueError(f"{self.id}: first annotated record must be {self.base_id}")
        elif self.annotates:
            raise ValueError(f"{self.id}: only amendments and corrections annotate")
        if self.channels:
            if not self.expectation:
                raise ValueError(f"{self.id}: an observable record needs an expectation")
            if self.unobservable_reason is not None or self.unobservable_note is not None:
                raise ValueError(f"{self.id}: an observable record has no unobservable_reason/note")
        else:
            if self.unobservable_reason is None or not self.unobservable_note:
                raise ValueError(f"{self.id}: a record with no channel needs unobservable_reason and _note")
            if self.expectation is not None:
                raise ValueError(f"{self.id}: a record with no channel has no expectation")
        if len(set(self.channels)) != len(self.channels):
            raise ValueError(f"{self.id}: repeated channel")
        return self


class Document(_Frozen):
    code: SeedCode
    file: str
    sha256: str
    role: str


class UnmappedLensId(_Frozen):
    seed: LensCode
    id: str
    note: str


class Provenance(_Frozen):
    canonical_seed: Literal["003"]
    scope: str
    run_id: str
    revision: str
    revision_short: str
    subject: str
    expectations_written_against: str
    documents: tuple[Document, ...]
    unmapped_lens_ids: tuple[UnmappedLensId, ...] = ()

    def document(self, code: str) -> Document:
        for doc in self.documents:
            if doc.code == code:
                return doc
        raise KeyError(code)

    @property
    def canonical_document(self) -> Document:
        return self.document(self.canonical_seed)


class Vocabulary(_Frozen):
    """One line per term, so a reviewer reading a report can look a channel or a reason up."""

    channels: dict[Channel, str]
    unobservable_reasons: dict[UnobservableReason, str]
    evidence_before: dict[EvidenceBefore, str]

    @model_validator(mode="after")
    def _complete(self) -> Vocabulary:
        for name, given, expected in (
            ("channels", self.channels, get_args(Channel)),
            ("unobservable_reasons", self.unobservable_reasons, get_args(UnobservableReason)),
            ("evidence_before", self.evidence_before, get_args(EvidenceBefore)),
        ):
            missing = set(expected) - set(given)
            if missing:
                raise ValueError(f"vocabulary.{name} lacks {sorted(missing)}")
        return self


class Catalog(_Frozen):
    format: Literal["seqthink-records/1"]
    provenance: Provenance
    vocabulary: Vocabulary
    records: tuple[Record, ...]

    _by_id: dict[str, Record] = PrivateAttr(default_factory=dict)
    _by_alias: dict[str, Record] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _index(self) -> Catalog:
        by_id: dict[str, Record] = {}
        for record in self.records:
            if record.id in by_id:
                raise ValueError(f"duplicate record ID {record.id}")
            by_id[record.id] = record
        by_alias: dict[str, Record] = {}
        for record in self.records:
            for ref_field in ("annotates", "split_of", "related"):
                for target in getattr(record, ref_field):
                    if target not in by_id:
                        raise ValueError(f"{record.id}.{ref_field} names unknown record {target}")
            for anchor in record.anchors:
                for source in anchor.sources:
                    if source not in by_id:
                        raise ValueError(f"{record.id}: anchor cites {source}, which is not in the catalog")
            for alias in record.aliases:
                keys = [alias.qualified] + ([alias.id] if alias.bare else [])
                for key in keys:
                    if key in by_id:
                        raise ValueError(f"alias {key} of {record.id} collides with a canonical record ID")
                    if key in by_alias:
                        raise ValueError(f"alias {key} names both {by_alias[key].id} and {record.id}")
                    by_alias[key] = record
        self._by_id = by_id
        self._by_alias = by_alias
        return self

    def with_records(self, records: tuple[Record, ...]) -> Catalog:
        """This catalog holding `records` instead, indexed and cross-checked again."""
        return Catalog.model_validate({**self.model_dump(exclude={"records"}), "records": records})

    def __contains__(self, record_id: object) -> bool:
        return record_id in self._by_id

    def __len__(self) -> int:
        return len(self.records)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.records)

    def get(self, record_id: str) -> Record:
        """The record with this canonical ID; an alias is refused with the canonical ID it stands for."""
        record = self._by_id.get(record_id)
        if record is not None:
            return record
        aliased = self._by_alias.get(record_id)
        if aliased is not None:
            seed = record_id.split(":", 1)[0] if ":" in record_id else self._alias_seed(record_id, aliased)
            raise UnknownRecordError(record_id, canonical=aliased.id, alias_seed=seed)
        raise UnknownRecordError(record_id)

    def by_alias(self, alias: str) -> Record:
        """A lens ID as a reviewer reads it: `EPI-3`, `MEM-AMD-2`, or qualified `000:RTE-7`."""
        record = self._by_alias.get(alias)
        if record is None:
            raise UnknownRecordError(alias)
        return record

    def resolve(self, name: str) -> Record:
        """A canonical ID or any alias of one."""
        return self._by_id.get(name) or self.by_alias(name)

    def aliases(self) -> dict[str, str]:
        """Every resolvable alias key mapped to its canonical ID."""
        return {key: record.id for key, record in self._by_alias.items()}

    def by_kind(self, *kinds: Kind) -> tuple[Record, ...]:
        return tuple(r for r in self.records if r.kind in kinds)

    def observable(self) -> tuple[Record, ...]:
        return tuple(r for r in self.records if r.observable)

    def unobservable(self) -> tuple[Record, ...]:
        return tuple(r for r in self.records if not r.observable)

    def on_channel(self, channel: Channel) -> tuple[Record, ...]:
        return tuple(r for r in self.records if channel in r.channels)

    def annotations_of(self, record_id: str) -> tuple[Record, ...]:
        """Amendments and corrections attached to a record, in register order."""
        self.get(record_id)
        return tuple(r for r in self.records if record_id in r.annotates)

    def require(self, ids: Iterable[str]) -> tuple[Record, ...]:
        """The records for these canonical IDs, or UnknownRecordError for the first that is not one."""
        return tuple(self.get(record_id) for record_id in ids)

    @staticmethod
    def _alias_seed(key: str, record: Record) -> str:
        for alias in record.aliases:
            if key in (alias.id, alias.qualified):
                return alias.seed
        return "?"


def catalog_path() -> Path:
    return fixtures_dir() / CATALOG_FILE


def schema_path() -> Path:
    return fixtures_dir() / SCHEMA_FILE


def _schema_errors(data: object, schema_file: Path) -> list[str]:
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    messages: list[str] = []
    for error in sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path]):
        where = "/".join(str(p) for p in error.absolute_path) or "<root>"
        messages.append(f"{where}: {error.message}")
    return messages


def load_yaml_checked(source: Path, schema_file: Path) -> object:
    """A catalog file read and checked against its JSON Schema; CatalogError naming every violation."""
    try:
        data: object = safe_load(source.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise CatalogError(f"{source}: cannot read catalog: {exc}") from exc
    problems = _schema_errors(data, schema_file)
    if problems:
        listed = "\n  ".join(problems)
        raise CatalogError(f"{source} violates {schema_file.name}:\n  {listed}")
    return data


def load_catalog(path: Path | None = None, *, schema: Path | None = None) -> Catalog:
    """Read the catalog and validate it against the JSON Schema, then the model; CatalogError on failure.

    The shipped catalog (no `path`) also holds the specification's records (`spec_records.py`), after the
    seed's; a catalog read from another file is that file alone."""
    source = path if path is not None else catalog_path()
    schema_file = schema if schema is not None else schema_path()
    data = load_yaml_checked(source, schema_file)
    try:
        catalog = Catalog.model_validate(data)
    except ValidationError as exc:
        raise CatalogError(f"{source}: {exc}") from exc
    if path is not None:
        return catalog
    return catalog.with_records((*catalog.records, *spec_catalog_records()))


def spec_catalog_records() -> tuple[Record, ...]:
    """The specification's requirements as records of kind `spec`, cited by revision, section and level."""
    from conformance.catalog.spec_records import default_spec_catalog

    return tuple(
        Record(
            id=spec.id,
            kind="spec",
            title=spec.title,
            statement=spec.statement,
            evidence_before="doctrine/design",
            anchors=(Anchor(seed="MCP", section=spec.citation),),
            channels=("wire",),
            expectation=spec.expectation,
        )
        for spec in default_spec_catalog().records
    )


@cache
def default_catalog() -> Catalog:
    """The catalog shipped with the harness, loaded once per process."""
    return load_catalog()


def evidences(*ids: str) -> Callable[[_T], _T]:
    """Mark a test (function or class) with the canonical records it evidences.

    Unknown IDs and lens aliases fail here, when the decorating module is imported, so a
    misnamed record breaks collection rather than silently going unevidenced.
    """
    import pytest  # the suite's decorator: the CLI reads the catalog without pytest

    _checked_ids("evidences", ids)
    mark = getattr(pytest.mark, MARKER)(*ids)

    def apply(target: _T) -> _T:
        marked: _T = mark(target)
        return marked

    return apply


def _checked_ids(marker: str, ids: tuple[str, ...]) -> None:
    if not ids:
        raise ValueError(f"{marker}() needs at least one record ID")
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"{marker}() names {duplicates} more than once")
    default_catalog().require(ids)


def relies_on(*ids: str) -> Callable[[_T], _T]:
    """Mark a test with the canonical records it relies on besides what it evidences.

    A record a test relies on is a behaviour whose change can make the test fail although the records
    it evidences still hold. Unknown IDs and lens aliases fail at import, as for `evidences`.
    """
    import pytest

    _checked_ids("relies_on", ids)
    mark = getattr(pytest.mark, RELIES_MARKER)(*ids)

    def apply(target: _T) -> _T:
        marked: _T = mark(target)
        return marked

    return apply
