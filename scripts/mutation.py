"""Mutation score of the conformance suite over reference_server/, with cosmic-ray.

The suite tests a server *process* (`python -m reference_server`), so mutants cannot be switched on
in-process: cosmic-ray writes each mutant to the file on disk, in a scratch copy of the repository, and the
test command runs the suite against the reference from that copy (its cwd comes first on the server's
sys.path, and PYTHONDONTWRITEBYTECODE keeps stale bytecode out). A full run is hundreds of suite runs, so by
default a seeded random sample of the mutants is measured and the score is published with a 95 % Wilson
interval; `--sample 0` runs them all.

    python -m scripts.mutation reference_server/thinking.py --sample 80 --seed 12 --profile dev \
        --recheck-profile ci --out reports/strength/mutation-thinking.json

Survivors are matched against fixtures/strength/equivalent_mutants.yaml (mutants that cannot change any
observable behaviour, each with why); the score counts killed / (measured - equivalent).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parents[1]
COPIED = ("reference_server", "conformance", "fixtures", "pyproject.toml")
EQUIVALENTS = ROOT / "fixtures" / "strength" / "equivalent_mutants.yaml"
EQUIVALENTS_SCHEMA = ROOT / "fixtures" / "schemas" / "equivalent_mutants.schema.json"


@dataclass
class Mutant:
    """One measured mutant: where, which operator, what it changed, and what the suite did."""

    module: str
    operator: str
    occurrence: int
    line: int
    column: int
    original: str
    mutated: str
    outcome: str
    recheck: str | None = None
    equivalent: str | None = None
    closed_by: str | None = None
    killed_by: str | None = None
    suspect: bool = False


FIRST: Final = ("test_store.py", "test_coercion.py", "test_render.py", "test_validation.py", "test_errors.py")
"""Suite files that exercise the store most densely, run first so `-x` stops a killed mutant early."""


CALL_TIMEOUT: Final = 60
"""Seconds a server may take to answer: a loaded 2-core machine can take more than the default 10 s to
start a Python server, and a timeout there would count as a kill the mutant did not earn."""

TIMING_SENSITIVE: Final = ("ServerTimeout", "no answer to", "test_banner_without_any_request")
"""Failure text that a load spike can cause on the unmutated server: such a kill is run again."""

RETRIES: Final = 2

WALL_CLOCK_TESTS: Final = (
    "conformance/suite/test_lifecycle.py::test_banner_without_any_request",
    "conformance/suite/test_lifecycle.py::test_one_json_object_per_line",
    "conformance/suite/test_lifecycle.py::test_end_of_stdin_ends_the_process_quietly",
    "conformance/suite/test_lifecycle.py::test_terminating_signals_are_not_handled",
    "conformance/suite/test_lifecycle.py::test_broken_stdout_exits_with_status_1",
    "conformance/suite/test_lifecycle.py::test_one_response_per_request_and_nothing_else",
    "conformance/suite/test_lifecycle.py::test_answers_do_not_depend_on_stderr_being_read",
)
"""Fresh-process tests with fixed waits (a 5 s banner wait, a 10 s start-up read) that a loaded 2-core
machine fails on the unmutated server too. They evidence lifecycle records (RTE-10, CMP-4, BAP-3, BAP-5,
LOOP-A), not the store, render or JS semantics the mutants change; `--keep-wall-clock-tests` runs them."""


def suspect(output: str | None) -> bool:
    """Whether a kill may be the machine's doing rather than the mutant's."""
    return output is not None and any(marker in output for marker in TIMING_SENSITIVE)


def first_failure(output: str | None) -> str | None:
    import re

    found = re.search(r"^FAILED (\S+?)(?:\[| |$)", output or "", flags=re.MULTILINE)
    return found.group(1) if found else None


def suite_files() -> list[str]:
    """Every suite test file, the dense ones first (pytest runs them in command-line order)."""
    names = sorted(path.name for path in (ROOT / "conformance" / "suite").glob("test_*.py"))
    ordered = [name for name in FIRST if name in names] + [name for name in names if name not in FIRST]
    return [f"conformance/suite/{name}" for name in ordered]


def suite_command(profile: str, seed: int, *, stop_at_first: bool = True, wall_clock: bool = False) -> str:
    """The test command: the whole suite against the reference, one profile, one hypothesis seed."""
    parts = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
    if stop_at_first:
        parts.append("-x")
    parts += [*suite_files(), "--target", "reference", "--profile", profile, f"--hypothesis-seed={seed}"]
    parts += ["--call-timeout", str(CALL_TIMEOUT)]
    if not wall_clock:
        for test in WALL_CLOCK_TESTS:
            parts += ["--deselect", test]
    return shlex.join(parts)


def scratch_copy(destination: Path) -> None:
    """The files the suite and the reference need, copied (not linked: cosmic-ray writes to them)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, destination / name, ignore=ignore)
        else:
            shutil.copy2(source, destination / name)


