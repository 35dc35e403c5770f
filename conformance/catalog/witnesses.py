"""The witness set: per record, fixed calls whose canonical answers are the record's behaviour signature.

fixtures/witnesses/witnesses.yaml is data about the world (which calls show a record), validated against
fixtures/schemas/witnesses.schema.json and the models below. Fixed values only: a signature must not
depend on the examples a run happened to generate.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Final, Literal

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import yaml
from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError, model_validator

from conformance.catalog.fixtures import fixtures_dir
from conformance.catalog.records import default_catalog
from conformance.core.errors import HarnessError
from conformance.core.inputs import safe_load
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL

WITNESSES_FORMAT: Final = "seqthink-witnesses/1"
WITNESSES_FILE: Final = "witnesses/witnesses.yaml"
SCHEMA_FILE: Final = "schemas/witnesses.schema.json"
RECORD_PLACEHOLDER: Final = "{r}"

ListView = Literal["names", "tool", "keys", "extras", "stats", "description", "schema", "properties"]
Observation = Literal["banner", "server-info", "capabilities", "first-call", "exit-on-stdin-close", "idle"]
Artifact = Literal["package.json", "README.md", "dist/index.js", "files"]

OBJECT_PROTOTYPE_KEYS: Final = frozenset(
    {
        "__proto__", "constructor", "__defineGetter__", "__defineSetter__", "hasOwnProperty",
        "__lookupGetter__", "__lookupSetter__", "isPrototypeOf", "propertyIsEnumerable", "toString",
        "valueOf", "toLocaleString",
    }
)
"""Labels a plain object already "has" (RTE-8/a1): never filed, so several records may send them."""


class WitnessError(HarnessError):
    """The witness file is unreadable, violates its schema, or names unknown steps or records (exit 2)."""


class WitnessStep(BaseModel):
    """One witness: a tools/call, a tools/list projection, a request, a startup observation or a file."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    call: JsonValue = None
    no_arguments: bool = False
    tool: str = TOOL
    stderr: bool = False
    view: ListView | None = Field(default=None, alias="list")
    params: JsonValue = None
    lines: tuple[int, int] | None = None
    grep: str | None = None
    request: str | None = None
    observe: Observation | None = None
    artifact: Artifact | None = None
    keys: tuple[str, ...] = ()
    imports: bool = False

    @property
    def kind(self) -> Literal["call", "list", "request", "observe", "artifact"]:
        if self.view is not None:
            return "list"
        if self.request is not None:
            return "request"
        if self.observe is not None:
            return "observe"
        if self.artifact is not None:
            return "artifact"
        return "call"

    @model_validator(mode="after")
    def _grep_compiles(self) -> WitnessStep:
        if self.grep is not None:
            try:
                re.compile(self.grep)
            except re.error as exc:
                raise ValueError(f"grep {self.grep!r} is not a regular expression: {exc}") from None
        return self

    def for_record(self, record: str) -> WitnessStep:
        """This step with "{r}" in its call arguments replaced by the record ID (record-own labels)."""
        if self.kind != "call":
            return self
        return self.model_copy(update={"call": _substitute(self.call, record)})

    def label(self) -> str | None:
        """The branch label this call files (String(branchId)) when it sets a truthy branchFromThought."""
        args = self.call
        if self.kind != "call" or not isinstance(args, dict) or not args.get("branchFromThought"):
            return None
        branch = args.get("branchId")
        if isinstance(branch, bool):
            return "true" if branch else None
        if isinstance(branch, str | int | float):
            return str(branch) or None
        return "[object Object]" if isinstance(branch, dict) else None


def _substitute(value: JSON, record: str) -> JSON:
    if isinstance(value, str):
        return value.replace(RECORD_PLACEHOLDER, record)
    if isinstance(value, list):
        return [_substitute(v, record) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, record) for k, v in value.items()}
    return value


class Provenance(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    written_against: str
    method: str


class WitnessSet(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["seqthink-witnesses/1"]
    provenance: Provenance
    steps: dict[str, WitnessStep]
    records: dict[str, tuple[str, ...]]

    @model_validator(mode="after")
    def _consistent(self) -> WitnessSet:
        catalog = default_catalog()
        owner: dict[str, str] = {}
        for record, names in self.records.items():
            if record not in catalog:
                raise ValueError(f"witnesses name {record!r}, which is not a canonical record of the catalog")
            for name in names:
                if name not in self.steps:
                    raise ValueError(f"{record} uses step {name!r}, which is not defined under steps")
                label = self.steps[name].for_record(record).label()
                if label is None or label in OBJECT_PROTOTYPE_KEYS:
                    continue
                if owner.setdefault(label, record) != record:
                    raise ValueError(
                        f"branch label {label!r} is filed by {owner[label]} and {record}: store effects are "
                        "read per record, so each record files its own labels (use \"{r}\")"
                    )
        return self

    def steps_of(self, record: str) -> list[tuple[str, WitnessStep]]:
        """The record's witness steps in order, ready to send; empty when it has none."""
        return [(name, self.steps[name].for_record(record)) for name in self.records.get(record, ())]


def witnesses_path() -> Path:
    return fixtures_dir() / WITNESSES_FILE


def load_witnesses(path: Path | None = None, *, schema: Path | None = None) -> WitnessSet:
    source = path if path is not None else witnesses_path()
    schema_file = schema if schema is not None else fixtures_dir() / SCHEMA_FILE
    try:
        data: object = safe_load(source.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise WitnessError(f"{source}: cannot read witnesses: {' '.join(str(exc).split())}") from None
    validator = jsonschema.Draft202012Validator(json.loads(schema_file.read_text(encoding="utf-8")))
    errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        where = "/".join(str(p) for p in errors[0].absolute_path) or "<root>"
        raise WitnessError(f"{source} violates {schema_file.name}: {where}: {errors[0].message}")
    try:
        return WitnessSet.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise WitnessError(f"{source}: {' '.join(str(first['msg']).split())}") from None


@cache
def default_witnesses() -> WitnessSet:
    """The witness set shipped with the harness, loaded once per process."""
    return load_witnesses()
