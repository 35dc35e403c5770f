"""Two targets driven in lock-step over the wire driver: one long-lived process per side for the search,
fresh processes to confirm what it found."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final

from conformance.calls.store import StoreState
from conformance.compare.observe import Base, Kind, Outcome, failed, observe
from conformance.compare.programs import Program, Step
from conformance.core.jsontypes import JSON, Omitted
from conformance.core.protocol import PROBE_ARGUMENTS, PROTOCOL_VERSION, TOOL
from conformance.drivers.errors import DriverError, ServerExited, ServerTimeout, WrongId
from conformance.drivers.transcript import Transcript
from conformance.drivers.wire import WireDriver
from conformance.targets.specs import Target


@dataclass
class Side:
    """One target's long-lived process, replaced when it dies or stops answering."""

    target: Target
    timeout: float
    transcript: Transcript | None = None
    calls: int = 0
    restarts: int = 0
    starts: int = 0
    """Processes started for this side: a new one holds nothing the calls before it built."""
    _driver: WireDriver | None = None
    _last: StoreState = field(default_factory=lambda: StoreState(0, ()))

    def driver(self) -> WireDriver:
        if self._driver is not None and not self._driver.is_alive():
            self.close()
            self.restarts += 1
        if self._driver is None:
            self._driver = start(self.target, self.timeout, self.transcript)
            self.starts += 1
            self._last = StoreState(0, ())
        return self._driver

    def base(self) -> Base:
        """The store a program starts from: one accepted probe call tells it (else the last one seen)."""
        try:
            # Read as the comparison reads every answer (`observe`: a renamed store key under its new name),
            # not as the suite's `state_of`, whose KeyError restarted a port's process before every program.
            seen = observe(self.driver().call_tool(TOOL, dict(PROBE_ARGUMENTS)), EMPTY)
            self.calls += 1
            if seen.accepted and seen.store is not None:
                self._last = StoreState(*seen.store)
            elif seen.accepted:
                self.close()  # no store to read: the next program starts on a fresh process
        except WrongId:
            pass  # read and abandoned as `step` does: the process is in step and keeps its store
        except (DriverError, AssertionError, KeyError, ValueError):
            self.close()
        return Base(self._last.history_length, frozenset(self._last.branches))

    def step(self, step: Step, base: Base) -> Outcome:
        try:
            driver = self.driver()
            self.calls += 1
            outcome = observe(driver.call_tool(step.name, step.arguments, request_id=step.request_id), base)
        except WrongId as exc:
            # The answer was read and its request abandoned (a late one under the right id is skipped): the
            # process is in step and keeps the store, where a restart after each such call cost a start.
            return wrong_id(step, exc)
        except ServerTimeout as exc:
            self.close()
            return failed("no answer", str(exc))
        except ServerExited as exc:
            self.close()
            return failed("exited", str(exc))
        except DriverError as exc:
            self.close()
            return failed("no answer", str(exc))
        return outcome

    def close(self) -> None:
        if self._driver is not None:
            self._driver.close()
            self._driver = None


def start_together(a: Side, b: Side) -> None:
    """Start both long-lived processes at once (their start-up overlaps); initialize each after."""
    if a._driver is not None or b._driver is not None:
        return
    da = a.target.wire(timeout=a.timeout, transcript=a.transcript)
    db = b.target.wire(timeout=b.timeout, transcript=b.transcript)
    da.start()
    try:
        db.start()
    except BaseException:
        da.close()
        raise
    for side, driver in ((a, da), (b, db)):
        try:
            driver.initialize(PROTOCOL_VERSION)
        except DriverError:
            driver.close()
            continue
        side._driver = driver
        side.starts += 1


def start(target: Target, timeout: float, transcript: Transcript | None = None) -> WireDriver:
    """A started, initialized wire driver (closed again if initialize fails)."""
    driver = target.wire(timeout=timeout, transcript=transcript)
    driver.start()
    try:
        driver.initialize(PROTOCOL_VERSION)
    except BaseException:
        driver.close()
        raise
    return driver


@contextlib.contextmanager
def fresh_pair(a: Target, b: Target, timeout: float) -> Iterator[tuple[WireDriver, WireDriver]]:
    """Both targets on fresh processes, spawned together so their start-up times overlap."""
    da = a.wire(timeout=timeout)
    db = b.wire(timeout=timeout)
    with da, db:
        da.initialize(PROTOCOL_VERSION)
        db.initialize(PROTOCOL_VERSION)
        yield da, db


