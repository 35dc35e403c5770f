"""`conformance atlas`: run every target, probe its claims, compare adjacent pairs, write the atlas.

Each target runs as its own `python -m conformance run` process (`--jobs` of them at once), so a
target that hangs or crashes costs its own column only and every column has an ordinary run report.
`merge_atlases` joins the outputs of one-target atlas runs (one CI job per release) into one atlas.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import importlib
import io
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Final, Literal

from pydantic import BaseModel, ConfigDict

from conformance.atlas import claims, grid, upstream
from conformance.atlas.model import (
    Atlas,
    Column,
    GridRow,
    PackageSnapshot,
    Pair,
    ReadmeSnapshot,
    ToolSnapshot,
)
from conformance.atlas.probe import package_of, probe_tool, readme_of
from conformance.atlas.write import MAX_COLUMNS, AtlasInputError, load_atlas, write_atlas
from conformance.core.create import copy_tree, ensure_folder, open_new
from conformance.core.errors import HarnessError
from conformance.core.identity import harness_identity, harness_version
from conformance.core.model_json import model_from_json, model_json
from conformance.core.outfolder import claimed
from conformance.core.printable import encoded
from conformance.drivers import cancel
from conformance.drivers.errors import TargetError
from conformance.gate.run_options import SUITE, RunOptions
from conformance.report.json import ReportError, load_report
from conformance.report.model import REPORT_FORMAT, Crossing, Difference, Report, RootCause
from conformance.targets import npm, npm_registry
from conformance.targets.kinds import kind_of
from conformance.targets.kinds.npm import KIND as NPM
from conformance.targets.specs import (
    TODAY,
    Target,
    default_cache_dir,
    folder_name,
    resolve_target,
    split_env,
    with_env,
)

Progress = Callable[[str], None]
RUN_TIMEOUT: Final = 3600.0
STOP_WAIT: Final = 60.0
"""Seconds a stopped column run has to write its report before it is killed."""
MAX_FRAME: Final = 4000
UNUSABLE: Final = 2


class AtlasError(HarnessError):
    """The atlas cannot be built or merged (bad folders, nothing to run)."""


_SAFE_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+=-]{0,120}")
_RELEASE: Final = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+(?:-[0-9A-Za-z.-]{1,40})?")


@dataclass(frozen=True)
class AtlasOptions:
    targets: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    profile: str = "dev"
    seed: int | None = None
    jobs: int = 1
    out: Path = Path("reports/atlas")
    compare: bool = True
    compare_switches: bool = True
    cross: bool = True
    """Release pairs of two npm releases are compared with `--cross` (code or dependencies)."""
    switches: bool = True
    cache: Path | None = None
    timeout: float = 10.0
    suite: str | None = None


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def default_targets(cache: Path) -> list[str]:
    """Every published release, from the registry metadata (fetched once into the cache)."""
    path = npm_registry.metadata_path(cache, npm.PACKAGE)
    metadata = npm_registry.load_metadata(
        cache, npm.PACKAGE, None if path.is_file() else npm.require_tool("npm")
    )
    return [NPM.spec(v) for v in npm_registry.releases(metadata)]


def _npm_version(spec: str) -> str | None:
    return NPM.release(split_env(spec)[1])


def ordered(specs: Sequence[str]) -> list[str]:
    """Other targets first as given, then npm releases oldest first (a merge's order is the joint run's)."""
    others = [s for s in specs if _npm_version(s) is None]
    releases = [s for s in specs if _npm_version(s) is not None]
    releases.sort(
        key=lambda s: (
            npm_registry.version_key(_npm_version(s) or "0.0.0"),
            s.endswith(TODAY),
            bool(split_env(s)[0]),
            s,
        )
    )
    return list(dict.fromkeys([*others, *releases]))


def label_of(spec: str) -> str:
    env, base = split_env(spec)
    kind = kind_of(base)
    name = kind.label(base) if kind is not None else base[:40]
    return " ".join([name, *(f"+{k}={v}" for k, v in sorted(env.items()))])


def _published(cache: Path, spec: str) -> str | None:
    version = _npm_version(spec)
    if version is None:
        return None
    try:
        metadata = npm_registry.load_metadata(cache, npm.PACKAGE)
    except TargetError:
        return None
    return metadata.time.get(version)


@dataclass
class _Planned:
    spec: str
    variant_of: str | None
    target: Target | None
    error: str | None
    readme: ReadmeSnapshot | None = None
    package: PackageSnapshot | None = None


def _plan(options: AtlasOptions, cache: Path, progress: Progress) -> list[_Planned]:
    specs = list(options.targets) or default_targets(cache)
    specs = ordered([with_env(s, options.env) if options.env else s for s in specs])
    planned: list[_Planned] = []
    for spec in specs:
        try:
            target = resolve_target(spec, cache_dir=cache, progress=lambda m: progress(f"  {m}"))
        except TargetError as exc:
            planned.append(_Planned(spec, None, None, str(exc)))
            continue
        readme = readme_of(target)
        env, base = split_env(target.spec)
        # A target given with a switch next to its plain form is that release's switch column (as in a merge):
        # the way to run a switch on a release whose README does not document it, as a control.
        variant_of = base if env and not options.env and base in specs else None
        package = package_of(target)
        planned.append(_Planned(target.spec, variant_of, target, None, readme, package))
    if not options.switches:
        return planned
    return _with_switch_columns(planned, specs, cache)


def _with_switch_columns(planned: list[_Planned], specs: Sequence[str], cache: Path) -> list[_Planned]:
    """Each release followed by one column per switch any release's README documents: a release that does
    not document a switch is its control (0.6.2 prints its box with DISABLE_THOUGHT_LOGGING=true, so the
    switch's arrival in 2025.7.1 reads as behaviour), unless the switch was given with a target already."""
    documented: dict[str, str] = {}
    for plan in planned:
        for name, value in (plan.readme.switches if plan.readme else {}).items():
            documented.setdefault(name, value)
    given = set(specs)
    out: list[_Planned] = []
    for plan in planned:
        out.append(plan)
        if plan.variant_of is not None or plan.target is None or plan.readme is None:
            continue
        own = split_env(plan.target.spec)[0]
        for name, value in documented.items():
            variant = with_env(plan.target.spec, {name: value})
            if own.get(name) == value or variant in given:
                continue
            resolved = resolve_target(variant, cache_dir=cache)
            out.append(_Planned(variant, plan.target.spec, resolved, None, plan.readme, plan.package))
    return out


class _ColumnRuns:
    """The column runs in flight, so that a stop of the atlas reaches each of them (they are in the atlas's
    process group, but `kill PID` reaches only the atlas): each then writes its own report saying so."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[bytes]] = set()

    def run(self, command: Sequence[str], log: IO[str]) -> int | None:
        """The run's exit status; None when the atlas was stopped before it started."""
        with self._lock:
            if cancel.requested() is not None:
                return None
            proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            self._running.add(proc)
        try:
            return proc.wait(RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return UNUSABLE
        finally:
            with self._lock:
                self._running.discard(proc)

    def stop(self, stop: cancel.Stop) -> None:
        """Pass the signal that stopped the atlas on (SIGTERM for a deadline); wait for the runs to end."""
        sig = signal.Signals(stop.exit_code - 128) if stop.kind == "cancelled" else signal.SIGTERM
        with self._lock:
            running = list(self._running)
        for proc in running:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(sig)
        for proc in running:
            try:
                proc.wait(STOP_WAIT)
            except subprocess.TimeoutExpired:
                proc.kill()


def _run_one(
    options: AtlasOptions, cache: Path, spec: str, folder: Path, progress: Progress, runs: _ColumnRuns
) -> int | None:
    command = RunOptions(
        target=spec,
        profile=options.profile,
        seed=options.seed if options.seed is not None else secrets.randbelow(2**32),
        out=folder,
        cache=cache,
        timeout=options.timeout,
        suite=options.suite or SUITE,
    ).command(sys.executable, local=True)
    ensure_folder(folder.parent)
    progress(f"run {spec} → {options.out / folder.parent.name / folder.name}")
    started = time.monotonic()
    log_path = folder.parent / f".{folder.name}.run.log"  # moved in once the run has written its folder
    with io.TextIOWrapper(open_new(log_path), encoding="utf-8", errors="backslashreplace") as log:
        code = runs.run(command, log)
    ensure_folder(folder)
    os.replace(log_path, folder / "run.log")
    progress(f"done {spec}: exit {code} in {time.monotonic() - started:.0f} s")
    return code


def _load(folder: Path) -> Report | None:
    path = folder / "report.json"
    if not path.is_file():
        return None
    try:
        return load_report(path)
    except ReportError:
        return None


def _column(
    plan: _Planned,
    folder: str,
    exit_code: int | None,
    report: Report | None,
    tool: ToolSnapshot | None,
    cache: Path,
) -> Column:
    identity = report.target if report is not None else (plan.target.identity if plan.target else None)
    error = plan.error
    if error is None and exit_code == UNUSABLE:
        error = report.preflight.error if report is not None and report.preflight.error else "run unusable"
    return Column(
        spec=plan.spec,
        label=label_of(plan.spec),
        folder=folder,
        variant_of=plan.variant_of,
        exit_code=exit_code,
        error=error,
        identity=identity,
        server_info=report.server_info if report is not None else {},
        protocol_version=_negotiated(report),
        published=_published(cache, plan.spec),
        report=f"{folder}/report.html" if report is not None else None,
        counts=report.summary.counts if report is not None else {},
        tool=tool,
        readme=plan.readme,
        package=plan.package,
    )


def _trim(text: str) -> str:
    return text if len(text) <= MAX_FRAME else f"{text[: MAX_FRAME - 40]}…[trimmed: {len(text)} characters]"


def _trim_cause(cause: RootCause) -> RootCause:
    return cause.model_copy(update={"example": [_trim(f) for f in cause.example]})


def _trim_difference(diff: Difference) -> Difference:
    return diff.model_copy(
        update={"program": [_trim(f) for f in diff.program], "a": _trim(diff.a), "b": _trim(diff.b)}
    )


Outcome = Literal["done", "skipped", "unavailable", "failed"]
Compared = tuple[Outcome, str, list[RootCause], list[Difference], int]


def compare_pair(
    a: str,
    b: str,
    *,
    profile: str,
    seed: int | None,
    cache: Path,
    timeout: float,
    budget_s: float | None = None,
    cross: bool = False,
) -> Compared:
    """The compare API on one pair; its absence (an older harness) is `unavailable`, not an error.

    The causes are `compare`'s for the same observations: explained from the whole differences (and, with
    `cross`, what A's package on B's tree showed) before anything is trimmed for the page, so a pair reads
    the same in the atlas as in `compare A B [--cross]`."""
    try:
        module = importlib.import_module("conformance.compare")
        run_comparison, explain_again = module.run_comparison, module.explain_again
    except (ImportError, AttributeError):
        return (
            "unavailable",
            "the compare API (conformance.compare.run_comparison) is not installed",
            [],
            [],
            0,
        )
    stored = _stored_comparison(cache, a, b, profile, seed, budget_s, cross)
    if stored is not None and stored.is_file():
        try:
            saved = model_from_json(_SavedComparison, stored.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass
        else:
            causes = explain_again(saved.differences, a, b, saved.crossing)
            return "done", saved.note, _for_page(causes), _trimmed(saved.differences), saved.calls
    try:
        outcome = run_comparison(
            a, b, profile=profile, seed=seed, cache=cache, call_timeout=timeout, budget_s=budget_s,
            cross=cross,
        )
    except HarnessError as exc:
        return "failed", str(exc)[:500], [], [], 0
    except Exception as exc:  # a comparison's bug costs its pair, not an hour of runs
        return "failed", f"{type(exc).__name__}: {str(exc)[:400]}", [], [], 0
    comparison = outcome.comparison
    crossing = comparison.crossing
    note = f"profile {profile}, seed {seed}" + (f"; crossed on {crossing.label}" if crossing else "")
    if stored is not None:
        saved = _SavedComparison(
            note=note, differences=comparison.differences, calls=comparison.calls, crossing=crossing
        )
        stored.parent.mkdir(parents=True, exist_ok=True)
        scratch = stored.with_suffix(f".tmp-{os.getpid()}")
        scratch.write_bytes(encoded(model_json(saved)))
        scratch.replace(stored)
    return "done", note, _for_page(outcome.root_causes), _trimmed(comparison.differences), comparison.calls


def _for_page(causes: list[RootCause]) -> list[RootCause]:
    return [_trim_cause(c) for c in causes]


def _trimmed(differences: list[Difference]) -> list[Difference]:
    return [_trim_difference(d) for d in differences]


class _SavedComparison(BaseModel):
    """A finished comparison kept in the cache, so a merge (or a rerun) does not compare the pair again:
    its differences whole (the causes are explained again from them, as `compare` explains them)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    note: str
    differences: list[Difference]
    calls: int
    crossing: Crossing | None = None


SEARCH_REVISION: Final = "schema-parts+locked-tree-swaps"
"""What a crossed comparison observes beyond the harness version: schemas split per keyword and property,
swaps on the whole locked tree (issue 47). A kept comparison from before either is compared again."""


def _stored_comparison(
    cache: Path, a: str, b: str, profile: str, seed: int | None, budget_s: float | None, cross: bool = False
) -> Path | None:
    """Where a comparison of a → b is kept: one file per (targets, profile, seed, budget, crossing, harness
    version, report format: a comparison kept by an older harness would bring its older explanations);
    none without a seed (a random seed compares something new each time)."""
    if seed is None:
        return None
    key = json.dumps([a, b, profile, seed, budget_s, harness_version(), REPORT_FORMAT, "whole", cross,
                      *([SEARCH_REVISION] if cross else [])])
    return cache / "atlas-comparisons" / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"


def _pairs(
    columns: Sequence[Column],
    rows: Sequence[GridRow],
    *,
    compare: bool,
    profile: str,
    seed: int | None,
    cache: Path,
    timeout: float,
    progress: Progress,
    jobs: int = 1,
    compare_switches: bool = True,
    may_start: Callable[[str], bool] = lambda spec: True,
    cross: bool = False,
    reports: Mapping[str, Report | None] | None = None,
) -> list[Pair]:
    """Every adjacent pair with its verdict changes and, unless skipped, the compare API's root causes
    (`jobs` comparisons at once)."""
    adjacent = grid.adjacent_pairs(columns)
    reports = reports or {}

    def compared(a: Column, b: Column, kind: str) -> Compared:
        cancel.check()  # a stop leaves the pairs not yet started unstarted, not each started and refused
        if not compare:
            return "skipped", "--no-compare", [], [], 0
        if kind == "switch" and not compare_switches:
            return "skipped", "--no-compare-switches: verdict and served changes only", [], [], 0
        if a.error is not None or b.error is not None:
            return "failed", "a side of the pair is unusable", [], [], 0
        named = [spec for spec in (a.spec, b.spec) if not may_start(spec)]
        if named:
            note = (
                f"not compared: {', '.join(named)} is named by a merged file; a merge starts only "
                "published releases and the targets given on the command line"
            )
            return "skipped", note, [], [], 0
        crossed = cross and kind == "release" and None not in (_npm_version(a.spec), _npm_version(b.spec))
        progress(f"compare {a.spec} → {b.spec}" + (" (crossed)" if crossed else ""))
        outcome = compare_pair(
            a.spec, b.spec, profile=profile, seed=seed, cache=cache, timeout=timeout, cross=crossed
        )
        progress(f"compared {a.spec} → {b.spec}: {outcome[0]}, {len(outcome[3])} difference(s)")
        return outcome

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(compared, *pair) for pair in adjacent]
        try:
            for future in futures:
                future.result()
        except cancel.Cancelled:
            pass  # the pairs in flight stop at their next request; what finished is kept
    results = [_settled(future) for future in futures]
    return [
        Pair(
            a=a.spec,
            b=b.spec,
            kind="switch" if kind == "switch" else "release",
            comparison=status,
            note=note,
            verdict_changes=grid.grouped(
                grid.verdict_changes(rows, columns, a, b), status == "done", causes, diffs,
                (reports.get(a.spec), reports.get(b.spec)),
            ) + (grid.switch_arrivals(rows, columns, a, b, reports) if kind == "release" else []),
            probe_changes=grid.probe_changes(a, b) + (
                grid.switch_probe_changes(columns, a, b) if kind == "release" else []
            ),
            root_causes=causes,
            differences=diffs,
            calls=calls,
        )
        for (a, b, kind), (status, note, causes, diffs, calls) in zip(adjacent, results, strict=True)
    ]


def _settled(future: Future[Compared]) -> Compared:
    """A pair's comparison, or why there is none: a stop (SIGTERM, SIGINT, deadline) leaves it uncompared."""
    failure = future.exception()
    if failure is None:
        return future.result()
    if isinstance(failure, cancel.Cancelled):
        return "skipped", f"not compared: {failure.stop.reason}", [], [], 0
    raise failure


def assemble(
    columns: list[Column],
    reports: dict[str, Report | None],
    *,
    profile: str,
    seed: int | None,
    compare: bool,
    cache: Path,
    timeout: float,
    progress: Progress,
    jobs: int,
    started: float,
    merged_from: Sequence[str] = (),
    compare_profile: str | None = None,
    compare_switches: bool = True,
    may_start: Callable[[str], bool] = lambda spec: True,
    cross: bool = False,
) -> Atlas:
    rows = grid.build_grid(columns, reports)
    pairs = _pairs(
        columns,
        rows,
        compare=compare,
        profile=compare_profile or profile,
        seed=seed,
        cache=cache,
        timeout=timeout,
        progress=progress,
        jobs=jobs,
        compare_switches=compare_switches,
        may_start=may_start,
        cross=cross,
        reports=reports,
    )
    return Atlas(
        generated=_now(),
        harness=harness_identity(profile=profile, seed=str(seed) if seed is not None else None),
        profile=profile,
        seed=seed,
        duration_s=round(time.monotonic() - started, 1),
        jobs=jobs,
        columns=columns,
        grid=rows,
        pairs=pairs,
        claims=claims.judge(columns, reports),
        upstream=upstream.locate(columns, reports),
        merged_from=list(merged_from),
        interrupted=stop.reason if (stop := cancel.requested()) is not None else None,
    )


def build_atlas(options: AtlasOptions, progress: Progress) -> Atlas:
    """The atlas, written into a staging folder that replaces `options.out` when done."""
    started = time.monotonic()
    cache = options.cache or default_cache_dir()
    plans = _plan(options, cache, progress)
    if not plans:
        raise AtlasError("no targets to run")
    with claimed(options.out, "atlas") as folder:
        atlas = _build(options, cache, plans, folder.staging, started, progress)
        folder.commit()
    return atlas


def _build(
    options: AtlasOptions, cache: Path, plans: list[_Planned], out: Path, started: float, progress: Progress
) -> Atlas:
    folders = {p.spec: f"targets/{folder_name(p.spec)}" for p in plans}
    runnable = [p for p in plans if p.target is not None]
    codes, stopped = _run_columns(options, cache, runnable, out, folders, progress)
    columns, reports = [], {}
    for plan in plans:
        folder = folders[plan.spec]
        report = _load(out / folder) if plan.target is not None else None
        tool = None
        if plan.target is not None and stopped is None:
            tool = probe_tool(
                plan.target,
                out / folder / "atlas-probe.jsonl",
                f"{folder}/atlas-probe.jsonl",
                timeout=options.timeout,
            )
        reports[plan.spec] = report
        columns.append(_column(plan, folder, codes.get(plan.spec, UNUSABLE), report, tool, cache))
    atlas = assemble(
        columns,
        reports,
        profile=options.profile,
        seed=options.seed,
        compare=options.compare,  # after a stop, each pair says it was not compared and why
        cache=cache,
        timeout=options.timeout,
        progress=progress,
        jobs=options.jobs,
        started=started,
        compare_switches=options.compare_switches,
        cross=options.cross,
    )
    write_atlas(atlas, out)
    return atlas


def _run_columns(
    options: AtlasOptions, cache: Path, runnable: Sequence[_Planned], out: Path, folders: Mapping[str, str],
    progress: Progress,
) -> tuple[dict[str, int | None], cancel.Stop | None]:
    """Each column's run (`jobs` at once) and its exit status; a SIGTERM/SIGINT of the atlas is passed on
    to the runs in flight, runs not started yet are not started, and the stop is returned."""
    runs = _ColumnRuns()
    with ThreadPoolExecutor(max_workers=options.jobs) as pool:
        futures = {
            p.spec: pool.submit(_run_one, options, cache, p.spec, out / folders[p.spec], progress, runs)
            for p in runnable
        }
        try:
            return {spec: f.result() for spec, f in futures.items()}, None
        except cancel.Cancelled as exc:
            for future in futures.values():
                future.cancel()
            runs.stop(exc.stop)
            codes = {spec: None if f.cancelled() else f.result() for spec, f in futures.items()}
            return codes, exc.stop


def _from_runs(folder: Path, cache: Path, progress: Progress) -> Atlas:
    """An atlas part rebuilt from a folder of run reports whose atlas was not written (an interrupted
    atlas): each `targets/*/report.json` becomes a column, from what the report says alone (data from a
    file: nothing it names is started or probed)."""
    columns = []
    reports: dict[str, Report | None] = {}
    targets = folder / "targets"
    paths = (
        sorted(p for p in targets.glob("*/report.json") if not p.parent.is_symlink() and not p.is_symlink())
        if targets.is_dir() and not targets.is_symlink()
        else []
    )
    if not paths:
        raise AtlasInputError(f"{folder} holds neither atlas.json nor targets/*/report.json")
    for path in paths:
        report = _load(path.parent)
        if report is None:
            continue
        spec = report.target.spec
        # What was (not) done first: a long spec or path is what a cut line loses, never "not probed".
        progress(f"column not probed, rebuilt from its report (a merge starts no target named in a file): "
                 f"{spec} ({path})")
        exit_code = UNUSABLE if not report.preflight.ok else (0 if report.gate.passed else 1)
        plan = _Planned(spec, None, None, None if report.preflight.ok else "run unusable")
        columns.append(_column(plan, f"targets/{path.parent.name}", exit_code, report, None, cache))
        reports[spec] = report
    harness = next(iter(reports.values()), None)
    seed = harness.harness.seed if harness is not None else None
    return Atlas(
        generated=_now(),
        harness=harness_identity(profile=harness.harness.profile if harness else "dev", seed=seed),
        profile=harness.harness.profile if harness else "dev",
        seed=int(seed) if seed is not None and seed.isdigit() else None,
        columns=columns,
        grid=[],
    )


def merge_atlases(
    dirs: Sequence[Path],
    out: Path,
    *,
    compare: bool,
    cache: Path | None,
    timeout: float,
    progress: Progress,
    profile: str | None = None,
    seed: int | None = None,
    jobs: int = 1,
    compare_switches: bool = True,
    trusted: Sequence[str] = (),
    cross: bool = False,
) -> Atlas:
    """One atlas from several (each typically one release from one CI job): columns joined in atlas order,
    their run reports copied under `out/targets/`, grid, pairs, claims and upstream rebuilt. The folders
    are data: what they name is never started, except published releases (`npm:VERSION`) and the
    `trusted` targets given on the command line, which adjacent pairs may be compared on."""
    started = time.monotonic()
    cache = cache or default_cache_dir()
    parts: list[tuple[Path, Atlas]] = []
    total = 0
    for folder in dirs:
        part = _part(folder, cache, progress)
        total += len(part.columns)
        if total > MAX_COLUMNS:
            raise AtlasInputError(
                f"{folder}: the merged folders hold more than {MAX_COLUMNS} columns, an atlas's limit"
            )
        parts.append((folder, part))
    by_spec, sources = _joined(parts)
    for spec, column in list(by_spec.items()):
        env, base = split_env(spec)
        if column.variant_of is None and env and base in by_spec:  # a switch column run on its own
            by_spec[spec] = column.model_copy(update={"variant_of": base})
    variants: dict[str, list[Column]] = {}
    for column in by_spec.values():
        if column.variant_of is not None:
            variants.setdefault(column.variant_of, []).append(column)
    bases = ordered([s for s, c in by_spec.items() if c.variant_of is None])
    columns = []
    for base in bases:
        columns += [by_spec[base], *variants.get(base, [])]
    placed = set(bases)  # then a switch column whose release is absent
    columns += [c for c in by_spec.values() if c.variant_of is not None and c.variant_of not in placed]
    profiles = sorted({part.profile for _, part in parts})
    seeds = sorted({part.seed for _, part in parts if part.seed is not None})
    allowed = set(trusted)
    published = _Published(cache)
    switches = _Switches(bases, cache, published)
    with claimed(out, "atlas") as staging:
        reports: dict[str, Report | None] = {}
        for column in columns:
            source, target = sources[column.spec], _inside(staging.staging, column.folder, "the merged atlas")
            if source.is_dir() and not target.exists():
                copy_tree(source, target)
            reports[column.spec] = _load(target)
        atlas = assemble(
            columns,
            reports,
            profile=profiles[0] if len(profiles) == 1 else (profile or "dev"),
            compare_profile=profile,
            compare_switches=compare_switches,
            seed=seeds[0] if len(seeds) == 1 else seed,
            compare=compare,
            cache=cache,
            timeout=timeout,
            progress=progress,
            jobs=jobs,
            started=started,
            merged_from=[str(d) for d in dirs],
            may_start=lambda spec: spec in allowed or _published_release(spec, cache, published, switches),
            cross=cross,  # consecutive releases crossed as the joint run crosses them (kept comparisons)
        )
        write_atlas(atlas, staging.staging)
        staging.commit()
    return atlas


def _part(folder: Path, cache: Path, progress: Progress) -> Atlas:
    """One merged folder's atlas: its atlas.json (never through a symlink; anything but a regular file is
    refused by the reader), else rebuilt from its reports."""
    path = folder / "atlas.json"
    if folder.is_symlink() or path.is_symlink():
        linked = path if path.is_symlink() else folder
        raise AtlasInputError(f"{linked} is a symlink: a merge does not follow them")
    return load_atlas(path) if os.path.lexists(path) else _from_runs(folder, cache, progress)


def _inside(root: Path, relative: str, named_in: str) -> Path:
    """`root/targets/NAME` for a column folder read from a file: one safe name, no symlink on the way."""
    parts = relative.split("/")
    plain = len(parts) == 2 and parts[0] == "targets" and _SAFE_NAME.fullmatch(parts[1]) is not None
    if not plain:
        raise AtlasInputError(
            f"{named_in}: column folder {relative[:80]!r} is not targets/NAME with a plain NAME"
        )
    path = root / "targets" / parts[1]
    if (root / "targets").is_symlink() or path.is_symlink():
        raise AtlasInputError(f"{path} is a symlink: a merge does not follow them")
    return path



def _joined(parts: Sequence[tuple[Path, Atlas]]) -> tuple[dict[str, Column], dict[str, Path]]:
    """Every part's columns by target, with the folder each is copied from: two columns (of one part or of
    two) naming the same target or the same `targets/NAME` are refused, since one would hide the other."""
    by_spec: dict[str, Column] = {}
    sources: dict[str, Path] = {}
    named: dict[str, tuple[str, Path]] = {}
    for folder, part in parts:
        where = folder / "atlas.json"
        for column in part.columns:
            source = _inside(folder, column.folder, f"{where}")
            if column.spec in by_spec:
                raise AtlasInputError(
                    f"{where}: column {column.spec[:120]!r} is also in {sources[column.spec].parent.parent}: "
                    "a merge takes each target from one part only"
                )
            if column.folder in named:
                other, first = named[column.folder]
                raise AtlasInputError(
                    f"{where}: column {column.spec[:120]!r} names folder {column.folder}, as column "
                    f"{other[:120]!r} of {first} does: a merge takes each folder from one part only"
                )
            by_spec[column.spec] = column
            sources[column.spec] = source
            named[column.folder] = (column.spec, folder)
    return by_spec, sources


class _Published:
    """The releases the registry lists, read once from the cached metadata (fetched once when absent: the
    same one request whatever the merged files name). A version a file names is looked up here, never
    asked of the registry."""

    def __init__(self, cache: Path) -> None:
        self.cache = cache
        self._versions: frozenset[str] | None = None

    def __contains__(self, version: object) -> bool:
        if self._versions is None:
            path = npm_registry.metadata_path(self.cache, npm.PACKAGE)
            try:
                metadata = npm_registry.load_metadata(
                    self.cache, npm.PACKAGE, None if path.is_file() else npm.require_tool("npm")
                )
                self._versions = frozenset(metadata.versions)
            except TargetError:
                self._versions = frozenset()
        return version in self._versions


def _published_release(
    spec: str, cache: Path, published: _Published, switches: _Switches | None = None
) -> bool:
    """A release the registry lists as published, named plainly (`npm:1.2.3`) or with environment switches
    a published release's README documents (its own, or another's: the control column of a release that
    predates the switch; read from the installed releases, never from a file): what a merged file may name
    and a merge may still install and start."""
    env, base = split_env(spec)
    version = _npm_version(base)
    if version is None or base != NPM.spec(version) or _RELEASE.fullmatch(version) is None:
        return False
    if version not in published:
        return False
    if not env:
        return True
    documented = _switches_of(base, cache)
    if not all(documented.get(name) == value for name, value in env.items()) and switches is not None:
        documented = switches.documented()
    return all(documented.get(name) == value for name, value in env.items())


def _switches_of(base: str, cache: Path) -> dict[str, str]:
    """The switches the installed release's README documents (none when it cannot be installed)."""
    try:
        readme = readme_of(resolve_target(base, cache_dir=cache))
    except TargetError:
        return {}
    return dict(readme.switches) if readme is not None else {}


class _Switches:
    """The switches any published release of the merge documents, read from the installed releases once."""

    def __init__(self, bases: Sequence[str], cache: Path, published: _Published) -> None:
        self._bases, self._cache, self._published = bases, cache, published
        self._found: dict[str, str] | None = None

    def documented(self) -> dict[str, str]:
        if self._found is None:
            self._found = {}
            for base in self._bases:
                if _published_release(base, self._cache, self._published):
                    for name, value in _switches_of(base, self._cache).items():
                        self._found.setdefault(name, value)
        return self._found


def _negotiated(report: Report | None) -> str | None:
    """The revision the release settles on with the official client (`auto`, the newest it accepts), else the
    one the run's 2024-11-05 handshake got (a report before eras, or a suite that meets no era)."""
    if report is None:
        return None
    return report.eras.get("auto") or report.protocol_version
