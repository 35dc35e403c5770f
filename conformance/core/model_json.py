"""A pydantic model to and from JSON text that may hold what a server sent: a lone surrogate is written as
JSON's `\\udXXX` escape and read back as the same character (pydantic's own JSON writer refuses to write it
and its reader to read the escape back)."""

from __future__ import annotations

import json
from typing import TypeVar

from pydantic import BaseModel

Model = TypeVar("Model", bound=BaseModel)


def model_json(model: BaseModel, *, indent: int | None = None, by_alias: bool = False) -> str:
    """The model as JSON text; a lone surrogate stays in it raw until `printable.encoded` escapes it."""
    document = model.model_dump(mode="json", by_alias=by_alias)
    if indent is None:
        return json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(document, ensure_ascii=False, indent=indent)


def model_from_json(cls: type[Model], text: str | bytes) -> Model:
    """A model from JSON text, its `\\udXXX` escapes of lone surrogates read back as those characters."""
    return cls.model_validate(json.loads(text))
