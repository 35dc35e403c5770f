"""Every file the harness reads, read one way: bounded in size, decoded strictly as UTF-8, parsed with a
nesting limit (JSON and YAML, no YAML aliases), validated, and refused in one line that names the file and
the problem. A baseline, a report, an atlas or a fork's package.json may come from a pull request: data to
check, never trusted, never executed.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, TypedDict, TypeVar, Unpack

import yaml
from pydantic import BaseModel, ValidationError

from conformance.core.errors import HarnessError, InputError

MiB: Final = 1024 * 1024
MAX_DEPTH: Final = 64
"""Arrays and objects nested deeper than this are refused (the harness's own files nest at most 12)."""
BASELINE_BYTES: Final = 4 * MiB
"""Baselines and compare baselines, written by hand (the committed one is 52 KiB)."""
REPORT_BYTES: Final = 32 * MiB
"""report.json and atlas.json, written by a run (the committed ones are at most 350 KiB)."""
PACKAGE_BYTES: Final = 4 * MiB
"""A package.json (a fork's, an installed package's)."""
DATA_BYTES: Final = 16 * MiB
"""Everything else: the harness's own fixtures, manifests, caches, lockfiles and results."""

M = TypeVar("M", bound=BaseModel)
ErrorType = type[HarnessError]

_STRINGS: Final = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_NOT_BRACKETS: Final = re.compile(r"[^\[\]{}]+")
_DELTA: Final = {"[": 1, "{": 1, "]": -1, "}": -1}
_LOADER: Final = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """`yaml.safe_load`, parsed by libyaml where it is installed (ten times faster on the catalog, which
    every run and `records` read): for the harness's own fixtures, without `parse_yaml`'s limits."""
    return yaml.load(text, Loader=_LOADER)


def describe(path: Path, what: str) -> str:
    return f"{what} {path}" if what else str(path)


def read_bytes(
    path: Path, *, what: str = "", limit: int = DATA_BYTES, error: ErrorType = InputError
) -> bytes:
    """At most `limit` bytes, whatever `path` is (a device or a pipe never reads on forever)."""
    try:
        with path.open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise error(f"cannot read {describe(path, what)}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise error(f"{describe(path, what)} is larger than {_size(limit)}, the limit for such a file")
    return data


def decode(data: bytes, where: str, error: ErrorType = InputError) -> str:
    """Strict UTF-8 (a leading byte-order mark dropped): a binary file is refused, not read as mojibake."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(
            f"{where} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None
    return text.removeprefix("\ufeff")


def read_text(path: Path, *, what: str = "", limit: int = DATA_BYTES, error: ErrorType = InputError) -> str:
    return decode(read_bytes(path, what=what, limit=limit, error=error), describe(path, what), error)


def parse_json(text: str, where: str, *, depth: int = MAX_DEPTH, error: ErrorType = InputError) -> object:
    """`json.loads` after a nesting check that does not recurse (so 100,000 brackets cost no stack)."""
    if _nesting_exceeds(text, depth):
        raise error(f"{where} nests deeper than {depth} levels")
    try:
        value: object = json.loads(text)
    except RecursionError:
        raise error(f"{where} nests deeper than {depth} levels") from None
    except ValueError as exc:
        raise error(f"{where} is not JSON: {_one_line(str(exc))}") from None
    return value


def parse_yaml(text: str, where: str, *, depth: int = MAX_DEPTH, error: ErrorType = InputError) -> object:
    """YAML's safe subset, composed first so depth and aliases are checked before anything is built: an
    alias is refused (a few lines of them expand to billions of nodes), and so is nesting beyond `depth`."""
    loader = _LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_nodes(node, where, depth, error)
        value: object = loader.construct_document(node)
    except RecursionError:
        raise error(f"{where} nests deeper than {depth} levels") from None
    except (yaml.YAMLError, ValueError, TypeError) as exc:
        raise error(f"{where} is not YAML: {_one_line(str(exc))}") from None
    finally:
        loader.dispose()
    return value


class Limits(TypedDict, total=False):
    what: str
    limit: int
    depth: int
    error: ErrorType


def read_json(path: Path, **limits: Unpack[Limits]) -> object:
    return _read(parse_json, path, limits)


def read_yaml(path: Path, **limits: Unpack[Limits]) -> object:
    return _read(parse_yaml, path, limits)


def _read(parse: Callable[..., object], path: Path, limits: Limits) -> object:
    what, error = limits.get("what", ""), limits.get("error", InputError)
    text = read_text(path, what=what, limit=limits.get("limit", DATA_BYTES), error=error)
    return parse(text, describe(path, what), depth=limits.get("depth", MAX_DEPTH), error=error)


def location(path: Sequence[str | int]) -> str:
    """A place in a document as a person counts: `deviations[1].reason (entry 2 of deviations)` — the index
    as written in code, the entry number from 1, so the second entry is never called 1."""
    written = ""
    entries: list[str] = []
    for part in path:
        if isinstance(part, int):
            entries.append(f"entry {part + 1}" + (f" of {_last_name(written)}" if written else ""))
            written += f"[{part}]"
        else:
            written += f".{part}" if written else str(part)
    return f"{written} ({', '.join(entries)})" if entries else written


def _last_name(written: str) -> str:
    return re.split(r"[.\[]", written.rsplit(".", 1)[-1])[0] or written


def validated(model: type[M], document: object, where: str, error: ErrorType = InputError) -> M:
    """`model` from a parsed document, or one line naming the first field that does not fit."""
    try:
        return model.model_validate(document)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = _one_line(location(first["loc"]), 160) or "(top level)"
        raise error(f"{where}: {field}: {_one_line(first['msg'])}") from None


def read_model(
    path: Path,
    model: type[M],
    *,
    what: str = "",
    limit: int = DATA_BYTES,
    yaml_syntax: bool = False,
    error: ErrorType = InputError,
) -> M:
    """A JSON (or YAML) file read, parsed and validated as `model`."""
    read = read_yaml if yaml_syntax else read_json
    return validated(model, read(path, what=what, limit=limit, error=error), describe(path, what), error)


def _nesting_exceeds(text: str, depth: int) -> bool:
    """Whether the brackets outside strings ever nest deeper than `depth` (counted at C speed, no stack)."""
    skeleton = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    return bool(skeleton) and max(itertools.accumulate(map(_DELTA.__getitem__, skeleton))) > depth


def _check_nodes(root: yaml.Node, where: str, depth: int, error: ErrorType) -> None:
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, int]] = [(root, 0)]
    while stack:
        node, level = stack.pop()
        if id(node) in seen:
            raise error(f"{where}: YAML aliases (*name) are not accepted; write the value out")
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            children: list[yaml.Node] = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        else:
            continue
        if level >= depth:
            raise error(f"{where} nests deeper than {depth} levels")
        stack.extend((child, level + 1) for child in children)


def _size(limit: int) -> str:
    return f"{limit // MiB} MiB" if limit >= MiB else f"{limit} bytes"


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
