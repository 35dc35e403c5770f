"""`conformance run`: check the target can be driven, run the suite in-process, judge, write the report.

The target is resolved and started once before the suite (preflight), so a target that cannot start,
does not offer the tool, or writes garbage on stdout gets a one-line reason and a report saying so
instead of a suite full of identical failures; the preflight's process then serves as the suite's shared
server. SIGTERM, SIGINT and `--max-time` stop the run within seconds with a report that says so
(`drivers/cancel.py`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import shlex
import shutil
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TextIO

import pytest

from conformance.catalog.fixtures import fixtures_dir
from conformance.catalog.view import CatalogView, load_catalog_view
from conformance.cli.progress import Progress
from conformance.drivers import cancel, process
from conformance.drivers.errors import DriverError, HarnessError, TargetError
from conformance.drivers.transcript import Transcript
from conformance.drivers.wire import WireDriver
from conformance.gate import exit_status
from conformance.gate.assemble import TargetSeen, assemble_report
from conformance.gate.baseline import (
    Baseline,
    canonical_entries,
    check_project,
    check_spec,
    load_baseline,
)
from conformance.gate.findings import check_findings, load_findings
from conformance.gate.run_options import RunOptions
from conformance.gate.signatures import RecordSignature, sign_departures
from conformance.report.escape import safe, write_line
from conformance.report.model import Preflight, Report, RunInfo
from conformance.report.write import write_report
from conformance.results import RunResults, TestOutcome
from conformance.suite.handover import Handover
from conformance.suite.plugin import slug
from conformance.suite.session import PROTOCOL_VERSION, TOOL
from conformance.suite.workers import WORKER_PREFIX
from conformance.targets.identity import harness_identity
from conformance.targets.kinds import unresolved_identity
from conformance.targets.project import project_of
from conformance.targets.specs import Target, default_cache_dir, resolve_target

OUTPUTS = ("report.json", "report.md", "report.html", "junit.xml", "pytest.log", "transcripts")
_PYTEST_OK = (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)


@dataclass
class RunOutcome:
    """What the CLI needs: the exit status, the one line for stderr when it is 2, the report if written."""

    exit_code: int
    report: Report | None = None
    message: str | None = None


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def run(options: RunOptions, stream: TextIO) -> RunOutcome:
    """One run under SIGTERM/SIGINT/deadline handling: a stop ends it early with a report that says so."""
    with cancel.handling(options.max_time), Handover() as handover:
        return _run(options, stream, handover)


def _run(options: RunOptions, stream: TextIO, handover: Handover) -> RunOutcome:
    catalog = load_catalog_view()
    baseline = _checked_baseline(options, catalog)
    findings = load_findings(fixtures_dir() / "findings.yaml")
    check_findings(findings, catalog.canonical)
    out = options.out
    _clear_outputs(out)
    started, t0 = _now(), time.monotonic()
    transcripts = out / "transcripts"
    transcripts.mkdir(parents=True, exist_ok=True)

    def finish(
        results: RunResults | None,
        seen: TargetSeen,
        pytest_exit: int | None,
        why: str,
        sign: Callable[[list[str]], Mapping[str, RecordSignature]] | None = None,
    ) -> Report:
        tests = results.tests if results is not None else []
        stop = cancel.requested()
        interrupted = stop.reason if stop is not None else results.stopped if results is not None else None
        if interrupted is not None:
            why = f"not run: {interrupted}"
        report = assemble_report(
            catalog=catalog.records,
            canonical=catalog.canonical,
            results=results,
            seen=seen,
            harness=results.harness
            if results is not None
            else harness_identity(profile=options.profile, seed=str(options.seed)),
            run=RunInfo(
                started=started,
                finished=_now(),
                duration_s=round(time.monotonic() - t0, 3),
                jobs=options.jobs,
                processes_started=results.processes_started if results else process.processes_started(),
                calls_made=results.calls_made if results else 0,
                tests=len(tests),
                rerun=shlex.join(options.command()),
                pytest_exit=pytest_exit,
                interrupted=interrupted,
            ),
            generated=_now(),
            baseline=baseline,
            baseline_path=str(options.baseline) if options.baseline else None,
            findings=findings,
            not_run_reason=why,
            sign=sign,
        )
        write_report(report, out)
        return report

    seen = TargetSeen(unresolved_identity(options.target), Preflight(ok=False, error="cancelled"), {}, None)
    try:
        try:
            target = resolve_target(
                options.target,
                cache_dir=options.cache,
                progress=lambda msg: write_line(f"  {safe(msg, 200)}", stream),
            )
        except TargetError as exc:
            message = f"target {options.target} cannot be used: {exc}"
            unusable = Preflight(ok=False, error=str(exc))
            seen = TargetSeen(unresolved_identity(options.target), unusable, {}, None)
            return RunOutcome(exit_status.UNUSABLE, finish(None, seen, None, message), message)
        if baseline is not None and options.baseline is not None:
            check_project(baseline, options.baseline, options.target, project_of(target.identity))

        write_line(f"preflight: starting {safe(options.target)}", stream)
        preflight, server_info, protocol = check_target(
            target, transcripts / "preflight.jsonl", options.timeout,
            handover=handover if options.jobs == 1 else None,
        )
        preflight = preflight.model_copy(update={"transcript": "transcripts/preflight.jsonl"})
        seen = TargetSeen(target.identity, preflight, server_info, protocol)
        if not preflight.ok:
            message = f"target {options.target} is not usable: {preflight.error}{_stderr_hint(preflight)}"
            return RunOutcome(exit_status.UNUSABLE, finish(None, seen, None, message), message)

        with tempfile.TemporaryDirectory(prefix="seqthink-run-") as tmp:
            results_dir = Path(tmp) / "results"
            pytest_exit = run_suite(options, results_dir, Path(tmp), catalog, stream, handover)
            results = collect_results(results_dir, target.spec)
            if results is not None:
                _copy_transcripts(results_dir, transcripts, results)
                results = _relocated(results)
    except cancel.Cancelled:
        return _stopped(finish(None, seen, None, "not run"))
    stop = cancel.requested()
    if stop is not None:
        handover.close()
        return _stopped(finish(results, seen, int(pytest_exit), "not run"))
    if pytest_exit not in _PYTEST_OK or results is None:
        why = _pytest_failure(pytest_exit, results is None)
        message = f"the suite could not run against {options.target}: {why} (see {out / 'pytest.log'})"
        return RunOutcome(exit_status.UNUSABLE, finish(results, seen, int(pytest_exit), message), message)
    report = finish(
        results, seen, int(pytest_exit), "no test evidences this record",
        sign=lambda ids: sign_departures(target, ids, options.timeout, transcripts / "witnesses.jsonl"),
    )
    if options.against is not None:
        report = _with_comparison(report, options, target, transcripts, stream)
    return RunOutcome(exit_status.OK if report.gate.passed else exit_status.GATE_FAILED, report)


def _with_comparison(report: Report, options: RunOptions, target: Target, transcripts: Path,
                     stream: TextIO) -> Report:
    """`run --against B`: the same report, with the comparison of the target with B (and its root causes)."""
    from conformance.compare import run_comparison

    assert options.against is not None
    write_line(f"compare: {safe(options.target)} vs {safe(options.against)}", stream)
    outcome = run_comparison(
        target, options.against, profile=options.profile, seed=options.seed, cache=options.cache,
        call_timeout=options.timeout, transcripts=transcripts,
        progress=lambda line: write_line(f"  {safe(line, 200)}", stream),
    )
    report = report.model_copy(
        update={"comparison": outcome.comparison, "root_causes": [*report.root_causes, *outcome.root_causes]}
    )
    write_report(report, options.out)
    return report


def _stopped(report: Report) -> RunOutcome:
    """The outcome of a run stopped by a signal or its deadline: the signal's exit status, one line why."""
    stop = cancel.requested()
    assert stop is not None
    return RunOutcome(stop.exit_code, report, f"run stopped: {stop.reason}; unfinished records are not run")


