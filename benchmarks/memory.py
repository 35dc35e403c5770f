"""Resident memory of a server's store after N accepted calls: observed evidence for RTE-5 and ABS-11.

The store has no bound and no discard path, so the server's resident memory should keep growing with
accepted calls and never plateau. The calls go through the suite's own path (a `ServerSession`: the
shared wire driver with a transcript streamed to disk), so the same pass also shows the harness's own
memory against the number of calls it made: that one should stay flat.

Run: `python benchmarks/memory.py --target npm:0.6.2 --target reference [--json out.json]`.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

from conformance.core.jsontypes import JSON
from conformance.drivers.transcript import Transcript
from conformance.suite.session import ServerSession
from conformance.targets.specs import resolve_target

CHECKPOINTS: Final = (1_000, 10_000, 100_000)
THOUGHT: Final = "x" * 200
"""A fixed 200-character thought, so growth per call is comparable across servers."""


def rss_bytes(pid: int) -> int:
    """Resident set size of `pid` now (VmRSS), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


@dataclass(frozen=True)
class Growth:
    """Server and harness RSS at each checkpoint of accepted calls made on one server process.

    `samples` and `harness_samples` hold RSS every `sample_every` calls as well, so growth rates are
    least-squares slopes over many points rather than the difference of two (a garbage collector
    makes any single reading noisy).
    """

    target: str
    baseline_rss: int
    rss: dict[int, int]
    history_length: dict[int, int]
    harness_baseline_rss: int
    harness_rss: dict[int, int]
    transcript_bytes: int
    samples: dict[int, int]
    harness_samples: dict[int, int]

    def bytes_per_thought(self, lo: int, hi: int) -> float:
        """Server RSS growth per accepted call between `lo` and `hi` calls (slope over the samples)."""
        return _slope(self.samples, lo, hi)

    def harness_bytes_per_call(self, lo: int, hi: int) -> float:
        return _slope(self.harness_samples, lo, hi)

    @property
    def strictly_increasing(self) -> bool:
        """The server's RSS rose between every pair of consecutive checkpoints (no plateau)."""
        values = [self.rss[n] for n in sorted(self.rss)]
        return all(a < b for a, b in itertools.pairwise(values))

    @property
    def all_retained(self) -> bool:
        """thoughtHistoryLength equals the number of accepted calls at every checkpoint."""
        return all(self.history_length[n] == n for n in self.history_length)


def _slope(samples: dict[int, int], lo: int, hi: int) -> float:
    points = sorted((n, rss) for n, rss in samples.items() if lo <= n <= hi)
    if len(points) < 2:
        raise ValueError(f"fewer than two samples between {lo} and {hi} calls")
    slope, _ = statistics.linear_regression([float(n) for n, _ in points], [float(r) for _, r in points])
    return slope


def thought(number: int, total: int) -> dict[str, JSON]:
    return {"thought": THOUGHT, "thoughtNumber": number, "totalThoughts": total, "nextThoughtNeeded": True}


def measure(
    spec: str,
    checkpoints: Sequence[int] = CHECKPOINTS,
    *,
    transcript_dir: Path | None = None,
    sample_every: int = 5_000,
    progress: Callable[[str], None] | None = None,
) -> Growth:
    """Accepted calls on one fresh process, RSS of server and harness read at each checkpoint.

    With `transcript_dir`, every frame is streamed to a transcript file there, as in a run.
    """
    target = resolve_target(spec)
    name = "".join(c if c.isalnum() else "_" for c in spec)
    path = None if transcript_dir is None else transcript_dir / f"memory-{name}.jsonl"
    rss: dict[int, int] = {}
    lengths: dict[int, int] = {}
    harness: dict[int, int] = {}
    samples: dict[int, int] = {}
    harness_samples: dict[int, int] = {}
    with Transcript(path) as transcript:
        session = ServerSession(target=target, transcript=transcript, timeout=30.0)
        try:
            pid = session.wire.pid
            baseline, harness_baseline = rss_bytes(pid), rss_bytes(os.getpid())
            done = 0
            for checkpoint in sorted(checkpoints):
                last = None
                while done < checkpoint:
                    done += 1
                    last = session.call(thought(done, checkpoint))
                    if done % sample_every == 0:
                        samples[done], harness_samples[done] = rss_bytes(pid), rss_bytes(os.getpid())
                if last is None or last.text is None or last.is_error:
                    raise RuntimeError(f"{spec}: call {done} was not accepted: {last}")
                lengths[checkpoint] = int(json.loads(last.text)["thoughtHistoryLength"])
                rss[checkpoint] = rss_bytes(pid)
                harness[checkpoint] = rss_bytes(os.getpid())
                samples[checkpoint], harness_samples[checkpoint] = rss[checkpoint], harness[checkpoint]
                if progress is not None:
                    progress(f"{spec}: {checkpoint:,} calls, server RSS {rss[checkpoint] / 2**20:.1f} MiB,"
                             f" harness RSS {harness[checkpoint] / 2**20:.1f} MiB")
            if session.restarts:
                raise RuntimeError(f"{spec}: the server process was restarted {session.restarts} times")
        finally:
            session.close()
    transcript_bytes = 0
    if path is not None:
        transcript_bytes = path.stat().st_size
        path.unlink()
    return Growth(
        spec, baseline, rss, lengths, harness_baseline, harness, transcript_bytes, samples, harness_samples
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--target", action="append", default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--checkpoints", default=",".join(map(str, CHECKPOINTS)),
                        help="accepted calls at which RSS is read (default: %(default)s)")
    parser.add_argument("--sample-every", type=int, default=5_000, help="also read RSS every N calls")
    args = parser.parse_args(argv)
    checkpoints = sorted(int(n) for n in args.checkpoints.split(","))
    with tempfile.TemporaryDirectory(prefix="seqthink-memory-") as tmp:
        specs = args.target or ["reference", "npm:0.6.2"]
        results = [
            measure(spec, checkpoints, transcript_dir=Path(tmp), sample_every=args.sample_every)
            for spec in specs
        ]
    lo, hi = checkpoints[-2], checkpoints[-1]
    for g in results:
        print(f"{g.target}: baseline {g.baseline_rss / 2**20:.1f} MiB")
        for n in checkpoints:
            print(f"  after {n:>7,} accepted calls: RSS {g.rss[n] / 2**20:7.1f} MiB, "
                  f"thoughtHistoryLength {g.history_length[n]}, "
                  f"harness RSS {g.harness_rss[n] / 2**20:.1f} MiB")
        print(f"  bytes per retained thought ({lo:,}->{hi:,}, slope): {g.bytes_per_thought(lo, hi):.0f}; "
              f"strictly increasing: {g.strictly_increasing}; all retained: {g.all_retained}")
        print(f"  harness bytes per call ({lo:,}->{hi:,}): {g.harness_bytes_per_call(lo, hi):.1f}")
    if args.json:
        args.json.write_text(json.dumps([asdict(g) for g in results], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
