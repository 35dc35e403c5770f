"""Every file the harness reads, read one way: a regular file (never a FIFO, device or socket, which could
block or never end), bounded in size and in the number of values, decoded strictly (UTF-8, no lone surrogate
even as a JSON escape), parsed with a nesting limit (JSON and YAML, no YAML aliases, no key twice in one
object), validated (the first errors, not all of them), and refused in one line that names the file and the
problem. A baseline, a report, an atlas, a shard's folder or a fork's package.json may come from a pull
request: data to check, never trusted, never executed. Every step costs time linear in the bytes read and
memory a small multiple of the file's limit (docs/security.md states the table).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, Final, TypedDict, TypeVar, Unpack

import yaml
from pydantic import BaseModel, ValidationError
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import Resolver
from yaml.scanner import Scanner

from conformance.core.errors import HarnessError, InputError

MiB: Final = 1024 * 1024
MAX_DEPTH: Final = 64
"""Arrays and objects nested deeper than this are refused (the harness's own files nest at most 12)."""
BASELINE_BYTES: Final = 4 * MiB
"""Baselines and compare baselines, written by hand (the committed one is 52 KiB)."""
REPORT_BYTES: Final = 32 * MiB
"""report.json, results.json and atlas.json, written by a run, a shard or an atlas (the committed ones are
at most 400 KiB; a thorough run's a few MiB)."""
PACKAGE_BYTES: Final = 4 * MiB
"""A package.json (a fork's, an installed package's) or a README."""
DATA_BYTES: Final = 16 * MiB
"""Everything else: the harness's own fixtures, manifests, caches, lockfiles and results."""
BYTES_PER_VALUE: Final = 16
"""A JSON file of `limit` bytes holds at most `limit // 16` values (the harness's own files spend 20 to 60
bytes on each): what a parsed document costs in memory is bounded by its file's limit, not by how densely
its values are packed (`[0,0,…]` is two bytes a value)."""
YAML_BYTES_PER_VALUE: Final = 64
"""A YAML file, one value per 64 bytes of its limit: YAML is composed node by node in Python (about ten
microseconds a node), and it is written by hand (a baseline lists each record once: a few thousand values)."""
MAX_ERRORS: Final = 50
"""Schema violations looked at before a file is refused (the most relevant of them is named)."""

M = TypeVar("M", bound=BaseModel)
ErrorType = type[HarnessError]

_CHUNK: Final = MiB
_BACKSLASHES: Final = re.compile(r"\\*")
_NOT_BRACKETS: Final = bytes(b for b in range(256) if b not in b"[]{}")
_DELTA: Final = tuple({ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}.get(b, 0) for b in range(256))
_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_LOADER: Final = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

try:
    from yaml.cyaml import CParser as _Events  # type: ignore[attr-defined]  # libyaml's events, at C speed
except ImportError:  # pragma: no cover - PyYAML without libyaml

    class _Events(Reader, Scanner, Parser):  # type: ignore[no-redef]
        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)


def max_values(limit: int, *, yaml_syntax: bool = False) -> int:
    """How many values a file of at most `limit` bytes may hold: JSON's counted as the commas, colons and
    opening brackets outside strings (at most two for each value or key), YAML's as its nodes."""
    return limit // (YAML_BYTES_PER_VALUE if yaml_syntax else BYTES_PER_VALUE)


DATA_VALUES: Final = max_values(DATA_BYTES)
DATA_YAML_VALUES: Final = max_values(DATA_BYTES, yaml_syntax=True)


def safe_load(text: str) -> Any:
    """`yaml.safe_load`, parsed by libyaml where it is installed (ten times faster on the catalog, which
    every run and `records` read): for the harness's own fixtures, without `parse_yaml`'s limits."""
    return yaml.load(text, Loader=_LOADER)


def describe(path: Path, what: str) -> str:
    return f"{what} {path}" if what else str(path)


def read_bytes(
    path: Path, *, what: str = "", limit: int = DATA_BYTES, error: ErrorType = InputError, follow: bool = True
) -> bytes:
    """At most `limit` bytes of a regular file (`follow=False`: not through a symlink either)."""
    with open_regular(path, what=what, error=error, follow=follow) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise error(f"{describe(path, what)} is larger than {_size(limit)}, the limit for such a file")
    return data


