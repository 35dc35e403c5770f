"""Does the gate flap? A baseline written under one seed and profile, gated under others and through a relay.

A CI gate that goes red on an unchanged fork gets switched off (issue 43). For each fork (patched copies of
npm:0.6.2's dist/index.js from tests/modified_servers/: single changes, one combining four, and forks of the
held-out-multi-1 set, written blind as real forks), this runs `python -m conformance run` under the baseline
seed and profile, writes a baseline from that report with `python -m conformance baseline` (reasons filled
in, as a maintainer would), then gates the same build with that baseline under each other seed (same
profile), under the other profile (a dev baseline gated by ci, as the README's steps do) and through a stderr
relay (tests/servers/late_stderr.py: stdout straight through, stderr 5 to 30 ms late and cut in pieces, as
`docker run -i` or a shell wrapper gives it). A verdict that is not "pass" on an unchanged fork is a flap. The
`original` row is the fork that undid its change (the unmodified original under the sorted-branches fork's
package name), gated with the sorted-branches fork's baseline: it must be flagged stale in every cell. The
`base` column is the baseline run itself (no baseline yet): it must fail, every departure new; a departure
it reports as seen once (gate/pinned.py) would be one a first gate does not fail on.

    python -m benchmarks.flap [--seeds 11,22,...] [--other-seeds 11] [--relay-seeds 11]
                              [--forks sorted,multi,...] [--jobs 2] [--out reports/benchmarks/flap]

Every fork's baseline run comes first, then one column at a time across all the forks (the other profile and
the relay before the dev seeds), so a measurement stopped part way has whole columns. Writes flap.json and
flap.md in `--out` (the runs' folders in `--out`/runs), rewritten after every run so a partial measurement is
readable; about 80 minutes with the default forks and `--jobs 2` on a loaded 2-core machine, two minutes a run
at a load average of 30.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Final

from conformance.gate.baseline import dump_baseline, parse_baseline
from conformance.gate.run_options import RunOptions
from conformance.report.model import LIMIT_REFUSED_WORDS
from tests.modified_servers.branch_depth import BRANCH_DEPTH
from tests.modified_servers.heartbeats import HEARTBEATS
from tests.modified_servers.servers import Modification, load_modifications, materialize, target_spec

REPO: Final = Path(__file__).resolve().parents[1]
SORTED: Final = "branch-labels-sorted"

FORKS: Final[dict[str, tuple[str, ...]]] = {
    "sorted": (SORTED,),
    "cap-history": ("cap-history",),
    "revision-plain-label": ("revision-plain-label",),
    "branch-id-trimmed": ("branch-id-trimmed",),
    "revision-raises-total": ("revision-raises-total",),
    "total-clamped-at-hundred": ("total-clamped-at-hundred",),
    "multi": (SORTED, "server-version-one", "revision-plain-label", "cap-history"),
    "clean-output": ("fork-clean-output",),
    "hardened-store": ("fork-hardened-store",),
    "session-episodes": ("fork-session-episodes",),
    "tidy-box": ("fork-tidy-box",),
    "planning-rules": ("fork-planning-rules",),
    "safe-terminal": ("fork-safe-terminal",),
    "long-running": ("fork-long-running",),
    "agent-defaults": ("fork-agent-defaults",),
    "nested-branches": ("fork-nested-branches",),
    "bounded-session": ("fork-bounded-session",),
    "audit-clock": ("fork-audit-clock",),
    "team-board": ("fork-team-board",),
    "disk-journal": ("fork-disk-journal",),
    "french-messages": ("fork-french-messages",),
    "typescript-port": ("fork-typescript-port",),
    "hardened-inputs": ("fork-hardened-inputs",),
    "progress-meter": ("fork-progress-meter",),
    "chat-markdown": ("fork-chat-markdown",),
    "zero-based": ("fork-zero-based",),
    "rate-limited": ("fork-rate-limited",),
    "hashtags": ("fork-hashtags",),
    "renamed-plus": ("fork-renamed-plus",),
    "final-summary": ("fork-final-summary",),
    "branch-depth": (BRANCH_DEPTH.id,),
    "strict-schema": ("fork-strict-schema",),
    "timed-sessions": ("fork-timed-sessions",),
    "tool-suite": ("fork-tool-suite",),
    "env-config": ("fork-env-config",),
    "readable-output": ("fork-readable-output",),
    "planning-aids": ("fork-planning-aids",),
    "heartbeat-1s": (HEARTBEATS[0].id,),
    "heartbeat-2500ms": (HEARTBEATS[1].id,),
}
"""Each fork and the modifications it combines (tests/modified_servers/modifications.yaml); `clean-output`
(control characters stripped, a double-line box, sorted labels, a versioned banner) and `hardened-store` (a
positive-integer thoughtNumber, a history kept to 1000 thoughts, at most 50 labels, a timestamp in errors) are
held-out-multi-1 forks of four changes each; the next six are held-out-multi-2's (written blind, never tuned
on: forks the gate's rules have not seen); `nested-branches`, `bounded-session` and `audit-clock` are
held-out-multi-3's (written blind the same way; a branch of a branch, a limit reached only after 100 calls and
a clock in the box header may differ from seed to seed); the last six are held-out-multi-4's, written blind,
never tuned on (a 26th thought on one label, a journal in the temp folder that the next process restores - so
its runs share state through that file -, French messages, a TypeScript port's slips, a hardened fork, a
progress fork); the six after them are held-out-multi-5's, written blind, never tuned on (markdown
answers, thoughts numbered from 0, a limit of 25 thoughts in 10 seconds - reached or not depending on how
fast a run's calls come -, hashtags, a renamed server and tool, a summary on the last thought); `branch-depth`
(tests/modified_servers/branch_depth.py, outside the catalogue) refuses a third nesting of branches, which
the search reaches under some seeds and through different records' checks; the last six are
held-out-multi-6's, written blind, never tuned on (a schema-library port, sessions that expire after 2 s
without a thought - a time-dependent fork -, a tool suite, settings from the environment, readable output
logging each refusal on stderr - late through the relay, on a call that owes no box -, planning aids);
`heartbeat-1s` and `heartbeat-2500ms` (tests/modified_servers/heartbeats.py, outside the catalogue) write a
line to stderr on a timer, calls or none: output on a clock, not per call."""
DEFAULT_FORKS: Final = ("sorted", "multi", "clean-output", "cap-history", "revision-plain-label",
                        "branch-id-trimmed")
RELAY: Final = "relay"
"""The profile column of a gate run through the stderr relay (under the baseline's profile)."""

ORIGINAL: Final = "original"
"""The original under the sorted fork's package name, gated with that fork's baseline: must be stale."""


@dataclass(frozen=True)
class Gated:
    """One gate run: its exit status and what its gate said."""

    fork: str
    profile: str
    seed: int
    exit_code: int
    new: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unconfirmed: list[str] = field(default_factory=list)
    seen_once: list[str] = field(default_factory=list)
    covered: list[str] = field(default_factory=list)
    """Unlisted departures an entry covered (its pinned difference)."""
    limited: list[str] = field(default_factory=list)
    """Unlisted departures refused by the target's limit, met again on a fresh process (not gating)."""
    seconds: float = 0.0

    @property
    def cell(self) -> str:
        parts = [f"{name} {', '.join(ids)}" for name, ids in
                 (("new", self.new), ("stale", self.stale), ("changed", self.changed),
                  ("unconfirmed", self.unconfirmed)) if ids]
        once = "".join(f" ({words}, not gating: {', '.join(ids)})" for words, ids in (
            ("limit refused", self.limited), ("seen once", self.seen_once)) if ids)
        if self.exit_code == 0 and not parts:
            return "pass" + once
        if self.profile == "base":
            return f"exit {self.exit_code}: {len(self.new)} new" + once
        return f"exit {self.exit_code}" + (": " + "; ".join(parts) if parts else "") + once


def build(fork: str, folder: Path) -> str:
    """The fork's target spec: its modifications patched, in order, into one copy of the original."""
    mods = {m.id: m for m in [*load_modifications(), BRANCH_DEPTH, *HEARTBEATS]}
    ids = FORKS.get(fork, (fork,))  # any modified server's id is a fork of that one modification
    if fork != ORIGINAL and len(ids) == 1:
        combined = mods[ids[0]]
    elif fork == ORIGINAL:
        combined = Modification(id=SORTED, set="tuning", change="the original", patches=(), primary=())
    else:
        chosen = [mods[i] for i in ids]
        combined = Modification(id=chosen[0].id, set="tuning", change=" + ".join(m.change for m in chosen),
                                patches=tuple(p for m in chosen for p in m.patches), primary=())
    return target_spec(materialize(combined, folder / "server"))


def relayed(spec: str, seed: int) -> str:
    """The fork's command behind the stderr relay (its stderr late and in pieces)."""
    relay = REPO / "tests" / "servers" / "late_stderr.py"
    return f"cmd:{sys.executable} {relay} --seed {seed} -- {spec.removeprefix('cmd:')}"


def run(spec: str, profile: str, seed: int, out: Path, baseline: Path | None = None) -> tuple[int, float]:
    command = RunOptions(target=spec, profile=profile, seed=seed, out=out, baseline=baseline).command(
        sys.executable, local=True)
    started = time.monotonic()
    with open(out.with_suffix(".log"), "w", encoding="utf-8") as log:
        code = subprocess.run(command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, check=False).returncode
    return code, time.monotonic() - started


def write_baseline(report: Path, dest: Path, fork: str) -> None:
    """`conformance baseline REPORT -o DEST`, then each TODO reason replaced as a maintainer would."""
    subprocess.run([sys.executable, "-m", "conformance", "baseline", str(report), "-o", str(dest)],
                   cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    baseline = parse_baseline(dest.read_text(encoding="utf-8"), str(dest))
    entries = [e.model_copy(update={"reason": f"intended: the {fork} fork's change"})
               for e in baseline.deviations]
    dest.write_text(dump_baseline(baseline.model_copy(update={"deviations": entries})), encoding="utf-8")


def gated(fork: str, spec: str, profile: str, seed: int, out: Path, baseline: Path | None) -> Gated:
    """One gate run (`profile` "relay": the baseline's profile, through the relay; "base": no baseline)."""
    shown = profile
    if profile == RELAY:
        spec, profile = relayed(spec, seed), BASE_PROFILE[0]
    elif profile == "base":
        profile = BASE_PROFILE[0]
    code, seconds = run(spec, profile, seed, out, baseline)
    try:
        gate = json.loads((out / "report.json").read_text(encoding="utf-8"))["gate"]
    except (OSError, ValueError, KeyError):
        return Gated(fork, shown, seed, code, seconds=round(seconds, 1))

    def ids(key: str) -> list[str]:
        return [str(row["record"]) for row in gate.get(key) or []]

    covered = [str(row["record"]) for row in gate.get("expected") or []
               if row.get("witnessed") and row.get("verdict") != "holds"]
    once = gate.get("seen_once") or []
    limited = [str(row["record"]) for row in once
               if str(row.get("reason", "")).startswith(LIMIT_REFUSED_WORDS)]
    unconfirmed = [str(row["record"]) for row in once if str(row["record"]) not in limited]
    return Gated(fork, shown, seed, code, ids("unexpected"), ids("stale"), ids("changed"),
                 ids("unconfirmed"), unconfirmed, covered, limited=limited, seconds=round(seconds, 1))


BASE_PROFILE: list[str] = ["dev"]
"""The baseline's profile (set from --profile), for the base and relay columns."""


class Recorder:
    """Every finished run, written out at once (flap.json, flap.md): a long measurement stopped part way still
    says what it measured."""

    def __init__(self, out: Path, columns: Sequence[tuple[str, int]], base: str) -> None:
        self.out, self.columns, self.base = out, list(columns), base
        self.rows: list[Gated] = []
        self.lock = threading.Lock()
        self.started = time.monotonic()

    def add(self, row: Gated) -> None:
        with self.lock:
            self.rows.append(row)
            self.write()

    def write(self, done: bool = False) -> str:
        seconds = round(time.monotonic() - self.started)
        text = table(self.rows, self.columns, self.base)
        tail = (f"\n{seconds} s in all.\n" if done
                else f"\n(in progress: {len(self.rows)} runs, {seconds} s)\n")
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "flap.json").write_text(json.dumps({
            "baseline": self.base, "seconds": seconds, "done": done,
            "runs": [asdict(r) | {"cell": r.cell} for r in self.rows]}, indent=2) + "\n", encoding="utf-8")
        (self.out / "flap.md").write_text(text + tail, encoding="utf-8")
        return text + tail


def measure(forks: Sequence[str], root: Path, base_seed: int, plan: Sequence[tuple[str, int]], jobs: int,
            record: Recorder) -> None:
    """Every fork's baseline run first, then one column at a time across the forks (the other profile and
    the relay before the dev seeds), `jobs` runs at once: a measurement stopped part way has whole columns,
    not some forks done and others never started."""
    built: dict[str, tuple[str, Path]] = {}
    ready = {fork: threading.Event() for fork in forks}

    def base(fork: str) -> None:
        try:
            folder = root / fork
            shutil.rmtree(folder, ignore_errors=True)  # a measurement starts clean: no report of the last
            folder.mkdir(parents=True)
            spec = build(fork, folder)
            if fork == ORIGINAL:
                ready[SORTED_FORK].wait()
                baseline = root / SORTED_FORK / "baseline.yaml"
                if not baseline.is_file():
                    print("the sorted fork's baseline was not written: none to gate the original with")
                    return
            else:
                row = gated(fork, spec, "base", base_seed, folder / "base", None)
                record.add(row)
                if row.exit_code not in (0, 1):
                    print(f"{fork}: the baseline run ended with exit {row.exit_code} ({folder / 'base.log'})")
                    return
                baseline = folder / "baseline.yaml"
                write_baseline(folder / "base" / "report.json", baseline, fork)
            built[fork] = (spec, baseline)
        finally:
            ready[fork].set()

    def gate(fork: str, profile: str, seed: int) -> None:
        ready[fork].wait()
        if fork in built:
            spec, baseline = built[fork]
            record.add(gated(fork, spec, profile, seed, root / fork / f"{profile}-{seed}", baseline))

    # Every base is submitted before any gate run, so a gate run waits only on a base already running.
    columns = sorted(plan, key=lambda column: column[0] == BASE_PROFILE[0])
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(base, fork) for fork in forks]
        futures += [pool.submit(gate, fork, profile, seed) for profile, seed in columns for fork in forks]
        for done in futures:
            done.result()


