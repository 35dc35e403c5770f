"""Known upstream changes and their recorded signatures (fixtures/attribution/upstream_changes.yaml): a root
cause is said to behave like one only when what was observed matches it — fields, direction, outcome."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from conformance.catalog.fixtures import fixtures_dir
from conformance.catalog.schemas import read_validated_yaml
from conformance.core.errors import HarnessError
from conformance.report.model import Difference

FORMAT: Final = "seqthink-upstream-changes/1"


class KnownChangesError(HarnessError):
    """The known upstream changes cannot be read or do not validate."""


class Signature(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    aspect: Literal["is_error"]
    refused_by: Literal["a", "b"]
    value_classes: list[str]
    fields: list[str]
    required_fields: list[str]
    refusal: str | None = None


class KnownChange(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    title: str
    url: str
    fixed_by: str | None = None
    signature: Signature

    def matched_fields(self, differences: Sequence[Difference]) -> list[str] | None:
        """The signature's fields the differences show, when they match it; None when they do not.

        Every difference of the signature's aspect, fields and value classes must go in its direction and
        its refusal read as recorded; the required fields must all be among them.
        """
        sig = self.signature
        under = [d for d in differences
                 if d.aspect == sig.aspect and d.field in sig.fields and d.value_class in sig.value_classes]
        if not under:
            return None
        direction = f"refused by {sig.refused_by}"
        if any(d.detail != direction for d in under):
            return None
        if sig.refusal is not None:
            pattern = re.compile(sig.refusal)
            if any(pattern.search(d.a if sig.refused_by == "a" else d.b) is None for d in under):
                return None
        seen = {d.field for d in under}
        if not set(sig.required_fields) <= seen:
            return None
        return [f for f in sig.fields if f in seen]


class KnownChanges(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["seqthink-upstream-changes/1"]
    changes: list[KnownChange]

    def matches(self, differences: Sequence[Difference]) -> list[tuple[KnownChange, list[str]]]:
        """The known changes the differences match, each with the fields observed."""
        found: list[tuple[KnownChange, list[str]]] = []
        for change in self.changes:
            fields = change.matched_fields(differences)
            if fields is not None:
                found.append((change, fields))
        return found


def known_changes_path() -> Path:
    return fixtures_dir() / "attribution" / "upstream_changes.yaml"


def load_known_changes(path: Path | None = None) -> KnownChanges:
    """Read and validate against fixtures/schemas/upstream_changes.schema.json; patterns must compile."""
    path = path or known_changes_path()
    schema_file = fixtures_dir() / "schemas" / "upstream_changes.schema.json"
    known = read_validated_yaml(path, schema_file, KnownChanges, KnownChangesError, "known upstream changes")
    for change in known.changes:
        sig = change.signature
        if not set(sig.required_fields) <= set(sig.fields):
            raise KnownChangesError(f"{path}: {change.id} requires fields outside its signature's fields")
        if sig.refusal is not None:
            try:
                re.compile(sig.refusal)
            except re.error as exc:
                raise KnownChangesError(f"{path}: {change.id}: bad refusal pattern: {exc}") from None
    return known


@cache
def default_known_changes() -> KnownChanges:
    return load_known_changes()


__all__ = ["KnownChange", "KnownChanges", "default_known_changes", "load_known_changes"]