def write_config(scratch: Path, module: str, command: str, timeout: float) -> Path:
    config = scratch / "cosmic-ray.toml"
    config.write_text(
        "[cosmic-ray]\n"
        f"module-path = {json.dumps(module)}\n"
        f"timeout = {timeout}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(command)}\n\n"
        "[cosmic-ray.distributor]\n"
        'name = "local"\n',
        encoding="utf-8",
    )
    return config


def cosmic_ray(scratch: Path, *args: str) -> None:
    subprocess.run(
        [str(Path(sys.executable).with_name("cosmic-ray")), *args],
        cwd=scratch,
        check=True,
        env=_environment(scratch),
    )


def _environment(scratch: Path) -> dict[str, str]:
    import os

    environment = {k: v for k, v in os.environ.items() if k not in ("CI", "CONFORMANCE_PROFILE")}
    environment["PYTHONPATH"] = str(scratch)
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    return environment


def sample_jobs(session: Path, size: int, seed: int) -> tuple[int, list[str]]:
    """The seeded sample of job ids (all of them when size is 0), and how many mutants there are."""
    from cosmic_ray.work_db import WorkDB, use_db  # type: ignore[import-untyped]

    with use_db(str(session), WorkDB.Mode.open) as db:
        items = sorted(
            db.work_items,
            key=lambda item: (
                str(item.mutations[0].module_path),
                item.mutations[0].operator_name,
                item.mutations[0].occurrence,
            ),
        )
    chosen = items if size <= 0 or size >= len(items) else random.Random(seed).sample(items, size)
    return len(items), [item.job_id for item in chosen]


def keep_only(session: Path, keep: set[str]) -> None:
    """Mark every other job of this session as skipped, so `cosmic-ray exec` runs only `keep`."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult  # type: ignore[import-untyped]

    with use_db(str(session), WorkDB.Mode.open) as db:
        skipped = [item.job_id for item in db.work_items if item.job_id not in keep]
        if skipped:
            db.set_multiple_results(skipped, WorkResult(worker_outcome=WorkerOutcome.SKIPPED))


def _lines(text: str, start: tuple[int, int], end: tuple[int, int]) -> str:
    rows = text.splitlines()
    return "\n".join(rows[start[0] - 1 : end[0]]).strip()


def collect(session: Path, scratch: Path, keep: set[str]) -> list[Mutant]:
    from cosmic_ray.mutating import mutate_code  # type: ignore[import-untyped]
    from cosmic_ray.plugins import get_operator  # type: ignore[import-untyped]
    from cosmic_ray.work_db import WorkDB, use_db

    found: list[Mutant] = []
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if item.job_id not in keep:
                continue
            spec = item.mutations[0]
            source = (ROOT / spec.module_path).read_text(encoding="utf-8")  # never a shard mid-mutation
            operator = get_operator(spec.operator_name)(**(spec.operator_args or {}))
            mutated_code = mutate_code(source, operator, spec.occurrence) or source
            line, column = spec.start_pos
            worker = getattr(result.worker_outcome, "value", str(result.worker_outcome))
            tested = getattr(result.test_outcome, "value", None)
            outcome = tested if worker == "normal" and tested else worker
            found.append(
                Mutant(
                    module=str(spec.module_path),
                    operator=spec.operator_name,
                    occurrence=spec.occurrence,
                    line=line,
                    column=column,
                    original=_lines(source, spec.start_pos, spec.end_pos),
                    mutated=_mutated_line(source, mutated_code, line),
                    outcome=outcome,
                    killed_by=first_failure(result.output) if outcome == "killed" else None,
                    suspect=outcome == "killed" and suspect(result.output),
                )
            )
    return sorted(found, key=lambda m: (m.module, m.line, m.column, m.operator, m.occurrence))


def _mutated_line(source: str, mutated: str, line: int) -> str:
    """The mutant's text around the mutated line (cosmic-ray re-prints the module, so diff it)."""
    import difflib

    changed = [
        row[1:].strip()
        for row in difflib.unified_diff(source.splitlines(), mutated.splitlines(), lineterm="", n=0)
        if row.startswith("+") and not row.startswith("+++")
    ]
    return "\n".join(changed) if changed else "(unchanged)"


