"""A fresh virtualenv of this interpreter holding nothing but the pip this environment runs (`create`), or
one that sees this environment's installed packages after its own (`create_over_this_one`).

A runner's Python (actions/setup-python) comes with a current pip; `venv`'s own (ensurepip's bundled wheel)
can be years older, and spent about twice the CPU of a current one installing the harness from this
machine's large local index (its per-file tag check): a cost of the stand-in, not of what it checks.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
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


def create_over_this_one(target: Path) -> Path:
    """Make a virtualenv at `target` whose own site-packages come first and this environment's installed
    packages (pip among them) after them, as a runner's Python that has them already: an install into it
    writes only into `target`, adding what is missing or pinned to another version, and never changes this
    environment (pip does not uninstall outside the environment it installs into). Returns its python."""
    venv.EnvBuilder(with_pip=False).create(target)
    python = target / "bin" / "python"
    done = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True)
    ours = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    Path(done.stdout.strip(), "_this_environment.pth").write_text("".join(f"{p}\n" for p in ours),
                                                                  encoding="utf-8")
    return python
