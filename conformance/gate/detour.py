"""A departure masked by another change's refusal, re-judged past it (issue 42): every check of the record
met a refusal a cause's pair shows (a fork refusing `branchId` over 32 characters that also sorts its
branches: each branch example is refused first), so its own change was never seen. Its example is sent again
with the refused call's inputs moved inside what the refusal's rule accepts (a detour: short plain words for a
text, the numbered fields in order or re-ranked, an optional field dropped), on fresh processes of both sides:
if it then holds, the cause explains it, checked; if it departs otherwise, that difference is its own and the
grouping places it; if no detour gets past the refusal, it is said masked, not checked past it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from conformance.compare.two_fields import OPTIONAL
from conformance.core.differences import Refusal, refusal
from conformance.core.jsontypes import JSON
from conformance.core.relation import NUMBERED
from conformance.gate.beside_call import tools_call
from conformance.report.model import Evidence, RecordVerdict, RootCause

DETOUR_REPLAYS: Final = 32
"""Sequences replayed past a refusal per report, over every masked departure: a red run's extra cost is at
most this many pairs of short-lived processes (replayed side by side with the others)."""
MAX_TRIES: Final = 4
"""Detours tried per departure, cheapest first."""
AT_CALL: Final = re.compile(r"on the example's tools/call (\d+)")
PLAIN_LETTERS: Final = "abcdefghijklmnop"
OWN_PAST: Final = "its example then departs otherwise, its own difference"
"""What a departure's evidence says once its detour departed otherwise: read back by `departs_past`."""
MASKED_BY: Final = re.compile(r"masked by (\S+)'s refusal; re-judged past it \(.*?\): " + re.escape(OWN_PAST))

Arguments = dict[str, JSON]


@dataclass(frozen=True)
class Detour:
    """One way past a refusal: `move` rewrites each call's arguments (given its place among the sequence's
    calls); `said` says it."""

    name: str
    said: str
    move: Callable[[int, Arguments], Arguments]


def plain_words(value: str) -> str:
    """A short text of letters standing for `value`: the same value always the same word, two values two
    words, so a rule on a text's length or kind of characters is met and what the calls share is kept."""
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:7]
    return "x" + "".join(PLAIN_LETTERS[int(c, 16)] for c in digest)


def letters_alike(value: str) -> str:
    """`value` with every character but an ASCII letter or digit made a letter, as long in UTF-16 units: a
    rule on the kind of characters a text holds (blank, a NUL, a control, a non-ASCII one) is met and its
    length kept (a long thought stays as long)."""
    out: list[str] = []
    for c in value:
        if c.isascii() and c.isalnum():
            out.append(c)
        else:
            out.append(PLAIN_LETTERS[ord(c) % len(PLAIN_LETTERS)] * (2 if ord(c) > 0xFFFF else 1))
    return "".join(out)


def _alike(fields: Sequence[str]) -> Callable[[int, Arguments], Arguments]:
    def move(_: int, arguments: Arguments) -> Arguments:
        return {k: letters_alike(v) if k in fields and isinstance(v, str) else v
                for k, v in arguments.items()}
    return move


def _plain(fields: Sequence[str]) -> Callable[[int, Arguments], Arguments]:
    def move(_: int, arguments: Arguments) -> Arguments:
        return {k: plain_words(v) if k in fields and isinstance(v, str) else v for k, v in arguments.items()}
    return move


def _apart(field: str) -> Callable[[int, Arguments], Arguments]:
    """Each call's text of `field` a plain word of its own: a rule over the calls before (a text repeating
    the previous one, or any before it) is met."""
    def move(place: int, arguments: Arguments) -> Arguments:
        value = arguments.get(field)
        if not isinstance(value, str):
            return arguments
        return {**arguments, field: plain_words(f"{place}\n{value}")}
    return move


def _number(value: JSON) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def in_order(_: int, arguments: Arguments) -> Arguments:
    """The numbered fields as the original's own reading leaves them: `totalThoughts` raised to
    `thoughtNumber` (the original raises it itself), a `revisesThought` or `branchFromThought` not below
    `thoughtNumber` moved just under it."""
    out = dict(arguments)
    number = out.get("thoughtNumber")
    if not _number(number):
        return out
    assert isinstance(number, int | float)
    total = out.get("totalThoughts")
    if _number(total) and isinstance(total, int | float) and total < number:
        out["totalThoughts"] = number
    for field in ("revisesThought", "branchFromThought"):
        value = out.get(field)
        if _number(value) and isinstance(value, int | float) and value >= number and number > 1:
            out[field] = number - 1
    return out


def re_ranked(sequence: Sequence[Arguments]) -> Callable[[int, Arguments], Arguments]:
    """Every number the sequence gives a numbered field replaced by its rank among them (1, 2, …): small
    whole numbers standing in the same order and equalities as before, so a range, a type or a cap on a
    number is met and every order between the calls' numbered fields is kept."""
    values = sorted({float(v) for a in sequence for k, v in a.items() if k in NUMBERED and _number(v)
                     and isinstance(v, int | float)})
    rank = {v: i for i, v in enumerate(values, start=1)}

    def move(_: int, arguments: Arguments) -> Arguments:
        return {k: rank[float(v)] if k in NUMBERED and _number(v) and isinstance(v, int | float) else v
                for k, v in arguments.items()}
    return move