def load_equivalents() -> list[dict[str, Any]]:
    """The triaged equivalent mutants, validated against their schema."""
    if not EQUIVALENTS.is_file():
        return []
    data = yaml.safe_load(EQUIVALENTS.read_text(encoding="utf-8"))
    jsonschema.validate(data, json.loads(EQUIVALENTS_SCHEMA.read_text(encoding="utf-8")))
    entries: list[dict[str, Any]] = data["equivalent"]
    return entries


def mark_equivalents(mutants: list[Mutant], equivalents: list[dict[str, Any]]) -> None:
    for mutant in mutants:
        for entry in equivalents:
            if (entry["module"], entry["operator"], entry["line"], entry["mutated"]) == (
                mutant.module,
                mutant.operator,
                mutant.line,
                mutant.mutated,
            ):
                mutant.equivalent = f"{entry['kind']}: {entry['why']}"


def recheck(scratch: Path, session: Path, mutants: list[Mutant], command: str, timeout: float) -> None:
    """Run the survivors again under another test command (e.g. the ci profile)."""
    from cosmic_ray.mutating import mutate_and_test
    from cosmic_ray.work_db import WorkDB, use_db

    survivors = {(m.module, m.operator, m.occurrence): m for m in mutants if m.outcome == "survived"}
    if not survivors:
        return
    with use_db(str(session), WorkDB.Mode.open) as db:
        items = [
            item
            for item, _ in db.completed_work_items
            if (
                str(item.mutations[0].module_path),
                item.mutations[0].operator_name,
                item.mutations[0].occurrence,
            )
            in survivors
        ]
    import os

    previous = os.getcwd()
    saved = dict(os.environ)
    os.chdir(scratch)
    os.environ.clear()
    os.environ.update(_environment(scratch))
    try:
        for item in items:
            spec = item.mutations[0]
            result = mutate_and_test(item.mutations, command, timeout)
            survivors[(str(spec.module_path), spec.operator_name, spec.occurrence)].recheck = getattr(
                result.test_outcome, "value", None
            )
    finally:
        os.chdir(previous)
        os.environ.clear()
        os.environ.update(saved)


