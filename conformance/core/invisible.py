"""Characters a reader cannot see in a quote (a carriage return before each line feed, a trailing space, a
tab, a zero-width character, a byte-order mark, a bidirectional control, ANSI colour codes): two texts that
differ in them are said by what differs, never by what those characters do to a width or a padding counted on
the rest (issue 42, fork-thought-log: a CRLF box read as "21 columns wide, 1 wider")."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

_ANSI: Final = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_ZERO_WIDTH: Final = re.compile("[\u200b-\u200d\u2060]")
_BIDI: Final = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Bidirectional marks, embeddings and isolates: a fork wrapping right-to-left text in isolates
(held-out-multi-14's multilingual) drew a box "differing at its body", nothing visible said."""
_TRAILING: Final = re.compile(r"[ \t]+(?=\r?\n|\Z)")


@dataclass(frozen=True)
class _Kind:
    name: str
    """How the characters are said, counted as `{n}` (“{n} line(s) end with a carriage return (\\r\\n)”)."""
    count: Callable[[str], int]
    strip: Callable[[str], str]
    after_the_text: bool = False
    """Whether they sit after a line's last visible character (a carriage return, trailing spaces): outside
    a box's frame, so removed before its width and padding are read. The others (a zero-width character, a
    byte-order mark, a colour code) sit inside the text and count where its width is counted."""


def _crlf(text: str) -> int:
    return text.count("\r\n") + (1 if text.endswith("\r") else 0)


def _strip_crlf(text: str) -> str:
    return text.replace("\r\n", "\n").removesuffix("\r")


def _bom(text: str) -> int:
    return text.count("\ufeff")


_KINDS: Final = (
    _Kind("{n} line(s) ending with a carriage return (\\r\\n, not \\n)", _crlf, _strip_crlf, True),
    _Kind("{n} ANSI colour or cursor code(s) (\\x1b[…)", lambda t: len(_ANSI.findall(t)),
          lambda t: _ANSI.sub("", t)),
    _Kind("{n} byte-order mark(s) (\\ufeff)", _bom, lambda t: t.replace("\ufeff", "")),
    _Kind("{n} zero-width character(s) (\\u200b–\\u200d, \\u2060)", lambda t: len(_ZERO_WIDTH.findall(t)),
          lambda t: _ZERO_WIDTH.sub("", t)),
    _Kind("{n} bidirectional control(s) (\\u200e, \\u200f, \\u202a–\\u202e, \\u2066–\\u2069: marks, "
          "embeddings, isolates)", lambda t: len(_BIDI.findall(t)), lambda t: _BIDI.sub("", t)),
    _Kind("{n} line(s) ending with a space or tab", lambda t: len(_TRAILING.findall(t)),
          lambda t: _TRAILING.sub("", t), True),
)


@dataclass(frozen=True)
class Invisible:
    """What two texts' invisible characters say: those after each line's text (`trailing`: its line ends,
    trailing spaces), removed from both texts, and those inside it (`inside`), left in and named."""

    trailing: str
    inside: str
    original: str
    target: str


def invisible_difference(original: str, target: str, here: str = "{here}",
                         theirs: str = "the original", of: str = "",
                         framed: Callable[[str], list[str] | None] | None = None) -> Invisible:
    """The kinds of invisible characters whose count differs between two texts, in words (`of`: “ of the
    box”; `framed`, a box's lines in a text, when the carriage returns end each of them on one side only),
    and both texts without the differing kinds that sit after a line's text (what is left is compared as
    usual); both sayings are empty when no kind differs."""
    trailing: list[str] = []
    inside: list[str] = []
    for kind in _KINDS:
        was, now = kind.count(original), kind.count(target)
        if was == now:
            continue
        said = trailing if kind.after_the_text else inside
        if kind.count is _crlf and framed is not None and _every_frame_line(framed, original, target):
            said.append(f"each line of the box ends with a carriage return (\\r\\n) {here} where {theirs}'s "
                        "ends with \\n")
        elif kind.count is _crlf and not was and now >= target.count("\n"):
            said.append(f"each line{of} ends with a carriage return (\\r\\n) {here} where {theirs}'s ends "
                        "with \\n")
        elif kind.count is _crlf and not now and was >= original.count("\n"):
            said.append(f"each line{of} ends with \\n {here} where {theirs}'s ends with a carriage return "
                        "(\\r\\n)")
        else:
            said.append(f"{kind.name.format(n=now)} {here} where {theirs} has {was}")
        if kind.after_the_text:
            original, target = kind.strip(original), kind.strip(target)
    return Invisible("; ".join(trailing), "; ".join(inside), original, target)


def _every_frame_line(framed: Callable[[str], list[str] | None], original: str, target: str) -> bool:
    """Whether each line of the target's box ends with a carriage return and none of the original's does
    (the stderr around the box, a blank line before it or a log line, may end otherwise)."""
    mine, theirs = framed(target), framed(original)
    return bool(mine and theirs) and all(line.endswith("\r") for line in mine or []) and not any(
        line.endswith("\r") for line in theirs or [])
