"""The long probes: many accepted calls on one fresh process of each side, so a cap, an eviction or a reset
of the store shows up as a difference, with the smallest number of calls that shows it.

Every accepted answer reports the store (thoughtHistoryLength, branches), so the first call after which
the two sides' stores differ is read directly from the answers as they come: no bisection over fresh
replays is needed, and the smallest program showing the difference is the probe's first calls up to that
one. The probe then goes on for `TAIL` more calls, so the report can say how each side continues (stays
at a bound, drops, keeps growing) from what it saw, never from a guess.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Final, Literal

from conformance.compare.observe import Found, Outcome, failed
from conformance.compare.pair import fresh_pair, run_pipelined
from conformance.compare.programs import Program, Step, valid
from conformance.compare.wording import short
from conformance.core.protocol import PROTOCOL_VERSION, TOOL
from conformance.drivers.errors import DriverError
from conformance.targets.specs import Target

LONG_PROBE: Final = "long probe"
"""The detail of a long probe's store difference (its id ends `.long-probe`)."""
NO_STATE: Final = "keeps no state between calls"
"""What a side is said to do when every call leaves the quantity at 1: each starts from an empty store."""
FORGETS_FINISHED: Final = ("empties its store after each call ending a chain (`nextThoughtNeeded: false`, "
                           "as every probe call is; it grows over calls that do not end one)")
"""What a side is said to do when every probe call leaves the quantity at 1 but calls not ending a chain
keep it growing: a store emptied when a chain ends, not no store."""
TAIL: Final = 16
"""Calls made past the first difference, to see how each side goes on."""
PROBE_LIMITS: Final[dict[str, int]] = {"dev": 20_000, "ci": 100_000, "thorough": 1_000_000}
"""The most calls per side of one probe: a ceiling for safety; the time bounds a probe (`PROBE_SECONDS`)."""
PROBE_SECONDS: Final[dict[str, float]] = {"dev": 8.0, "ci": 30.0, "thorough": 180.0}
"""The most time one probe takes once its processes are up (the history probe, then the branches probe,
each its own): a cap at 1,000 is within the default profile's reach of a node server; `--budget` lowers
it, never raises it."""
BRANCH_SHARE: Final = 4
"""The branches probe's ceiling is a quarter of the history probe's: each answer lists every label."""

Reading = int | None
"""What one answer says of the probed quantity; None when it is not an accepted answer with a store."""
Stop = Literal["difference", "limit", "budget", "not accepted"]


@dataclass(frozen=True)
class Scan:
    """What a probe saw: the probed quantity after each call on each side, and why it stopped."""

    a: list[Reading]
    b: list[Reading]
    first: int | None
    """The smallest number of calls after which the sides differ (1-based), or None."""
    stopped: Stop


def scan(call: Callable[[int], tuple[Reading, Reading]], limit: int, tail: int,
         over: Callable[[], bool]) -> Scan:
    """Make calls 1, 2, ... on both sides until they differ (then `tail` more, within `limit`), `limit` is
    reached, the time is `over`, or a call is not accepted by either side."""
    a: list[Reading] = []
    b: list[Reading] = []
    first: int | None = None
    while len(a) < limit:
        if first is not None and len(a) >= first + tail:
            break
        if over():
            return Scan(a, b, first, "difference" if first is not None else "budget")
        ra, rb = call(len(a) + 1)
        a.append(ra)
        b.append(rb)
        if first is None and ra != rb:
            first = len(a)
        if ra is None or rb is None:
            return Scan(a, b, first, "difference" if first is not None else "not accepted")
    return Scan(a, b, first, "difference" if first is not None else "limit")


def trend(values: Sequence[Reading], first: int, *, unread: bool = False) -> str:
    """What one side does to the probed quantity from the call before `first` (0 before any call: the store
    starts empty) to the last call seen, as a verb phrase: "caps it at 100 (...)"."""
    before = values[first - 2] if first >= 2 else 0
    after = list(values[first - 1:])
    if before is None:
        return "was not answering"
    stopped = next((i for i, v in enumerate(after) if v is None), None)
    seen = [v for v in (after if stopped is None else after[:stopped]) if v is not None]
    # `unread`: the call was accepted, its answer holds no count and list of labels to read (stopuncle-js
    # names them `activeBranches`): said so, never "does not accept".
    cut = (f"answers the probe's call {first + (stopped or 0)} without a thoughtHistoryLength and a branches "
           "list to read" if unread else f"does not accept the probe's call {first + (stopped or 0)}")
    if not seen:
        return cut
    said = _course(before, seen, first)
    return said if stopped is None else f"{said}, then {cut}"