def rerun_survivors(path: Path, profile: str, seed: int, timeout: float) -> None:
    """Run every non-equivalent survivor of a results file again, against the current suite (in a fresh
    scratch copy); record the outcome and the first failing test, the one that closed the gap."""
    import os

    from cosmic_ray.mutating import mutate_and_test
    from cosmic_ray.work_item import MutationSpec  # type: ignore[import-untyped]

    data = json.loads(path.read_text(encoding="utf-8"))
    mutants = [Mutant(**m) for m in data["mutants"]]
    mark_equivalents(mutants, load_equivalents())
    data.setdefault(
        "first_pass", {k: data[k] for k in ("killed", "survived", "equivalent", "score", "ci95", "profile")}
    )
    command = suite_command(profile, seed)
    scratch = Path(tempfile.mkdtemp(prefix="seqthink-mutation-rerun-"))
    scratch_copy(scratch)
    previous, saved = os.getcwd(), dict(os.environ)
    os.chdir(scratch)
    os.environ.clear()
    os.environ.update(_environment(scratch))
    try:
        for mutant in mutants:
            if not (mutant.outcome == "survived" and not mutant.equivalent) and not mutant.suspect:
                continue
            spec = MutationSpec(
                module_path=mutant.module,
                operator_name=mutant.operator,
                occurrence=mutant.occurrence,
                start_pos=(mutant.line, mutant.column),
                end_pos=(mutant.line, mutant.column + 1),
            )
            result = mutate_and_test([spec], command, timeout)
            mutant.recheck = getattr(result.test_outcome, "value", None)
            if mutant.suspect:
                mutant.outcome = getattr(result.test_outcome, "value", "incompetent")
                mutant.killed_by = first_failure(result.output) if mutant.outcome == "killed" else None
                mutant.suspect = mutant.outcome == "killed" and suspect(result.output)
                print(f"{mutant.module}:{mutant.line} re-measured: {mutant.outcome} {mutant.killed_by or ''}")
                continue
            failed = first_failure(result.output)
            mutant.closed_by = failed if mutant.recheck == "killed" else None
            print(
                f"{mutant.module}:{mutant.line} {mutant.operator}: {mutant.recheck} {mutant.closed_by or ''}"
            )
    finally:
        os.chdir(previous)
        os.environ.clear()
        os.environ.update(saved)
        shutil.rmtree(scratch, ignore_errors=True)
    write_results(path, data, mutants, recheck_profile=profile)


def retriage(path: Path) -> None:
    """Re-apply the equivalent-mutants fixture to a results file and recompute its figures."""
    data = json.loads(path.read_text(encoding="utf-8"))
    mutants = [Mutant(**m) for m in data["mutants"]]
    for mutant in mutants:
        mutant.equivalent = None
    mark_equivalents(mutants, load_equivalents())
    write_results(path, data, mutants, recheck_profile=data.get("recheck_profile") or data["profile"])


def write_results(path: Path, data: dict[str, Any], mutants: list[Mutant], *, recheck_profile: str) -> None:
    summary = summarise(mutants, data["mutants_in_module"], survived_after=recheck_profile)
    data.update(summary)
    data["mutants"] = [asdict(m) for m in mutants]
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in data.items() if k != "mutants"}, indent=2))


def work(shard: Path, profile: str, seed: int, timeout: float, deadline: float) -> None:
    """One shard's worker: its share of the sample in the sample's (random) order, so a run cut short by
    its time budget is still a random subset; completed jobs are kept in the session and skipped."""
    from cosmic_ray.mutating import mutate_and_test
    from cosmic_ray.work_db import WorkDB, use_db

    order = json.loads((shard / "order.json").read_text(encoding="utf-8"))
    command = suite_command(profile, seed)
    with use_db(str(shard / "session.sqlite"), WorkDB.Mode.open) as db:
        done = {item.job_id for item, _ in db.completed_work_items}
        items = {item.job_id: item for item in db.work_items}
        for job_id in order:
            if job_id in done:
                continue
            if deadline and time.time() > deadline:
                break
            result = mutate_and_test(items[job_id].mutations, command, timeout)
            for _ in range(RETRIES):
                if getattr(result.test_outcome, "value", None) != "killed" or not suspect(result.output):
                    break
                result = mutate_and_test(items[job_id].mutations, command, timeout)
            db.set_result(job_id, result)


