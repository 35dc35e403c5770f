"""Where a `conformance run`'s own time goes, per phase: a sampling profile attributed by module.

`python -m benchmarks.phases [--json FILE] -- run --target npm:0.6.2 --profile ci --seed 1 --out DIR`
runs the command line in this process with a thread that samples the main thread's stack every few
milliseconds. Each sample's wall time goes to one phase, decided by the stack:

- imports: anything under the import machinery (interpreter start is not sampled);
- shrinking: anything under hypothesis' shrinker (a conforming target has none);
- server: the driver blocked on the server's pipes (poll, read, write), i.e. the floor's share;
- processes: starting, initializing and ending server processes (the time a start costs is the floor's
  other share, but a process the harness waits on is counted here);
- else the innermost frame's owner: transcript, JSON (encoding and decoding frames), driver (the wire
  driver's own Python), generation (hypothesis drawing examples), checks (the suite's own code: oracle,
  models, assertions), pytest (pytest and pluggy), report (gate, writers, the CLI), other.

A frame of the standard library or another library that is not itself a phase (re, enum, pydantic,
threading, ...) is charged to the nearest frame above it that is. Sampling costs a GIL handoff per
sample, so a profiled run is a little slower than a plain one: quote its shares, not its wall time.

Each sample is also charged to one stage of the run, read from the whole stack (`stage`): imports,
preflight, search (the suite generating and checking), shrinking (hypothesis' shrinker and its explain
phase), retries (hypothesis' final replay of a minimal failing example, a shared process restarted),
holds (a process held idle before what it does between calls is judged: `RawPool.hold_idle`, the idle
witness's wait past the witnesses), signatures (departures' witnesses met again to sign them, the
baseline's pinned witnesses), evidence (examples replayed on fresh processes of the target and the
original, `gate/evidence.py`) and report (judging and writing). The red/green benchmark (`red_green.py`)
quotes these. Every server process started is counted too, by the stage that started it (`counted_starts`):
the report's `run.processes_started` is counted when the suite ends, so it leaves out the processes
signatures and evidence start after it.

A sampler thread gets the GIL most readily while the main thread is blocked in a system call, so blocked
phases (`server` above all) are over-sampled. Two measured figures check the shares: the main thread's own
CPU (`time.thread_time`) and the time the main thread spent inside the wire driver's pipe reads and writes
(`WireDriver._read_line` and `_write`, timed by a wrapper this profiler installs for the run and removes
after), split into CPU and blocked (wall minus CPU). CPU figures are deltas over the profiled run only.
"""

from __future__ import annotations

import argparse
import json
import linecache
import os
import resource
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Final, ParamSpec, TypeVar

from benchmarks.harness_runs import cpu_seconds
from conformance.drivers import process
from conformance.drivers.wire import WireDriver

_P = ParamSpec("_P")
_R = TypeVar("_R")

PHASES: Final = (
    "server", "processes", "generation", "shrinking", "checks", "driver", "JSON", "transcript", "pytest",
    "report", "imports", "other",
)
_BLOCKING: Final = ("poll(", "os.read(", "os.write(", ".readline(", "select(")
STAGES: Final = (
    "imports", "preflight", "search", "shrinking", "retries", "holds", "signatures", "evidence", "report",
    "other",
)
_HOLDS: Final = (("/conformance/suite/rawproc.py", "hold_idle"),
                  ("/conformance/gate/idle_watch.py", "_finish"))
"""The frames a process is held idle under (the suite's idle check, the idle witness's wait outlasting the
witnesses): time a red run waits on a clock, not on the server."""
_SIGNING_FILES: Final = ("/conformance/gate/signatures.py", "/conformance/gate/spec_signatures.py",
                         "/conformance/gate/pinned.py")
_PROCESS_FILES: Final = ("/conformance/drivers/process.py", "/conformance/drivers/lifecycle.py",
                         "/conformance/suite/rawproc.py", "/conformance/suite/fresh_runs.py",
                         "/conformance/drivers/sdk.py", "/subprocess.py", "/anyio/", "/mcp/")


