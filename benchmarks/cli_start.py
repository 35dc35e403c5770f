"""The command line's fixed start cost: what every `python -m conformance ...` pays before its work.

Per source tree (`--tree DIR`, repeatable; default: this checkout), interleaved so that load moves every
tree alike: the import time of `conformance.cli.main` and of the runner that `run` imports besides, the
wall time of `--help`, `records`, the suite's collection by pytest (`collect`: its plugin and modules) and
one `run` (`--target`, profile dev, `--seed`), each the median of `--repeat` fresh processes. Each twice:
with PYTHONDONTWRITEBYTECODE=1 and the tree's own `__pycache__` folders removed before each start (as in a
fresh clone where nothing writes them: every start compiles the harness's modules and pytest rewrites the
suite's asserts again), then without it (after one warm-up start that writes them); the installed
dependencies keep the .pyc files pip wrote.

    python -m benchmarks.cli_start [--tree DIR ...] [--repeat 5] [--target npm:0.6.2] [--seed 1]
                                   [--no-run] [--json FILE]

A tree other than this checkout is put first on PYTHONPATH and is the working directory of its processes
(e.g. `git archive main | tar -x -C /tmp/before`), with this environment's installed dependencies.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

HERE: Final = Path(__file__).resolve().parents[1]
PACKAGES: Final = ("conformance", "reference_server")
IMPORTS: Final = {"import": "conformance.cli.main", "import-runner": "conformance.cli.runner"}
"""The command line, and what a `run` imports besides (pytest, hypothesis, the suite's plugin, the SDK)."""


def _env(tree: Path, bytecode: bool) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(tree), *filter(None, [env.get("PYTHONPATH")])])
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _without_pyc(tree: Path) -> None:
    """PYTHONDONTWRITEBYTECODE stops writing .pyc files, not reading them (nor pytest's rewritten ones): a
    start as in a fresh clone needs the tree's own caches gone (Python wrote them; they are not tracked)."""
    for package in PACKAGES:
        for cache in sorted((tree / package).rglob("__pycache__")):
            shutil.rmtree(cache, ignore_errors=True)


def _wall(argv: Sequence[str], tree: Path, bytecode: bool) -> float:
    if not bytecode:
        _without_pyc(tree)
    t0 = time.perf_counter()
    done = subprocess.run(argv, cwd=tree, env=_env(tree, bytecode), capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} in {tree}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
    return wall


def _import_s(module: str, tree: Path, bytecode: bool) -> float:
    if not bytecode:
        _without_pyc(tree)
    probe = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tree, env=_env(tree, bytecode), capture_output=True, text=True,
        check=True,
    )
    return float(done.stdout.strip())


def _cases(target: str, seed: int, out: Path, with_run: bool) -> dict[str, list[str]]:
    conformance = [sys.executable, "-m", "conformance"]
    cases = {"--help": [*conformance, "--help"], "records": [*conformance, "records"],
             "collect": [sys.executable, "-m", "pytest", "-c", "conformance/run-pytest.ini", "-p",
                         "no:cacheprovider", "-p", "_hypothesis_pytestplugin", "-p", "syrupy", "-p",
                         "conformance.suite.plugin", "--pyargs", "conformance.suite", "--target", target,
                         "--profile", "dev", "--results-dir", str(out.parent / "collect"), "--collect-only",
                         "-q"]}
    if with_run:
        cases["run"] = [*conformance, "run", "--target", target, "--profile", "dev", "--seed", str(seed),
                        "--out", str(out)]
    return cases


def measure(trees: Sequence[Path], repeat: int, target: str, seed: int, with_run: bool) -> dict[str, float]:
    """Median seconds per `tree | case | bytecode` key."""
    samples: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="cli-start-") as scratch:
        cases = _cases(target, seed, Path(scratch) / "run", with_run)
        for bytecode in (False, True):  # without .pyc first, as their caches are removed before each start
            for tree in trees:  # the warm-up: .pyc files and rewritten asserts written where allowed
                for argv in cases.values():
                    _wall(argv, tree, bytecode)
            for _ in range(repeat):
                for tree in trees:
                    label = "pyc" if bytecode else "no-pyc"
                    for name, module in IMPORTS.items():
                        seconds = _import_s(module, tree, bytecode)
                        samples.setdefault(f"{tree} | {name} | {label}", []).append(seconds)
                    for name, argv in cases.items():
                        wall = _wall(argv, tree, bytecode)
                        samples.setdefault(f"{tree} | {name} | {label}", []).append(wall)
    return {key: statistics.median(values) for key, values in samples.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cli_start",
                                     description=(__doc__ or "").strip().split("\n")[0])
    parser.add_argument("--tree", type=Path, action="append", default=None, metavar="DIR")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--target", default="npm:0.6.2")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-run", action="store_true", help="only the import, --help and records")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE")
    args = parser.parse_args(argv)
    trees = [t.resolve() for t in args.tree or [HERE]]
    medians = measure(trees, args.repeat, args.target, args.seed, not args.no_run)
    print(f"median of {args.repeat} fresh processes, load average {os.getloadavg()[0]:.1f} at the end")
    print(f"{'tree':<40} {'case':<13} {'no-pyc s':>9} {'pyc s':>9}")
    for key in medians:
        tree, case, label = key.split(" | ")
        if label == "no-pyc":
            pyc = medians[f"{tree} | {case} | pyc"]
            print(f"{tree[-40:]:<40} {case:<13} {medians[key]:>9.3f} {pyc:>9.3f}")
    if args.json is not None:
        args.json.write_text(json.dumps(medians, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
