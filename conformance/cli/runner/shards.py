"""`run --merge DIR...`: the reports of a run's shards (`run --shard I/N`) joined into the report of the whole
run, judged as one machine's run of the same seed would be: the union of the shards' test outcomes, in the
run's collection order, goes through the same verdicts, root causes and gate.

Shard folders come from other jobs, so they are input, not trusted output: each file is read as data only
(size-bounded, strict UTF-8, depth-limited, validated against the report and results models, symlinks and
special files refused), the shards must belong together (one target, seed, profile and harness, which must
be this one; every shard of N once; each test in its own shard's share), and a transcript is copied only from
a plain file named by a single safe name inside a shard's transcripts folder. Nothing named in a shard is
started or executed: the departures were signed by the shards that saw them, on their live target.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final, TextIO, TypeVar

from pydantic import BaseModel

from conformance.catalog.shard_costs import ShardCostsError, shard_costs
from conformance.core.create import ensure_folder, open_new
from conformance.core.errors import InputError
from conformance.core.identity import (
    MAX_SHARDS,
    HarnessIdentity,
    ShardIdentity,
    TargetIdentity,
    git_commit,
    harness_version,
)
from conformance.core.inputs import REPORT_BYTES, open_regular, read_json, validated
from conformance.core.outfolder import claimed
from conformance.core.results import RunResults, TestOutcome
from conformance.gate import exit_status
from conformance.gate.assemble import TargetSeen
from conformance.gate.baseline import check_project
from conformance.gate.run_options import RunOptions
from conformance.gate.signatures import RecordSignature
from conformance.report.escape import safe, write_line
from conformance.report.model import REPORT_FORMAT, Preflight, Report, RunInfo, ShardRun
from conformance.suite.sharding import split

MAX_DEPTH: Final = 64
"""JSON nesting of a shard's files (a report nests about 8 deep)."""
MAX_TRANSCRIPT_BYTES: Final = 4 * 2**30
"""All transcripts copied from all shards together."""
SAFE_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")
PYTEST_FINISHED: Final = (0, 1)
"""pytest's exit statuses of a suite that ran (tests passed, tests failed): cli/runner/suite.py's FINISHED."""
MACHINE_LOCAL: Final = frozenset({"command", "installed_at"})
"""Target identity fields that differ from one machine to the next for the same target (the install path,
the install time); every other field must be equal in every shard."""

Model = TypeVar("Model", bound=BaseModel)


class ShardError(InputError):
    """Shard report folders that cannot be merged: unreadable, invalid, or not the shards of one run."""


@dataclass(frozen=True)
class ShardFolder:
    """One shard's report folder as read: its report, and its results unless its suite never ran."""

    folder: Path
    report: Report
    results: RunResults | None

    @property
    def shard(self) -> ShardIdentity:
        shard = self.report.harness.shard
        assert shard is not None  # read_shard refuses reports that are not a shard's
        return shard


# -- reading one folder -----------------------------------------------------------------------------------


def read_shard(folder: Path) -> ShardFolder:
    """A shard's report.json and results.json, read as data and validated; refused with one line otherwise."""
    if not folder.is_dir():
        raise ShardError(f"{folder}: not a folder (expected a shard's report folder)")
    report = _read_model(folder / "report.json", Report)
    if report.format != REPORT_FORMAT:
        raise ShardError(f"{folder / 'report.json'}: format {report.format}, expected {REPORT_FORMAT}")
    if report.harness.shard is None:
        raise ShardError(f"{folder}: not a shard's report (its run had no --shard I/N)")
    results_path = folder / "results.json"
    results = _read_model(results_path, RunResults) if _exists(results_path) else None
    if results is None and report.preflight.ok and not report.run.interrupted:
        raise ShardError(f"{folder}: no results.json, yet its report says the suite ran")
    if results is not None:
        if results.harness != report.harness or results.target != report.target:
            raise ShardError(f"{results_path}: another run's results than {folder / 'report.json'}'s")
        if not results.collected:
            raise ShardError(f"{results_path}: no list of the run's tests (`collected`)")
        for outcome in results.tests:
            _transcript_name(outcome.transcript, results_path)
    for record in report.records:
        if record.signature is not None and not re.fullmatch(r"[0-9a-f]{64}", record.signature):
            raise ShardError(f"{folder / 'report.json'}: {record.id}: a signature is 64 hex digits")
    _transcript_name(report.preflight.transcript, folder / "report.json")
    transcripts = folder / "transcripts"
    if _exists(transcripts) and not stat.S_ISDIR(os.lstat(transcripts).st_mode):
        raise ShardError(f"{transcripts}: not a folder (a symlink is refused)")
    return ShardFolder(folder, report, results)


