"""Sentences the atlas pages say about themselves: the columns' order
(by version, with where publication order differs and which releases run on a capped tree), and what
each release negotiates. Pure functions of the atlas model, shared by the Markdown and HTML writers."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from conformance.atlas.model import Column
from conformance.report.escape import HEADLINE_CHARS, cut_headline

__all__ = ["HEADLINE_CHARS", "cut_headline", "negotiated", "order_sentences"]

def _when(stamp: str | None) -> dt.datetime | None:
    if not stamp:
        return None
    try:
        moment = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)


def _day(stamp: str | None) -> str:
    when = _when(stamp)
    return when.date().isoformat() if when is not None else "unknown"


def order_sentences(columns: Sequence[Column]) -> list[str]:
    """How the columns are ordered, where publication order differs from it, and which releases run on a
    dependency tree capped before their own registry stamp (read from the columns' install metadata)."""
    releases = [c for c in columns if c.variant_of is None]
    said = [
        "Columns are in version order, oldest first, each release followed by its switch columns; "
        "publication dates are the registry's publish times recorded at install."
    ]
    dated = [(c, _when(c.published)) for c in releases]
    for index, (column, when) in enumerate(dated):
        if when is None:
            continue
        overtaken = [
            (later, lw) for later, lw in dated[index + 1 :] if lw is not None and lw < when
        ]
        if overtaken:
            named = [f"{later.label} ({_day(later.published)})" for later, _ in overtaken]
            names = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}"
            said.append(
                f"Publication order differs: {column.label} was published {_day(column.published)}, after "
                f"{names}."
            )
    for column in releases:
        identity = column.identity
        as_of = _when(identity.resolved_as_of) if identity is not None else None
        published = _when(column.published)
        if identity is None or identity.resolution != "release" or as_of is None or published is None:
            continue
        if as_of < published:
            said.append(
                f"{column.label} runs on a capped dependency tree: resolved as of "
                f"{identity.resolved_as_of} (the next release's publication), not its registry stamp "
                f"{_day(column.published)}."
            )
    return said


def negotiated(column: Column) -> str:
    """What the release answered to each revision offered (newest first), e.g. `2025-11-25 → 2025-11-25`,
    then what it settled on with the official client (`auto`, the newest it accepts)."""
    offers = column.tool.negotiated if column.tool is not None else {}
    said = [f"{offer} → {answer}" for offer, answer in sorted(offers.items(), reverse=True)]
    if column.protocol_version:
        said.append(f"auto → {column.protocol_version}")
    return ", ".join(said) or "—"