def _course(before: int, seen: list[int], first: int) -> str:
    last = first + len(seen) - 1
    steps = [y - x for x, y in zip([before, *seen], seen, strict=False)]
    reach = f"{seen[-1]} after call {last}"
    if all(s == 1 for s in steps):
        return f"keeps it growing by one a call ({reach})"
    if all(s == 0 for s in steps) and before == 0:
        return f"leaves it at 0 (over calls {first} to {last})"
    if all(s == 0 for s in steps):
        return f"caps it at {before} (unchanged over calls {first} to {last})"
    if steps[0] < 0:
        rest = steps[1:]
        then = ""
        if rest and all(s == 1 for s in rest):
            then = f", then grows it by one a call ({reach})"
        elif rest and all(s == 0 for s in rest):
            then = f", then keeps it there ({reach})"
        elif rest:
            then = f", then otherwise ({reach})"
        return f"drops it from {before} to {seen[0]} at call {first}{then}"
    return f"takes it from {before} to {seen[-1]} over calls {first} to {last}, not by one a call"


@dataclass(frozen=True)
class Probe:
    """One long probe: the call it repeats (numbered) and what of the store it reads."""

    name: str
    field: str
    step: Callable[[int], Step]
    share: int = 1

    def read(self, outcome: Outcome) -> Reading:
        if not outcome.accepted or outcome.store is None:
            return None
        length, branches = outcome.store
        return length if self.field == "thoughtHistoryLength" else len(branches)

    def program(self, calls: int) -> Program:
        return tuple(self.step(i) for i in range(1, calls + 1))


PROBES: Final[tuple[Probe, ...]] = (
    Probe("history", "thoughtHistoryLength", lambda i: Step(TOOL, valid(thought=f"probe thought {i}"))),
    Probe("branches", "branches", lambda i: Step(TOOL, valid(
        thought=f"probe thought {i}", thoughtNumber=2, totalThoughts=2, branchFromThought=1,
        branchId=f"probe-{i}")), BRANCH_SHARE),
)
"""Distinct thoughts, so that a server keeping one copy of identical thoughts is not read as a cap; a branch
from thought 1 made at thought 2, which every rule relating the two fields that a side may declare allows
(branchFromThought below, or not above, thoughtNumber)."""
NUMBERED: Final[dict[str, Callable[[int], Step]]] = {
    "history": lambda i: Step(TOOL, valid(thought=f"probe thought {i}", thoughtNumber=i, totalThoughts=i)),
    "branches": lambda i: Step(TOOL, valid(
        thought=f"probe thought {i}", thoughtNumber=i + 1, totalThoughts=i + 1, branchFromThought=i,
        branchId=f"probe-{i}")),
}
"""A probe's second form, tried when one side refuses the first form's first call: thoughts numbered as a
session numbers them (a side may refuse a thought number that does not move on)."""


@dataclass(frozen=True)
class ProbeFound:
    """A difference a long probe found: its program is the probe's first `len(program)` calls."""

    found: Found
    program: Program


@dataclass
class Probed:
    """What the long probes of one comparison found, the calls they made per side, and whether one of them
    stopped at the time budget before its limit."""

    found: list[ProbeFound] = field(default_factory=list)
    calls: int = 0
    budget_reached: bool = False