SORTED_FORK: Final = "sorted"


def table(rows: Sequence[Gated], columns: Sequence[tuple[str, int]], base: str) -> str:
    head = ["fork", "base (no baseline)", *(f"{p} {s}" for p, s in columns), "flaps"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for fork in dict.fromkeys(r.fork for r in rows):
        cells = {(r.profile, r.seed): r for r in rows if r.fork == fork}
        first = next((r for r in rows if r.fork == fork and r.profile == "base"), None)
        flaps = sum(not settled(fork, cells[c]) for c in columns if c in cells)
        lines.append("| " + " | ".join([fork, first.cell if first is not None else "—",
                                        *(cells[c].cell if c in cells else "…" for c in columns),
                                        str(flaps)]) + " |")
    return (f"Baselines written under {base}; each cell is the gate's verdict with that baseline (`relay`: "
            "the baseline's profile through tests/servers/late_stderr.py). Every fork should pass; the "
            "original should be stale; a flap is a cell that does neither.\n\n" + "\n".join(lines) + "\n")


def settled(fork: str, row: Gated) -> bool:
    """The verdict the cell should have: a fork passes; the original fails with stale entries."""
    if fork == ORIGINAL:
        return row.exit_code == 1 and bool(row.stale)
    return row.exit_code == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.flap", description=__doc__.split("\n\n")[0])
    parser.add_argument("--forks", default=",".join([*DEFAULT_FORKS, ORIGINAL]),
                        help=f"comma-separated, of {', '.join([*FORKS, ORIGINAL])} or any modified "
                             "server's id (tests/modified_servers/modifications.yaml)")
    parser.add_argument("--profile", default="dev", choices=("dev", "ci"), help="the baseline's profile")
    parser.add_argument("--seed", type=int, default=1, help="the baseline's seed")
    parser.add_argument("--seeds", default="11,22,33,44,55,66,77,88,99,111",
                        help="seeds gated under the baseline's profile")
    parser.add_argument("--other-seeds", default="11", help="seeds gated under the other profile")
    parser.add_argument("--relay-seeds", default="11", help="seeds gated through the stderr relay")
    parser.add_argument("--jobs", type=int, default=2, help="forks measured at once")
    parser.add_argument("--out", type=Path, default=REPO / "reports" / "benchmarks" / "flap")
    args = parser.parse_args(argv)
    forks = [f.strip() for f in args.forks.split(",") if f.strip()]
    catalogue = {m.id for m in load_modifications()}
    unknown = [f for f in forks if f not in FORKS and f != ORIGINAL and f not in catalogue]
    if unknown:
        parser.error(f"unknown forks: {', '.join(unknown)}")
    if ORIGINAL in forks and SORTED_FORK not in forks:
        parser.error("the original is gated with the sorted fork's baseline: add `sorted`")
    BASE_PROFILE[0] = args.profile
    other = "ci" if args.profile == "dev" else "dev"

    def numbers(text: str) -> list[int]:
        return [int(s) for s in text.split(",") if s]

    plan = ([(args.profile, s) for s in numbers(args.seeds)] + [(other, s) for s in numbers(args.other_seeds)]
            + [(RELAY, s) for s in numbers(args.relay_seeds)])
    root = args.out.resolve() / "runs"
    record = Recorder(args.out, plan, f"{args.profile} seed {args.seed}")
    # The sorted fork first, then the original (gated with its baseline) as soon as that is written.
    order = [f for f in forks if f == SORTED_FORK] + [f for f in forks if f == ORIGINAL]
    order += [f for f in forks if f not in order]
    measure(order, root, args.seed, plan, args.jobs, record)
    print(record.write(done=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