EMPTY: Final = Base()


def wrong_id(step: Step, exc: WrongId) -> Outcome:
    """A call answered under another id than it was sent with, in LOOP-A's check's words; a numbered call's
    is the driver's failure as any other."""
    if step.request_id is None:
        return failed("no answer", str(exc))
    sent, got = json.dumps(step.request_id), json.dumps(exc.got)
    return failed("wrong id", f"the request with the id {sent} was answered with the id {got}")


def run_on(driver: WireDriver, program: Sequence[Step], base: Base = EMPTY) -> list[Outcome]:
    """Every step of `program` on one driver; a side that dies or hangs ends its program there."""
    outcomes: list[Outcome] = []
    for step in program:
        try:
            outcomes.append(observe(driver.call_tool(step.name, step.arguments, request_id=step.request_id),
                                    base))
        except WrongId as exc:
            outcomes.append(wrong_id(step, exc))
            break
        except ServerTimeout as exc:
            outcomes.append(failed("no answer", str(exc)))
            break
        except ServerExited as exc:
            outcomes.append(failed("exited", str(exc)))
            break
        except DriverError as exc:
            outcomes.append(failed("no answer", str(exc)))
            break
    return outcomes


def run_pipelined(driver: WireDriver, program: Sequence[Step], base: Base = EMPTY) -> list[Outcome]:
    """Every step of `program` written at once and read in order (`call_tools_pipelined`): what `run_on`
    sees, without a round trip per call, for steps whose stderr is not compared (the long probes)."""
    calls = [(step.name, step.arguments) for step in program
             if not isinstance(step.arguments, Omitted) and step.request_id is None]
    if len(calls) != len(program):
        return run_on(driver, program, base)
    exchanges, failure = driver.call_tools_pipelined(calls)
    outcomes = [observe(exchange, base) for exchange in exchanges]
    if failure is not None:
        kind: Kind = "exited" if isinstance(failure, ServerExited) else "no answer"
        outcomes.append(failed(kind, str(failure)))
    return outcomes


def replay_fresh(
    a: Target, b: Target, program: Program, timeout: float
) -> tuple[list[Outcome], list[Outcome]]:
    """`program` on a fresh process of each target: what a published difference must show again."""
    with fresh_pair(a, b, timeout) as (da, db):
        return run_on(da, program), run_on(db, program)


def replay_after(
    a: Target, b: Target, before: Sequence[Program], program: Program, timeout: float
) -> tuple[list[Outcome], list[Outcome]]:
    """`program` on a fresh process of each target after `before`, each program sent as the search sent it
    (a probe call telling its start, then its steps): a difference the earlier programs' calls built."""
    sides = Side(a, timeout), Side(b, timeout)
    try:
        start_together(*sides)
        for earlier in before:
            for side in sides:
                base = side.base()
                for step in earlier:
                    side.step(step, base)
            if any(side.starts > 1 for side in sides):
                raise DriverError("a process died or hung replaying the earlier programs")
        outcomes: tuple[list[Outcome], list[Outcome]] = ([], [])
        for side, out in zip(sides, outcomes, strict=True):
            base = side.base()
            for step in program:
                out.append(side.step(step, base))
                if out[-1].kind != "result":
                    break
        return outcomes
    finally:
        for side in sides:
            side.close()


@dataclass
class Retests:
    """The `Ask` of `core/retest.py` for two targets: each ask on a fresh pair (both spawned together); a
    side that dies, hangs or fails to start ends the ask with None. `calls` counts the tools/calls sent per
    side and `pairs` the pairs started, so a report can say what its re-tests cost."""

    a: Target
    b: Target
    timeout: float
    calls: int = 0
    pairs: int = 0

    def __call__(self, calls: Sequence[dict[str, JSON]]) -> tuple[list[JSON], list[JSON]] | None:
        self.pairs += 1
        try:
            with fresh_pair(self.a, self.b, self.timeout) as (da, db):
                out: tuple[list[JSON], list[JSON]] = ([], [])
                for arguments in calls:
                    self.calls += 1
                    for driver, answers in ((da, out[0]), (db, out[1])):
                        answers.append(driver.call_tool(TOOL, arguments).response)
                return out
        except DriverError:
            return None


def retested(a: Target, b: Target, timeout: float) -> Retests:
    """One `Ask` for every re-test of a comparison or a run's evidence (order, rule, unchecked, relations)."""
    return Retests(a, b, timeout)
