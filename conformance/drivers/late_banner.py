"""A start-up banner that reaches the pipe after a process's first answers: a wrapper relaying stderr
(`docker run -i`, a shell script, an async logger) may forward the banner the original writes at start-up
("Sequential Thinking MCP Server running on stdio") later than the start-up wait, and what the server writes
next comes behind it. Its bytes are the start-up's, never a call's: not its stderr, not a render departure.

Which leading bytes of a call's stderr are that banner (`startup_part`): the banner the run learned from
another process of the command (`Lateness.banner`), or, on a call owing a box whose stderr all arrived after
its answer, the whole lines before that box.
"""

from __future__ import annotations

from typing import Final

STARTUP_LATE: Final = 3.0
"""Seconds after a process's first answer its first stderr bytes may still be its start-up's (its banner, late
through a relay), when its start-up wait ended with nothing: a box-owing call on such a process waits this
long at most for them, and only once the run saw its command write a banner (`Lateness.banner`), so a
banner-less server pays nothing. The test relay holds the banner 0.8 s; `compare reference` through it found
a `render` root cause (CMP-5, RTE-9: "writes no stderr box for an accepted call") before."""
BANNER_BYTES: Final = 4096
"""A start-up's stderr longer than this is learned as no banner (a log stream, not a line or two)."""
_TOPS: Final = tuple(corner.encode() for corner in "┌╔╭┏")
_BORDERS: Final = tuple(line.encode() for line in "─═━│║┃")


def learnable(data: bytes) -> bytes | None:
    """`data`, a process's whole start-up stderr, as the banner to learn: whole lines, some text, no box
    border, at most `BANNER_BYTES`; else None."""
    if not data.strip() or not data.endswith(b"\n") or len(data) > BANNER_BYTES:
        return None
    return None if any(mark in data for mark in (*_TOPS, *_BORDERS)) else data


def startup_part(data: bytes, banner: bytes | None, boxed: bool) -> bytes:
    """The leading bytes of `data`, a process's first stderr read after its first answer, that are its
    start-up's: `banner` when `data` begins with it; else, when `boxed` (a call owing a box whose stderr all
    arrived after its answer), the whole lines before its box's top line, blank lines next to it left to the
    box (the original's box begins with one), or every whole line when no box began yet. b"": none."""
    if banner and data.startswith(banner):
        return banner
    if not boxed:
        return b""
    lines = data.splitlines(keepends=True)
    taken: list[bytes] = []
    for line in lines:
        if not line.endswith(b"\n") or any(mark in line for mark in (*_TOPS, *_BORDERS)):
            break
        taken.append(line)
    while taken and not taken[-1].strip():
        taken.pop()
    return learnable(b"".join(taken)) or b""
