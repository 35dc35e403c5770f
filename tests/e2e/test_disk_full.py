"""A full device is said as such, with its own exit status (3), not as an unusable target (2) or a usage
error (4): the run's `--out` on a tmpfs a few kilobytes large, mounted in a mount namespace of its own."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.gate import exit_status
from tests.paced import run_paced

REPO = Path(__file__).resolve().parents[2]


def _on_a_full_device(tmp_path: Path, size: str, *argv: str) -> subprocess.CompletedProcess[str]:
    device = tmp_path / "small"
    device.mkdir()
    command = [sys.executable, "-m", "conformance", *argv]
    script = (f"mount -t tmpfs -o size={size} tmpfs {shlex.quote(str(device))} "
              f"&& cd {shlex.quote(str(REPO))} && exec {shlex.join(command)}")
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("no unshare to mount a small device")
    probe = subprocess.run([unshare, "--user", "--map-root-user", "--mount", "true"], capture_output=True,
                           check=False)
    as_root = ["--user", "--map-root-user"] if probe.returncode == 0 else []
    prefix = [unshare, *as_root, "--mount"]
    done = run_paced([*prefix, "sh", "-c", script.replace("{out}", str(device / "out"))], cwd=Path.cwd())
    if "mount:" in done.stderr and done.returncode != exit_status.NO_SPACE:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()[:200]}")
    return done


def test_a_full_out_device_is_said_as_such(tmp_path: Path) -> None:
    done = _on_a_full_device(tmp_path, "4k", "run", "--profile", "dev", "--out", "{out}")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == exit_status.NO_SPACE == 3, done.stderr[-2000:]
    said = "seqthink-conformance: error: no space left on device: "
    assert len(lines) == 1 and lines[0].startswith(said), lines
    assert "Traceback" not in done.stderr
