"""A record's witness answers judged alike across two runs when one of them read a store as carried.

A run reads a fork's counts and labels as `CARRIED` when its two first fresh processes answered the probe with
different stores (a file beside the script that every process restores and rewrites, `StoreBase.carried`).
Whether another process rewrote that file between those two starts is timing: fork-remembered-labels
(held-out-multi-13) was read carried in its baseline run and not under ci seed 22, and all 35 of its entries
went "changed" on the same build. A field either run read as carried is read so in both before they are
compared; every other field still has to match.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from conformance.core.jsontypes import JSON
from conformance.core.served import Unreadable, read_served
from conformance.core.witness_words import CARRIED
from conformance.report.model import WitnessAnswer


def pinned_alike(pinned: str | None, pinned_witness: Sequence[WitnessAnswer], signature: str | None,
                 witness: Sequence[WitnessAnswer]) -> bool:
    """Whether a signature is the pinned one: equal, or its witness answers are the pinned ones once every
    field either side read as carried is carried on both (a baseline without a signature pins nothing)."""
    if pinned is None or signature == pinned:
        return True
    if signature is None:
        return False
    return carried_alike(pinned_witness, witness)


def carried_alike(before: Sequence[WitnessAnswer], after: Sequence[WitnessAnswer]) -> bool:
    """Whether two runs' witness answers of one record are the same once a field either reads as carried is
    read so in both; False when neither reads anything as carried, or an answer is no JSON (shortened)."""
    if not any(CARRIED in w.answer for w in (*before, *after)):
        return False
    if [w.step for w in before] != [w.step for w in after]:
        return False
    for b, a in zip(before, after, strict=True):
        if b.answer == a.answer:
            continue
        try:
            left, right = _masked(read_served(b.answer, "a pinned witness answer"),
                                  read_served(a.answer, "a witness answer"))
        except Unreadable:
            return False
        if _text(left) != _text(right):
            return False
    return True


def _masked(left: JSON, right: JSON) -> tuple[JSON, JSON]:
    """Both values with every object field one side reads as `CARRIED` carried on the other too."""
    if isinstance(left, dict) and isinstance(right, dict):
        ours: dict[str, JSON] = {}
        theirs: dict[str, JSON] = {}
        for key, value in left.items():
            if key in right and CARRIED in (value, right[key]):
                ours[key] = CARRIED
            elif key in right:
                ours[key], _ = _masked(value, right[key])
            else:
                ours[key] = value
        for key, value in right.items():
            if key in left and CARRIED in (value, left[key]):
                theirs[key] = CARRIED
            elif key in left:
                _, theirs[key] = _masked(left[key], value)
            else:
                theirs[key] = value
        return ours, theirs
    if isinstance(left, list) and isinstance(right, list) and len(left) == len(right):
        pairs = [_masked(a, b) for a, b in zip(left, right, strict=True)]
        return [a for a, _ in pairs], [b for _, b in pairs]
    return left, right


def _text(value: JSON) -> str:
    """Key order kept: a record about the order of fields still sees it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
