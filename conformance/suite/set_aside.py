"""Examples failing only on the answer's own form set aside, so a check goes on drawing past them (issue 42).

A change present in every answer (a key renamed, added or dropped, an answer that is no JSON object) fails
every check that reads an answer at its first example, and with hypothesis stopping there the run met a
few hundred inputs where the original's run meets thousands: held-out-multi-18's fork-docs-console renames
`branches` to `branchIds`, and its two render changes (the box HTML-escaped, thoughts normalised to NFKC),
reached only by a thought holding `<` or `&` or a compatibility character, were never sent to a check that
read a box. Such a failure is OBJ-4's (or OBJ-8's), stated by that record's own check; in any other check
the example is set aside and the check goes on with its next examples. A failure of the check's own comes
first and stands alone; a check that meets none fails at the end with the first example set aside, in its
words and with its calls, as it failed before. A green run sets nothing aside and pays one try per example.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

from hypothesis.vendor.pretty import pretty

from conformance.suite.contradiction import Contradiction

WRAPPED: Final = "_set_aside_wrapped"
"""The attribute a check's inner test carries once wrapped: a run started in the same interpreter again (a
test of the harness) finds it wrapped and does not wrap it twice."""


Marks = tuple[int, ...]
"""Where the run's records of what a check sent stood (the shared transcript, the official client's frames,
the raw processes' frames)."""


@dataclass
class SetAside:
    """The first example a check set aside: its failure and its falsifying-example note."""

    failure: Contradiction
    note: str


@dataclass
class Watch:
    """One check being run: the records it evidences, what the run keeps of each example set aside
    (`began` when the example starts, `aside` once it is set aside, given what `began` returned), and the
    first set aside."""

    own: Collection[str]
    began: Callable[[], Marks]
    aside: Callable[[Marks], None]
    explicit: Callable[[], bool]
    first: SetAside | None = None


_watches: list[Watch] = []


@contextmanager
def watching(watch: Watch) -> Iterator[Watch]:
    """Set aside the current check's examples that fail only on the answer's form while inside."""
    _watches.append(watch)
    try:
        yield watch
    finally:
        _watches.remove(watch)


def set_aside(failure: BaseException, own: Collection[str]) -> bool:
    """Whether a check evidencing `own` goes on past an example failing with `failure`: the answer's form,
    another record's (`Contradiction.answer_shape`)."""
    return isinstance(failure, Contradiction) and failure.answer_shape and failure.record not in own


def _note(name: str, arguments: dict[str, Any], explicit: bool) -> str:
    """Hypothesis' own note of a falsifying example (its drawn arguments, no fixture), so the report shows
    the example set aside as it showed it before."""
    head = "Failing explicit example" if explicit else "Falsifying example"
    lines = [f"    {key}={pretty(value)}," for key, value in arguments.items()]
    return "\n".join([f"{head}: {name}(", *lines, ")"])


def go_on_past_shapes(test: object) -> None:
    """Wrap a hypothesis check's inner test (once) so that, while a `Watch` is active, an example failing
    only on the answer's form is set aside instead of ending the check."""
    handle = getattr(test, "hypothesis", None)
    inner = getattr(handle, "inner_test", None)
    if inner is None or getattr(inner, WRAPPED, False):
        return

    drawn = frozenset(getattr(handle, "_given_kwargs", None) or ())

    @functools.wraps(inner)
    def going_on(*args: Any, **kwargs: Any) -> Any:
        watch = _watches[-1] if _watches else None
        if watch is None:
            return inner(*args, **kwargs)
        began = watch.began()
        try:
            return inner(*args, **kwargs)
        except Contradiction as failure:
            if not set_aside(failure, watch.own):
                raise
            if watch.first is None:
                values = {key: value for key, value in kwargs.items() if not drawn or key in drawn}
                watch.first = SetAside(failure, _note(getattr(inner, "__name__", "check"), values,
                                                      watch.explicit()))
            watch.aside(began)
            return None

    setattr(going_on, WRAPPED, True)
    handle.inner_test = going_on  # type: ignore[union-attr]


def raise_first(watch: Watch) -> None:
    """End a check that met no failure of its own with the first example it set aside."""
    if watch.first is None:
        return
    failure = watch.first.failure
    if watch.first.note not in getattr(failure, "__notes__", []):
        failure.add_note(watch.first.note)
    raise failure
