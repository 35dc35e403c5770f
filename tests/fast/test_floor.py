"""benchmarks/floor.py and benchmarks/phases.py without a conformance run: the server-alone measurement
against the tiny test server, the floor's arithmetic, the table, how a stack sample is charged, and the
profile's measured figures."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path
from types import FrameType

import pytest

from benchmarks import phases
from benchmarks.floor import (
    Row,
    Server,
    engine_cost_in_child,
    floor_seconds,
    render,
    server_alone,
)
from conformance.drivers.wire import WireDriver
from conformance.targets.specs import resolve_target
from tests.servers import command


def test_the_server_alone_is_measured_on_a_real_process() -> None:
    target = resolve_target("cmd:" + shlex.join(command("mini")))
    found = server_alone(target, starts=2, calls=50)
    assert found.target == target.spec
    assert 0 < found.cold_start_s < 30
    assert found.calls_per_s > 0


def test_the_floor_is_round_trips_plus_starts() -> None:
    server = Server("npm:0.6.2", cold_start_s=0.5, calls_per_s=100.0)
    assert floor_seconds(server, calls=1000, processes=4) == pytest.approx(12.0)


def row(target: str, wall: float, note: str = "") -> Row:
    return Row(target, "ci", 1000, 4, 0.5, 100.0, 12.0, 990, 20.0, 22.0, wall, 3.0, 0, 2, 7, note, 400, 0.005)


def test_the_table_gives_both_floors_their_ratios_and_the_reference_against_the_original() -> None:
    table = render([row("npm:0.6.2", 44.0), row("reference", 55.0, "replay stopped after 3 of 990: why")])
    assert ("| npm:0.6.2 | ci | 1000 | 990 | 4 | 500 ms | 100/s | 50/s | 12.0 s | 22.0 s | 44.0 s"
            " | 3.67 | 2.00 | 3.0 s | 400 | 2.0 s | 1.00 |") in table
    assert "hypothesis alone: the run's examples × 5.00 ms" in table
    assert "| reference | ci | 1000 | 990 * | 4 |" in table
    assert "* reference ci: replay stopped after 3 of 990: why" in table
    assert "npm:0.6.2 ci: replayed on 2 fresh processes, one per process of the run's transcript;" in table
    assert "ci: the run on the reference takes 1.25× the same run on npm:0.6.2" in table
    assert "the run on the reference" not in render([row("npm:0.6.2", 24.0)])


def test_the_least_wall_is_the_servers_replay_plus_hypothesis_alone_on_the_runs_examples() -> None:
    """20 s replayed and 400 examples at 5 ms: 22 s at least, against a floor of 22 s with its starts."""
    found = row("npm:0.6.2", 44.0)
    assert found.engine_s == pytest.approx(2.0)
    assert found.least_ratio == pytest.approx(1.0)


def test_the_benchmark_measures_hypothesis_alone_in_a_child_that_keeps_its_files_where_told(
    tmp_path: Path
) -> None:
    """The benchmark's own process leaves hypothesis unused (a profiled run then sets where its files go)."""
    per_example = engine_cost_in_child(tmp_path / "hypothesis")
    assert 0 < per_example < 1.0
    assert (tmp_path / "hypothesis").is_dir()


def stack(*paths: str) -> FrameType:
    """The innermost frame of nested calls whose code claims to live in `paths`, outermost first (under this
    test's own frames, pytest's among them)."""
    inner: object = None
    for path in reversed(paths):
        body = "return sys._getframe()" if inner is None else "return callee()"
        namespace: dict[str, object] = {"callee": inner}
        exec(compile(f"import sys\ndef inner():\n    {body}\n", path, "exec"), namespace)
        inner = namespace["inner"]
    assert callable(inner)
    frame = inner()
    assert isinstance(frame, FrameType)
    return frame


@pytest.mark.parametrize(
    ("paths", "phase"),
    [
        (("/x/hypothesis/core.py", "/x/hypothesis/internal/conjecture/shrinker.py", "/x/json/encoder.py"),
         "shrinking"),
        (("/x/conformance/drivers/transcript.py", "/usr/lib/python3/json/encoder.py"), "transcript"),
        (("/x/conformance/suite/test_store.py", "/usr/lib/python3/json/encoder.py"), "JSON"),
        (("/x/hypothesis/strategies.py", "/usr/lib/python3/re/__init__.py"), "generation"),
        (("/x/conformance/drivers/process.py", "/usr/lib/python3/subprocess.py"), "processes"),
        (("/x/conformance/cli/main.py", "/usr/lib/python3/enum.py"), "report"),
        (("/usr/lib/python3/enum.py",), "pytest"),
    ],
)
def test_a_sample_is_charged_to_the_innermost_phase_that_owns_it(paths: tuple[str, ...], phase: str) -> None:
    """Library code that is no phase (enum, re) goes to the nearest caller that is one; JSON inside the
    transcript is the transcript's; anything under the shrinker is shrinking."""
    assert phases.classify(stack(*paths)) == phase


