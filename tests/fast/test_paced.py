"""tests/paced.py: a command waited for while it writes, ended once it falls silent or runs past its limit.
Real child processes."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.paced import run_paced

_STEADY = "import time\nfor i in range(12):\n    print(i, flush=True)\n    time.sleep(0.25)\n"
"""Three seconds of steady progress: longer than the stall, never silent for it."""


def test_a_command_still_writing_runs_past_the_stall_to_its_end(tmp_path: Path) -> None:
    """A whole deadline of one stall (1 s) ended this 3 s command; paced, it ends on its own."""
    done = run_paced([sys.executable, "-c", _STEADY], cwd=tmp_path, stall=1.0, limit=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(i) for i in range(12)]


def test_a_silent_command_is_ended_after_the_stall_with_its_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    code = ("import os, subprocess, sys, time\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
            f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
            "print('started', flush=True)\ntime.sleep(120)\n")
    began = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired) as raised:
        run_paced([sys.executable, "-c", code], cwd=tmp_path, stall=1.5, limit=60)
    assert time.monotonic() - began < 60
    assert raised.value.output == b"started\n"
    child = int(pid_file.read_text(encoding="utf-8"))
    gone = psutil.wait_procs([psutil.Process(child)], timeout=10)[0] if psutil.pid_exists(child) else [child]
    assert gone, f"the command's child {child} is still running"


def test_a_command_writing_forever_is_ended_at_its_limit(tmp_path: Path) -> None:
    code = "import time\nwhile True:\n    print('.', flush=True)\n    time.sleep(0.1)\n"
    began = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        run_paced([sys.executable, "-c", code], cwd=tmp_path, stall=5, limit=2)
    assert time.monotonic() - began < 30


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.lists(st.sampled_from(["a", "é", "\r", "\n", "\r\n", " "]), max_size=12).map("".join))
def test_output_reads_as_subprocess_run_text_gives_it(tmp_path: Path, text: str) -> None:
    """Tests moved from `subprocess.run(text=True)` assert on the same strings: CRLF, a lone CR, newlines."""
    raw = text.encode()
    code = f"import sys\nsys.stdout.buffer.write({raw!r})\nsys.stderr.buffer.write({raw!r})\n"
    argv = [sys.executable, "-c", code]
    paced = run_paced(argv, cwd=tmp_path, stall=30, limit=60)
    plain = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, encoding="utf-8", check=False,
                           timeout=60)
    assert (paced.stdout, paced.stderr) == (plain.stdout, plain.stderr)
