"""The harness's own cost per command, apart from its servers': what every end-to-end test pays.

    python -m benchmarks.harness_cost [--json FILE] [-- run --target npm:0.6.2 --profile dev --seed 1]

The command runs as `python -m conformance ...` in a child interpreter started through `BOOTSTRAP`, which
counts, in that process only: its own CPU (the harness: the command line, the suite's pytest in-process,
the gate, the writers) against its reaped children's (the servers it started); the cyclic collector's CPU
and passes by generation (`conformance/core/collector.py` sets how often); the server groups an ending waited
on and how many of those looks scanned /proc (`drivers/process.group_members`: an ended group needs none).
A second fresh interpreter imports what every `run` imports before its first check (`RUN_IMPORTS`) and says
that CPU and its collections. CPU is counted by the kernel, so the figures hold under load better than wall
time (which is printed too): compare trees side by side, by ratio, in one sitting.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

DEFAULT: Final = ("run", "--target", "npm:0.6.2", "--profile", "dev", "--seed", "1")

BOOTSTRAP: Final = """
import atexit, gc, json, os, runpy, sys, time
out = sys.argv.pop(1)
spent = {0: 0.0, 1: 0.0, 2: 0.0}
began = [0.0]
def on_collection(phase, info):
    if phase == "start":
        began[0] = time.process_time()
    else:
        spent[info["generation"]] += time.process_time() - began[0]
gc.callbacks.append(on_collection)
from conformance.drivers import process
looked = {"groups": 0, "scans": 0}
plain_members, plain_listdir = process.group_members, os.listdir
def listdir(path="."):
    if os.fspath(path) == "/proc":
        looked["scans"] += 1
    return plain_listdir(path)
def group_members(pgid):
    looked["groups"] += 1
    return plain_members(pgid)
os.listdir, process.group_members = listdir, group_members
def report():
    t = os.times()
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"harness_cpu": t.user + t.system, "servers_cpu": t.children_user + t.children_system,
                   "gc_cpu": sum(spent.values()), "collections": [s["collections"] for s in gc.get_stats()],
                   "groups_waited": looked["groups"], "proc_scans": looked["scans"]}, f)
atexit.register(report)
sys.argv = ["conformance", *sys.argv[1:]]
runpy.run_module("conformance", run_name="__main__", alter_sys=True)
"""
"""The child: `python -c BOOTSTRAP FIGURES ARGS...` runs `python -m conformance ARGS` and writes FIGURES."""

RUN_IMPORTS: Final = ("conformance.cli.main", "conformance.cli.runner", "conformance.drivers.sdk")
"""What a `run` imports before its suite collects (the SDK's client is imported ahead, `runner/suite.py`)."""

IMPORTS: Final = """
import gc, json, sys, time
from conformance.core.collector import collect_less_often
collect_less_often()
for name in sys.argv[1:]:
    __import__(name)
counts = [s["collections"] for s in gc.get_stats()]
print(json.dumps({"import_cpu": time.process_time(), "collections": counts}))
"""
"""As `conformance/__main__.py` starts: the collector set, then the command line and the runner imported.
(A tree without `core/collector.py` fails here: run this benchmark from the tree being measured.)"""


def measure(command: Sequence[str]) -> dict[str, object]:
    """The command's figures (see the module's docstring), its exit status and wall time."""
    with tempfile.TemporaryDirectory(prefix="harness-cost-") as scratch:
        figures = Path(scratch) / "figures.json"
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-c", BOOTSTRAP, str(figures), *command],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        wall = time.monotonic() - started
        found: dict[str, object] = json.loads(figures.read_text(encoding="utf-8"))
    imported = subprocess.run([sys.executable, "-c", IMPORTS, *RUN_IMPORTS], capture_output=True, text=True,
                              check=True)
    return {"command": list(command), "exit": done.returncode, "wall": wall, **found,
            "imports": json.loads(imported.stdout)}


def render(found: dict[str, object]) -> list[str]:
    """The breakdown as lines: CPU in seconds and as shares of the harness's."""
    harness = float(str(found["harness_cpu"]))
    imports, command = found["imports"], found["command"]
    assert isinstance(imports, dict) and isinstance(command, list)

    def share(seconds: float) -> str:
        if not harness:
            return f"{seconds:7.2f} s"
        return f"{seconds:7.2f} s  {100 * seconds / harness:5.1f}% of the harness"

    return [
        f"python -m conformance {' '.join(map(str, command))}: exit {found['exit']}, "
        f"wall {float(str(found['wall'])):.1f} s, load {os.getloadavg()[0]:.1f}",
        f"  harness CPU (this process)   {harness:7.2f} s",
        f"    imports before the suite   {share(float(imports['import_cpu']))}  "
        f"(a fresh interpreter; collections {imports['collections']})",
        f"    cyclic collector           {share(float(str(found['gc_cpu'])))}  "
        f"(collections by generation {found['collections']})",
        f"  servers' CPU (its children)  {float(str(found['servers_cpu'])):7.2f} s",
        f"  server groups looked for     {found['groups_waited']} ({found['proc_scans']} /proc scans)",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.harness_cost",
                                     description=(__doc__ or "").strip().split("\n")[0])
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("command", nargs="*", default=list(DEFAULT),
                        help="the command line after `python -m conformance` (default: %(default)s)")
    args = parser.parse_args(argv)
    command = list(args.command)
    if command and command[0] == "run" and "--out" not in command:
        command += ["--out", str(Path(tempfile.gettempdir()) / "harness-cost-run")]
    found = measure(command)
    print("\n".join(render(found)))
    if args.json is not None:
        args.json.write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
