"""Where the reference server's start goes: CPU seconds by import group, beside the original's whole start.

Issue 46 wants the reference's dev run within 1.2x the original's, and each server process costs the reference
a Python start against node's. CPU seconds (user + system, from `wait4`) move less with the machine's load
than wall time, so the table is in CPU milliseconds, medians over `--starts` fresh processes per tree, the
trees' processes interleaved so that one load falls on all:

- start: `python -m reference_server` fed `initialize`, `notifications/initialized` and one valid
  tools/call, then end of input (the process's whole CPU, interpreter start to exit);
- groups: in a fresh process of the same interpreter, the entry point's own steps (`startup.server_module`'s,
  as far as the tree has them; the HTTP side imported for real, to show its cost) with the process's CPU
  clock read after each group of imports, in import order;
- original: npm:0.6.2 on node, fed the same lines.

    python -m benchmarks.reference_start [--starts 15] [--tree before=DIR ...] [--json out.json]

`--tree NAME=DIR` measures another checkout's reference server beside this one's (its `reference_server`
is imported from DIR: the processes run there).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from benchmarks.rounds import rotated
from conformance.targets.specs import resolve_target

REPO: Final = Path(__file__).resolve().parent.parent

CLIENT: Final = {"name": "bench", "version": "1"}
THOUGHT: Final = {
    "thought": "benchmark thought", "thoughtNumber": 1, "totalThoughts": 2, "nextThoughtNeeded": True
}
LINES: Final = (
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": CLIENT}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
     "params": {"name": "sequentialthinking", "arguments": THOUGHT}},
)

GROUPS: Final[tuple[tuple[str, tuple[str, ...]], ...]] = (
    ("mcp_types (models)", ("mcp_types",)),
    ("mcp_types.methods (two revisions, stand-ins where the tree defers them)", ("mcp_types.methods",)),
    ("mcp.server.connection, runner", ("mcp.server.connection", "mcp.server.runner")),
    ("HTTP side (starlette, auth, streamable HTTP, otel)", (
        "starlette.applications", "mcp.server.auth.routes", "mcp.server.auth.middleware.auth_context",
        "mcp.server.streamable_http_manager", "mcp.server._otel")),
    ("mcp.server.lowlevel (the rest)", ("mcp.server.lowlevel",)),
    ("reference_server.server (own)", ("reference_server.server",)),
)
"""Imported in this order; each group is charged what its imports add to what the groups before it loaded."""

PROBE: Final = """
import json, sys, time
mark = time.process_time()
from reference_server import startup
startup.pause_collector(); startup.skip_front_doors(); startup.skip_optional_imports()
startup.defer_model_builds()
undos = [getattr(startup, name, lambda: lambda: None)() for name in (
    "memoize_annotation_compiles", "defer_explicit_rebuilds", "defer_revision_surfaces")]
spent = {"startup module, pydantic": time.process_time() - mark}
for label, modules in json.loads(sys.argv[1]):
    mark = time.process_time()
    for module in modules:
        __import__(module)
    spent[label] = time.process_time() - mark
for undo in undos:
    undo()
print(json.dumps(spent))
"""


def child_cpu(command: Sequence[str], cwd: Path, env: dict[str, str], feed: Path) -> float:
    """The CPU seconds a process spent from exec to exit (its children's too), fed `feed` on stdin."""
    with feed.open("rb") as stdin:
        proc = subprocess.Popen(list(command), stdin=stdin, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, cwd=cwd, env=env)
        _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped by wait4 already: Popen must not wait for it again
    return usage.ru_utime + usage.ru_stime


def group_cpu(cwd: Path) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(GROUPS)], cwd=cwd, capture_output=True,
                          text=True, timeout=300, check=True)
    spent: dict[str, float] = json.loads(done.stdout)
    return spent


def measure(trees: Sequence[tuple[str, Path]], starts: int) -> dict[str, dict[str, float]]:
    """Median CPU milliseconds per tree (start, each group) and for the original (start)."""
    original = resolve_target("npm:0.6.2")
    env = dict(os.environ)
    samples: dict[str, dict[str, list[float]]] = {name: {} for name, _ in trees}
    samples["original"] = {}
    with tempfile.TemporaryDirectory() as folder:
        feed = Path(folder) / "lines.jsonl"
        feed.write_text("".join(json.dumps(line) + "\n" for line in LINES))
        for index in range(starts):
            for name, tree in rotated(list(trees), index):
                cpu = child_cpu((sys.executable, "-m", "reference_server"), tree, env, feed)
                samples[name].setdefault("start", []).append(cpu)
                for label, spent in group_cpu(tree).items():
                    samples[name].setdefault(label, []).append(spent)
            cpu = child_cpu(original.command, REPO, {**env, **original.env}, feed)
            samples["original"].setdefault("start", []).append(cpu)
    return {name: {label: round(1000 * statistics.median(values), 1) for label, values in found.items()}
            for name, found in samples.items()}


def render(result: dict[str, dict[str, float]], starts: int) -> str:
    names = list(result)
    labels = ["start"] + [label for label in result[names[0]] if label != "start"]
    lines = [f"CPU ms, median of {starts} fresh processes per row (user + system)", "",
             "| part | " + " | ".join(names) + " |", "| --- |" + " --- |" * len(names)]
    for label in labels:
        cells = " | ".join(f"{result[n].get(label, float('nan')):.0f}" for n in names)
        lines.append(f"| {label} | {cells} |")
    origin = result["original"]["start"]
    lines += ["", "start / original's start: " + ", ".join(
        f"{name} {result[name]['start'] / origin:.2f}x" for name in names if name != "original")]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--starts", type=int, default=15)
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    trees = [("after", REPO)] + [(spec.partition("=")[0], Path(spec.partition("=")[2]).resolve())
                                 for spec in args.tree]
    result = measure(trees, args.starts)
    print(render(result, args.starts))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
