"""A fresh virtualenv of this interpreter holding nothing but the pip this environment runs.

A runner's Python (actions/setup-python) comes with a current pip; `venv`'s own (ensurepip's bundled wheel)
can be years older, and reads a large package index several times slower (its per-file tag check), which
would be the cost of the check, not of what it checks.
"""

from __future__ import annotations

import subprocess
import sys
import venv
from importlib.metadata import version
from pathlib import Path


def create(target: Path) -> Path:
    """Make the virtualenv at `target` (emptied first) and return its python."""
    venv.EnvBuilder(with_pip=False, clear=True).create(target)
    python = target / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    subprocess.run([*pip, "install", "--quiet", f"pip=={version('pip')}"], check=True)
    return python
