"""Check that the wheel works with no checkout beside it: build sdist and wheel, `twine check` them, install
the wheel into a fresh virtualenv in a temporary folder, and run, from another folder, the gate against
npm:0.6.2 and the suite from the installed package against the reference (fixtures, schemas and snapshots
must all come from the wheel); the installed suite must refuse to rewrite its snapshots, and the wheel must
carry the license and say the version `conformance.__version__` says.

    python -m scripts.check_wheel [--keep] [--skip-suite]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from scripts import fresh_venv

ROOT = Path(__file__).resolve().parent.parent


def step(title: str, argv: Sequence[str | Path], *, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run one step, print its tail, and stop the check with its exit status when it fails."""
    print(f"== {title}: {' '.join(str(a) for a in argv)}", flush=True)
    done = subprocess.run(
        [str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    output = done.stdout + done.stderr
    tail = output.strip().splitlines()[-6:]
    for line in tail:
        print(f"   {line}")
    if done.returncode != 0:
        print(output[-6000:], file=sys.stderr)
        sys.exit(f"check_wheel: {title} failed (exit {done.returncode})")
    return output


def clean_env(venv_dir: Path) -> dict[str, str]:
    """The environment of a user who installed the wheel: its venv first on PATH, no checkout on sys.path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = os.pathsep.join([str(venv_dir / "bin"), env.get("PATH", "")])
    env["VIRTUAL_ENV"] = str(venv_dir)
    env.pop("CI", None)
    return env


def check_metadata(python: Path, env: dict[str, str], work: Path) -> None:
    """The installed distribution's version is `conformance.__version__`, and its license file ships."""
    probe = (
        "import conformance, importlib.metadata as m; d = m.distribution('seqthink-conformance'); "
        "print(conformance.__version__, d.version, any(f.name == 'LICENSE' for f in d.files or []))"
    )
    said = step("version and license of the installed wheel", [python, "-c", probe], cwd=work, env=env)
    module, dist, licensed = said.split()
    if module != dist or licensed != "True":
        sys.exit(f"check_wheel: __version__ {module}, metadata {dist}, LICENSE shipped: {licensed}")


def check_snapshots_refused(python: Path, env: dict[str, str], work: Path) -> None:
    """`--snapshot-update` against the installed suite stops with a usage error and rewrites nothing."""
    probe = "from conformance.suite.snapshots import SNAPSHOTS; print(SNAPSHOTS)"
    where = step("where the snapshots are", [python, "-c", probe], cwd=work, env=env).strip()
    before = {p.name: p.read_bytes() for p in Path(where).iterdir()}
    argv = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "conformance.suite.plugin",
            "--pyargs", "conformance.suite", "--target", "npm:0.6.2", "--snapshot-update"]
    print(f"== the installed suite refuses --snapshot-update: {' '.join(str(a) for a in argv)}", flush=True)
    done = subprocess.run([str(a) for a in argv], cwd=work, env=env, capture_output=True, text=True,
                          check=False)
    if done.returncode != 4 or "--snapshot-update refused" not in done.stderr:
        print(done.stdout[-3000:] + done.stderr[-3000:], file=sys.stderr)
        sys.exit(f"check_wheel: --snapshot-update was not refused (exit {done.returncode})")
    if {p.name: p.read_bytes() for p in Path(where).iterdir()} != before:
        sys.exit("check_wheel: the installed snapshots changed")
    print(f"   {done.stderr.strip().splitlines()[-1][:160]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and say where")
    parser.add_argument("--skip-suite", action="store_true", help="only build, check, install and run")
    options = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="seqthink-wheel-"))
    try:
        dist, venv_dir, work = tmp / "dist", tmp / "venv", tmp / "elsewhere"
        work.mkdir()
        step("build sdist and wheel", [sys.executable, "-m", "build", "--outdir", dist, ROOT], cwd=tmp)
        wheels = sorted(dist.glob("*.whl"))
        sdists = sorted(dist.glob("*.tar.gz"))
        if len(wheels) != 1 or len(sdists) != 1:
            sys.exit(f"check_wheel: expected one wheel and one sdist in {dist}, found {os.listdir(dist)}")
        step("twine check", [sys.executable, "-m", "twine", "check", "--strict", *wheels, *sdists], cwd=tmp)

        python = fresh_venv.create(venv_dir, clear=True)
        env = clean_env(venv_dir)
        step("install the wheel", [python, "-m", "pip", "install", "--quiet", wheels[0]], cwd=work, env=env)
        where = step(
            "import from the venv",
            [python, "-c", "import conformance, reference_server; print(conformance.__file__)"],
            cwd=work, env=env,
        ).strip()
        if not where.startswith(str(venv_dir)) or str(ROOT) in where:
            sys.exit(f"check_wheel: conformance imported from {where}, not from the fresh venv")
        check_metadata(python, env, work)

        step(
            "the gate from the installed package",
            [venv_dir / "bin" / "seqthink-conformance", "run", "--target", "npm:0.6.2", "--profile", "dev",
             "--seed", "20261129", "--out", work / "report"],
            cwd=work, env=env,
        )
        for name in ("report.json", "report.md", "report.html", "junit.xml"):
            if not (work / "report" / name).is_file():
                sys.exit(f"check_wheel: the run wrote no {name}")
        report = json.loads((work / "report" / "report.json").read_text(encoding="utf-8"))
        growth = report.get("growth") or [{}]
        if not growth[0].get("points") or "<svg" not in (work / "report" / "report.html").read_text("utf-8"):
            sys.exit("check_wheel: the report has no store-growth series or no picture")
        if not options.skip_suite:
            output = step(
                "the suite from the installed package",
                [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "conformance.suite.plugin",
                 "--pyargs", "conformance.suite", "--target", "reference", "--profile", "dev",
                 "--call-timeout", "30", "--hypothesis-seed", "20261129"],
                cwd=work, env=env,
            )
            if " passed" not in output or "snapshots passed" not in output:
                sys.exit("check_wheel: the suite ran no test or found no snapshot")
        check_snapshots_refused(python, env, work)
        print("check_wheel: the wheel works", flush=True)
    finally:
        if options.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