def _checked_baseline(options: RunOptions, catalog: CatalogView) -> Baseline | None:
    if options.baseline is None:
        return None
    baseline = load_baseline(options.baseline)
    check_spec(baseline, options.baseline, options.target)
    canonical_entries(baseline, catalog.canonical)
    return baseline


def _clear_outputs(out: Path) -> None:
    """Remove what an earlier run wrote here (only our own files: `out` may hold other things)."""
    out.mkdir(parents=True, exist_ok=True)
    for name in OUTPUTS:
        path = out / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()


def check_target(
    target: Target,
    transcript_path: Path,
    timeout: float,
    *,
    handover: Handover | None = None,
) -> tuple[Preflight, dict[str, str], str | None]:
    """Start the target once: it must initialize over clean JSON-RPC and offer the tool. A usable process is
    handed over (to become the suite's shared server) instead of closed, when `handover` is given."""
    server_info: dict[str, str] = {}
    protocol: str | None = None
    with Transcript(transcript_path) as transcript:
        driver = target.wire(timeout=timeout, transcript=transcript)
        handed = False

        def keep(checked: Preflight) -> Preflight:
            nonlocal handed
            if checked.ok and handover is not None:
                handover.offer(target, driver)
                handed = True
            return checked

        try:
            with _closing_unless(driver, lambda: handed):
                result = driver.initialize(PROTOCOL_VERSION)
                info = result.get("serverInfo")
                if isinstance(info, dict):
                    server_info = {str(k): str(v) for k, v in info.items()}
                version = result.get("protocolVersion")
                protocol = version if isinstance(version, str) else None
                listing = driver.list_tools()
                tools = _tool_names(listing.result)
                stderr_tail = driver.stderr_tail()
                if listing.error is not None:
                    return (
                        Preflight(
                            ok=False,
                            tool_offered=False,
                            stderr_tail=stderr_tail,
                            error=f"tools/list was answered with an error: {listing.error}",
                        ),
                        server_info,
                        protocol,
                    )
                if tools is None:
                    return (
                        Preflight(
                            ok=False,
                            tool_offered=False,
                            stderr_tail=stderr_tail,
                            error="tools/list answer has no list of tools",
                        ),
                        server_info,
                        protocol,
                    )
                if TOOL not in tools:
                    offered = ", ".join(tools) or "no tools"
                    return (
                        Preflight(
                            ok=False,
                            tool_offered=False,
                            tools=tools,
                            stderr_tail=stderr_tail,
                            error=f"it does not offer the {TOOL} tool (it offers: {offered})",
                        ),
                        server_info,
                        protocol,
                    )
                return (
                    keep(Preflight(ok=True, tool_offered=True, tools=tools, stderr_tail=stderr_tail)),
                    server_info,
                    protocol,
                )
        except DriverError as exc:
            return (Preflight(ok=False, error=str(exc), stderr_tail=exc.stderr_tail), server_info, protocol)
        except TargetError as exc:
            return Preflight(ok=False, error=str(exc)), server_info, protocol


