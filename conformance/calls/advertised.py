"""The values a served inputSchema advertises for a property: what a fork's schema names that the original's
does not, sent as fixed calls before any search (issue 42).

A fork that takes `totalThoughts: "auto"`, or answers a refusal in markdown for `responseFormat: "markdown"`,
shows its change only for that value; the search draws from the original's types and never sends it.
The target's own tools/list says it: an `enum`, a `const`, a `default`, `examples`, a `oneOf`/`anyOf`
branch of another type. The schema is the server's data, hostile like any answer: read only through
Mappings and lists, at most ADVERTISED_MAX values per property, each a JSON scalar or a short string, never
executed or resolved (`$ref` is not followed). A word a description quotes for a numeric field ("use
\"auto\" to …") is read too, beside the suite's fixed sentinel words (`described_words`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Final

from conformance.core.jsontypes import JSON
from conformance.core.protocol import the_tool
from conformance.core.spellings import every_spelling, spell

ADVERTISED_MAX: Final = 6
"""Values taken from one property's schema, at most (in the order the schema lists them)."""
_DEPTH_MAX: Final = 3
"""`oneOf`/`anyOf`/`allOf` nesting read, at most."""
_BRANCHES_MAX: Final = 8
"""Branches of one `oneOf`/`anyOf`/`allOf` read, at most."""
_TEXT_MAX: Final = 200
"""A string value longer than this is not sent (a schema's enum entry is a word, not a document)."""
TYPE_VALUES: Final[Mapping[str, JSON]] = {
    "string": "probe", "number": 2.5, "integer": 2, "boolean": True, "null": None,
}
"""One value standing for a branch that names a type and nothing narrower (`{"type": "string"}` beside
`{"type": "integer"}`): what a call of that type would carry."""


def _scalar(value: object) -> bool:
    if isinstance(value, str):
        return len(value) <= _TEXT_MAX
    return value is None or (isinstance(value, bool | int | float) and abs(value) <= 2**53)


def _listed(schema: Mapping[str, object]) -> list[JSON]:
    """The values one schema object names outright: const, enum entries, default, examples."""
    out: list[JSON] = []
    if "const" in schema:
        out.append(schema["const"])  # type: ignore[arg-type]
    for key in ("enum", "examples"):
        entries = schema.get(key)
        if isinstance(entries, list):
            out.extend(entries[:ADVERTISED_MAX])
    if "default" in schema:
        out.append(schema["default"])  # type: ignore[arg-type]
    return out


def _types(schema: Mapping[str, object]) -> list[str]:
    declared = schema.get("type")
    names = declared if isinstance(declared, list) else [declared]
    return [name for name in names[:_BRANCHES_MAX] if isinstance(name, str) and name in TYPE_VALUES]


def _walk(schema: object, depth: int, out: list[JSON], types: list[str]) -> None:
    if not isinstance(schema, Mapping) or depth > _DEPTH_MAX:
        return
    named = _listed(schema)
    out.extend(named)
    if not named:
        types.extend(_types(schema))
    for key in ("oneOf", "anyOf", "allOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            for branch in branches[:_BRANCHES_MAX]:
                _walk(branch, depth + 1, out, types)


def _branched(schema: object) -> bool:
    """Whether a schema offers more than one shape: `oneOf`/`anyOf` branches or a list of types."""
    if not isinstance(schema, Mapping):
        return False
    declared = schema.get("type")
    return "oneOf" in schema or "anyOf" in schema or (isinstance(declared, list) and len(declared) > 1)


def advertised_values(schema: object, *, types: bool = True) -> list[JSON]:
    """The values `schema` (one property's) advertises, deduplicated, scalars only, at most ADVERTISED_MAX:
    the ones it names (const, enum, examples, default, in its `oneOf`/`anyOf`/`allOf` branches too), then,
    with `types` and when the schema offers more than one shape, one value for each type a branch (or the
    type list) names without narrowing it (TYPE_VALUES). An empty list
    for anything that is not a schema object."""
    named: list[JSON] = []
    kinds: list[str] = []
    _walk(schema, 0, named, kinds)
    if types and _branched(schema):
        named.extend(TYPE_VALUES[kind] for kind in kinds)
    out: list[JSON] = []
    seen: set[str] = set()
    for value in named:
        key = repr((type(value).__name__, value))
        if _scalar(value) and key not in seen:
            seen.add(key)
            out.append(value)
    return out[:ADVERTISED_MAX]


WORDS_MAX: Final = 4
"""Words taken from the descriptions of one field, at most."""
_READ_MAX: Final = 4000
"""Characters of a description read, at most (a tool's description: its first this many)."""
_QUOTED: Final = re.compile(r"(?<![A-Za-z0-9])[\"'`“‘]([A-Za-z][A-Za-z0-9_-]{0,23})[\"'`”’](?![A-Za-z0-9])")
"""One word between quotes ("auto", `'next'`, “unknown”): what a description names as a value to send."""
_NOT_VALUES: Final = frozenset({*every_spelling(), *TYPE_VALUES, "true", "false", "null", "undefined"})
"""Quoted words that name a field or a type, not a value."""


def described_words(field: str, property_schema: object, tool_description: object = None) -> list[str]:
    """The words the served descriptions quote for `field` (a numeric field: a word taken in place of a
    number, `use "auto" to let the server plan`): those of its property's own description, then those on a
    line of the tool's description naming the field in any spelling. A fork that takes such a word shows it
    only for that word, which no search draws and a fixed list may lack. Read as hostile data: strings only,
    the first _READ_MAX characters, at most WORDS_MAX words, no word naming a field or a type, in order."""
    texts: list[str] = []
    own = property_schema.get("description") if isinstance(property_schema, Mapping) else None
    if isinstance(own, str):
        texts.append(own[:_READ_MAX])
    if isinstance(tool_description, str):
        names = {spell(field, spelling) for spelling in ("camelCase", "snake_case", "kebab-case")}
        texts.extend(line for line in tool_description[:_READ_MAX].splitlines()
                     if any(re.search(rf"(?<![A-Za-z0-9_-]){re.escape(n)}(?![A-Za-z0-9_-])", line, re.I)
                            for n in names))
    return _first_words(_QUOTED.findall(text) for text in texts)


def _first_words(found: Iterable[list[str]]) -> list[str]:
    out: list[str] = []
    for words in found:
        for word in words:
            if word not in out and word not in _NOT_VALUES and len(out) < WORDS_MAX:
                out.append(word)
    return out


def served_properties(tools_result: object) -> Mapping[str, object]:
    """The inputSchema properties of the listed tool the checks read (`core/protocol.the_tool`) in a
    tools/list result (anything but an object of objects reads as none): a fork listing another tool first
    (`get_thought_history`) must not lend that tool's arguments to the calls of this one."""
    listed = tools_result.get("tools") if isinstance(tools_result, Mapping) else None
    tool = the_tool(listed) or {}
    schema = tool.get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    return properties if isinstance(properties, Mapping) else {}


__all__ = ["ADVERTISED_MAX", "TYPE_VALUES", "WORDS_MAX", "advertised_values", "described_words",
           "served_properties"]
