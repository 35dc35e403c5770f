"""JSON Schema checks shared by every validated file the harness writes or reads (reports, atlases)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, cast

import jsonschema  # type: ignore[import-untyped, unused-ignore]


@cache
def packaged_schema(package: str, name: str = "schema.json") -> dict[str, Any]:
    """A schema shipped as package data beside the module that writes the format."""
    text = resources.files(package).joinpath(name).read_text(encoding="utf-8")
    return cast(dict[str, Any], json.loads(text))


def first_violation(schema: dict[str, Any], document: object) -> str | None:
    """`at <path>: <message>` for the most relevant violation, or None when the document fits."""
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(document))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
    return f"at {where}: {error.message[:300]}"