def _exists(path: Path) -> bool:
    return os.path.lexists(path)


def _read_model(path: Path, model: type[Model]) -> Model:
    """A shard's JSON file read as every input is (`core/inputs.py`: a regular file of at most the report
    limit, strict UTF-8, no key twice, no NaN, no lone surrogate, nesting and values bounded), never through a
    symlink, and validated as `model`."""
    document = read_json(path, limit=REPORT_BYTES, depth=MAX_DEPTH, error=ShardError, follow=False,
                         served=True)
    return validated(model, document, str(path), ShardError)


def _open_plain(path: Path) -> BinaryIO:
    return open_regular(path, error=ShardError, follow=False)


def _copy_plain(source: Path, dest: Path, budget: int) -> int:
    """Copy a regular file in chunks; its size counted against `budget` (refused beyond it)."""
    copied = 0
    with _open_plain(source) as reading, open_new(dest) as writing:
        while chunk := reading.read(2**20):
            copied += len(chunk)
            if copied > budget:
                raise ShardError(
                    f"{source}: the shards' transcripts together exceed {MAX_TRANSCRIPT_BYTES // 2**30} GiB"
                )
            writing.write(chunk)
    return copied


def _transcript_name(reference: str | None, where: Path) -> str | None:
    """The file name a transcript reference points to: `transcripts/<one safe name>`, nothing else."""
    if reference is None:
        return None
    folder, slash, name = reference.partition("/")
    if folder != "transcripts" or not slash or SAFE_NAME.fullmatch(name) is None:
        raise ShardError(f"{where}: transcript {reference[:80]!r} is not transcripts/<file name>")
    return name


# -- checking that they belong together -----------------------------------------------------------------


def check_together(shards: Sequence[ShardFolder]) -> list[ShardFolder]:
    """The shards in order 1..N, once each, of one run by this harness; refused with one line otherwise."""
    first = shards[0]
    count = first.shard.count
    for part in shards:
        if part.shard.count != count:
            raise ShardError(
                f"{part.folder} is shard {part.shard}, {first.folder} is shard {first.shard}: not one run's"
            )
    by_index: dict[int, ShardFolder] = {}
    for part in shards:
        if part.shard.index in by_index:
            twice = by_index[part.shard.index].folder
            raise ShardError(f"shard {part.shard} is given twice ({twice}, {part.folder})")
        by_index[part.shard.index] = part
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in by_index]
    if missing:
        plural = "s" if len(missing) > 1 else ""
        raise ShardError(f"shard{plural} {', '.join(missing)} missing: every shard of the run is needed")
    ordered = [by_index[i] for i in range(1, count + 1)]
    _same_harness(ordered)
    _same_target(ordered)
    _same_options(ordered)
    _own_shares(ordered)
    return ordered


def _run_of(harness: HarnessIdentity) -> tuple[str, str | None, str, str | None]:
    return harness.version, harness.git_commit, harness.profile, harness.seed


def _same_harness(shards: Sequence[ShardFolder]) -> None:
    first = shards[0]
    expected = first.report.harness
    if expected.seed is None or not expected.seed.isascii() or not expected.seed.isdigit():
        raise ShardError(f"{first.folder}: no seed (the shards of a run share one: run them with --seed)")
    for part in shards[1:]:
        found = part.report.harness
        for name, mine, theirs in zip(
            ("harness version", "harness commit", "profile", "seed"), _run_of(expected), _run_of(found),
            strict=True,
        ):
            if mine != theirs:
                raise ShardError(
                    f"{part.folder} has {name} {_shown(theirs)}, {first.folder} {_shown(mine)}: "
                    "not one run's shards"
                )
    here, commit = harness_version(), git_commit()
    if expected.version != here or (commit and expected.git_commit and commit != expected.git_commit):
        raise ShardError(
            f"the shards were made by harness {expected.version} ({_shown(expected.git_commit)}), this is "
            f"{here} ({_shown(commit)}): merge them with the harness that made them"
        )


