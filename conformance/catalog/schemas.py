"""JSON Schema checks shared by every validated file the harness writes or reads (reports, atlases)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar, cast

import jsonschema  # type: ignore[import-untyped, unused-ignore]
from pydantic import BaseModel

from conformance.core.errors import HarnessError
from conformance.core.inputs import describe, first_errors, location, read_yaml, validated

M = TypeVar("M", bound=BaseModel)


@cache
def packaged_schema(package: str, name: str = "schema.json") -> dict[str, Any]:
    """A schema shipped as package data beside the module that writes the format."""
    text = resources.files(package).joinpath(name).read_text(encoding="utf-8")
    return cast(dict[str, Any], json.loads(text))


def first_violation(schema: dict[str, Any], document: object) -> str | None:
    """`at <path>: <message>` for the most relevant of the first violations, or None when the document fits
    (a document with a million invalid items is refused after the first few, not after all of them)."""
    found = first_errors(jsonschema.Draft202012Validator(schema).iter_errors(document))
    error = jsonschema.exceptions.best_match(found)
    if error is None:
        return None
    where = location(list(error.absolute_path)) or "(top level)"
    return f"at {where}: {error.message[:300]}"


def read_validated_yaml(
    path: Path, schema_file: Path, model: type[M], error: type[HarnessError], what: str
) -> M:
    """A data file of `fixtures/`: read within the input limits (`core/inputs.py`), checked against its JSON
    schema, then the model; any problem is `error` in one line naming the file."""
    document = read_yaml(path, what=what, error=error)
    try:
        schema = json.loads(schema_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise error(f"cannot read the schema {schema_file}: {' '.join(str(exc).split())[:300]}") from None
    violation = first_violation(schema, document)
    if violation is not None:
        raise error(f"{path}: {violation}")
    return validated(model, document, describe(path, what), error)