def open_regular(
    path: Path, *, what: str = "", error: ErrorType = InputError, follow: bool = True
) -> BinaryIO:
    """`path` opened for reading when it is a regular file. Anything else is refused before any open that
    could block (a FIFO's open waits for a writer, a device's may have effects): its kind is looked at first,
    then the file is opened without blocking and looked at again through its descriptor, so a FIFO put in
    its place meanwhile is refused too."""
    where = describe(path, what)
    try:
        kind = (os.stat if follow else os.lstat)(path).st_mode
        if stat.S_ISREG(kind):
            flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
            fd = os.open(path, flags)
            kind = os.fstat(fd).st_mode
            if not stat.S_ISREG(kind):
                os.close(fd)
    except OSError as exc:
        symlink = " (a symlink is refused)" if exc.errno == errno.ELOOP else ""
        raise error(f"cannot read {where}: {exc.strerror or exc}{symlink}") from None
    if not stat.S_ISREG(kind):
        raise error(f"{where} is not a regular file ({_kind(kind)})")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a symlink is refused"),
    ):
        if test(mode):
            return name
    return "not a file"


def decode(data: bytes, where: str, error: ErrorType = InputError) -> str:
    """Strict UTF-8 (a leading byte-order mark dropped): a binary file is refused, not read as mojibake."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(
            f"{where} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None
    return text.removeprefix("\ufeff")


def read_text(
    path: Path, *, what: str = "", limit: int = DATA_BYTES, error: ErrorType = InputError, follow: bool = True
) -> str:
    data = read_bytes(path, what=what, limit=limit, error=error, follow=follow)
    return decode(data, describe(path, what), error)


def parse_json(
    text: str,
    where: str,
    *,
    depth: int = MAX_DEPTH,
    values: int = DATA_VALUES,
    error: ErrorType = InputError,
    served: bool = False,
) -> object:
    """`json.loads` after one linear pass over the text (no recursion, no copy of the whole) has checked its
    nesting and counted its values, so nothing is built of a document that is refused; no key twice in one
    object, no NaN or Infinity (not JSON), no lone surrogate (`"\ud800"`, which no UTF-8 file can carry)
    unless `served`: a file of the harness's own quoting what a server sent, which writes one escaped."""
    problem = json_shape(text, depth, values)
    if problem is not None:
        raise error(f"{where} {problem}")
    try:
        value: object = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except RecursionError:
        raise error(f"{where} nests deeper than {depth} levels") from None
    except ValueError as exc:
        raise error(f"{where} is not JSON: {_one_line(str(exc))}") from None
    if not served and _SURROGATE_ESCAPE.search(text) is not None:
        _no_surrogates(value, where, error)
    return value


def parse_yaml(
    text: str,
    where: str,
    *,
    depth: int = MAX_DEPTH,
    values: int = DATA_YAML_VALUES,
    error: ErrorType = InputError,
    served: bool = False,
) -> object:
    """YAML's safe subset, composed node by node under limits checked as each node is made: an alias is
    refused (a few lines of them expand to billions of nodes), and so are nesting beyond `depth`, more than
    `values` nodes and a key given twice in one
    mapping (silently merged by YAML loaders); a lone surrogate as `parse_json` says."""
    loader = _BoundedLoader(text, where, depth, values, error)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        value: object = loader.construct_document(node)
    except RecursionError:
        raise error(f"{where} nests deeper than {depth} levels") from None
    except (yaml.YAMLError, ValueError, TypeError) as exc:
        raise error(f"{where} is not YAML: {_one_line(str(exc))}") from None
    finally:
        loader.dispose()
    if not served:
        _no_surrogates(value, where, error)
    return value


class Limits(TypedDict, total=False):
    what: str
    limit: int
    depth: int
    error: ErrorType
    follow: bool
    served: bool


def read_json(path: Path, **limits: Unpack[Limits]) -> object:
    return _read(parse_json, path, limits, yaml_syntax=False)


def read_yaml(path: Path, **limits: Unpack[Limits]) -> object:
    return _read(parse_yaml, path, limits, yaml_syntax=True)


def _read(parse: Callable[..., object], path: Path, limits: Limits, *, yaml_syntax: bool) -> object:
    what, error = limits.get("what", ""), limits.get("error", InputError)
    limit = limits.get("limit", DATA_BYTES)
    text = read_text(path, what=what, limit=limit, error=error, follow=limits.get("follow", True))
    return parse(text, describe(path, what), depth=limits.get("depth", MAX_DEPTH),
                 values=max_values(limit, yaml_syntax=yaml_syntax), error=error,
                 served=limits.get("served", False))


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
        first = exc.errors(include_url=False, include_context=False, include_input=False)[0]
        field = _one_line(location(first["loc"]), 160) or "(top level)"
        raise error(f"{where}: {field}: {_one_line(first['msg'])}") from None


def first_errors(errors: Iterable[M]) -> list[M]:
    """The first `MAX_ERRORS` of a lazily found list of problems: a document refused for a million invalid
    items is refused after the first few, not after finding every one."""
    return list(itertools.islice(errors, MAX_ERRORS))


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


