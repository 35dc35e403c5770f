"""Which records a run judges: `--select` and `--deselect` name records (canonical IDs or aliases) or kinds,
so a fork's maintainer can rerun the one record a pull request touches; the rest are `not run`, and the
report says they were not selected."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from conformance.core.errors import InputError


class SelectionError(InputError):
    """A `--select`/`--deselect` name is neither a record ID, an alias nor a kind, or selects nothing."""


class Selectable(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def observable(self) -> bool: ...


@dataclass(frozen=True)
class Selection:
    """The canonical IDs of the records a run judges and of those it leaves out, in catalog order."""

    selected: tuple[str, ...]
    not_selected: tuple[str, ...]

    @property
    def narrowed(self) -> bool:
        return bool(self.not_selected)


def names(values: Iterable[str]) -> tuple[str, ...]:
    """Repeated options and comma-separated lists as one tuple of names, blanks dropped, order kept."""
    return tuple(dict.fromkeys(n.strip() for v in values for n in v.split(",") if n.strip()))


def select_records(records: Sequence[Selectable], canonical: Mapping[str, str],
                   select: Sequence[str] = (), deselect: Sequence[str] = ()) -> Selection:
    """Every record of `records` (catalog order) when `select` is empty, less those `deselect` names; IDs
    match exactly or, failing that, ignoring case; kinds ignore case. A selection no test could observe is
    refused (the run would have nothing to do)."""
    chosen = _named(records, canonical, select, "--select") if select else {r.id for r in records}
    chosen -= _named(records, canonical, deselect, "--deselect")
    if not any(r.observable for r in records if r.id in chosen):
        said = " ".join([*(f"--select {n}" for n in select), *(f"--deselect {n}" for n in deselect)])
        raise SelectionError(f"{said} leaves no record a test can observe")
    return Selection(tuple(r.id for r in records if r.id in chosen),
                     tuple(r.id for r in records if r.id not in chosen))


def _named(records: Sequence[Selectable], canonical: Mapping[str, str], wanted: Sequence[str],
           option: str) -> set[str]:
    folded = {key.lower(): rid for key, rid in canonical.items()}
    kinds = {r.kind.lower() for r in records}
    found: set[str] = set()
    for name in wanted:
        rid = canonical.get(name) or folded.get(name.lower())
        if rid is not None:
            found.add(rid)
        elif name.lower() in kinds:
            found |= {r.id for r in records if r.kind.lower() == name.lower()}
        else:
            raise SelectionError(f"{option} {name!r} is neither a record ID nor a kind "
                                 f"(kinds: {', '.join(sorted(kinds))}; IDs: seqthink-conformance records)")
    return found
