"""benchmarks/floor.py and benchmarks/phases.py without a conformance run: the server-alone measurement
against the tiny test server, the floor's arithmetic, the table, and how a stack sample is charged."""

from __future__ import annotations

import shlex
from types import FrameType

import pytest

from benchmarks import phases
from benchmarks.floor import Row, Server, floor_seconds, render, server_alone
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


def row(target: str, wall: float) -> Row:
    return Row(target, "ci", 1000, 4, 0.5, 100.0, 12.0, wall, 3.0, 0)


def test_the_table_gives_the_ratio_and_the_reference_against_the_original() -> None:
    table = render([row("npm:0.6.2", 24.0), row("reference", 30.0)])
    assert "| npm:0.6.2 | ci | 1000 | 4 | 500 ms | 100/s | 12.0 s | 24.0 s | 2.00 | 3.0 s |" in table
    assert "ci: the run on the reference takes 1.25× the same run on npm:0.6.2" in table
    assert "the run on the reference" not in render([row("npm:0.6.2", 24.0)])


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
