"""`run_comparison`: two targets, the same calls, every behaviour difference minimized, confirmed on fresh
processes, attributed to records and grouped into root causes."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias

from conformance.catalog.startup_hints import diagnose
from conformance.compare.attribution import Rules, default_rules
from conformance.compare.classify import summarize
from conformance.compare.fresh import FreshFound, FreshSide, compare_fresh, fresh_side
from conformance.compare.observe import Found, compare_step, with_suspect
from conformance.compare.pair import Side, replay_fresh, start_together
from conformance.compare.programs import Program, frames
from conformance.compare.search import BUDGETS, Candidate, Search
from conformance.core.errors import HarnessError
from conformance.core.protocol import TOOL
from conformance.drivers.errors import DriverError, TargetError
from conformance.drivers.transcript import Transcript
from conformance.report.model import Comparison, Difference, RootCause
from conformance.targets.project import node_engines
from conformance.targets.specs import Target, resolve_target

TargetSpec: TypeAlias = str | Target
"""A target spec (`reference`, `npm:<version>`, `cmd:<command line>`) or an already resolved `Target`."""

DEFAULT_CALL_TIMEOUT = 10.0
CONFIRM_WORKERS = 3
"""Fresh pairs started at once to confirm differences: start-up dominates, and it overlaps well."""


class UnusableTarget(HarnessError):
    """A target of the comparison cannot be started, initialized, or does not offer the tool."""


@dataclass
class ComparisonOutcome:
    """What `run_comparison` returns: the comparison (report model) and its root causes, leading."""

    comparison: Comparison
    root_causes: list[RootCause]
    seed: int = 0
    profile: str = "dev"
    duration_s: float = 0.0
    unconfirmed: list[str] = field(default_factory=list)
    """Signatures the search found that a fresh process did not show again (dropped)."""
    server_info: dict[str, str] = field(default_factory=dict)
    """The first target's serverInfo at initialize."""
    protocol_version: str | None = None
    tools: list[str] = field(default_factory=list)


