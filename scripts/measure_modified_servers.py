"""Root-cause precision over the single-behaviour modifications of the original (tests/modified_servers/).

Each modification is patched into a scratch copy of npm:0.6.2's dist/index.js and run with
`python -m conformance run --target "cmd:node <copy>"`; its report's root-cause records are compared
with the records the modification breaks. Precision per server = root-cause records among the
modification's primary records / all root-cause records; overall = the same over all servers pooled.
Writes tests/modified_servers/observed.json and the table in tests/modified_servers/README.md.
Counterexamples are not shrunk unless --shrink (SEQTHINK_CONFORMANCE_SHRINK=0): which tests fail decides
the causes, and shrinking a departure that fails twenty tests costs minutes per server.

    nice -n 10 python -m scripts.measure_modified_servers [--jobs N] [--profile dev] [--only ID,...]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from conformance.gate.run_options import RunOptions
from conformance.suite.profiles import SHRINK_ENV
from tests.modified_servers.servers import (
    HERE,
    Modification,
    load_modifications,
    materialize,
    original_entry,
    target_spec,
)

REPO = Path(__file__).resolve().parents[1]

OBSERVED = HERE / "observed.json"
README = HERE / "README.md"
TABLE_START = "<!-- measured: start -->"
TABLE_END = "<!-- measured: end -->"


@dataclass(frozen=True)
class Measured:
    id: str
    change: str
    primary: list[str]
    exit_code: int
    deviating: list[str]
    root_causes: list[list[str]]
    explained: int
    precision: float | None
    seconds: float


def root_cause_records(report: dict[str, object]) -> list[str]:
    causes = report.get("root_causes", [])
    assert isinstance(causes, list)
    return [r for cause in causes for r in cause["records"]]


def precision(records: list[str], primary: list[str]) -> float | None:
    """Root-cause records that are among the expected ones / all root-cause records (None: no cause)."""
    if not records:
        return None
    return sum(r in primary for r in records) / len(records)


def measure(
    mod: Modification, scratch: Path, entry: Path, profile: str, seed: int, keep: Path | None, shrink: bool
) -> Measured:
    script = materialize(mod, scratch / mod.id / "server", entry)
    out = (keep / mod.id) if keep is not None else scratch / mod.id / "report"
    command = RunOptions(target=target_spec(script), profile=profile, seed=seed, out=out).command(
        sys.executable, local=True
    )
    env = dict(os.environ)
    if not shrink:
        env[SHRINK_ENV] = "0"
    started = time.monotonic()
    proc = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    report_file = out / "report.json"
    if not report_file.is_file():
        raise SystemExit(f"{mod.id}: no report (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
    report = json.loads(report_file.read_text(encoding="utf-8"))
    records = report["records"]
    causes = report.get("root_causes", [])
    return Measured(
        id=mod.id,
        change=mod.change,
        primary=list(mod.primary),
        exit_code=proc.returncode,
        deviating=[r["id"] for r in records if r["verdict"] == "deviates"],
        root_causes=[list(c["records"]) for c in causes],
        explained=sum(1 for r in records if r.get("explained_by")),
        precision=precision(root_cause_records(report), list(mod.primary)),
        seconds=round(seconds, 1),
    )


def overall(rows: list[Measured]) -> dict[str, float | int | None]:
    pooled = [(r in m.primary) for m in rows for cause in m.root_causes for r in cause]
    per_server = [m.precision for m in rows if m.precision is not None]
    return {
        "servers": len(rows),
        "servers_with_a_root_cause": len(per_server),
        "precision_pooled": round(sum(pooled) / len(pooled), 3) if pooled else None,
        "precision_mean_per_server": round(sum(per_server) / len(per_server), 3) if per_server else None,
        "servers_all_causes_expected": sum(1 for p in per_server if p == 1.0),
    }


def table(rows: list[Measured], summary: dict[str, float | int | None], command: str) -> str:
    lines = [
        TABLE_START,
        f"Measured with `{command}`:",
        "",
        "| modification | primary (expected) | deviating | root causes | explained | precision |",
        "|---|---|---:|---|---:|---:|",
    ]
    for m in rows:
        causes = "; ".join(", ".join(c) for c in m.root_causes) or "—"
        shown = "—" if m.precision is None else f"{m.precision:.2f}"
        lines.append(f"| `{m.id}` | {', '.join(m.primary)} | {len(m.deviating)} | {causes} | {m.explained} | "
                     f"{shown} |")
    lines += [
        "",
        f"Overall precision (root-cause records pooled over {summary['servers_with_a_root_cause']} servers): "
        f"**{summary['precision_pooled']}**; mean per server {summary['precision_mean_per_server']}; "
        f"{summary['servers_all_causes_expected']} of {summary['servers']} servers name only expected "
        "records.",
        TABLE_END,
    ]
    return "\n".join(lines)


def write_readme_table(text: str) -> None:
    current = README.read_text(encoding="utf-8") if README.exists() else ""
    if TABLE_START in current and TABLE_END in current:
        head, rest = current.split(TABLE_START, 1)
        _, tail = rest.split(TABLE_END, 1)
        current = head + text + tail
    else:
        current = current.rstrip("\n") + "\n\n" + text + "\n"
    README.write_text(current, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1, help="modified servers run at once")
    parser.add_argument("--profile", default="dev", choices=("dev", "ci", "thorough"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default="", help="comma-separated modification ids (writes nothing)")
    parser.add_argument("--keep", type=Path, default=None, help="keep each run's report under DIR/<id>")
    parser.add_argument("--shrink", action="store_true",
                        help="shrink counterexamples as a normal run does (slow when many tests fail)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave observed.json and README")
    args = parser.parse_args(argv)
    mods = load_modifications()
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {m.id for m in mods}
        if unknown:
            parser.error(f"unknown modification(s): {', '.join(sorted(unknown))}")
        mods = [m for m in mods if m.id in wanted]
    entry = original_entry()
    with (
        tempfile.TemporaryDirectory(prefix="seqthink-modified-") as tmp,
        ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool,
    ):
        scratch = Path(tmp)
        rows = list(pool.map(
            lambda m: measure(m, scratch, entry, args.profile, args.seed, args.keep, args.shrink), mods
        ))
    summary = overall(rows)
    for m in rows:
        shown = "  n/a" if m.precision is None else f"{m.precision:5.2f}"
        print(f"{m.id:<30} {shown}  causes {m.root_causes}  ({len(m.deviating)} deviate, {m.seconds:.0f} s)")
    print(f"overall precision (pooled): {summary['precision_pooled']}; mean per server: "
          f"{summary['precision_mean_per_server']}")
    if not args.no_write and not args.only:
        command = shlex.join(["python", "-m", "scripts.measure_modified_servers",
                              *(argv if argv is not None else sys.argv[1:])])
        OBSERVED.write_text(json.dumps({
            "format": "seqthink-modified-servers-observed/1",
            "command": command,
            "profile": args.profile,
            "seed": args.seed,
            "shrink": args.shrink,
            "summary": summary,
            "servers": [asdict(m) for m in rows],
        }, indent=2) + "\n", encoding="utf-8")
        write_readme_table(table(rows, summary, command))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