def _shown(value: str | None) -> str:
    return "none" if value is None else repr(value[:60])


def target_key(identity: TargetIdentity) -> dict[str, object]:
    """What names the target the same on every machine (the install path and time left out)."""
    return identity.model_dump(mode="json", exclude=set(MACHINE_LOCAL))


def _same_target(shards: Sequence[ShardFolder]) -> None:
    first = shards[0]
    usable = [p for p in shards if p.report.preflight.ok]
    for part in shards[1:]:
        if part.report.target.spec != first.report.target.spec:
            raise ShardError(
                f"{part.folder} ran {part.report.target.spec!r}, {first.folder} {first.report.target.spec!r}"
            )
    key = target_key(usable[0].report.target) if usable else None
    for part in usable[1:]:
        theirs = target_key(part.report.target)
        if theirs != key:
            assert key is not None
            field = next(k for k in key if key[k] != theirs.get(k))
            raise ShardError(
                f"{part.folder} ran another {part.report.target.spec} than {usable[0].folder} "
                f"(its {field} differs)"
            )


def _rerun_without_shard(part: ShardFolder) -> list[str]:
    """A shard's rerun line with its `--shard I/N` (and `--jobs N`, which decides no example) taken out."""
    tokens = shlex.split(part.report.run.rerun)
    kept: list[str] = []
    found = False
    skip = False
    for position, token in enumerate(tokens):
        if skip:
            skip = False
            continue
        following = tokens[position + 1] if position + 1 < len(tokens) else None
        if token == "--shard" and following == str(part.shard):
            found, skip = True, True
        elif token == "--jobs" and following is not None:
            skip = True
        else:
            kept.append(token)
    if not found:
        raise ShardError(f"{part.folder}: its rerun line does not name shard {part.shard}")
    return kept


def _same_options(shards: Sequence[ShardFolder]) -> None:
    first = _rerun_without_shard(shards[0])
    for part in shards[1:]:
        if _rerun_without_shard(part) != first:
            raise ShardError(
                f"{part.folder} was run with other options than {shards[0].folder}: "
                f"{safe(part.report.run.rerun, 300)} vs {safe(shards[0].report.run.rerun, 300)}"
            )


def _own_shares(shards: Sequence[ShardFolder]) -> None:
    """Every shard collected the same run and ran tests of its own share only, each test once."""
    ran = [p for p in shards if p.results is not None]
    if not ran:
        return
    collected = ran[0].results.collected if ran[0].results is not None else []
    try:
        costs = shard_costs(shards[0].report.harness.profile)
    except ShardCostsError as exc:
        raise ShardError(f"{shards[0].folder}: {exc}") from None
    shares = split(collected, shards[0].shard.count, costs)
    seen: dict[str, ShardFolder] = {}
    for part in ran:
        assert part.results is not None
        if part.results.collected != collected:
            raise ShardError(f"{part.folder} collected other tests than {ran[0].folder}: not one run's")
        mine = set(shares[part.shard.index - 1])
        for outcome in part.results.tests:
            if outcome.nodeid not in mine:
                raise ShardError(f"{part.folder}: {outcome.nodeid[:200]} is not in shard {part.shard}'s part")
            if outcome.nodeid in seen:
                other = seen[outcome.nodeid].folder
                raise ShardError(f"{outcome.nodeid[:200]} appears in {other} and {part.folder}")
            seen[outcome.nodeid] = part


# -- joining ----------------------------------------------------------------------------------------------


def _subfolder(shard: ShardIdentity) -> str:
    return f"shard-{shard.index}"


def copy_transcripts(shards: Sequence[ShardFolder], transcripts: Path) -> set[tuple[int, str]]:
    """Each shard's transcripts (plain files with safe names only) into `transcripts/shard-I/`; returns
    which (shard index, name) were copied. Anything else in a shard's transcripts folder is left behind."""
    copied: set[tuple[int, str]] = set()
    budget = MAX_TRANSCRIPT_BYTES
    for part in shards:
        source = part.folder / "transcripts"
        if not _exists(source):  # read_shard refused anything there but a folder
            continue
        dest = transcripts / _subfolder(part.shard)
        ensure_folder(dest)
        for entry in sorted(os.scandir(source), key=lambda e: e.name):
            if SAFE_NAME.fullmatch(entry.name) is None or not entry.is_file(follow_symlinks=False):
                continue
            budget -= _copy_plain(Path(entry.path), dest / entry.name, budget)
            copied.add((part.shard.index, entry.name))
    return copied