@contextlib.contextmanager
def _closing_unless(driver: WireDriver, kept: Callable[[], bool]) -> Iterator[WireDriver]:
    """Start `driver`; close it on the way out unless it was handed over."""
    try:
        driver.start()
        yield driver
    finally:
        if not kept():
            driver.close()


def _stderr_hint(preflight: Preflight) -> str:
    """The server's last stderr line, which usually says why it would not start (not when it did start)."""
    if preflight.tool_offered is not None:
        return ""
    lines = [line.strip() for line in preflight.stderr_tail.splitlines() if line.strip()]
    return f" (its stderr: {lines[-1][:300]})" if lines else ""


def _tool_names(result: object) -> list[str] | None:
    if not isinstance(result, dict):
        return None
    tools = result.get("tools")
    if not isinstance(tools, list):
        return None
    return [str(t.get("name")) for t in tools if isinstance(t, dict)]


def pytest_args(options: RunOptions, results_dir: Path) -> list[str]:
    """The suite's command line: only our own ini, only the plugins we name, nothing from the caller."""
    package_root = Path(str(resources.files("conformance"))).parent
    ini = Path(str(resources.files("conformance").joinpath("run-pytest.ini")))
    args = [
        "--pyargs",
        options.suite,
        "-c",
        str(ini),
        "--rootdir",
        str(package_root),
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-p",
        "_hypothesis_pytestplugin",
        "-p",
        "syrupy",
        "-p",
        "conformance.suite.plugin",
        "-p",
        "conformance.cli.progress",
        "--target",
        options.target,
        "--profile",
        options.profile,
        "--results-dir",
        str(results_dir),
        "--hypothesis-seed",
        str(options.seed),
        "--call-timeout",
        str(options.timeout),
        "--snapshot-warn-unused",
        "-q",
        "-rfE",
        "--tb=short",
    ]
    if options.cache is not None:
        args += ["--target-cache", str(options.cache)]
    if options.jobs > 1:
        args += ["-p", "xdist.plugin", "-p", "conformance.suite.workers",
                 "-n", str(options.jobs), "--dist", "load"]
    return args


def _hypothesis_storage(options: RunOptions, scratch: Path) -> Path:
    """Where hypothesis keeps its Unicode tables between runs (computing them costs seconds per run).

    The profiles use no example database, so nothing here can change which examples a seed gives; an
    unwritable cache falls back to the run's scratch folder.
    """
    cache = (options.cache or default_cache_dir()) / "hypothesis"
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:
        return scratch / "hypothesis"
    return cache


