"""The search for differences: fixed witnesses, then generated programs on two long-lived processes.

Every distinct difference (its signature: aspect, triggering field and type class, detail) is raised as its
own exception class, so hypothesis shrinks each one separately to its smallest program. What a search
finds is confirmed afterwards on fresh processes of both targets (`engine.py`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed

from conformance.compare.observe import Found, compare_step
from conformance.compare.pair import Side
from conformance.compare.programs import WITNESSES, Program, programs_among, unlisted


@dataclass(frozen=True)
class Budget:
    """How much a profile searches: examples per round, rounds, seconds, distinct differences."""

    examples: int
    rounds: int
    seconds: float
    cap: int


FLOOR_CEILING: Final = 4.0
"""How many times its budget a search may run to reach its floor of programs (`Search.floor`)."""

BUDGETS: Final[dict[str, Budget]] = {
    "dev": Budget(examples=120, rounds=3, seconds=14.0, cap=40),
    "ci": Budget(examples=400, rounds=4, seconds=45.0, cap=60),
    "thorough": Budget(examples=2000, rounds=6, seconds=300.0, cap=120),
}


@dataclass(frozen=True)
class Candidate:
    """A difference found by the search, with the program that shows it at its last step."""

    found: Found
    program: Program
    minimized: bool
    before: tuple[Program, ...] = ()
    """The programs the long-lived processes ran before the one that first showed this difference: what a
    confirm replays when a fresh process does not show it alone (a store poisoned by an earlier call)."""


class _Different(AssertionError):
    """Base of the per-signature exception classes hypothesis tells apart."""

    found: Found
    program: Program


@dataclass
class Search:
    """Drives both sides through programs; remembers which signatures it has already found."""

    a: Side
    b: Side
    deadline: float
    cap: int
    floor: int = 0
    """Programs run before the deadline may stop the search: what a profile searches does not shrink with
    the machine's load (under load 25 a dev compare of two equal servers ran 63 programs instead of 150)."""
    ceiling: float | None = None
    """When the floor gives way to the clock after all: a target too slow to run the floor in this many
    seconds is cut here, so a hanging server still ends the search."""
    known: set[str] = field(default_factory=set)
    candidates: list[Candidate] = field(default_factory=list)
    programs_run: int = 0
    normalized: set[str] = field(default_factory=set)
    budget_reached: bool = False
    listed: frozenset[str] = frozenset()
    """The tool names either side lists: no unknown-tool step calls one (`programs.unlisted`)."""
    progress: Callable[[str], None] | None = None
    _classes: dict[str, type[_Different]] = field(default_factory=dict)
    ran: list[Program] = field(default_factory=list)
    """Each program as far as it was sent to the long-lived processes, in order (none restarted since)."""
    first_seen: dict[str, int] = field(default_factory=dict)
    """Each signature → the number of programs begun (`ran` and those dropped before it) when it was first
    shown."""
    _dropped: int = 0
    _starts: int = 0

    def over(self) -> bool:
        now = time.monotonic()
        late = now > self.deadline and (
            self.programs_run >= self.floor or (self.ceiling is not None and now > self.ceiling))
        if late or len(self.known) >= self.cap:
            self.budget_reached = True
        return self.budget_reached

    def run(self, program: Program, skip: set[str]) -> tuple[list[Found], int] | None:
        """The new differences at the first step showing one (and its index), or None.

        After a step whose difference changes the store (known or not) the two sides no longer start the
        next step from the same state, so the program stops there.
        """
        self.programs_run += 1
        base_a, base_b = self.a.base(), self.b.base()
        self._forget_restarted()
        self.ran.append(())
        begun = 0
        for index, step in enumerate(program):
            oa, ob = self.a.step(step, base_a), self.b.step(step, base_b)
            if self._forget_restarted():
                begun = index  # the process restarted for this step holds the program from it on
                self.ran.append(())
            self.ran[-1] = program[begun : index + 1]
            self.normalized |= oa.normalized | ob.normalized
            found = compare_step(step, oa, ob)
            for f in found:
                self.first_seen.setdefault(f.signature, self._dropped + len(self.ran) - 1)
            new = [f for f in found if f.signature not in skip]
            if new:
                return new, index
            if any(f.affects_state for f in found) or oa.kind != "result" or ob.kind != "result":
                return None
        return None

    def _forget_restarted(self) -> bool:
        """A process restarted (it died or hung, or its store could not be read) holds nothing the programs
        before it built; True when one did."""
        starts = self.a.starts + self.b.starts
        if starts == self._starts:
            return False
        self._starts = starts
        self._dropped += len(self.ran)
        self.ran.clear()
        return True

    def add(self, found: Found, program: Program, minimized: bool) -> None:
        if found.signature in self.known:
            return
        self.known.add(found.signature)
        seen = self.first_seen.get(found.signature, self._dropped + len(self.ran)) - self._dropped
        before = tuple(self.ran[: max(0, seen)])
        self.candidates.append(Candidate(found, program, minimized, before))
        if self.progress is not None:
            self.progress(f"difference {len(self.known)}: {found.signature}")

    def witnesses_over(self) -> bool:
        """The fixed witnesses are what every comparison sends, whatever its seconds (`--budget 4` on a
        loaded machine once stopped before the multi-line thought's, and a box change went half said): only
        the count cap or the ceiling, where a target too slow for them is cut, ends them early."""
        if self.ceiling is None:
            return self.over()
        if len(self.known) >= self.cap or time.monotonic() > self.ceiling:
            self.budget_reached = True
        return self.budget_reached

    def witnesses(self) -> None:
        """The fixed programs; a multi-step one is cut to the step that differs and shrunk by deletion."""
        for program in (unlisted(p, self.listed) for p in WITNESSES):
            if self.witnesses_over():
                return
            hit = self.run(program, self.known)
            if hit is None:
                continue
            found, index = hit
            for f in found:
                self.add(f, self._delete_steps(program[: index + 1], f.signature), True)

    def _delete_steps(self, program: Program, signature: str) -> Program:
        """Drop steps one at a time while the program still shows `signature` at its last step."""
        current = program
        index = 0
        while len(current) > 1 and index < len(current) - 1 and not self.witnesses_over():
            trial = current[:index] + current[index + 1 :]
            hit = self.run(trial, set())
            if hit is not None and hit[1] == len(trial) - 1 and signature in {f.signature for f in hit[0]}:
                current = trial
            else:
                index += 1
        return current

    def _exception(self, signature: str) -> type[_Different]:
        if signature not in self._classes:
            self._classes[signature] = type(f"Difference[{signature}]", (_Different,), {})
        return self._classes[signature]

    def generated(self, examples: int, rounds: int, seed: int) -> None:
        """Rounds of hypothesis search; each round skips what earlier rounds found."""
        for round_number in range(rounds):
            if self.over():
                return
            before = len(self.known)
            self._round(examples, seed + round_number, set(self.known))
            if len(self.known) == before:
                return

    def _round(self, examples: int, seed: int, skip: set[str]) -> None:
        """One hypothesis run: each new signature becomes one failure, shrunk on its own."""

        @settings(
            max_examples=examples,
            database=None,
            deadline=None,
            report_multiple_bugs=True,
            verbosity=Verbosity.quiet,
            phases=(Phase.generate, Phase.shrink),
            suppress_health_check=list(HealthCheck),
            derandomize=False,
        )
        @hypothesis_seed(seed)
        @given(programs_among(self.listed))
        def search(program: Program) -> None:
            if self.over():
                return
            hit = self.run(program, skip)
            if hit is None:
                return
            found, index = hit
            first = found[0]
            error = self._exception(first.signature)(first.signature)
            error.found = first
            error.program = program[: index + 1]
            raise error

        try:
            search()
        except BaseException as exc:  # hypothesis: one failure, or a group of distinct ones
            differences = _differences(exc)
            if not differences or isinstance(exc, KeyboardInterrupt | SystemExit):
                raise
            for error in differences:
                self.add(error.found, error.program, not self.budget_reached)


def _differences(exc: BaseException) -> list[_Different]:
    """Every difference raised inside `exc` (hypothesis groups distinct failures, and flaky ones)."""
    if isinstance(exc, _Different):
        return [exc]
    found: list[_Different] = []
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found += _differences(inner)
    return found


__all__ = ["BUDGETS", "Budget", "Candidate", "Search"]