def _owner(frame: FrameType) -> str | None:
    """The phase a frame's own code belongs to, or None for code charged to its caller."""
    path = frame.f_code.co_filename
    if "/conformance/drivers/transcript.py" in path:
        return "transcript"
    if "/conformance/drivers/wire.py" in path:
        line = linecache.getline(path, frame.f_lineno)
        return "server" if any(call in line for call in _BLOCKING) else "driver"
    if any(part in path for part in _PROCESS_FILES):
        return "processes"
    if "/json/" in path or path.endswith("/json/__init__.py"):
        return "JSON"
    if "/hypothesis/" in path:
        return "generation"
    if "/conformance/suite/" in path or "/conformance/calls/" in path or "/syrupy/" in path:
        return "checks"
    if "/_pytest/" in path or "/pluggy/" in path or "/xdist/" in path:
        return "pytest"
    if "/conformance/" in path:
        return "report"
    return None


def classify(frame: FrameType | None) -> str:
    """One sample's phase, from the innermost frame outwards (see the module's docstring)."""
    owner: str | None = None
    stack: list[FrameType] = []
    while frame is not None:
        stack.append(frame)
        frame = frame.f_back
    for f in stack:
        path = f.f_code.co_filename
        if path.startswith("<frozen importlib"):
            return "imports"
        if "/hypothesis/internal/conjecture/shrink" in path:
            return "shrinking"
    for f in stack:
        owner = _owner(f)
        if owner is not None:
            if owner in ("JSON", "driver") and any(
                "/conformance/drivers/transcript.py" in g.f_code.co_filename for g in stack
            ):
                return "transcript"
            return owner
    return "other"


def stage(frame: FrameType | None) -> str:
    """One sample's stage of the run, from its whole stack (see the module's docstring)."""
    stack: list[FrameType] = []
    while frame is not None:
        stack.append(frame)
        frame = frame.f_back
    paths = [(f.f_code.co_filename, f.f_code.co_name) for f in stack]
    if any(path.startswith("<frozen importlib") for path, _ in paths):
        return "imports"
    if any("/hypothesis/internal/conjecture/shrink" in path for path, _ in paths):
        return "shrinking"
    if any(path.endswith(file) and name == held for path, name in paths for file, held in _HOLDS):
        return "holds"
    if any("/conformance/gate/evidence.py" in path for path, _ in paths):
        return "evidence"
    if any(part in path for path, _ in paths for part in _SIGNING_FILES):
        return "signatures"
    if _restarting(stack):
        return "retries"
    if any(path.endswith("/hypothesis/core.py") and name == "run_engine" for path, name in paths) and not any(
            "/hypothesis/internal/conjecture/engine.py" in path for path, _ in paths):
        return "retries"  # the final replay of the minimal failing example: run_engine calls it directly
    if any("/conformance/cli/runner/preflight.py" in path for path, _ in paths):
        return "preflight"
    if any("/conformance/cli/runner/suite.py" in path or "/conformance/suite/" in path for path, _ in paths):
        return "search"
    if any("/conformance/" in path for path, _ in paths):
        return "report"
    return "other"


def _restarting(stack: list[FrameType]) -> bool:
    """Whether the shared session is starting a process to replace a dead one (`wire` counted a restart)."""
    for f in stack:
        if f.f_code.co_name == "wire" and f.f_code.co_filename.endswith("/conformance/suite/session.py"):
            inner = stack[: stack.index(f)]
            return any(g.f_code.co_name == "_start" for g in inner) and bool(
                getattr(f.f_locals.get("self"), "restarts", 0))
    return False