def test_the_pipe_timer_counts_the_drivers_reads_and_writes_and_then_leaves_the_driver_alone() -> None:
    original = (WireDriver._read_line, WireDriver._write)
    with phases.timed_pipe(phases.PipeTime()) as pipe, WireDriver(command("mini")) as driver:
        driver.initialize()
        for _ in range(5):
            driver.call_tool("sequentialthinking", {"thought": "x"})
    assert pipe.calls == 13  # a write and a read for initialize and each call; a write for the notification
    assert pipe.wall_s >= pipe.cpu_s >= 0 and pipe.wall_s > 0
    assert (WireDriver._read_line, WireDriver._write) == original


def test_a_profile_counts_only_the_cpu_of_its_own_run() -> None:
    """What this process reaped before the profiled run (the floor benchmark's runs) is not the run's."""
    burn = "import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end: pass"
    subprocess.run([sys.executable, "-c", burn], check=True)
    found = phases.profile(["records"])
    assert found.exit_code == 0
    assert found.servers_cpu_s < 0.3
    assert 0 < found.main_cpu_s <= found.cpu_s + 0.05
    assert "main thread's CPU" in phases.render(found)


@pytest.mark.parametrize(
    ("paths", "where"),
    [
        (("/x/conformance/cli/runner/preflight.py", "<frozen importlib._bootstrap>"), "imports"),
        (("/x/_pytest/main.py", "/x/hypothesis/internal/conjecture/shrinker.py",
          "/x/conformance/drivers/wire.py"), "shrinking"),
        (("/x/conformance/cli/runner/reporting.py", "/x/conformance/gate/evidence.py",
          "/x/conformance/drivers/wire.py"), "evidence"),
        (("/x/conformance/cli/runner/reporting.py", "/x/conformance/gate/spec_signatures.py",
          "/x/conformance/calls/meetings.py"), "signatures"),
        (("/x/_pytest/main.py", "/x/hypothesis/core.py", "/x/conformance/suite/test_store.py"), "retries"),
        (("/x/conformance/cli/runner/suite.py", "/x/hypothesis/core.py",
          "/x/hypothesis/internal/conjecture/engine.py", "/x/conformance/drivers/wire.py"), "search"),
        (("/x/conformance/cli/runner/preflight.py", "/x/conformance/drivers/wire.py"), "preflight"),
        (("/x/conformance/cli/runner/reporting.py", "/x/conformance/report/write.py"), "report"),
        (("/x/conformance/cli/runner/suite.py", "/x/conformance/suite/test_lifecycle.py",
          "/x/conformance/suite/rawproc.py"), "holds"),
        (("/x/conformance/cli/runner/reporting.py", "/x/conformance/gate/signatures.py",
          "/x/conformance/gate/idle_watch.py"), "holds"),
    ],
)
def test_a_sample_is_charged_to_the_stage_its_whole_stack_is_in(paths: tuple[str, ...], where: str) -> None:
    """A stage is read from the whole stack: the same wire read is evidence under gate/evidence.py and
    search under the engine; hypothesis running a test outside its engine is the minimal example's replay."""
    frame = stack(*paths)
    if where == "retries":  # run_engine's own frame replays the minimal example directly
        frame = _named(paths, "run_engine")
    if where == "holds":  # the innermost frame is the one holding: `hold_idle`, `IdleWatch._finish`
        held = "hold_idle" if "suite/rawproc.py" in paths[-1] else "_finish"
        frame = _named(paths, held, at=len(paths) - 1)
    assert phases.stage(frame) == where


def _named(paths: tuple[str, ...], name: str, at: int = 1) -> FrameType:
    """`stack`, with the frame of path `at` (the second by default) given the code name `name`."""
    inner: object = None
    for index, path in reversed(list(enumerate(paths))):
        function = name if index == at else "inner"
        body = "return sys._getframe()" if inner is None else "return callee()"
        namespace: dict[str, object] = {"callee": inner}
        exec(compile(f"import sys\ndef {function}():\n    {body}\n", path, "exec"), namespace)
        inner = namespace[function]
    assert callable(inner)
    frame = inner()
    assert isinstance(frame, FrameType)
    return frame