def _relocated(reference: str | None, shard: ShardIdentity, copied: set[tuple[int, str]]) -> str | None:
    """`transcripts/x.jsonl` of shard I → `transcripts/shard-I/x.jsonl`, or None when it was not there."""
    name = _transcript_name(reference, Path("transcripts"))
    if name is None or (shard.index, name) not in copied:
        return None
    return f"transcripts/{_subfolder(shard)}/{name}"


def join_results(shards: Sequence[ShardFolder], copied: set[tuple[int, str]]) -> RunResults:
    """The shards' results as one run's: every outcome in the run's collection order, totals summed, the
    interruptions of any shard kept (a shard that stopped early leaves the merged run incomplete)."""
    ran = [p for p in shards if p.results is not None]
    first = ran[0].results
    assert first is not None
    order = {nodeid: position for position, nodeid in enumerate(first.collected)}
    tests: list[TestOutcome] = []
    for part in ran:
        assert part.results is not None
        tests += [
            t.model_copy(update={"transcript": _relocated(t.transcript, part.shard, copied)})
            for t in part.results.tests
        ]
    tests.sort(key=lambda t: order[t.nodeid])
    stops = [f"shard {p.shard}: {p.report.run.interrupted}" for p in shards if p.report.run.interrupted]
    parts = [p.results for p in ran if p.results is not None]
    return first.model_copy(
        update={
            "harness": first.harness.model_copy(update={"shard": None}),
            "server_info": next((p.server_info for p in parts if p.server_info), {}),
            "protocol_version": next((p.protocol_version for p in parts if p.protocol_version), None),
            "eras": {era: settled for p in parts for era, settled in p.eras.items()},
            "started": min(p.started for p in parts),
            "finished": max(p.finished for p in parts),
            "processes_started": sum(p.processes_started for p in parts),
            "calls_made": sum(p.calls_made for p in parts),
            "tests": tests,
            "stopped": "; ".join(stops) or None,
            "collected": [],
        }
    )


def signatures(shards: Sequence[ShardFolder]) -> Callable[[list[str]], Mapping[str, RecordSignature]]:
    """The departures' signatures as the shards computed them on their live target, each record's from the
    first shard that signed it (a shard signs every departure it saw; one that departs in the merged run
    departed in some shard)."""
    found: dict[str, RecordSignature] = {}
    for part in shards:
        for record in part.report.records:
            if record.signature is not None and record.id not in found:
                found[record.id] = RecordSignature(record.id, record.signature, list(record.witness))
    return lambda ids: {rid: found[rid] for rid in ids if rid in found}


def run_info(shards: Sequence[ShardFolder], results: RunResults | None, rerun: list[str]) -> RunInfo:
    """The merged run as the shards told it: its duration is the longest shard's, as side by side."""
    runs = [p.report.run for p in shards]
    exits = [r.pytest_exit for r in runs if r.pytest_exit is not None]
    stops = [f"shard {p.shard}: {p.report.run.interrupted}" for p in shards if p.report.run.interrupted]
    return RunInfo(
        started=min(r.started for r in runs),
        finished=max(r.finished for r in runs),
        duration_s=max(r.duration_s for r in runs),
        jobs=runs[0].jobs,
        processes_started=sum(r.processes_started for r in runs),
        calls_made=sum(r.calls_made for r in runs),
        tests=len(results.tests) if results is not None else 0,
        rerun=shlex.join(rerun),
        pytest_exit=max(exits) if exits else None,
        interrupted="; ".join(stops) or None,
        selection=runs[0].selection,
        shards=[
            ShardRun(shard=p.shard, duration_s=r.duration_s, tests=r.tests,
                     processes_started=r.processes_started, calls_made=r.calls_made,
                     interrupted=r.interrupted)
            for p, r in zip(shards, runs, strict=True)
        ],
    )


# -- the command ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Expected:
    """What the command line says the shards must be (None: whatever they agree on)."""

    target: str | None = None
    profile: str | None = None
    seed: int | None = None


