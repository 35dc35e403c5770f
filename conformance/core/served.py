"""Every JSON a server sends, read one way (as `inputs.py` reads files): a stdout line, an answer's
`content[0].text`, a batch reply, a frame kept in a program. Bounded in size, in the number of values and
in nesting before anything is built, strict JSON (no NaN or Infinity), and a refusal is one typed failure,
`Unreadable`, never a RecursionError or a traceback. What the reader returns may be walked recursively by
any room: nothing it returns nests deeper than `SERVED_DEPTH`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Final

from conformance.core.errors import HarnessError
from conformance.core.inputs import json_shape
from conformance.core.jsontypes import JSON

SERVED_DEPTH: Final = 128
"""Arrays and objects a server's JSON may nest (a protocol message with its tool list nests about 10; an
answer text about 3). Deep enough for any answer, shallow enough that every recursive walk of what was
read (comparison, canonical forms, differences) stays far inside Python's recursion limit."""
SERVED_BYTES: Final = 16 << 20
"""The longest text read as JSON: the default stdout frame (`--max-frame`), which bounds an answer's text
too (a driver with a larger frame limit reads lines up to it)."""
SERVED_VALUES: Final = 100_000
"""Values one text may hold (counted as `inputs.max_values` counts them: the commas, colons and opening
brackets outside strings). A conforming answer holds fewer than a thousand; a tools/list of 100,000 tools
holds 800,000, and parsing it again on every call cost minutes and a gigabyte."""
_QUOTED: Final = 200


class Unreadable(HarnessError, ValueError):
    """What a server sent is not JSON the harness reads: not JSON, too deep, too large, or too many values.
    A ValueError too, so a caller that already took "not JSON" as an answer's property keeps doing so.
    `reason` is the problem alone (the message adds what was read and its first characters); `beyond` says
    it is JSON, maybe, but past one of the reader's limits (a limit of the harness, not a broken stream)."""

    reason: str = ""
    beyond: bool = False


def _unreadable(what: str, reason: str, text: str, *, beyond: bool = False) -> Unreadable:
    head = text[:_QUOTED]
    # The head as a JSON string (the harness's way of quoting a value), not Python's repr of it.
    shown = json.dumps(head, ensure_ascii=False)
    failure = Unreadable(f"{what} {reason}: {shown}{'…' if len(text) > _QUOTED else ''}")
    failure.reason = reason
    failure.beyond = beyond
    return failure


def _reject_constant(name: str) -> JSON:
    raise ValueError(f"{name} is not JSON")


_DECODER: Final = json.JSONDecoder(parse_constant=_reject_constant)


def read_served(
    data: str | bytes,
    what: str = "server output",
    *,
    depth: int = SERVED_DEPTH,
    limit: int = SERVED_BYTES,
    values: int = SERVED_VALUES,
) -> JSON:
    """`data` (a line, a text) parsed as strict JSON, or `Unreadable`. Costs time linear in its length and
    memory bounded by `values`: a text past `limit` is refused unread, and nesting and the number of values
    are checked in one pass before anything is built (only when the text is longer than `values` characters
    or has more brackets than `depth`: a usual answer pays two `str.count`)."""
    if len(data) > limit:
        raise _unreadable(what, f"is longer than {limit:,} bytes, the limit", _shown(data), beyond=True)
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _unreadable(what, f"is not UTF-8: {exc.reason} at byte {exc.start}", _shown(data)) from None
    else:
        text = data
    if len(text) > values or text.count("[") + text.count("{") > depth:
        problem = json_shape(text, depth, values)
        if problem is not None:
            reason = problem.replace("a file of its kind", "what a server sends")
            raise _unreadable(what, reason, text, beyond=True)
    try:
        value: JSON = _DECODER.decode(text)
    except RecursionError:  # pragma: no cover - the shape check refuses such nesting first
        raise _unreadable(what, f"nests deeper than {depth} levels", text, beyond=True) from None
    except ValueError as exc:
        raise _unreadable(what, f"is not JSON: {' '.join(str(exc).split())[:_QUOTED]}", text) from None
    return value


def _shown(data: str | bytes) -> str:
    head = data[:_QUOTED]
    return head.decode("utf-8", "replace") if isinstance(head, bytes) else head


_FENCE: Final = re.compile(r"```[A-Za-z0-9_+.-]*[ \t]*\r?\n(.*?)\r?\n[ \t]*```", re.DOTALL)
"""A markdown code fence around a whole text, its language tag (`json`) optional."""


def unfenced(text: str) -> str | None:
    """The text inside a markdown code fence that wraps the whole of `text` (whitespace around it aside),
    None when `text` is not so fenced: a chat-oriented fork answers "```json\\n{…}\\n```"."""
    stripped = text.strip()
    if not stripped.startswith("```") or not stripped.endswith("```"):
        return None
    found = _FENCE.fullmatch(stripped)
    return found.group(1) if found is not None else None


_TRAIL_READ: Final = 100_000
"""The longest answer text looked through for a JSON object with text after it (an answer is a few hundred
characters; a longer text is read as it is)."""


def trailed(text: str) -> tuple[str, str] | None:
    """A JSON object with more text after it, as (the object's text, the text after it); None when `text` is
    not so made. A fork appends a section to its status ("\n\n---\nNext: …", stopuncle-js): the status is
    still the answer's first value, and only OBJ-4's and OBJ-8's own checks judge what follows it."""
    stripped = text.strip()
    if len(stripped) > _TRAIL_READ or not stripped.startswith("{"):
        return None
    try:
        _, end = _DECODER.raw_decode(stripped)
    except (ValueError, RecursionError):
        return None
    rest = stripped[end:].strip()
    return (stripped[:end], rest) if rest else None


def read_answer(text: str, what: str = "answer text") -> JSON:
    """An answer's text (`content[0].text`) as JSON, read through a markdown code fence around it, or the JSON
    object it begins with when text follows that object: the checks read the object a fork fences or trails,
    and only OBJ-4's and OBJ-8's own checks judge the fence or the trail (`unfenced`, `trailed` tell them).
    Otherwise `read_served`."""
    inner = unfenced(text)
    if inner is None:
        trail = trailed(text)
        inner = trail[0] if trail is not None else None
    return read_served(inner if inner is not None else text, what)


_BLOCKS_READ: Final = 8
"""How many content blocks are looked through for the status: a fork adds a line or two, a hostile server
may send thousands."""


def status_block(texts: Sequence[object]) -> int:
    """Which content block's text is the answer's: the first, unless it reads as no JSON and a later text
    block reads as a JSON object (a fork putting a summary line first, held-out-multi-4's
    fork-progress-meter). The extra block is OBJ-4's own check's to say (one text item); every other check
    reads the status, so ten records do not each say "text is not JSON" (issue 42)."""
    if len(texts) < 2 or not isinstance(texts[0], str) or _reads(texts[0]) is not False:
        return 0
    return next((i for i, text in enumerate(texts[1:_BLOCKS_READ], 1)
                 if isinstance(text, str) and _reads(text)), 0)


def _reads(text: str) -> bool | None:
    """True: a JSON object; None: JSON, no object; False: no JSON the harness reads."""
    try:
        value = read_answer(text)
    except Unreadable:
        return False
    return True if isinstance(value, dict) else None
