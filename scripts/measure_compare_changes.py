"""Compare's explanations over single changes to real releases (tests/modified_servers/compare_changes.yaml).

Each change is patched into a scratch copy of its release's dist/ folder and compared with an unmodified
copy: `python -m conformance compare "cmd:node <base>" "cmd:node <head>" --out DIR` (labels `base`,
`head`). Per change: the root causes' keys and headlines; precision = causes among the expected ones /
all causes; `says` = the expected words the headlines contain. Prints the table (Markdown with --markdown);
writes nothing unless --keep DIR (each comparison's report under DIR/<id>).

    nice -n 10 python -m scripts.measure_compare_changes [--jobs N] [--only ID,...] [--profile dev]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tests.modified_servers.servers import (
    ReleaseChange,
    load_release_changes,
    materialize_release,
    target_spec,
)

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Compared:
    id: str
    kind: str
    expected: list[str]
    causes: list[str]
    headlines: list[str]
    terminal: list[str]
    says_found: list[str]
    says_missing: list[str]
    precision: float | None
    exit_code: int
    seconds: float


def cause_key(cause_id: str) -> str:
    """A compare root cause's id is `compare:<cause>` (or the cause itself)."""
    return cause_id.rsplit(":", 1)[-1]


def compare_one(change: ReleaseChange, scratch: Path, profile: str, seed: int, keep: Path | None,
                timeout: float) -> Compared:
    base = materialize_release(change, scratch / change.id / "base", modified=False)
    head = materialize_release(change, scratch / change.id / "head")
    out = (keep / change.id) if keep is not None else scratch / change.id / "report"
    command = [sys.executable, "-m", "conformance", "compare", target_spec(base), target_spec(head),
               "--profile", profile, "--seed", str(seed), "--out", str(out),
               "--call-other-tools"]  # an added tool (the set's changes are patches we wrote) is called
    started = time.monotonic()
    proc = subprocess.run(["timeout", str(int(timeout)), *command], cwd=REPO, capture_output=True,
                          text=True, check=False)
    seconds = time.monotonic() - started
    report_file = out / "report.json"
    if not report_file.is_file():
        raise SystemExit(f"{change.id}: no report (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
    report = json.loads(report_file.read_text(encoding="utf-8"))
    causes = [cause_key(c["id"]) for c in report.get("root_causes", [])]
    headlines = [c["summary"] for c in report.get("root_causes", [])]
    text = " ".join(headlines).lower()
    found = [w for w in change.says if w.lower() in text]
    return Compared(
        id=change.id, kind=change.kind, expected=list(change.causes), causes=causes, headlines=headlines,
        terminal=proc.stdout.splitlines(), says_found=found,
        says_missing=[w for w in change.says if w not in found],
        precision=(sum(c in change.causes for c in causes) / len(causes)) if causes else None,
        exit_code=proc.returncode, seconds=round(seconds, 1),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1, help="comparisons run at once")
    parser.add_argument("--profile", default="dev", choices=("dev", "ci", "thorough"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default="", help="comma-separated change ids")
    parser.add_argument("--keep", type=Path, default=None, help="keep each report under DIR/<id>")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per comparison")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args(argv)
    changes = load_release_changes()
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {c.id for c in changes}
        if unknown:
            parser.error(f"unknown change(s): {', '.join(sorted(unknown))}")
        changes = [c for c in changes if c.id in wanted]
    with (
        tempfile.TemporaryDirectory(prefix="seqthink-compare-changes-") as tmp,
        ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool,
    ):
        rows = list(pool.map(
            lambda c: compare_one(c, Path(tmp), args.profile, args.seed, args.keep, args.timeout), changes
        ))
    pooled = [c in row.expected for row in rows for c in row.causes]
    said = sum(len(r.says_found) for r in rows), sum(len(r.says_found) + len(r.says_missing) for r in rows)
    for row in rows:
        shown = "n/a" if row.precision is None else f"{row.precision:.2f}"
        if args.markdown:
            print(f"\n### `{row.id}` ({row.kind}): causes {', '.join(row.causes) or '—'} "
                  f"(expected {', '.join(row.expected)}), precision {shown}, says {len(row.says_found)}/"
                  f"{len(row.says_found) + len(row.says_missing)}, {row.seconds:.0f} s\n")
            print("\n".join(f"- {h}" for h in row.headlines) or "- (no cause)")
        else:
            print(f"{row.id:<32} {shown:>5}  causes {row.causes}  expected {row.expected}  "
                  f"says {row.says_found} missing {row.says_missing}  ({row.seconds:.0f} s)")
            for line in row.terminal:
                print(f"    {line}")
    precision = f"{sum(pooled) / len(pooled):.3f}" if pooled else "n/a"
    print(f"\nprecision pooled over {len(pooled)} causes of {len(rows)} changes: {precision}; "
          f"expected words in the headlines: {said[0]} of {said[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
