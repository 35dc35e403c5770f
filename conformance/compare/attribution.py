"""Attributing a difference to records and a root cause, by the rules in fixtures/attribution/rules.yaml."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from conformance.catalog.fixtures import fixtures_dir
from conformance.catalog.records import default_catalog
from conformance.catalog.schemas import read_validated_yaml
from conformance.compare.observe import Found
from conformance.core.errors import HarnessError

RULES_FORMAT: Final = "seqthink-attribution-rules/2"


class AttributionError(HarnessError):
    """The attribution rules cannot be read, do not validate, or name an unknown record or cause."""


class Cause(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    groups: str
    """Which differences the cause collects, for a reader of the rules; a report never prints it."""
    records: list[str]


class Rule(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    aspect: str
    field: str | None = None
    suspect: str | None = None
    type_class: str | None = None
    detail: str | None = None
    text: str | None = None
    refusal: str | None = None
    records: list[str]
    cause: str

    def matches(self, found: Found) -> bool:
        return (
            re.fullmatch(self.aspect, found.aspect) is not None
            and (self.field is None or re.fullmatch(self.field, found.field) is not None)
            and (self.suspect is None or re.fullmatch(self.suspect, found.suspect) is not None)
            and (self.type_class is None or re.fullmatch(self.type_class, found.type_class) is not None)
            and (self.detail is None or re.search(self.detail, found.detail) is not None)
            and (self.text is None or re.search(self.text, f"{found.a}\n{found.b}") is not None)
            and (self.refusal is None or re.search(self.refusal, _refusal(found)) is not None)
        )


def _refusal(found: Found) -> str:
    """What the refusing side answered (an acceptance difference), else both answers."""
    if found.detail == "refused by a":
        return found.a
    if found.detail == "refused by b":
        return found.b
    return f"{found.a}\n{found.b}"


class Rules(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["seqthink-attribution-rules/2"] = Field(default=RULES_FORMAT)
    causes: dict[str, Cause]
    rules: list[Rule]

    def attribute(self, found: Found) -> tuple[list[str], str]:
        """(records, cause key) of the first matching rule; every difference matches the last rule."""
        for rule in self.rules:
            if rule.matches(found):
                return list(rule.records), rule.cause
        return [], "unattributed"


def rules_path() -> Path:
    return fixtures_dir() / "attribution" / "rules.yaml"


def schema_path() -> Path:
    return fixtures_dir() / "schemas" / "attribution.schema.json"


def load_rules(path: Path | None = None) -> Rules:
    """Read, validate against the schema, and check every record and cause it names exists."""
    path = path or rules_path()
    rules = read_validated_yaml(path, schema_path(), Rules, AttributionError, "attribution rules")
    known = {record.id for record in default_catalog().records}
    named = {r for rule in rules.rules for r in rule.records} | {
        r for cause in rules.causes.values() for r in cause.records
    }
    unknown = sorted(named - known)
    if unknown:
        raise AttributionError(f"{path}: unknown records {', '.join(unknown)}")
    missing = sorted({rule.cause for rule in rules.rules} - set(rules.causes))
    if missing:
        raise AttributionError(f"{path}: rules name causes not in `causes`: {', '.join(missing)}")
    for rule in rules.rules:
        patterns = (rule.aspect, rule.field, rule.suspect, rule.type_class, rule.detail, rule.text)
        for pattern in (*patterns, rule.refusal):
            if pattern is not None:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise AttributionError(f"{path}: bad pattern {pattern!r}: {exc}") from None
    return rules


@cache
def default_rules() -> Rules:
    return load_rules()
