"""Write constraints.txt: the exact versions of the runtime dependencies the action installs the harness with.

The harness's own bounds (pyproject.toml) say what it works with; the constraints file fixes one tested set
inside them, so two runs of the same action tag install the same code. It installs the package (no extras)
into a fresh virtualenv of this interpreter and freezes everything but the harness itself. Regenerate it
when a bound changes or before a release, then run the tests (`tox` runs them under these pins on 3.11 to
3.13); tests/fast/test_packaging.py checks every pin stays inside the bounds.

    python -m scripts.freeze_constraints [--out constraints.txt]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADER = """\
# The runtime dependencies the action installs the harness with (pip install --constraint constraints.txt),
# frozen from a fresh install of the package on Python {python}: one tested set inside pyproject.toml's
# bounds. Regenerate: python -m scripts.freeze_constraints
"""


def frozen(python_version: str) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="seqthink-freeze-") as tmp:
        env_dir = Path(tmp) / "venv"
        venv.EnvBuilder(with_pip=True).create(env_dir)
        python = env_dir / "bin" / "python"
        subprocess.run([python, "-m", "pip", "install", "--quiet", str(ROOT)], check=True)
        out = subprocess.run(
            [python, "-m", "pip", "freeze", "--exclude", "seqthink-conformance", "--exclude", "pip"],
            check=True, capture_output=True, text=True,
        ).stdout
    return sorted((line for line in out.splitlines() if line and not line.startswith("#")), key=str.lower)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "constraints.txt")
    options = parser.parse_args()
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    pins = frozen(version)
    options.out.write_text(HEADER.format(python=version) + "\n".join(pins) + "\n", encoding="utf-8")
    print(f"{options.out}: {len(pins)} pins")


if __name__ == "__main__":
    main()
