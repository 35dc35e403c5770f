"""`run_comparison`: two targets, the same calls, every behaviour difference minimized, confirmed on fresh
processes, attributed to records and grouped into root causes."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import random
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, TypeAlias

from hypothesis.configuration import set_hypothesis_home_dir

from conformance.catalog.startup_hints import diagnose
from conformance.compare import after_calls
from conformance.compare.arguments import (
    answers_the_original_name,
    check_arguments,
    listed_past_stray_lines,
    lookalike,
    map_not_used,
    stop_sentence,
)
from conformance.compare.attribution import Rules, default_rules
from conformance.compare.bounds import candidates as bound_candidates
from conformance.compare.bounds import explained_by as past_bound
from conformance.compare.bounds import find_bound, kind_of
from conformance.compare.classify import summarize
from conformance.compare.coercion import converted_fields, explore
from conformance.compare.crossing import (
    cross_all,
    crossed_target,
    crossing_of,
    moved_by,
    origin_sentence,
    swap_sentence,
    swapped_targets,
)
from conformance.compare.eras import EraFound, era_pass, era_summary
from conformance.compare.explain import EARLIER_NOTE, explain, last_call_arguments, shown_by
from conformance.compare.fresh import FreshFound, FreshSide, compare_fresh, fresh_side
from conformance.compare.known_changes import KnownChanges, default_known_changes
from conformance.compare.labels import clean, default_labels
from conformance.compare.limits import base_cause, one_cause_per_rule
from conformance.compare.new_tools import Called, Choice, other_tools
from conformance.compare.new_tools import clauses as called_clauses
from conformance.compare.observe import Found, Outcome, compare_step, type_class, with_suspect
from conformance.compare.offered import Offered, compare_offered, offered_side
from conformance.compare.pair import Side, replay_after, replay_fresh, retested, start_together
from conformance.compare.probes import NO_STATE, PROBE_LIMITS, PROBE_SECONDS, ProbeFound, run_probes
from conformance.compare.programs import MAX_STEPS, WITNESSES, Program, Step, calls_in, frames, valid
from conformance.compare.relations import (
    explained_by,
    find_relation,
    relation_candidates,
    relation_class,
    string_candidate,
    strings_explained,
)
from conformance.compare.retests import with_retests
from conformance.compare.search import BUDGETS, FLOOR_CEILING, Candidate, Search
from conformance.compare.two_fields import (
    PairRule,
    both_set_candidates,
    conditional_candidates,
    find_both_set,
    find_conditional,
    find_ratio,
    ratio_candidates,
    refused_words,
    refusing_side,
)
from conformance.compare.two_fields import explained_by as breaks_pair_rule
from conformance.core.arguments_map import renames_of
from conformance.core.errors import HarnessError
from conformance.core.identity import info_texts
from conformance.core.jsontypes import JSON, Omitted
from conformance.core.protocol import PROBE_ARGUMENTS, PROTOCOL_VERSION, TOOL
from conformance.drivers.errors import DriverError, ProtocolViolation, TargetError
from conformance.drivers.listening import listening_clause
from conformance.drivers.transcript import Transcript
from conformance.report.model import Comparison, Crossing, Difference, OtherTool, RootCause
from conformance.targets.project import missing_path, node_engines
from conformance.targets.specs import Target, default_cache_dir, resolve_target

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


def hypothesis_home(cache: Path | None) -> None:
    """Hypothesis keeps its tables in the target cache's `hypothesis` folder, as `run` has it keep them, never
    in a `.hypothesis/` of the folder compare was started in (a compare of npm:0.6.2 with a fork left one
    there, a run none);
    a storage folder the environment names is kept, and an unwritable cache leaves hypothesis as it was."""
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    folder = (cache if cache is not None else default_cache_dir()) / "hypothesis"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return
    set_hypothesis_home_dir(folder)


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
    labels: tuple[str | None, str | None] = (None, None),
    cross: bool = False,
    arguments_map: str | None = None,
    call_other_tools: bool = True,
) -> ComparisonOutcome:
    """Compare `a` with `b`; raises `UnusableTarget` / `TargetError` (one line) when either cannot be used.

    `labels` name the two sides in every sentence of the report (default: `compare/labels.py`); `cross`
    replays each difference on A's package installed with B's tree (two `npm:` targets, `crossing.py`);
    `arguments_map` (run's --arguments-map: snake_case or a file) respells B's calls. A side that refuses the
    original's call for its argument names stops the comparison as it stops a run (`compare/arguments.py`):
    every call would be refused and each difference would say only that. A tool only one side lists is
    called, each call on a process of its own, unless `call_other_tools` is off (`new_tools.choose`)."""
    started = time.monotonic()
    if profile not in BUDGETS:
        raise HarnessError(f"unknown profile {profile!r}: expected {', '.join(BUDGETS)}")
    hypothesis_home(cache)
    budget = BUDGETS[profile]
    seed = seed if seed is not None else random.SystemRandom().randrange(2**32)
    timeout = call_timeout if call_timeout is not None else DEFAULT_CALL_TIMEOUT
    say = progress or (lambda _line: None)
    with ThreadPoolExecutor(max_workers=2) as pool:
        ra, rb = pool.submit(_resolve, a, cache, say), pool.submit(_resolve, b, cache, say)
        target_a, target_b = ra.result(), rb.result()
    if arguments_map is not None:
        target_b = dataclasses.replace(target_b, renames=renames_of(arguments_map))
    rules = default_rules()
    name_a, name_b = side_labels(target_a.spec, target_b.spec, labels)
    crossed = _crossed(target_a, target_b, cache, say) if cross else None

    say("fresh processes: identity, tools/list, banner, an accepted run, exit on closed stdin")
    with _transcripts(transcripts) as open_transcript:
        with ThreadPoolExecutor(max_workers=2) as pool:
            fa = pool.submit(_fresh, target_a, timeout, open_transcript("fresh-a"))
            fb = pool.submit(_fresh, target_b, timeout, open_transcript("fresh-b"), arguments_map)
            seen_a, seen_b = fa.result(), fb.result()
            aa = pool.submit(_argument_stop, target_a, timeout, open_transcript("arguments-a"), None)
            ab = pool.submit(_argument_stop, target_b, timeout, open_transcript("arguments-b"), arguments_map)
            aa.result()
            ab.result()
        fresh_found, normalized = compare_fresh(seen_a, seen_b, TOOL, split_schemas=cross)
        say("offered: what each side sends during calls, and the resources and prompts it lists, read")
        with ThreadPoolExecutor(max_workers=2) as pool:
            oa = pool.submit(offered_side, target_a, timeout, open_transcript("offered-a"))
            ob = pool.submit(offered_side, target_b, timeout, open_transcript("offered-b"))
            offered = compare_offered(oa.result(), ob.result(), name_a, name_b)
        choices, called = other_tools(target_a, target_b, (seen_a.tools, seen_b.tools), timeout,
                                      call_other_tools, say)
        say("eras: each side met as each revision's client (one short process each)")
        eras = era_pass(target_a, target_b, timeout, say)

        side_a = Side(target_a, timeout, open_transcript("search-a"))
        side_b = Side(target_b, timeout, open_transcript("search-b"))
        start_together(side_a, side_b)
        seconds = budget_s if budget_s is not None else budget.seconds
        started = time.monotonic()
        # A budget given in seconds is the user's: only a profile's budget holds a floor of programs.
        search = Search(side_a, side_b, started + seconds, budget.cap, progress=say,
                        floor=len(WITNESSES) + budget.examples if budget_s is None else 0,
                        ceiling=started + FLOOR_CEILING * seconds, listed=_listed_names(seen_a, seen_b))
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
    confirmed = _suspects_retested(target_a, target_b, confirmed, timeout)
    probe_seconds = min(PROBE_SECONDS[profile], seconds)
    say(f"long probes: history and branch growth, up to {PROBE_LIMITS[profile]} calls per side "
        f"(budget {probe_seconds:g} s)")
    probed = run_probes(target_a, target_b, timeout, PROBE_LIMITS[profile], probe_seconds, say)
    differences = [_fresh_difference(item, rules, name_a, name_b) for item in fresh_found]
    differences += [_called_difference(item, rules, name_a, name_b) for item in called]
    differences += [_offered_difference(item, rules) for item in offered]
    differences += [_call_difference(c, found, rules, name_a, name_b) for c, found in confirmed]
    kept_probes = [item for item in probed.found if not _shown_sooner(item, differences, say)]
    differences = _earlier_probed(differences, {item.found.field for item in kept_probes}, say)
    differences += [_probe_difference(item, rules, name_a, name_b) for item in kept_probes]
    differences = _with_eras(differences, eras.found, rules, name_a, name_b)
    differences = _with_relations(target_a, target_b, differences, timeout, say)
    differences = _with_pair_rules(target_a, target_b, differences, timeout, say)
    differences = _with_bounds(target_a, target_b, differences, timeout, say)
    retests = retested(target_a, target_b, timeout)
    differences = with_retests(differences, retests, name_a, name_b, say)
    if retests.pairs:
        say(f"re-tests: {retests.calls} call(s) per side on {retests.pairs} fresh pair(s)")
    fields = converted_fields(differences)
    if fields:
        say(f"coercion: {', '.join(fields)} converted by one side; exploring booleans, arrays, hex, "
            "exponents and padding")
        explored = explore(target_a, target_b, fields, {d.id for d in differences}, timeout)
        differences += [_call_difference(c, c.found, rules, name_a, name_b) for c in explored]
    crossing: Crossing | None = None
    if crossed is not None:
        crossing = crossing_of(target_a, target_b, crossed, name_a, name_b)
        say(f"crossing: {len(fresh_found) + len(confirmed)} difference(s) replayed on {crossing.label}")
        swaps = swapped_targets(target_a, target_b, cache, say)
        for swap in swaps:
            if swap.target is None:
                say(f"swap {swap.change} on {name_a if swap.code == 'a' else name_b}'s code: {swap.error}")
        origins = cross_all(target_a, target_b, crossed, (seen_a, seen_b), fresh_found,
                            [(c.program, found) for c, found in confirmed], timeout, swaps)
        differences = [d.model_copy(update={"origin": origins[d.id][0], "swaps": origins[d.id][1]})
                       if d.id in origins else d for d in differences]
    differences = one_cause_per_rule(differences)
    causes = explained(differences, rules, name_a, name_b, crossing)
    comparison = Comparison(
        a=target_a.identity,
        b=target_b.identity,
        calls=side_a.calls + len(seen_a.run) + probed.calls,
        programs=search.programs_run,
        differences=differences,
        normalized=sorted(normalized),
        budget_reached=search.budget_reached or probed.budget_reached,
        label_a=name_a,
        label_b=name_b,
        crossing=crossing,
        eras=eras.settled,
        arguments_map_b=arguments_map or "",
        other_tools=_other_tools(choices, name_a, name_b),
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
        server_info=info_texts(info) if isinstance(info, dict) else {},
        protocol_version=version if isinstance(version, str) else None,
        tools=[str(t.get("name")) for t in seen_a.tools or [] if isinstance(t, dict)],
    )


def _other_tools(choices: list[Choice], name_a: str, name_b: str) -> list[OtherTool]:
    """The report's account of each tool only one side lists: called or not, and why."""
    sides = {"a": name_a, "b": name_b, "both": f"{name_a} and {name_b}"}
    return [OtherTool(name=c.tool.name, offered_by=sides.get(c.tool.offered_by, name_b), called=c.called,
                      why=c.why) for c in choices]


def _resolve(spec: TargetSpec, cache: Path | None, say: Callable[[str], None]) -> Target:
    if isinstance(spec, Target):
        return spec
    try:
        return resolve_target(spec, cache_dir=cache, progress=say)
    except TargetError as exc:
        raise UnusableTarget(f"target {spec} cannot be used: {exc}") from None


def _crossed(a: Target, b: Target, cache: Path | None, say: Callable[[str], None]) -> Target:
    try:
        return crossed_target(a, b, cache, say)
    except TargetError as exc:
        raise UnusableTarget(f"--cross cannot be used: {exc}") from None


def _fresh(target: Target, timeout: float, transcript: Transcript | None, mapped_from: str | None = None
           ) -> FreshSide:
    try:
        seen = fresh_side(target, timeout, transcript)
    except DriverError as exc:
        problem = missing_path(target, f"{exc}\n{exc.stderr_tail}")
        error = f"{exc}; {problem}" if problem is not None else str(exc)
        error += listening_clause(exc.listening)
        also = listed_past_stray_lines(target, timeout) if isinstance(exc, ProtocolViolation) else ""
        said = diagnose(f"{error}{also}", exc.stderr_tail, node_engines(target)).clause()
        raise UnusableTarget(f"target {target.spec} is not usable: {error}{also}{said}") from None
    except TargetError as exc:
        said = diagnose(str(exc), "").clause()
        raise UnusableTarget(f"target {target.spec} cannot be started: {exc}{said}") from None
    names = [t.get("name") for t in seen.tools or [] if isinstance(t, dict)]
    if TOOL not in names and not (names and _answers_under_the_original_name(target, timeout, transcript)):
        offered = ", ".join(str(n) for n in names) or "no tools"
        # run's words (cli/runner/preflight): the look-alike's fields beside the original's (amama-fatima-ts)
        raise UnusableTarget(f"target {target.spec} does not offer the {TOOL} tool (it offers: {offered})"
                             + lookalike({"tools": list(seen.tools or [])})
                             + (map_not_used(mapped_from) if mapped_from is not None else ""))
    return seen


def _listed_names(*sides: FreshSide) -> frozenset[str]:
    """The tool names the sides list (bounded: a hostile server's list is cut), none of which an unknown-tool
    step may call."""
    return frozenset(str(t["name"]) for side in sides for t in (side.tools or [])[:_LISTED_NAMES]
                     if isinstance(t, dict) and isinstance(t.get("name"), str))


_LISTED_NAMES: Final = 1000


def _answers_under_the_original_name(target: Target, timeout: float, transcript: Transcript | None) -> bool:
    """Whether a target listing its tool under another name still answers a call of the original's name as
    the tool does (fork-readme-names: `sequential_thinking` listed, `sequentialthinking` kept for hosts
    configured before the rename): then it is compared, the name one more difference of its listing, as
    `run` checks it (the same test, `answers_the_original_name`)."""
    try:
        with target.wire(timeout=timeout, transcript=transcript) as driver:
            driver.initialize(PROTOCOL_VERSION)
            return answers_the_original_name(driver)
    except DriverError:
        return False


def _argument_stop(target: Target, timeout: float, transcript: Transcript | None, mapped_from: str | None
                   ) -> None:
    """Raise `UnusableTarget` with run's argument stop (both sides' fields, the refusal, the spelling it
    takes) when `target` refuses the original's call for its argument names (wild13's chinng-py: compare
    printed a false "validation" headline and two misleading ones, every camelCase call refused)."""
    try:
        with target.wire(timeout=timeout, transcript=transcript) as driver:
            driver.initialize(PROTOCOL_VERSION)
            check = check_arguments(driver, driver.list_tools(), mapped_from)
    except DriverError:
        return  # the fresh pass started it: a failure here is the search's to find
    if check.accepted is False:
        raise UnusableTarget(f"target {target.spec} is not usable: {stop_sentence(check)}")


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
    """Replay each candidate's program on fresh processes; keep those that show the same signature again.

    A candidate whose shrinking stopped at the budget is first tried as one call: the valid call with only
    the field it names bent as it was, then its last call alone; the first that shows the same signature
    replaces it, shrunk."""
    confirmed: list[tuple[Candidate, Found]] = []
    dropped: list[str] = []
    with ThreadPoolExecutor(max_workers=CONFIRM_WORKERS) as pool:
        replays = list(pool.map(lambda c: _confirm_one(a, b, c, timeout), candidates))
    built: list[tuple[Program, ...]] = []  # what built one difference: tried first on the next
    for candidate, again in zip(candidates, replays, strict=True):
        if again is None:  # tried alone again first: a process that failed to answer under load built nothing
            again = _confirm_one(a, b, candidate, timeout) or _after_earlier(a, b, candidate, timeout, built)
            if again is not None and again[0].before and again[0].before not in built:
                built.append(again[0].before)
        if again is None:
            dropped.append(candidate.found.signature)
        else:
            confirmed.append(again)
    return confirmed, dropped


def _confirm_one(
    a: Target, b: Target, candidate: Candidate, timeout: float
) -> tuple[Candidate, Found] | None:
    if not candidate.minimized and _bare(candidate.program):
        candidate = dataclasses.replace(candidate, minimized=True)
    # A search cut short leaves its program unshrunk, and one the shrinker finished may still carry a call
    # the difference does not need: one-call reductions are tried on either before the program is kept.
    if not candidate.minimized or len(candidate.program) > 1:
        for program in _reductions(candidate):
            again = _replay(a, b, program, candidate.found.signature, timeout)
            if again is not None:
                return Candidate(candidate.found, program, True), again
    found = _replay(a, b, candidate.program, candidate.found.signature, timeout)
    return None if found is None else (dataclasses.replace(candidate, before=()), found)  # shown alone


EARLIER_CAUSE: Final = "earlier-calls"
"""The cause of the differences a fresh process shows only after earlier calls (fixtures/attribution)."""
EARLIER_STEPS: Final = 4000
"""The most earlier calls a confirm replays before a difference a fresh process does not show alone."""


def _after_earlier(
    a: Target, b: Target, candidate: Candidate, timeout: float, built: Sequence[tuple[Program, ...]] = ()
) -> tuple[Candidate, Found] | None:
    """A difference the earlier programs' calls built (a store poisoned by one call), kept with the shortest
    run of them that still shows it, else the one program that built it: dropped only when they do not.
    What built another difference (`built`) is tried first: one poisoning call shows many."""
    before = candidate.before
    if not before or sum(len(p) + 1 for p in before) > EARLIER_STEPS:
        return None
    signature = candidate.found.signature

    def shows(prefix: tuple[Program, ...]) -> Found | None:
        try:
            oa, ob = replay_after(a, b, prefix, candidate.program, timeout)
        except DriverError:
            return None
        return _shown(candidate.program, oa, ob, signature)

    firsts = [p for p in built if all(x in before for x in p)]
    for prefix in [*firsts, before[-1:]]:  # and the program just before it first showed: one replay each
        found = shows(prefix)
        if found is not None:
            return dataclasses.replace(candidate, before=prefix), found
    found = shows(before) if len(before) > 1 else None
    if found is None:
        return None
    shown, unshown = len(before), 0
    while shown - unshown > 1:  # the fewest programs from the start that still show it
        middle = (shown + unshown) // 2
        again = shows(before[:middle])
        if again is not None:
            shown, found = middle, again
        else:
            unshown = middle
    prefix = before[:shown]
    if len(prefix) > 1:
        alone = shows(prefix[-1:])
        if alone is not None:
            prefix, found = prefix[-1:], alone
    return dataclasses.replace(candidate, before=prefix), found


def _bare(program: Program) -> bool:
    """One call that is the valid call with one required field left out: nothing is left to shrink."""
    if len(program) != 1 or program[0].name != TOOL or not isinstance(program[0].arguments, dict):
        return False
    args = program[0].arguments
    full = valid()
    return len(args) == len(full) - 1 and all(full.get(k) == v for k, v in args.items())


def _reductions(candidate: Candidate) -> list[Program]:
    """One-call programs that may show the candidate's difference: the valid call with the one field its
    difference names set as the candidate set it, then the candidate's last call alone."""
    last = candidate.program[-1]
    out: list[Program] = []
    args = last.arguments
    name = with_suspect(candidate.found, last).suspect or candidate.found.field
    if last.name == TOOL and isinstance(args, dict) and name in args:
        out.append((Step(TOOL, valid() | {name: args[name]}),))
    if len(candidate.program) > 1:
        out.append((last,))
    return [p for p in out if p != candidate.program]


SUSPECT_RETESTS: Final = 8
"""Differences whose suspect field is re-tested per comparison (one fresh pair each, a few fields at most)."""


def _suspects_retested(a: Target, b: Target, confirmed: list[tuple[Candidate, Found]], timeout: float
                       ) -> list[tuple[Candidate, Found]]:
    """An accepted call's difference is said "with zero for `revisesThought`" when its last step gives a
    field a value not of its type (`with_suspect`), a guess: the multilingual fork's box, sized in terminal
    columns, was headed by a zero `revisesThought` that plays no part. The step is replayed on a fresh pair
    without that field; still showing the difference, the smaller program is kept and the next suspect
    tried, so a field is named only when the difference needs it."""
    out: list[tuple[Candidate, Found]] = []
    budget = SUSPECT_RETESTS
    for candidate, found in confirmed:
        for _ in range(3):
            last = candidate.program[-1] if candidate.program else None
            read = with_suspect(found, last) if last is not None else found
            args = last.arguments if last is not None else None
            if (not read.suspect or candidate.before or budget <= 0 or not isinstance(args, dict)
                    or last is None):
                break
            budget -= 1
            trial = (*candidate.program[:-1], Step(last.name, {k: v for k, v in args.items()
                                                               if k != read.suspect}))
            again = _replay(a, b, trial, found.signature, timeout)
            if again is None:
                break
            candidate, found = dataclasses.replace(candidate, program=trial), again
        out.append((candidate, found))
    return out


def _replay(a: Target, b: Target, program: Program, signature: str, timeout: float) -> Found | None:
    """The difference `signature` as fresh processes show it on `program`, or None when they do not."""
    try:
        oa, ob = replay_fresh(a, b, program, timeout)
    except DriverError:
        return None
    return _shown(program, oa, ob, signature)


def _shown(program: Program, oa: list[Outcome], ob: list[Outcome], signature: str) -> Found | None:
    """The difference `signature` at the first step of `program` that differs, or None."""
    for step, x, y in zip(program, oa, ob, strict=False):
        found = compare_step(step, x, y)
        again = next((f for f in found if f.signature == signature), None)
        if again is not None or any(f.affects_state for f in found):
            return again
    return None


def _probe_frames(program: Program, probe: str) -> list[str]:
    out = frames(program)
    if probe == "tools/list":
        out.append(f'{{"jsonrpc":"2.0","id":{len(program) + 2},"method":"tools/list"}}')
    return out


def side_labels(a: str, b: str, given: tuple[str | None, str | None]) -> tuple[str, str]:
    """The labels the user gave, else the defaults; never equal."""
    default_a, default_b = default_labels(a, b)
    la = clean(given[0]) if given[0] else default_a
    lb = clean(given[1]) if given[1] else default_b
    if la == lb:
        la, lb = f"{la} (A)", f"{lb} (B)"
    return la, lb


SHRINK_STOPPED: Final = (
    "the search budget ran out while hypothesis was shrinking it, and neither its bent field alone on a "
    "valid call nor its last call alone showed it again"
)


def _fresh_difference(item: FreshFound, rules: Rules, name_a: str, name_b: str) -> Difference:
    records, cause = rules.attribute(item.found)
    read = with_suspect(item.found, item.program[-1]) if item.program else item.found
    return Difference(
        cause=cause,
        id=item.found.signature,
        aspect=item.found.aspect,
        summary=summarize(read, name_a, name_b),
        records=records,
        program=_probe_frames(item.program, item.probe),
        a=item.found.a,
        b=item.found.b,
        minimized=True,
        field=read.field,
        suspect=read.suspect,
        value_class=_value_class(read, item.program[-1] if item.program else None),
        detail=read.detail,
    )


def _called_difference(item: Called, rules: Rules, name_a: str, name_b: str) -> Difference:
    """A tool listed by one side only, called (`new_tools.py`): its id names the tool, its sides' records are
    what each answered and what the next call said of the store."""
    records, cause = rules.attribute(item.found)
    said = called_clauses(item.found.a, item.found.b, name_a, name_b)
    summary = "; ".join(said) if said else f"the tool `{item.tool.name}`, called"
    return _sequence_difference(item.found, item.program, records, cause,
                                id=f"{item.found.signature}.{_slug_name(item.tool.name)}", summary=summary)


def _offered_difference(item: Offered, rules: Rules) -> Difference:
    """Something one side sends during a call class or lists beyond the tool (`offered.py`)."""
    records, cause = rules.attribute(item.found)
    return _sequence_difference(item.found, item.program, records, cause, id=item.found.signature,
                                summary=item.sentence)


def _sequence_difference(found: Found, program: Program, records: list[str], cause: str, *, id: str,
                         summary: str) -> Difference:
    """A difference found on fresh processes by a fixed sequence (a called tool, a long probe): its program is
    already the smallest showing it."""
    return Difference(cause=cause, id=id, aspect=found.aspect, summary=summary, records=records,
                      program=frames(program), a=found.a, b=found.b, minimized=True, field=found.field,
                      detail=found.detail)


def _slug_name(name: str) -> str:
    """A listed tool's name as a part of an id: letters, digits, `_` and `-`, at most 60."""
    return "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "-" for c in name)[:60] or "_"


def _with_eras(differences: list[Difference], found: list[EraFound], rules: Rules, name_a: str, name_b: str
               ) -> list[Difference]:
    """Differences some eras' clients see and others do not: one the search found too (the server sends it
    to every client, only some read it) is marked with those eras; any other is added, its id `era.`..."""
    by_id = {item.found.signature: item for item in found}
    out = [d.model_copy(update={"eras": list(by_id[d.id].eras),
                                "summary": era_summary(by_id[d.id], d.summary, name_a, name_b)})
           if d.id in by_id else d for d in differences]
    known = {d.id for d in differences}
    return out + [_era_difference(item, rules, name_a, name_b) for item in found
                  if item.found.signature not in known]


def _era_difference(item: EraFound, rules: Rules, name_a: str, name_b: str) -> Difference:
    """A difference some eras' clients see and others do not: its id is the search's, marked `era.`."""
    records, cause = rules.attribute(item.found)
    return Difference(
        cause=cause,
        id=f"era.{item.found.signature}",
        aspect=item.found.aspect,
        summary=era_summary(item, summarize(item.found, name_a, name_b), name_a, name_b),
        records=records,
        program=item.program,
        a=item.found.a,
        b=item.found.b,
        field=item.found.field,
        detail=item.found.detail,
        eras=list(item.eras),
    )


def _call_difference(
    candidate: Candidate, found: Found, rules: Rules, name_a: str, name_b: str
) -> Difference:
    read = with_suspect(found, candidate.program[-1])
    records, cause = rules.attribute(read)
    return Difference(
        cause=EARLIER_CAUSE if candidate.before else cause,
        id=found.signature,
        aspect=found.aspect,
        summary=summarize(read, name_a, name_b) + _earlier_note(candidate),
        records=records,
        program=frames(_with_earlier(candidate)),
        a=found.a,
        b=found.b,
        minimized=candidate.minimized,
        shrink_note="" if candidate.minimized else SHRINK_STOPPED,
        field=read.field,
        suspect=read.suspect,
        value_class=_value_class(read, candidate.program[-1]),
        detail=read.detail,
    )


def _with_earlier(candidate: Candidate) -> Program:
    """The candidate's program after the earlier programs it needs, each led by the probe call the search
    sent before it: the calls a fresh process needs to show the difference."""
    probe = Step(TOOL, dict(PROBE_ARGUMENTS))
    steps: list[Step] = []
    for earlier in candidate.before:
        steps += [probe, *earlier]
    return (*steps, probe, *candidate.program) if steps else candidate.program


def _earlier_note(candidate: Candidate) -> str:
    """Says a difference needs earlier calls: a fresh process shows it only after them."""
    if not candidate.before:
        return ""
    calls = sum(len(p) + 1 for p in candidate.before)
    return f" (shown only after {calls} {EARLIER_NOTE}: a state they built)"


def _shown_sooner(item: ProbeFound, differences: list[Difference], say: Callable[[str], None]) -> bool:
    """Whether the search already shows a store difference in the probed field and the probe's is within
    the search's reach (no more calls than a generated program, or than that difference's): a server that
    never files a branch differs at the probe's first call, which is no bound."""
    needed = len(item.program)
    if NO_STATE in item.found.a or NO_STATE in item.found.b:
        return False
    for d in differences:
        if d.cause == EARLIER_CAUSE:  # shown after the search's earlier programs: the probe says it plainer
            continue
        calls = calls_in(d.program)
        if d.aspect == "store" and d.field == item.found.field and needed <= max(calls, MAX_STEPS):
            say(f"long probe: its difference in {item.found.field} after {needed} call(s) is already shown "
                f"by {d.id} ({calls} call(s))")
            return True
    return False


def _earlier_probed(differences: list[Difference], probed: set[str | None],
                    say: Callable[[str], None]) -> list[Difference]:
    """A store difference a fresh process showed only after the search's earlier programs, in a field a long
    probe found differing at its smallest length, is that probe's difference (a bound the earlier calls
    reached), said once, by the probe."""
    kept: list[Difference] = []
    for d in differences:
        if d.cause == EARLIER_CAUSE and d.aspect == "store" and d.field in probed:
            say(f"long probe: {d.id}, shown only after earlier calls, is the probe's difference in {d.field}")
            continue
        kept.append(d)
    return kept


def _with_relations(a: Target, b: Target, differences: list[Difference], timeout: float,
                    say: Callable[[str], None]) -> list[Difference]:
    """Refusals of a numbered field by one side that a relation to another field explains, marked with
    that relation as their value class (`relations.py`): a cross-field rule is said as the rule it is."""
    out = list(differences)
    for fld, side in relation_candidates(differences):
        relation = find_relation(a, b, fld, side, timeout)
        if relation is None:
            continue
        say(f"relation: {'A' if side == 'a' else 'B'} refuses `{fld}` {relation.refused_when} "
            f"`{relation.other}`")
        strings = [(d.id, c) for d in out if isinstance(c := last_call_arguments(d.program), dict)
                   and string_candidate(d, relation, c)]
        held = strings_explained(a, b, relation, [c for _, c in strings], timeout)
        read = {i for (i, _), ok in zip(strings, held, strict=True) if ok}
        out = [d.model_copy(update={"value_class": relation_class(relation)}) if d.id in read
               or explained_by(d, relation, last_call_arguments(d.program)) else d for d in out]
    return out


def _with_pair_rules(a: Target, b: Target, differences: list[Difference], timeout: float,
                     say: Callable[[str], None]) -> list[Difference]:
    """Refusals by one side that a rule between two fields explains (`two_fields.py`: a ratio or an offset
    between numbered fields, two optional fields not both set, a value refused only where two numbered fields
    stand in an order), marked with that rule as their value class,
    before a bound on one field's own value is looked for."""
    out = list(differences)
    calls = {d.id: last_call_arguments(d.program) for d in differences}
    for fld, side in ratio_candidates(out, calls):
        example = next((d for d in out if d.field == fld and refusing_side(d) == side
                        and ":" not in d.value_class and isinstance(calls.get(d.id), dict)), None)
        call = calls.get(example.id) if example is not None else None
        rule = find_ratio(a, b, fld, side, call, timeout) if isinstance(call, dict) else None
        if rule is not None:
            say(f"pair rule: {'A' if side == 'a' else 'B'} refuses {rule.rule}")
            out = _marked(out, rule, calls)
    rules = ((both_set_candidates, find_both_set), (conditional_candidates, find_conditional))
    for candidates, find in rules:
        for fld, side, lead in candidates(out, calls):
            call = calls.get(lead)
            found = next((d for d in out if d.id == lead), None)
            if not isinstance(call, dict) or found is None or ":" in found.value_class:
                continue
            rule = find(a, b, fld, side, call, refused_words(found), timeout)
            if rule is not None:
                say(f"pair rule: {'A' if side == 'a' else 'B'} refuses {rule.rule}")
                out = _marked(out, rule, calls)
    return out


def _marked(differences: list[Difference], rule: PairRule, calls: dict[str, JSON | None]) -> list[Difference]:
    return [d.model_copy(update={"value_class": rule.value_class})
            if ":" not in d.value_class and breaks_pair_rule(d, rule, calls.get(d.id)) else d
            for d in differences]


def _with_bounds(a: Target, b: Target, differences: list[Difference], timeout: float,
                 say: Callable[[str], None]) -> list[Difference]:
    """Refusals of a number or a string by one side that a bound on the field's own value explains, found by
    re-testing in-range values (`bounds.py`), marked with that bound as their value class: "`totalThoughts`
    below 1", not "a fraction", when 1.5 is accepted."""
    out = list(differences)
    calls = {d.id: last_call_arguments(d.program) for d in differences}
    for fld, side, kind in bound_candidates(differences, calls):
        example = next((d for d in out if d.aspect == "is_error" and d.field == fld
                        and d.detail == f"refused by {side}" and ":" not in d.value_class
                        and kind_of(_argument(calls.get(d.id), fld)) == kind), None)
        call = calls.get(example.id) if example is not None else None
        if not isinstance(call, dict):
            continue
        bound = find_bound(a, b, fld, side, call, timeout)
        if bound is None:
            continue
        say(f"bound: {'A' if side == 'a' else 'B'} refuses {bound.rule}")
        out = [d.model_copy(update={"value_class": bound.value_class})
               if ":" not in d.value_class and past_bound(d, bound, calls.get(d.id)) else d for d in out]
    return out


def _argument(arguments: JSON | None, name: str) -> JSON | None:
    return arguments.get(name) if isinstance(arguments, dict) else None


def _probe_difference(item: ProbeFound, rules: Rules, name_a: str, name_b: str) -> Difference:
    """A long probe's difference: found on fresh processes, its program the probe's calls up to the first
    that differs (the smallest length showing it: every earlier answer agreed)."""
    records, cause = rules.attribute(item.found)
    return _sequence_difference(item.found, item.program, records, cause, id=item.found.signature,
                                summary=summarize(item.found, name_a, name_b))


def _value_class(found: Found, step: Step | None) -> str:
    """The kind of value the difference's field was given; for a refusal's wording, read from its call."""
    if found.type_class or step is None or not found.field or not isinstance(step.arguments, dict):
        return found.type_class
    if found.aspect == "answer" and found.detail == "error text":
        return type_class(step.arguments.get(found.field, Omitted.OMIT))
    return ""


RESET_CAUSE: Final = "no-state"
STATE_CAUSES: Final = frozenset({"store", "branches", "history-bound", "branch-bound"})


def _reset_explains(differences: list[Difference]) -> list[Difference]:
    """When a long probe shows a side keeping no state between calls, the other store differences are its
    symptoms (a history that grows by one where the other's grows by two, one label where many): they are
    grouped under that one cause instead of causes of their own."""
    if not any(d.cause == RESET_CAUSE for d in differences):
        return differences
    return [d.model_copy(update={"cause": RESET_CAUSE}) if d.cause in STATE_CAUSES else d
            for d in differences]


def explain_again(
    differences: list[Difference], a: str, b: str, crossing: Crossing | None = None
) -> list[RootCause]:
    """The root causes of differences kept from an earlier comparison of the specs `a` and `b`, made with
    today's rules and explanations (a kept comparison saves the search, never the sentences): the same
    path `run_comparison` takes, so the atlas reads a pair as `compare` does."""
    name_a, name_b = side_labels(a, b, (None, None))
    return explained(one_cause_per_rule(differences), default_rules(), name_a, name_b, crossing)


def explained(
    differences: list[Difference], rules: Rules, name_a: str, name_b: str, crossing: Crossing | None
) -> list[RootCause]:
    """Root causes, each with what the crossed target showed on its differences (`compare --cross`). A
    cause whose differences the crossing places apart (some in the code, some in the dependencies) is two
    causes, one per code edit or dependency change (issue 47), each explained from its own differences."""
    causes = root_causes(differences, rules, name_a, name_b)
    if crossing is None:
        return causes
    by_id = {d.id: d for d in differences}
    groups: list[_Placed] = []
    for cause in causes:
        members = [by_id[i] for i in cause.differences]
        placed: dict[Placement, list[Difference]] = {}
        unplaced: list[Difference] = []
        for d in members:
            key = moved_by(d, crossing)
            (unplaced if key is None else placed.setdefault(key, [])).append(d)
        if len(placed) > 1:  # what was not crossed goes with the largest part
            largest = max(placed, key=lambda k: len(placed[k]))
            placed[largest] += unplaced
            groups += [_Placed(key, part, cause, split=True) for key, part in placed.items()]
        else:
            groups.append(_Placed(next(iter(placed), None), members, cause, split=False))
    out: list[RootCause] = []
    for group in _same_edits(groups):
        origin, moved = group.key or ("", ())
        tag = "/".join(x for x in (origin, *(m.split(" ", 1)[0] for m in moved)) if x)
        if group.split or group.merged:
            lead = group.cause.id.split("/", 1)[0]
            part = [d.model_copy(update={"cause": lead}) if group.merged else d for d in group.members]
            again = root_causes(part, rules, name_a, name_b)
        else:
            again = [group.cause]
        said = [origin_sentence(group.members, crossing, name_a, name_b),
                swap_sentence(group.members, name_a, name_b)]
        for one in again:
            out.append(one.model_copy(update={
                "id": one.id + (f"/{tag}" if group.split and tag else ""),
                "origin": " ".join(x for x in said if x)}))
    return sorted(out, key=lambda c: -len(c.differences))


Placement = tuple[str, tuple[str, ...]]
CALL_ASPECTS: Final = frozenset({"answer", "is_error", "error_class"})


@dataclass
class _Placed:
    """A cause's differences that the crossing and the swaps place alike (`moved_by`; None: not crossed)."""

    key: Placement | None
    members: list[Difference]
    cause: RootCause
    split: bool
    merged: bool = False


def _definite(key: Placement | None) -> bool:
    """A placement that names a code edit or a dependency change: the code alone on evidence, or a swap
    that moves it. Unclear or no-evidence placements name nothing, so nothing is joined on them."""
    return key is not None and (bool(key[1]) or key[0] == "code")


def _call_fields(members: Sequence[Difference]) -> set[str]:
    """The argument fields a cause's differences are about: the calls' fields, and a listed schema's
    properties where a crossed schema was split (`properties.revisesThought`: zod 4's 2^53 bound is listed
    as the property's `maximum` and refused on the call, one dependency change)."""
    fields = {d.field for d in members if d.aspect in CALL_ASPECTS and d.field}
    return fields | {d.value_class.removeprefix("properties.") for d in members
                     if d.aspect == "tools_list" and d.value_class.startswith("properties.")}


def _same_edits(groups: list[_Placed]) -> list[_Placed]:
    """One code edit or dependency change, one cause (issue 47): groups placed alike on evidence (the code
    alone, or the same swap) whose calls name a field in common are joined, whatever rule filed them (the
    strings 2026.7.4 coerces and its refusals' new wording of the same fields are one edit)."""
    out: list[_Placed] = []
    for group in groups:
        fields = _call_fields(group.members)
        into = next((g for g in out if _definite(group.key) and g.key == group.key and fields
                     and fields & _call_fields(g.members)), None)
        if into is None:
            out.append(group)
            continue
        lead, other = (into, group) if len(into.members) >= len(group.members) else (group, into)
        into.members, into.cause = lead.members + other.members, lead.cause
        into.split, into.merged = into.split or group.split, True
    return out


def root_causes(
    differences: list[Difference], rules: Rules, name_a: str, name_b: str,
    known: KnownChanges | None = None,
) -> list[RootCause]:
    """Differences grouped by the cause their rule names, the largest first, each explained from its
    differences (`explain.py`); the cause's records are the primary ones."""
    known = known if known is not None else default_known_changes()
    groups: dict[str, list[Difference]] = {}
    for difference in _reset_explains(after_calls.regrouped(differences)):
        groups.setdefault(difference.cause or "unattributed", []).append(difference)
    causes: list[RootCause] = []
    for key, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        cause = rules.causes.get(base_cause(key))
        named = {r for d in members for r in d.records}
        # A cause names only records its own differences name: one record list, never a header that
        # lists records no difference under it is filed under.
        primary = [r for r in (cause.records if cause is not None else []) if r in named]
        explained = sorted(named - set(primary))
        smallest = shown_by(members)
        said = explain(members, name_a, name_b, known)
        causes.append(
            RootCause(
                id=key,
                records=primary,
                explains=explained,
                summary=said.headline,
                example=smallest.program,
                differences=[d.id for d in members],
                minimized=all(d.minimized for d in members),
                rows=said.rows,
                upstream=said.upstream,
                not_shrunk=said.not_shrunk,
            )
        )
    return causes


__all__ = ["ComparisonOutcome", "TargetSpec", "UnusableTarget", "explain_again", "run_comparison"]