def json_shape(text: str, depth: int, values: int) -> str | None:
    """Why the JSON `text` is refused before it is parsed (nesting beyond `depth`, more than `values`
    values), or None. One pass over the text outside its strings, a chunk at a time, counted at C speed
    (`str.count`, `bytes.translate`); only the brackets are walked one by one, and only a chunk's are held."""
    level = counted = 0
    for outside in _outside_strings(text):
        brackets = outside.encode("utf-8", "ignore").translate(None, _NOT_BRACKETS)
        opened = brackets.count(b"[") + brackets.count(b"{")
        if level + opened > depth and max(itertools.accumulate(map(_DELTA.__getitem__, brackets),
                                                               initial=level)) > depth:
            return f"nests deeper than {depth} levels"
        counted += sum(outside.count(c) for c in ",:[{")
        if counted >= values:
            return f"holds more than {values:,} values, the limit for a file of its kind"
        level += 2 * opened - len(brackets)
    return None


def _outside_strings(text: str) -> Iterator[str]:
    """The text outside JSON strings, chunk by chunk. In each chunk escaped backslashes, then escaped quotes
    are dropped, so every quote left opens or closes a string; a chunk never ends inside an escape."""
    inside, start = False, 0
    while start < len(text):
        end = min(start + _CHUNK, len(text))
        if text[end - 1] == "\\":
            run = _BACKSLASHES.match(text, end)
            assert run is not None  # `\\*` matches the empty string
            end = min(run.end() + 1, len(text))
        chunk = text[start:end]
        if "\\" in chunk:
            chunk = chunk.replace("\\\\", "").replace('\\"', "")
        pieces = chunk.split('"')
        yield "".join(pieces[1 if inside else 0 :: 2])
        inside ^= len(pieces) % 2 == 0
        start = end


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    found = dict(pairs)
    if len(found) < len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise ValueError(f"key {_one_line(twice, 60)!r} appears twice in one object")
    return found


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _no_surrogates(document: object, where: str, error: ErrorType) -> None:
    """Refuse a string (or key) holding a lone surrogate: valid as a JSON escape, yet no UTF-8 text."""
    stack = [document]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value) is not None:
                raise error(f"{where} holds a lone surrogate (such as \\ud800), which is not Unicode text")
        elif isinstance(value, dict):
            stack.extend(value)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


class _BoundedLoader(Composer, _Events, SafeConstructor, Resolver):
    """The safe loader, refusing an alias, a node beyond the count or the depth, a key twice in a mapping as
    each is composed: a refused document costs no more than the nodes read until then. libyaml makes the
    events; the nodes are composed here (libyaml's own composer builds the whole tree before anything can be
    checked)."""

    def __init__(self, text: str, where: str, depth: int, values: int, error: ErrorType) -> None:
        _Events.__init__(self, text)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)
        Composer.__init__(self)
        self.where, self.depth, self.values, self.error = where, depth, values, error
        self.open_collections = self.composed = 0

    def get_single_node(self) -> yaml.Node | None:
        return Composer.get_single_node(self)

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            raise self.error(f"{self.where}: YAML aliases (*name) are not accepted; write the value out")
        self.composed += 1
        if self.composed > self.values:
            raise self.error(f"{self.where} holds more than {self.values:,} values, the limit for a file of "
                             "its kind")
        return Composer.compose_node(self, parent, index)

    def compose_sequence_node(self, anchor: dict[Any, yaml.Node]) -> yaml.SequenceNode:
        with self._deeper():
            return Composer.compose_sequence_node(self, anchor)

    def compose_mapping_node(self, anchor: dict[Any, yaml.Node]) -> yaml.MappingNode:
        with self._deeper():
            node = Composer.compose_mapping_node(self, anchor)
        keys = [(key.tag, key.value) for key, _ in node.value if isinstance(key, yaml.ScalarNode)]
        if len(set(keys)) < len(keys):
            seen: set[tuple[str, str]] = set()
            twice = next(key for key in keys if key in seen or seen.add(key))  # type: ignore[func-returns-value]
            raise self.error(f"{self.where}: key {_one_line(twice[1], 60)!r} appears twice in one mapping")
        return node

    @contextlib.contextmanager
    def _deeper(self) -> Iterator[None]:
        self.open_collections += 1
        if self.open_collections > self.depth:
            raise self.error(f"{self.where} nests deeper than {self.depth} levels")
        try:
            yield
        finally:
            self.open_collections -= 1


def _size(limit: int) -> str:
    return f"{limit // MiB} MiB" if limit >= MiB else f"{limit} bytes"


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