def _dropped(field: str) -> Callable[[int, Arguments], Arguments]:
    return lambda _, arguments: {k: v for k, v in arguments.items() if k != field}


def detours(field: str, refused: Arguments, sequence: Sequence[Arguments]) -> list[Detour]:
    """The ways past a refusal of `field` (empty: a refusal naming none) in the call `refused`, cheapest and
    closest to the record's own inputs first, at most `MAX_TRIES`: a text as letters of the same length,
    then as short plain words, then one of its own on each call; numbers in order, then re-ranked; an
    optional field dropped."""
    value = refused.get(field) if field else None
    out: list[Detour] = []
    if isinstance(value, str) or not field:
        texts = [field] if field else sorted({k for a in sequence for k, v in a.items()
                                              if isinstance(v, str)})
        out.append(Detour("letters", f"{_names(texts)} sent as letters and digits, as long",
                          _alike(texts)))
        out.append(Detour("plain", f"{_names(texts)} sent as short plain words", _plain(texts)))
    if isinstance(value, str):
        out.append(Detour("apart", f"`{field}` sent as a plain word of its own on each call",
                          _apart(field)))
    if field in NUMBERED or not field:
        out.append(Detour("in order", "`totalThoughts` raised to `thoughtNumber` and the thoughts revised "
                          "or branched from kept below it", in_order))
        out.append(Detour("re-ranked", "the numbered fields re-ranked to 1, 2, … in the same order",
                          re_ranked(sequence)))
    if field in OPTIONAL:
        out.append(Detour("dropped", f"`{field}` left out", _dropped(field)))
    return out[:MAX_TRIES]


def _names(fields: Sequence[str]) -> str:
    return ", ".join(f"`{f}`" for f in fields) or "the texts"


def calls_of(frames: Sequence[str]) -> list[Arguments]:
    """The arguments of each tools/call the sequence sends, in order."""
    return [found[1] for frame in frames if (found := tools_call(frame)) is not None]


def moved(frames: Sequence[str], detour: Detour) -> list[str]:
    """The sequence with every tools/call's arguments moved by `detour`; the other frames as they were."""
    out: list[str] = []
    place = 0
    for frame in frames:
        found = tools_call(frame)
        if found is None:
            out.append(frame)
            continue
        sent, arguments = found
        after = detour.move(place, arguments)
        place += 1
        if after == arguments:
            out.append(frame)
            continue
        params = dict(sent["params"]) if isinstance(sent.get("params"), dict) else {}  # type: ignore[arg-type]
        params["arguments"] = after
        out.append(json.dumps({**sent, "params": params}, ensure_ascii=False, separators=(",", ":")))
    return out


def _numbers_aside(words: str) -> str:
    return re.sub(r"\d+(?:\.\d+)?", "N", words)


def refused_here(evidence: Evidence | None) -> Refusal | None:
    """The refusal a reproduced pair shows where the original accepts the call (however its difference is
    said: in words, or as the rule a re-test found), or None."""
    if evidence is None or not evidence.reproduced or evidence.not_its_failure or not evidence.differences:
        return None
    try:
        original, target = json.loads(evidence.original), json.loads(evidence.target)
    except ValueError:
        return None
    return refusal(target) if refusal(original) is None else None


def _rule_words(refused: Refusal) -> str:
    """A refusal's words with its numbers and the field it names aside: one rule, whichever numbered field
    it refused (a bound on every number, "must be at most 2147483647")."""
    words = _numbers_aside(refused.words)
    return words.replace(refused.field, "F") if refused.field else words


def masking(rv: RecordVerdict, causes: Sequence[RootCause]) -> RootCause | None:
    """The cause whose own pair shows the refusal the record's pair shows (numbers and the field aside), for
    a record that leads no cause and is no amendment of the cause's records: the refusal the record's example
    met before its own change."""
    own = refused_here(rv.evidence)
    if own is None or rv.verdict != "deviates" or any(rv.id in c.records for c in causes):
        return None  # a cause's own record is judged by its cause's pair
    for cause in causes:
        theirs = refused_here(cause.evidence)
        if (theirs is not None and _base(rv.id) not in {_base(r) for r in cause.records}
                and _rule_words(theirs) == _rule_words(own)):
            return cause
    return None


def _base(record: str) -> str:
    """A record's base record: an amendment (RTE-3/a1) states more about its base's behaviour, so a refusal
    its base's cause shows is its own failure, never a mask."""
    return record.split("/", 1)[0]


class Judge(Protocol):
    """Replays a sequence on fresh processes of both sides: the pair from the sequence's first tools/call on
    (None past the replay budget); `ahead` starts replays the walk is about to ask for."""

    def __call__(self, rv: RecordVerdict, frames: Sequence[str]) -> Evidence | None: ...

    def ahead(self, sequences: Iterable[Sequence[str]]) -> None: ...