def run_probes(a: Target, b: Target, timeout: float, limit: int, seconds: float,
               say: Callable[[str], None]) -> Probed:
    """Each probe on a fresh process of each side, within `limit` calls per side and `seconds` each; a probe
    whose first call one side refuses is made again in its numbered form (`NUMBERED`)."""
    out = Probed()
    for probe in PROBES:
        calls = max(1, limit // probe.share)
        try:
            found, seen = _run_one(probe, a, b, timeout, calls, seconds)
            if _refused_at_once(seen):
                say(f"long {probe.name} probe: one side refuses its first call or answers it without a count "
                    "and labels to read; made again with numbered thoughts")
                probe = Probe(probe.name, probe.field, NUMBERED[probe.name], probe.share)
                found, seen = _run_one(probe, a, b, timeout, calls, seconds)
        except DriverError as exc:
            say(f"long {probe.name} probe: a side could not be started ({exc}); not compared")
            continue
        reach = {"budget": "stopped at the time budget", "limit": "reached its limit",
                 "not accepted": "stopped: a probe call was not accepted, or not read, on both sides",
                 "difference": "found a difference"}[seen.stopped]
        say(f"long {probe.name} probe: {len(seen.a)} calls per side (limit {calls}), {reach}")
        out.calls += len(seen.a)
        out.budget_reached |= seen.stopped == "budget"
        if found is None:
            continue
        earlier = next((f for f in out.found if len(f.program) <= len(found.program)), None)
        if earlier is not None and None in (seen.a[-1], seen.b[-1]):
            say(f"long {probe.name} probe: its call {len(found.program)} is not read on one side (refused, "
                f"or answered without a count and labels) where the {earlier.found.field} probe already "
                f"differs by call {len(earlier.program)}; not repeated")
            continue
        out.found.append(found)
    out.found = _no_state(out.found, lambda side: _grows_unfinished(a if side == "a" else b, timeout))
    return out


UNFINISHED_CALLS: Final = 3
"""Calls not ending a chain sent to a side whose every probe call left its store at one: enough to see it
grow (1, 2, 3) or not."""


def _grows_unfinished(target: Target, timeout: float) -> bool:
    """Whether the history grows over calls that do not end a chain (`nextThoughtNeeded: true`) on a fresh
    process: every long-probe call ends one, and a server may empty its store only after such a call."""
    steps = tuple(Step(TOOL, valid(i, UNFINISHED_CALLS, thought=f"probe thought {i}", more=True))
                  for i in range(1, UNFINISHED_CALLS + 1))
    try:
        with target.wire(timeout=timeout) as driver:
            driver.initialize(PROTOCOL_VERSION)
            seen = [PROBES[0].read(outcome) for outcome in run_pipelined(driver, steps)]
    except DriverError:
        return False
    return seen == list(range(1, UNFINISHED_CALLS + 1))


def _no_state(found: list[ProbeFound],
              grows_unfinished: Callable[[str], bool] = lambda side: False) -> list[ProbeFound]:
    """When one side leaves both the history and the labels at one after every call, each probe's words
    for that side say what that is: it keeps no state between calls, or, when its history grows over calls
    not ending a chain (`grows_unfinished`), it empties its store after each call that ends one (a cap at
    one of either alone stays a cap)."""
    if {f.found.field for f in found} != {p.field for p in PROBES}:
        return found
    for side in ("a", "b"):
        said = [getattr(f.found, side) for f in found]
        if all(s.startswith("caps it at 1 (") for s in said):
            words = FORGETS_FINISHED if grows_unfinished(side) else NO_STATE
            return [ProbeFound(_said(f.found, side, f"{words}: it is 1 after each of calls 1 to "
                                                f"{_last_call(getattr(f.found, side))}"), f.program)
                    for f in found]
    return found


def _said(found: Found, side: str, words: str) -> Found:
    return replace(found, a=words) if side == "a" else replace(found, b=words)


def _last_call(said: str) -> str:
    """The last call a trend's words name ("… over calls 2 to 18)" → "18")."""
    return said.rstrip(")").rsplit(" ", 1)[-1]


def _timer(seconds: float) -> Callable[[], bool]:
    """Whether `seconds` have passed since this was made."""
    deadline = time.monotonic() + seconds
    return lambda: time.monotonic() > deadline


def _refused_at_once(seen: Scan) -> bool:
    """Whether exactly one side refused the probe's first call: the call, not the store, differs."""
    return len(seen.a) == 1 and (seen.a[0] is None) != (seen.b[0] is None)


BATCH: Final = 64
"""Probe calls written at once per side (pipelined): thousands of calls without a round trip each."""


def _run_one(probe: Probe, a: Target, b: Target, timeout: float, limit: int,
             seconds: float) -> tuple[ProbeFound | None, Scan]:
    """The probe on a fresh pair, for `seconds` from when both are up; calls are sent ahead in batches that
    grow to `BATCH` (a call past the probe's end is made on a process about to be discarded, never read)."""
    ahead: dict[str, list[Outcome]] = {"a": [], "b": []}
    latest: dict[str, Outcome] = {}
    with fresh_pair(a, b, timeout) as (da, db), ThreadPoolExecutor(max_workers=1) as other:

        def call(i: int) -> tuple[Reading, Reading]:
            if len(ahead["a"]) < i or len(ahead["b"]) < i:
                size = min(BATCH, max(1, i // 2), limit - i + 1)
                steps = tuple(probe.step(k) for k in range(i, i + size))
                on_b = other.submit(run_pipelined, db, steps) if len(ahead["b"]) < i else None
                if len(ahead["a"]) < i:
                    ahead["a"] += run_pipelined(da, steps) or [failed("no answer", "no outcome")]
                if on_b is not None:
                    ahead["b"] += on_b.result() or [failed("no answer", "no outcome")]
            latest["a"] = ahead["a"][min(i, len(ahead["a"])) - 1]
            latest["b"] = ahead["b"][min(i, len(ahead["b"])) - 1]
            return probe.read(latest["a"]), probe.read(latest["b"])

        seen = scan(call, limit, TAIL, _timer(seconds))
    if seen.first is None:
        return None, seen
    said = [trend(values, seen.first, unread=latest[side].accepted) + _refusal(values, latest[side])
            for side, values in (("a", seen.a), ("b", seen.b))]
    found = Found("store", probe.field, "", LONG_PROBE, said[0], said[1], True)
    return ProbeFound(found, probe.program(seen.first)), seen


def _refusal(values: Sequence[Reading], last: Outcome) -> str:
    """What a side answered to the call it did not accept (the probe's last)."""
    return f" ({short(last.show(), 120)})" if values and values[-1] is None else ""


__all__ = ["FORGETS_FINISHED", "LONG_PROBE", "NO_STATE", "PROBES", "PROBE_LIMITS", "PROBE_SECONDS", "TAIL",
           "Probe", "ProbeFound", "Probed", "Scan", "run_probes", "scan", "trend"]
