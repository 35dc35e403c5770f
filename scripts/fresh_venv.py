"""A fresh virtualenv of this interpreter holding nothing but the pip this environment runs.

A runner's Python (actions/setup-python) comes with a current pip; `venv`'s own (ensurepip's bundled wheel)
can be years older, and spent about twice the CPU of a current one installing the harness from this
machine's large local index (its per-file tag check): a cost of the stand-in, not of what it checks.
"""

from __future__ import annotations

import subprocess
import sys
import venv
from importlib.metadata import version
from pathlib import Path


def create(target: Path, *, clear: bool = False) -> Path:
    """Make the virtualenv at `target` (emptied first with `clear`, for a folder of the caller's own) and
    return its python."""
    venv.EnvBuilder(with_pip=False, clear=clear).create(target)
    python = target / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    subprocess.run([*pip, "install", "--quiet", f"pip=={version('pip')}"], check=True)
    return python
