"""Two causes whose pairs show one difference are one change: the same field's value newly refused, or the
same answer field transformed the same way (issue 42: held-out-multi-14's typed-arguments refused a
whitespace-only thought where the original accepted it and where it crashed, two causes; multilingual's
labels, NFKC-normalised, led two causes from two labels).

A refusal in the original's own guard words is no change by its words alone (a fork refusing `branchId` as a
string and a thought trimmed to nothing made two changes); it is one when both refused calls gave the field
the words name the same value. A field's value moved is one change only when a named transform of the text
(a Unicode normal form, a case mapping, whitespace trimmed or collapsed, accents dropped) turns the
original's value into this server's on both pairs, at the same field: a number moved, or text added, can be
two changes'.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Final

from conformance.core.guards import GUARD_REFUSALS, guard_failure
from conformance.core.jsontypes import JSON
from conformance.report.model import Evidence

_AT: Final = re.compile(r"tools/call (\d+)\b")
"""Which tools/call of a replayed example the answers first differ on ("on the example's tools/call 2")."""
_FIELD_MOVED: Final = re.compile(
    r"^(?:result\.content\[\d+\]\.text → )?(?P<path>[\w\[\]\.]+): “(?P<theirs>[^”]*)” on the original, "
    r"“(?P<ours>[^”]*)” here$")
"""A field whose text differs, as core/differences words it."""


def _accents_dropped(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


TRANSFORMS: Final[tuple[tuple[str, Callable[[str], str]], ...]] = (
    ("whitespace trimmed", str.strip),
    ("whitespace collapsed", lambda text: " ".join(text.split())),
    ("lower-cased", str.lower),
    ("upper-cased", str.upper),
    ("case-folded", str.casefold),
    ("NFC-normalised", lambda text: unicodedata.normalize("NFC", text)),
    ("NFD-normalised", lambda text: unicodedata.normalize("NFD", text)),
    ("NFKC-normalised", lambda text: unicodedata.normalize("NFKC", text)),
    ("NFKD-normalised", lambda text: unicodedata.normalize("NFKD", text)),
    ("accents dropped", _accents_dropped),
    ("NFKC-normalised and case-folded", lambda text: unicodedata.normalize("NFKC", text).casefold()),
)
"""The text transforms a fork may apply to a value it echoes, the plainest first."""


def transforms_of(theirs: str, ours: str) -> frozenset[str]:
    """The named transforms turning the original's text into this server's (a trimmed value is also a
    collapsed one): two pairs sharing one show one rule; empty when none does, or the two are equal."""
    if theirs == ours:
        return frozenset()
    return frozenset(name for name, apply in TRANSFORMS if apply(theirs) == ours)


def transform_shown(evidence: Evidence | None) -> tuple[str, frozenset[str]] | None:
    """(the field, indices masked; the transforms) a reproduced pair's first difference shows this server
    applying to a text value the original echoes as sent; None for any other pair."""
    if evidence is None or not evidence.reproduced or not evidence.differences:
        return None
    moved = _FIELD_MOVED.match(evidence.differences[0])
    if moved is None:
        return None
    names = transforms_of(moved.group("theirs"), moved.group("ours"))
    return (re.sub(r"\[\d+\]", "[N]", moved.group("path")), names) if names else None


_CHANGED_TO: Final = re.compile(r"“([^”]*)” to “([^”]*)”")


def transform_seen(evidence: Evidence | None, frames: Sequence[str], refused: str | None
                   ) -> tuple[str, frozenset[str]] | None:
    """(the field, the transforms) a reproduced pair shows this server applying to a text it was sent before
    using it, where no answer echoes it: the call refused (`refused`, this server's words, where the original
    accepts it or crashes) in the original's guard words for that field where a transform turns the value
    sent into one that guard refuses (a whitespace-only thought trimmed to nothing), or the box drawing the
    value sent as a transform turns it, on a line the original's box does not draw (a two-line thought
    collapsed onto one row). Else what `transform_shown` says. One field's text moved alike is one change
    (held-out-multi-14's typed-arguments: the whitespace collapsed, a cause for the refused "   " and
    another for the thought boxed on one row)."""
    shown = transform_shown(evidence)
    if shown is not None or evidence is None or not evidence.reproduced or not evidence.differences:
        return shown
    sent = _sent_texts(evidence, frames)
    if refused is not None:
        for field, value in sent.items():
            names = frozenset(n for n, apply in TRANSFORMS if _guard_refuses(field, apply(value))
                              and not _guard_refuses(field, value))
            if names and GUARD_REFUSALS.get(field) == refused:
                return field, names
        return None
    first = evidence.differences[0]
    if not first.startswith("stderr: "):
        return None
    pairs = _CHANGED_TO.findall(first)
    for field, value in sent.items():
        names = frozenset(n for n, apply in TRANSFORMS if apply(value) != value and len(apply(value)) >= 8
                          and any(apply(value) in ours and apply(value) not in theirs
                                  for theirs, ours in pairs))
        if names:
            return field, names
    return None


_PASSING: Final[dict[str, JSON]] = {"thought": "x", "thoughtNumber": 1, "totalThoughts": 1,
                                    "nextThoughtNeeded": True}


def _guard_refuses(field: str, value: str) -> bool:
    """Whether the original's guard of `field` refuses this value, the other fields passing."""
    return guard_failure({**_PASSING, field: value}) == field


def _sent_texts(evidence: Evidence, frames: Sequence[str]) -> dict[str, str]:
    """The text arguments of the call a pair first differs on (read as `refused_value` reads it)."""
    texts: dict[str, str] = {}
    for field in _ARGUMENT_NAMES.findall(" ".join(evidence.example or frames)):
        value = refused_value(evidence, frames, field)
        if value is not None and value.startswith('"'):
            texts.setdefault(field, json.loads(value))
    return texts


_ARGUMENT_NAMES: Final = re.compile(r'"(\w+)":\s*"')


def same_transform(one: tuple[str, frozenset[str]] | None, other: tuple[str, frozenset[str]] | None) -> bool:
    """Two pairs showing one field's text moved by a transform they share."""
    return one is not None and other is not None and one[0] == other[0] and bool(one[1] & other[1])


def refused_value(evidence: Evidence | None, frames: Sequence[str], field: str) -> str | None:
    """The value (compact JSON) the call a pair first differs on gave `field`, read from the sequence
    replayed (`frames` when the pair keeps none of its own); None when the call or the field is not there."""
    if evidence is None or not field:
        return None
    at = _AT.search(evidence.at)
    if at is None:
        return None
    calls: list[object] = []
    for frame in evidence.example or frames:
        try:
            message = json.loads(frame)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("method") == "tools/call":
            calls.append(message.get("params"))
    index = int(at.group(1)) - 1
    if not 0 <= index < len(calls):
        return None
    params = calls[index]
    arguments = params.get("arguments") if isinstance(params, dict) else None
    if not isinstance(arguments, dict) or field not in arguments:
        return None
    return json.dumps(arguments[field], sort_keys=True, ensure_ascii=False)
