"""The reference server's CPU per tools/call, trees side by side (issue 46: in a dev run its calls cost more
than the original's).

CPU seconds (user + system, from `wait4`) move less with the machine's load than wall time. Per tree and
round, two fresh `python -m reference_server` processes are driven over real pipes: one fed `initialize`
and `tools/list` only, one fed the same and then `--calls` sequential tools/call (valid thoughts, branches,
a refused thought every tenth call). CPU per call is the difference over `--calls`; beside it the median
send-to-answer milliseconds and the involuntary context switches per call. The trees' processes alternate
round by round, so one load falls on all, and every tree's stdout and stderr bytes are compared.

    python -m benchmarks.reference_percall [--rounds 5] [--calls 1500] [--tree before=DIR ...]
                                           [--original npm:0.6.2] [--json F]

`--tree NAME=DIR` measures another checkout's reference server beside this one's (`after`; its
`reference_server` is imported from DIR: the processes run there). `--original SPEC` measures that target
(the original on node) the same way, in the same rounds: its CPU a call beside the reference's, and whether
its answers and stderr are the reference's (said, not required: the trees' bytes must be equal).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from benchmarks.rounds import rotated
from conformance.targets.specs import resolve_target

REPO: Final = Path(__file__).resolve().parent.parent
ORIGINAL: Final = "original"
OPENING: Final = (
    {"jsonrpc": "2.0", "id": 0, "method": "initialize",
     "params": {"protocolVersion": "2024-11-05", "capabilities": {},
                "clientInfo": {"name": "b", "version": "1"}}},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
)


def arguments(index: int) -> dict[str, Any]:
    """A dev run's mix, roughly: mostly valid thoughts, some branches, a refused one every tenth call."""
    if index % 10 == 7:
        return {"thought": ""}
    found: dict[str, Any] = {
        "thought": f"thought {index} " + "x" * 40,
        "thoughtNumber": index % 7 + 1,
        "totalThoughts": 5,
        "nextThoughtNeeded": index % 3 != 0,
    }
    if index % 10 == 5:
        found.update(branchFromThought=1, branchId=f"b{index % 4}")
    return found


@dataclass
class Served:
    cpu_s: float
    involuntary: int
    stdout: bytes
    stderr: bytes
    call_ms: list[float] = field(default_factory=list)


def reference(tree: Path) -> tuple[list[str], Path, dict[str, str]]:
    """The command, folder and environment of `tree`'s reference server."""
    path = os.pathsep.join([str(tree), *filter(None, [os.environ.get("PYTHONPATH")])])
    return [sys.executable, "-m", "reference_server"], tree, {**os.environ, "PYTHONPATH": path}


def original(spec: str) -> tuple[list[str], Path, dict[str, str]]:
    """The command, folder and environment of a target spec (`npm:0.6.2`: the original on node)."""
    target = resolve_target(spec)
    return list(target.command), REPO, {**os.environ, **target.env}


def serve(server: tuple[list[str], Path, dict[str, str]], calls: int) -> Served:
    """One process of `server`, its calls one after another, each answer awaited."""
    command, cwd, env = server
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        bufsize=0,
    )
    assert process.stdin and process.stdout and process.stderr
    stdin, stdout, stderr = process.stdin, process.stdout, process.stderr
    errors = bytearray()

    def drain() -> None:
        while chunk := stderr.read(1 << 16):
            errors.extend(chunk)

    drainer = threading.Thread(target=drain, daemon=True)
    drainer.start()
    answers: list[bytes] = []
    timings: list[float] = []
    messages: list[dict[str, Any]] = [*OPENING]
    messages += [
        {"jsonrpc": "2.0", "id": 2 + index, "method": "tools/call",
         "params": {"name": "sequentialthinking", "arguments": arguments(index)}}
        for index in range(calls)
    ]
    for message in messages:
        started = time.perf_counter()
        stdin.write(json.dumps(message).encode() + b"\n")
        answers.append(stdout.readline())
        if message["method"] == "tools/call":
            timings.append((time.perf_counter() - started) * 1000)
    stdin.close()
    _, _, usage = os.wait4(process.pid, 0)
    drainer.join()
    stdout.close()
    stderr.close()
    return Served(usage.ru_utime + usage.ru_stime, usage.ru_nivcsw, b"".join(answers), bytes(errors), timings)


def _answers(stdout: bytes) -> list[Any]:
    return [json.loads(line) for line in stdout.splitlines()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=1500)
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--original", metavar="SPEC", help="also measure this target (npm:0.6.2) alike")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    trees = {"after": REPO}
    for spec in args.tree:
        name, _, directory = spec.partition("=")
        trees[name] = Path(directory).resolve()
    servers = {name: reference(tree) for name, tree in trees.items()}
    if args.original:
        servers[ORIGINAL] = original(args.original)
    names = list(servers)
    found: dict[str, dict[str, list[float]]] = {
        name: {"cpu_ms": [], "call_ms": [], "switches": []} for name in names
    }
    outputs: dict[str, tuple[bytes, bytes]] = {}
    for round_index in range(args.rounds):
        for name in rotated(names, round_index):
            empty, served = serve(servers[name], 0), serve(servers[name], args.calls)
            found[name]["cpu_ms"].append((served.cpu_s - empty.cpu_s) / args.calls * 1000)
            found[name]["call_ms"].append(statistics.median(served.call_ms))
            found[name]["switches"].append((served.involuntary - empty.involuntary) / args.calls)
            outputs[name] = (served.stdout, served.stderr)
        print(f"round {round_index + 1}/{args.rounds}: " + ", ".join(
            f"{name} {found[name]['cpu_ms'][-1]:.3f} ms CPU a call" for name in names), flush=True)
    medians = {
        name: {key: statistics.median(values) for key, values in found[name].items()} for name in names
    }
    same = len({outputs[name] for name in trees}) == 1
    for name in names:
        m = medians[name]
        print(f"{name:8s} CPU {m['cpu_ms']:.3f} ms a call, median call {m['call_ms']:.3f} ms, "
              f"{m['switches']:.2f} involuntary switches a call")
    for name in names[1:]:
        print(f"after/{name}: CPU {medians['after']['cpu_ms'] / medians[name]['cpu_ms']:.3f}, "
              f"median call {medians['after']['call_ms'] / medians[name]['call_ms']:.3f}")
    print(f"same stdout and stderr bytes in every tree: {'yes' if same else 'NO'}")
    if args.original:
        (said, boxes), (ours, our_boxes) = outputs[ORIGINAL], outputs["after"]
        alike = boxes == our_boxes and _answers(said) == _answers(ours)
        print(f"the original's answers (as JSON; its envelope's key order differs) and stderr bytes are the "
              f"reference's: {'yes' if alike else 'no'}")
    if args.json:
        record = {
            "rounds": args.rounds, "calls": args.calls, "trees": {k: str(v) for k, v in trees.items()},
            "original": args.original,
            "runs": found, "medians": medians, "same_bytes": same,
        }
        args.json.write_text(json.dumps(record, indent=2) + "\n")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