@dataclass
class Sampler:
    """Samples one thread's stack on a background thread; each sample weighs the wall time since the last."""

    thread_id: int
    interval: float = 0.002
    seconds: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    stages: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    functions: dict[str, defaultdict[str, float]] = field(default_factory=dict)
    samples: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> Sampler:
        self._thread = threading.Thread(target=self._loop, name="phase-sampler", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _loop(self) -> None:
        last = time.perf_counter()
        while not self._stop.wait(self.interval):
            frame = sys._current_frames().get(self.thread_id)
            now = time.perf_counter()
            weight, last = now - last, now
            if frame is None:
                continue
            phase = classify(frame)
            self.seconds[phase] += weight
            self.stages[stage(frame)] += weight
            code = frame.f_code
            where = f"{_short(code.co_filename)}:{code.co_name}"
            self.functions.setdefault(phase, defaultdict(float))[where] += weight
            self.samples += 1


def _short(path: str) -> str:
    for marker in ("/site-packages/", "/lib/python3", "/conformance/"):
        if marker in path:
            return path.split(marker, 1)[1] if marker != "/conformance/" else "conformance/" + path.split(
                marker, 1)[1]
    return os.path.basename(path)


@dataclass
class PipeTime:
    """Seconds the main thread spent in the wire driver's pipe reads and writes, and the CPU among them."""

    calls: int = 0
    wall_s: float = 0.0
    cpu_s: float = 0.0

    @property
    def blocked_s(self) -> float:
        return max(self.wall_s - self.cpu_s, 0.0)


@contextmanager
def timed_pipe(found: PipeTime) -> Iterator[PipeTime]:
    """Time `WireDriver._read_line` and `_write` on the main thread while inside (the class is restored
    after): the profiler's check of the sampled `server` share; the driver is never slowed otherwise."""
    main = threading.main_thread().ident
    originals = {name: getattr(WireDriver, name) for name in ("_read_line", "_write")}

    def timing(method: Callable[_P, _R]) -> Callable[_P, _R]:
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            if threading.get_ident() != main:
                return method(*args, **kwargs)
            wall, cpu = time.perf_counter(), time.thread_time()
            try:
                return method(*args, **kwargs)
            finally:
                found.calls += 1
                found.cpu_s += time.thread_time() - cpu
                found.wall_s += time.perf_counter() - wall
        return wrapper

    for name, method in originals.items():
        setattr(WireDriver, name, timing(method))
    try:
        yield found
    finally:
        for name, method in originals.items():
            setattr(WireDriver, name, method)


@contextmanager
def counted_starts(found: defaultdict[str, int]) -> Iterator[defaultdict[str, int]]:
    """Count every server process started while inside by the stage that started it (`stage` of the starting
    thread's stack: evidence replays start theirs on threads of their own). The report's
    `run.processes_started` is counted when the suite ends, before signatures and evidence start theirs;
    this counts them all. `drivers/process.register_group` counts every start, whoever asks (restored
    after)."""
    original = process.register_group

    def counting(pgid: int | None) -> None:
        charged = stage(sys._getframe(1))
        if charged in ("report", "other") and threading.current_thread() is not threading.main_thread():
            # A start on a helper thread whose stack says nothing of the run (the SDK client's portal): the
            # main thread's stage is the one that asked for it.
            charged = stage(sys._current_frames().get(threading.main_thread().ident or 0))
        found[charged] += 1
        original(pgid)

    process.register_group = counting
    try:
        yield found
    finally:
        process.register_group = original


@dataclass(frozen=True)
class Profile:
    """What one profiled run spent, per phase; CPU seconds of this process and of the servers it reaped during
    the run; the main thread's CPU and its time in the wire driver's pipe reads and writes (measured)."""

    command: list[str]
    exit_code: int
    wall_s: float
    cpu_s: float
    servers_cpu_s: float
    samples: int
    phases: dict[str, float]
    top: dict[str, list[tuple[str, float]]]
    main_cpu_s: float = 0.0
    pipe: PipeTime = field(default_factory=PipeTime)
    stages: dict[str, float] = field(default_factory=dict)
    starts: dict[str, int] = field(default_factory=dict)
    """Server processes started, by the stage that started them (`counted_starts`)."""

    def to_json(self) -> dict[str, object]:
        return {
            "command": self.command, "exit_code": self.exit_code, "wall_s": self.wall_s, "cpu_s": self.cpu_s,
            "servers_cpu_s": self.servers_cpu_s, "samples": self.samples, "phases": self.phases,
            "stages": self.stages, "starts": self.starts,
            "top": {k: [list(pair) for pair in v] for k, v in self.top.items()},
            "main_thread_cpu_s": self.main_cpu_s,
            "pipe": {"calls": self.pipe.calls, "wall_s": self.pipe.wall_s, "cpu_s": self.pipe.cpu_s,
                     "blocked_s": self.pipe.blocked_s},
        }


def profile(argv: Sequence[str], interval: float = 0.002, top: int = 6) -> Profile:
    """`python -m conformance ARGV` in this process under the sampler (its imports included).

    CPU is counted from here on: a process that ran other things first (the floor benchmark's runs) would
    otherwise charge their CPU, and their reaped children's, to this run."""
    cpu_before, children_before = cpu_seconds(resource.RUSAGE_SELF), cpu_seconds(resource.RUSAGE_CHILDREN)
    main_before = time.thread_time()
    started = time.perf_counter()
    with (timed_pipe(PipeTime()) as pipe, counted_starts(defaultdict(int)) as starts,
          Sampler(threading.main_thread().ident or 0, interval) as sampler):
        from conformance.cli.main import main

        exit_code = main(list(argv))
    wall = time.perf_counter() - started
    return Profile(
        command=["python", "-m", "conformance", *argv],
        exit_code=exit_code,
        wall_s=wall,
        cpu_s=cpu_seconds(resource.RUSAGE_SELF) - cpu_before,
        servers_cpu_s=cpu_seconds(resource.RUSAGE_CHILDREN) - children_before,
        samples=sampler.samples,
        phases={p: round(sampler.seconds.get(p, 0.0), 3) for p in PHASES},
        top={p: [(name, round(s, 3)) for name, s in _heaviest(sampler.functions[p], top)]
             for p in PHASES if p in sampler.functions},
        main_cpu_s=time.thread_time() - main_before,
        pipe=pipe,
        stages={s: round(sampler.stages.get(s, 0.0), 3) for s in STAGES},
        starts={s: starts[s] for s in STAGES if starts.get(s)},
    )


def _heaviest(seconds: dict[str, float], count: int) -> list[tuple[str, float]]:
    return sorted(seconds.items(), key=lambda pair: -pair[1])[:count]


def render(found: Profile) -> str:
    total = sum(found.phases.values()) or 1.0
    lines = [
        f"{' '.join(found.command)}: exit {found.exit_code}, {found.wall_s:.1f} s wall, harness CPU"
        f" {found.cpu_s:.1f} s, servers' CPU {found.servers_cpu_s:.1f} s, {found.samples} samples",
        f"{'phase':<12}{'seconds':>9}{'share':>8}  where (innermost function, seconds)",
    ]
    for phase in sorted(found.phases, key=lambda p: -found.phases[p]):
        seconds = found.phases[phase]
        where = ", ".join(f"{name} {s:.1f}" for name, s in found.top.get(phase, [])[:3])
        lines.append(f"{phase:<12}{seconds:>9.2f}{seconds / total:>8.1%}  {where}")
    lines.append("stages: " + ", ".join(f"{name} {seconds:.1f}" for name, seconds in found.stages.items()
                                        if seconds >= 0.05))
    lines.append(f"server processes started: {sum(found.starts.values())} ("
                 + ", ".join(f"{name} {count}" for name, count in found.starts.items()) + ")")
    server = found.phases.get("server", 0.0)
    lines += [
        "measured, beside the samples:",
        f"  main thread's CPU {found.main_cpu_s:.1f} s of {found.wall_s:.1f} s wall"
        f" ({found.main_cpu_s / (found.wall_s or 1.0):.0%})",
        f"  in the wire driver's pipe reads and writes ({found.pipe.calls} calls): {found.pipe.wall_s:.1f} s,"
        f" of which blocked {found.pipe.blocked_s:.1f} s and CPU {found.pipe.cpu_s:.1f} s"
        f" (sampled `server`: {server:.1f} s)",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.phases", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", type=str, default=None, metavar="FILE", help="also write the figures here")
    parser.add_argument("--interval", type=float, default=0.002, help="seconds between samples")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the `conformance` command line")
    args = parser.parse_args(argv)
    command = [part for part in args.command if part != "--"] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the conformance command line after --, e.g. -- run --target npm:0.6.2")
    found = profile(command, args.interval)
    print(render(found), file=sys.stderr)
    if args.json is not None:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(found.to_json(), handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