def read_shards(folders: Sequence[Path], out: Path, expected: Expected) -> list[ShardFolder]:
    """The shard folders read, checked to belong together and to be what the command line expects."""
    if len(folders) > MAX_SHARDS:
        raise ShardError(f"{len(folders)} folders: more than a run has shards")
    target = out.resolve()
    for folder in folders:
        where = folder.resolve()
        if target == where or target.is_relative_to(where) or where.is_relative_to(target):
            raise ShardError(f"--out {out} overlaps shard folder {folder}: write the merged report elsewhere")
    shards = check_together([read_shard(folder) for folder in folders])
    harness, spec = shards[0].report.harness, shards[0].report.target.spec
    for name, wanted, found in (
        ("target", expected.target, spec),
        ("profile", expected.profile, harness.profile),
        ("seed", None if expected.seed is None else str(expected.seed), harness.seed),
    ):
        if wanted is not None and wanted != found:
            raise ShardError(f"--{name} {wanted} was asked, but the shards ran {name} {found}")
    return shards


def merge(
    folders: Sequence[Path], out: Path, baseline: Path | None, expected: Expected, stream: TextIO
) -> tuple[int, Report, str | None]:
    """Read, check and join the shards; judge and write the merged report into `out` (claimed as a run's:
    staged, then moved into place). Returns the exit status, the report and the one line for stderr when the
    target could not be used."""
    shards = read_shards(folders, out, expected)
    with claimed(out, "run") as folder:
        outcome = _merged(shards, folder.staging, baseline, stream, named=out)
        folder.commit()
    return outcome


def _merged(
    shards: Sequence[ShardFolder], out: Path, baseline: Path | None, stream: TextIO, *, named: Path
) -> tuple[int, Report, str | None]:
    from conformance.cli.runner.reporting import RunReport

    first = shards[0]
    harness = first.report.harness
    assert harness.seed is not None
    write_line(f"merge: {len(shards)} shards of {safe(first.report.target.spec)}, profile {harness.profile}, "
               f"seed {harness.seed}", stream)
    selection = first.report.run.selection  # the same in every shard: their rerun lines are equal
    options = RunOptions(target=first.report.target.spec, profile=harness.profile, seed=int(harness.seed),
                         out=out, baseline=baseline, jobs=first.report.run.jobs,
                         select=tuple(selection.select) if selection else (),
                         deselect=tuple(selection.deselect) if selection else ())
    report = RunReport.begin(options, named)
    copied = copy_transcripts(shards, report.transcripts)
    unusable = next((p for p in shards if not _suite_ran(p)), None)
    ran = unusable is None and any(p.results is not None for p in shards)
    results = join_results(shards, copied) if ran else None
    source = unusable or first
    seen = TargetSeen(
        source.report.target,
        source.report.preflight.model_copy(
            update={"transcript": _relocated(source.report.preflight.transcript, source.shard, copied)}
        ),
        source.report.server_info,
        source.report.protocol_version,
    )
    if report.baseline is not None and baseline is not None:
        # The project as the shards' reports name it: a cmd: fork's package.json is on the shards' machines,
        # and the merge reads no path a shard names (a shard run with the baseline checked it there).
        check_project(report.baseline, baseline, first.report.target.spec, first.report.target.package_name)
    info = run_info(shards, results, _rerun_without_shard(first)).model_copy(update={"out": str(named)})
    if unusable is not None:
        why = _unusable_why(unusable)
        written = report.write(None, seen, info.pytest_exit, why, run=info)
        return exit_status.UNUSABLE, written, why
    written = report.write(results, seen, info.pytest_exit, "no test evidences this record",
                           sign=signatures(shards), run=info)
    return (exit_status.OK if written.gate.passed else exit_status.GATE_FAILED), written, None


def _suite_ran(part: ShardFolder) -> bool:
    """Its target was usable and its suite ran to the end or was stopped (a pytest failure is exit 2 in one
    run, so it is in the merge)."""
    run = part.report.run
    finished = part.results is not None and run.pytest_exit in PYTEST_FINISHED
    return part.report.preflight.ok and (finished or run.interrupted is not None)


def _unusable_why(part: ShardFolder) -> str:
    preflight: Preflight = part.report.preflight
    spec = part.report.target.spec
    if not preflight.ok:
        return f"target {spec} is not usable (shard {part.shard}): {preflight.error}"
    return f"the suite could not run against {spec} in shard {part.shard} (see {part.folder / 'pytest.log'})"