def run_comparison(
    a: TargetSpec,
    b: TargetSpec,
    *,
    profile: str = "dev",
    seed: int | None = None,
    cache: Path | None = None,
    call_timeout: float | None = None,
    budget_s: float | None = None,
    transcripts: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> ComparisonOutcome:
    """Compare `a` with `b`; raises `UnusableTarget` / `TargetError` (one line) when either cannot be used."""
    started = time.monotonic()
    if profile not in BUDGETS:
        raise HarnessError(f"unknown profile {profile!r}: expected {', '.join(BUDGETS)}")
    budget = BUDGETS[profile]
    seed = seed if seed is not None else random.SystemRandom().randrange(2**32)
    timeout = call_timeout if call_timeout is not None else DEFAULT_CALL_TIMEOUT
    say = progress or (lambda _line: None)
    with ThreadPoolExecutor(max_workers=2) as pool:
        ra, rb = pool.submit(_resolve, a, cache, say), pool.submit(_resolve, b, cache, say)
        target_a, target_b = ra.result(), rb.result()
    rules = default_rules()
    name_a, name_b = target_a.spec, target_b.spec
    if name_a == name_b:
        name_a, name_b = f"{name_a} (a)", f"{name_b} (b)"

    say("fresh processes: identity, tools/list, banner, an accepted run, exit on closed stdin")
    with _transcripts(transcripts) as open_transcript:
        with ThreadPoolExecutor(max_workers=2) as pool:
            fa = pool.submit(_fresh, target_a, timeout, open_transcript("fresh-a"))
            fb = pool.submit(_fresh, target_b, timeout, open_transcript("fresh-b"))
            seen_a, seen_b = fa.result(), fb.result()
        fresh_found, normalized = compare_fresh(seen_a, seen_b, TOOL)

        side_a = Side(target_a, timeout, open_transcript("search-a"))
        side_b = Side(target_b, timeout, open_transcript("search-b"))
        start_together(side_a, side_b)
        seconds = budget_s if budget_s is not None else budget.seconds
        search = Search(side_a, side_b, time.monotonic() + seconds, budget.cap, progress=say)
        for item in fresh_found:
            search.known.add(item.found.signature)
        try:
            say(f"search: witnesses, then up to {budget.rounds} rounds of {budget.examples} generated "
                f"programs (seed {seed}, budget {seconds:g} s)")
            search.witnesses()
            search.generated(budget.examples, budget.rounds, seed)
        finally:
            side_a.close()
            side_b.close()
        normalized |= search.normalized

    say(f"confirming {len(search.candidates)} difference(s) on fresh processes")
    confirmed, unconfirmed = _confirm(target_a, target_b, search.candidates, timeout)
    differences = [_fresh_difference(item, rules, name_a, name_b) for item in fresh_found]
    differences += [_call_difference(c, found, rules, name_a, name_b) for c, found in confirmed]
    causes = root_causes(differences, rules, name_a, name_b)
    comparison = Comparison(
        a=target_a.identity,
        b=target_b.identity,
        calls=side_a.calls + len(seen_a.run),
        programs=search.programs_run,
        differences=differences,
        normalized=sorted(normalized),
        budget_reached=search.budget_reached,
    )
    duration = round(time.monotonic() - started, 3)
    info = seen_a.initialize.get("serverInfo")
    version = seen_a.initialize.get("protocolVersion")
    return ComparisonOutcome(
        comparison,
        causes,
        seed,
        profile,
        duration,
        unconfirmed,
        server_info={str(k): str(v) for k, v in info.items()} if isinstance(info, dict) else {},
        protocol_version=version if isinstance(version, str) else None,
        tools=[str(t.get("name")) for t in seen_a.tools or [] if isinstance(t, dict)],
    )


def _resolve(spec: TargetSpec, cache: Path | None, say: Callable[[str], None]) -> Target:
    if isinstance(spec, Target):
        return spec
    try:
        return resolve_target(spec, cache_dir=cache, progress=say)
    except TargetError as exc:
        raise UnusableTarget(f"target {spec} cannot be used: {exc}") from None


def _fresh(target: Target, timeout: float, transcript: Transcript | None) -> FreshSide:
    try:
        seen = fresh_side(target, timeout, transcript)
    except DriverError as exc:
        said = diagnose(str(exc), exc.stderr_tail, node_engines(target)).clause()
        raise UnusableTarget(f"target {target.spec} is not usable: {exc}{said}") from None
    except TargetError as exc:
        said = diagnose(str(exc), "").clause()
        raise UnusableTarget(f"target {target.spec} cannot be started: {exc}{said}") from None
    names = [t.get("name") for t in seen.tools or [] if isinstance(t, dict)]
    if TOOL not in names:
        offered = ", ".join(str(n) for n in names) or "no tools"
        raise UnusableTarget(f"target {target.spec} does not offer the {TOOL} tool (it offers: {offered})")
    return seen


@contextlib.contextmanager
def _transcripts(folder: Path | None) -> Iterator[Callable[[str], Transcript | None]]:
    opened: list[Transcript] = []

    def open_one(name: str) -> Transcript | None:
        if folder is None:
            return None
        transcript = Transcript(folder / f"compare-{name}.jsonl", keep=200)
        opened.append(transcript)
        return transcript

    try:
        yield open_one
    finally:
        for transcript in opened:
            transcript.close()


def _confirm(
    a: Target, b: Target, candidates: list[Candidate], timeout: float
) -> tuple[list[tuple[Candidate, Found]], list[str]]:
    """Replay each candidate's program on fresh processes; keep those that show the same signature again."""
    confirmed: list[tuple[Candidate, Found]] = []
    dropped: list[str] = []
    with ThreadPoolExecutor(max_workers=CONFIRM_WORKERS) as pool:
        replays = list(pool.map(lambda c: _replay(a, b, c, timeout), candidates))
    for candidate, again in zip(candidates, replays, strict=True):
        if again is None:
            dropped.append(candidate.found.signature)
        else:
            confirmed.append((candidate, again))
    return confirmed, dropped


def _replay(a: Target, b: Target, candidate: Candidate, timeout: float) -> Found | None:
    """The candidate's difference as fresh processes show it, or None when they do not."""
    try:
        oa, ob = replay_fresh(a, b, candidate.program, timeout)
    except DriverError:
        return None
    for step, x, y in zip(candidate.program, oa, ob, strict=False):
        found = compare_step(step, x, y)
        again = next((f for f in found if f.signature == candidate.found.signature), None)
        if again is not None or any(f.affects_state for f in found):
            return again
    return None


def _probe_frames(program: Program, probe: str) -> list[str]:
    out = frames(program)
    if probe == "tools/list":
        out.append(f'{{"jsonrpc":"2.0","id":{len(program) + 2},"method":"tools/list"}}')
    return out


def _fresh_difference(item: FreshFound, rules: Rules, name_a: str, name_b: str) -> Difference:
    records, cause = rules.attribute(item.found)
    return Difference(
        cause=cause,
        id=item.found.signature,
        aspect=item.found.aspect,
        summary=summarize(item.found, name_a, name_b),
        records=records,
        program=_probe_frames(item.program, item.probe),
        a=item.found.a,
        b=item.found.b,
        minimized=True,
    )


def _call_difference(
    candidate: Candidate, found: Found, rules: Rules, name_a: str, name_b: str
) -> Difference:
    read = with_suspect(found, candidate.program[-1])
    records, cause = rules.attribute(read)
    return Difference(
        cause=cause,
        id=found.signature,
        aspect=found.aspect,
        summary=summarize(read, name_a, name_b),
        records=records,
        program=frames(candidate.program),
        a=found.a,
        b=found.b,
        minimized=candidate.minimized,
    )


def root_causes(differences: list[Difference], rules: Rules, name_a: str, name_b: str) -> list[RootCause]:
    """Differences grouped by the cause their rule names; the cause's records are the primary ones."""
    groups: dict[str, list[Difference]] = {}
    for difference in differences:
        groups.setdefault(difference.cause or "unattributed", []).append(difference)
    causes: list[RootCause] = []
    for key, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        cause = rules.causes.get(key)
        primary = list(cause.records) if cause is not None else []
        explained = sorted({r for d in members for r in d.records} - set(primary))
        smallest = min(members, key=lambda d: (len(d.program), sum(map(len, d.program))))
        what = cause.summary if cause is not None else "unattributed differences"
        causes.append(
            RootCause(
                id=key,
                records=primary,
                explains=explained,
                summary=f"{what} ({len(members)} difference{'s' if len(members) != 1 else ''} between "
                f"{name_a} and {name_b})",
                example=smallest.program,
                differences=[d.id for d in members],
                minimized=all(d.minimized for d in members),
            )
        )
    return causes


__all__ = ["ComparisonOutcome", "TargetSpec", "UnusableTarget", "run_comparison"]