@dataclass(frozen=True)
class _Plan:
    rv: RecordVerdict
    cause: RootCause
    frames: list[str]
    tries: list[tuple[Detour, list[str]]]


def _plan(rv: RecordVerdict, cause: RootCause) -> _Plan:
    """The detours that move the refused call of the record's example, each with the sequence it sends."""
    evidence = rv.evidence
    assert evidence is not None
    frames = list(evidence.example)
    calls = calls_of(frames)
    at = AT_CALL.fullmatch(evidence.at)
    index = int(at.group(1)) - 1 if at is not None else -1
    own = refused_here(evidence)
    if not 0 <= index < len(calls) or own is None:
        return _Plan(rv, cause, frames, [])
    tries = [(d, after) for d in detours(own.field, calls[index], calls)
             if (after := moved(frames, d)) != frames and calls_of(after)[index] != calls[index]]
    return _Plan(rv, cause, frames, tries)


def past_refusals(causes: Sequence[RootCause], records: Sequence[RecordVerdict], judge: Judge,
                  budget: int = DETOUR_REPLAYS) -> tuple[list[RootCause], list[RecordVerdict]]:
    """Each departure masked by a cause's refusal re-judged past it (the module's docstring): its evidence
    then says the detour in `why`, and one departing otherwise is no longer explained by that cause."""
    plans = [_plan(rv, cause) for rv in records if (cause := masking(rv, causes)) is not None]
    judge.ahead([tries[0][1] for p in plans if (tries := p.tries)][:budget])
    judged: set[tuple[str, ...]] = set()
    out: dict[str, RecordVerdict] = {}
    for plan in plans:
        out[plan.rv.id] = _judged(plan, judge, budget, judged)
    kept = [c.model_copy(update={"explains": [
        *(r for r in c.explains if r not in out or out[r].explained_by == c.id),
        *(r for r, rv in out.items() if rv.explained_by == c.id and r not in c.explains)]}) for c in causes]
    return kept, [out.get(rv.id, rv) for rv in records]


def _judged(plan: _Plan, judge: Judge, budget: int, judged: set[tuple[str, ...]]) -> RecordVerdict:
    """The record as judged past its mask: explained by the masking cause (checked), departing with a
    difference of its own (no longer explained by it), or said masked. `judged` holds the sequences replayed
    so far, at most `budget` (a sequence two records' detours share is replayed once)."""
    rv, cause = plan.rv, plan.cause
    evidence = rv.evidence
    assert evidence is not None
    head = f"masked by {cause.id}'s refusal"
    first = refused_here(evidence)
    masked = _rule_words(first) if first is not None else ""
    tried: list[str] = []
    for detour, frames in plan.tries:
        if tuple(frames) not in judged and len(judged) >= budget:
            return _said(rv, f"{head}: not checked past it (the report's {DETOUR_REPLAYS} replays "
                                "past a refusal were spent)")
        judged.add(tuple(frames))
        pair = judge(rv, frames)
        if pair is None:
            return _said(rv, f"{head}: not checked past it (no replay past it: the budget spent or "
                                "a side broke off)")
        tried.append(detour.said)
        if not pair.reproduced:
            return _said(rv, f"{head}; re-judged past it ({detour.said}) on fresh processes, its "
                                "example shows no other difference: explained by it, checked",
                                explained_by=cause.id)
        again = refused_here(pair)
        if again is not None and _rule_words(again) == masked:
            continue
        why = f"{head}; re-judged past it ({detour.said}): {OWN_PAST}"
        own = pair.model_copy(update={"example": frames, "why": why})
        return rv.model_copy(update={"evidence": own, "explained_by": None})
    if not plan.tries:
        return _said(rv, f"{head}: not checked past it (no detour keeps the call it needs)")
    return _said(rv, f"{head}: not checked past it (still refused with {'; '.join(tried)})")


def departs_past(rv: RecordVerdict) -> str:
    """The cause a departure's detour got past and then departed otherwise (its evidence says so, in a run's
    report and a kept one alike), else empty: no check of it naming that cause keeps it there, since each of
    those checks met the refusal first."""
    found = MASKED_BY.search(rv.evidence.why) if rv.evidence is not None and rv.evidence.reproduced else None
    return found.group(1) if found is not None else ""


def _said(rv: RecordVerdict, why: str, explained_by: str | None = None) -> RecordVerdict:
    evidence = rv.evidence
    assert evidence is not None
    joined = f"{evidence.why}; {why}" if evidence.why else why
    update: dict[str, object] = {"evidence": evidence.model_copy(update={"why": joined})}
    if explained_by is not None:
        update["explained_by"] = explained_by
    return rv.model_copy(update=update)


__all__ = ["DETOUR_REPLAYS", "Detour", "Judge", "calls_of", "departs_past", "detours", "in_order", "masking",
           "moved",
           "past_refusals", "plain_words", "re_ranked", "refused_here"]