@contextlib.contextmanager
def _isolated_environment(storage: Path) -> Iterator[None]:
    """No plugin autoload, no PYTEST_ADDOPTS, no example database (the seed decides examples); hypothesis'
    own storage holds only its Unicode tables."""
    saved = {
        k: os.environ.get(k)
        for k in (
            "PYTEST_ADDOPTS",
            "PYTEST_PLUGINS",
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
            "HYPOTHESIS_STORAGE_DIRECTORY",
        )
    }
    os.environ.pop("PYTEST_ADDOPTS", None)
    os.environ.pop("PYTEST_PLUGINS", None)
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = str(storage)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def run_suite(
    options: RunOptions, results_dir: Path, scratch: Path, catalog: CatalogView, stream: TextIO,
    handover: Handover,
) -> int | pytest.ExitCode:
    """pytest.main in this process; its own output goes to pytest.log, the terminal shows progress."""
    progress = Progress(stream, records_total=catalog.observable_count, canonical=catalog.canonical)
    log = options.out / "pytest.log"
    with (
        log.open("w", encoding="utf-8", errors="backslashreplace") as handle,
        _isolated_environment(_hypothesis_storage(options, scratch)),
        contextlib.redirect_stdout(handle),
    ):
        try:
            return pytest.main(pytest_args(options, results_dir), plugins=[progress, handover])
        except Exception:  # a plugin or suite bug must end in one line and a report, not a traceback
            traceback.print_exc(file=handle)
            return pytest.ExitCode.INTERNAL_ERROR


def collect_results(results_dir: Path, spec: str) -> RunResults | None:
    """The plugin's results for `spec`: one file, or one per xdist worker merged into one."""
    name = f"results-{slug(spec)}.json"
    single = results_dir / name
    if single.is_file():
        return RunResults.model_validate_json(single.read_text(encoding="utf-8"))
    parts = sorted(results_dir.glob(f"{WORKER_PREFIX}*/{name}"))
    if not parts:
        return None
    return merge_results(
        [RunResults.model_validate_json(p.read_text(encoding="utf-8")) for p in parts],
        [p.parent.name for p in parts],
        extra_processes=process.processes_started(),
    )


def merge_results(
    parts: Sequence[RunResults], workers: Sequence[str], *, extra_processes: int = 0
) -> RunResults:
    """One result set from xdist workers' sets: worker-qualified transcript paths, tests in nodeid order."""
    tests: list[TestOutcome] = []
    for part, worker in zip(parts, workers, strict=True):
        for outcome in part.tests:
            transcript = outcome.transcript
            if transcript is not None:
                transcript = f"{worker}/{transcript}"
            tests.append(outcome.model_copy(update={"transcript": transcript}))
    tests.sort(key=lambda t: t.nodeid)
    first = parts[0]
    server_info = next((p.server_info for p in parts if p.server_info), {})
    return first.model_copy(
        update={
            "server_info": server_info,
            "protocol_version": next((p.protocol_version for p in parts if p.protocol_version), None),
            "started": min(p.started for p in parts),
            "finished": max(p.finished for p in parts),
            "processes_started": sum(p.processes_started for p in parts) + extra_processes,
            "calls_made": sum(p.calls_made for p in parts),
            "tests": tests,
        }
    )


def _copy_transcripts(results_dir: Path, dest: Path, results: RunResults) -> None:
    for outcome_path in sorted({t.transcript for t in results.tests if t.transcript}):
        source = results_dir / outcome_path
        if source.is_file():
            target = dest / _flat_name(outcome_path)
            if not target.exists():
                shutil.copyfile(source, target)


def _flat_name(relative: str) -> str:
    """transcripts/x.jsonl → x.jsonl; worker-gw0/transcripts/x.jsonl → x.worker-gw0.jsonl."""
    parts = Path(relative).parts
    name = Path(parts[-1])
    workers = [p for p in parts if p.startswith(WORKER_PREFIX)]
    return f"{name.stem}.{workers[0]}{name.suffix}" if workers else name.name


def _relocated(results: RunResults) -> RunResults:
    tests = [
        t.model_copy(update={"transcript": f"transcripts/{_flat_name(t.transcript)}"}) if t.transcript else t
        for t in results.tests
    ]
    return results.model_copy(update={"tests": tests})


def _pytest_failure(code: int | pytest.ExitCode, missing: bool) -> str:
    if code == pytest.ExitCode.NO_TESTS_COLLECTED:
        return "no tests were collected"
    if code == pytest.ExitCode.INTERRUPTED:
        return "the run was interrupted (or the suite failed to import)"
    if code == pytest.ExitCode.USAGE_ERROR:
        return "pytest rejected the command line"
    if code == pytest.ExitCode.INTERNAL_ERROR:
        return "pytest hit an internal error"
    if missing:
        return "the suite wrote no results"
    return f"pytest exited with status {int(code)}"


__all__ = [
    "HarnessError",
    "RunOptions",
    "RunOutcome",
    "check_target",
    "collect_results",
    "merge_results",
    "run",
]