def wilson(killed: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion (sound near 100 %, unlike the normal approximation)."""
    if total == 0:
        return (0.0, 1.0)
    p = killed / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def summarise(mutants: list[Mutant], total: int, *, survived_after: str) -> dict[str, Any]:
    counted = [m for m in mutants if m.outcome in ("killed", "survived")]
    equivalent = [m for m in counted if m.outcome == "survived" and m.equivalent]
    alive = [
        m
        for m in counted
        if m.outcome == "survived" and not m.equivalent and (m.recheck in (None, "survived"))
    ]
    killed = len(counted) - len(equivalent) - len(alive)
    denominator = len(counted) - len(equivalent)
    low, high = wilson(killed, denominator)
    out_of_reach = [m for m in equivalent if (m.equivalent or "").startswith("out-of-reach")]
    strict_low, strict_high = wilson(killed, denominator + len(out_of_reach))
    return {
        "mutants_in_module": total,
        "measured": len(counted),
        "no_test": len([m for m in mutants if m.outcome == "no-test"]),
        "killed": killed,
        "killed_only_on_recheck": len([m for m in counted if m.recheck == "killed"]),
        "survived": len(alive),
        "equivalent": len(equivalent),
        "of_which_out_of_reach": len(out_of_reach),
        "suspect_kills": len([m for m in counted if m.suspect]),
        "score": killed / denominator if denominator else None,
        "ci95": [round(low, 4), round(high, 4)],
        "score_counting_out_of_reach_as_survivors": (
            killed / (denominator + len(out_of_reach)) if denominator + len(out_of_reach) else None
        ),
        "ci95_counting_out_of_reach": [round(strict_low, 4), round(strict_high, 4)],
        "recheck_profile": survived_after,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "module", nargs="?", help="a file under reference_server/, e.g. reference_server/thinking.py"
    )
    parser.add_argument("--sample", type=int, default=80, help="mutants measured (0: all)")
    parser.add_argument("--seed", type=int, default=12, help="seed of the sample and of hypothesis")
    parser.add_argument("--profile", default="dev", choices=("dev", "ci", "thorough"))
    parser.add_argument("--recheck-profile", default=None, choices=("dev", "ci", "thorough"))
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per suite run")
    parser.add_argument("--out", type=Path, help="JSON results file")
    parser.add_argument(
        "--rerun", type=Path, help="results file: run its survivors against the current suite"
    )
    parser.add_argument("--retriage", type=Path, help="results file: re-apply equivalent_mutants.yaml")
    parser.add_argument("--shards", type=int, default=1, help="concurrent suite runs, each in its own copy")
    parser.add_argument("--budget-minutes", type=float, default=0, help="stop starting mutants after this")
    parser.add_argument("--resume", action="store_true", help="keep the --keep folder's session and results")
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--collect-only", action="store_true", help="re-read a --keep folder's sessions")
    parser.add_argument("--deadline", type=float, default=0.0, help=argparse.SUPPRESS)
    parser.add_argument("--no-baseline", action="store_true", help="skip the check that the suite passes")
    parser.add_argument("--keep", type=Path, default=None, help="scratch directory to keep (default: temp)")
    options = parser.parse_args(argv)
    if options.work:
        work(options.work, options.profile, options.seed, options.timeout, options.deadline)
        return 0
    if options.collect_only:
        return report_from(options)
    if options.rerun:
        rerun_survivors(
            options.rerun, options.recheck_profile or options.profile, options.seed, options.timeout
        )
        return 0
    if options.retriage:
        retriage(options.retriage)
        return 0
    if options.module is None or options.out is None:
        parser.error("a module and --out are needed (or --rerun / --retriage FILE)")

    root = options.keep or Path(tempfile.mkdtemp(prefix="seqthink-mutation-"))
    shards = [root / f"shard-{n}" for n in range(max(options.shards, 1))]
    for shard in shards:
        if not (shard / "reference_server").exists():
            shard.mkdir(parents=True, exist_ok=True)
            scratch_copy(shard)
    command = suite_command(options.profile, options.seed)
    baseline_seconds = None
    if not options.no_baseline:
        started = time.monotonic()
        baseline = subprocess.run(
            shlex.split(command),
            cwd=shards[0],
            env=_environment(shards[0]),
            check=False,
            capture_output=True,
            text=True,
        )
        baseline_seconds = round(time.monotonic() - started, 1)
        if baseline.returncode != 0:
            print(baseline.stdout[-3000:], file=sys.stderr)
            print(
                "mutation: the suite fails on the unmutated reference; no score is possible", file=sys.stderr
            )
            return 2
    sessions = [shard / "session.sqlite" for shard in shards]
    configs = [write_config(shard, options.module, command, options.timeout) for shard in shards]
    if not (options.resume and sessions[0].is_file()):
        sessions[0].unlink(missing_ok=True)
        cosmic_ray(shards[0], "init", str(configs[0]), str(sessions[0]))
        for session in sessions[1:]:
            shutil.copyfile(sessions[0], session)
        fresh = True
    else:
        fresh = False
    total, sample = sample_jobs(sessions[0], options.sample, options.seed)
    orders = [sample[n :: len(shards)] for n in range(len(shards))]
    shares = [set(order) for order in orders]
    for shard, session, order in zip(shards, sessions, orders, strict=True):
        if fresh:
            keep_only(session, set(order))
        (shard / "order.json").write_text(json.dumps(order), encoding="utf-8")
    deadline = time.time() + options.budget_minutes * 60 if options.budget_minutes else 0.0
    started = time.monotonic()
    running = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--work",
                str(shard),
                "--profile",
                options.profile,
                "--seed",
                str(options.seed),
                "--timeout",
                str(options.timeout),
                "--deadline",
                str(deadline),
            ],
            cwd=shard,
            env=_environment(shard),
        )
        for shard in shards
    ]
    if any(process.wait() != 0 for process in running):
        print("mutation: a worker failed", file=sys.stderr)
        return 2
    exec_seconds = time.monotonic() - started
    mutants = [
        m
        for shard, session, share in zip(shards, sessions, shares, strict=True)
        for m in collect(session, shard, share)
    ]
    mutants.sort(key=lambda m: (m.module, m.line, m.column, m.operator, m.occurrence))
    if options.recheck_profile:
        for shard, session in zip(shards, sessions, strict=True):
            recheck(
                shard, session, mutants, suite_command(options.recheck_profile, options.seed), options.timeout
            )
    mark_equivalents(mutants, load_equivalents())
    summary = summarise(mutants, total, survived_after=options.recheck_profile or options.profile)
    per_mutant = exec_seconds * len(shards) / max(len(mutants), 1)
    result = {
        "tool": "cosmic-ray " + _version("cosmic-ray"),
        "module": options.module,
        "sample_seed": options.seed,
        "profile": options.profile,
        "test_command": command + "   (cwd: scratch copy of the repository)",
        "baseline_suite_seconds": baseline_seconds,
        "shards": len(shards),
        "sample_size": len(sample),
        "exec_seconds": round(exec_seconds, 1),
        "seconds_per_mutant": round(per_mutant, 1),
        "full_run_estimate_hours": round(total * per_mutant / 3600, 1),
        **summary,
        "mutants": [asdict(m) for m in mutants],
    }
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "mutants"}, indent=2))
    if options.keep is None:
        shutil.rmtree(root, ignore_errors=True)
    return 0


def report_from(options: argparse.Namespace) -> int:
    """Re-read the sessions of a kept scratch folder (e.g. after a run cut short, or with newer triage
    rules) and rewrite the results file, keeping the timing figures it already holds."""
    root: Path = options.keep
    shards = sorted(root.glob("shard-*"))
    sessions = [shard / "session.sqlite" for shard in shards]
    total, sample = sample_jobs(sessions[0], options.sample, options.seed)
    shares = [set(json.loads((shard / "order.json").read_text(encoding="utf-8"))) for shard in shards]
    mutants = [
        m
        for shard, session, share in zip(shards, sessions, shares, strict=True)
        for m in collect(session, shard, share)
    ]
    mutants.sort(key=lambda m: (m.module, m.line, m.column, m.operator, m.occurrence))
    mark_equivalents(mutants, load_equivalents())
    previous = json.loads(options.out.read_text(encoding="utf-8")) if options.out.is_file() else {}
    data: dict[str, Any] = {
        "tool": "cosmic-ray " + _version("cosmic-ray"),
        "module": options.module,
        "sample_seed": options.seed,
        "profile": options.profile,
        "test_command": suite_command(options.profile, options.seed)
        + "   (cwd: scratch copy of the repository)",
        **{k: v for k, v in previous.items() if k != "mutants"},
        "sample_size": len(sample),
        "mutants_in_module": total,
    }
    write_results(options.out, data, mutants, recheck_profile=options.profile)
    return 0


def _version(distribution: str) -> str:
    import importlib.metadata

    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
