"""Trim a generated atlas folder for committing: per column, drop junit.xml, pytest.log, report.md and
report.html (render them again from report.json), trim the run transcripts (scripts/trim_transcripts.py),
keep the first --events events and --replay frames of each counterexample and cut report.json's strings
to --report-chars; link each column to its report.json; cut atlas.json's strings to --max-frame and
write atlas.md and index.html again from it.

Every anchor the atlas quotes (report records, transcripts, atlas-probe.jsonl) still resolves. Rerun the
atlas with its recorded seed for the full reports and transcripts.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from conformance.atlas.write import load_atlas, write_atlas
from conformance.report.json import load_report
from scripts.trim_transcripts import trim_file

ROOT = Path(__file__).resolve().parent.parent

DROPPED = ("junit.xml", "pytest.log", "report.md", "report.html")


def _cut(value: object, limit: int) -> tuple[object, int]:
    if isinstance(value, str) and len(value) > limit:
        return f"{value[: limit - 60]}…[trimmed: {len(value) - limit + 60} more characters]", 1
    if isinstance(value, list):
        pairs = [_cut(v, limit) for v in value]
        return [v for v, _ in pairs], sum(n for _, n in pairs)
    if isinstance(value, dict):
        cut = {k: _cut(v, limit) for k, v in value.items()}
        return {k: v for k, (v, _) in cut.items()}, sum(n for _, n in cut.values())
    return value, 0


def cut_json(path: Path, limit: int) -> int:
    document, count = _cut(json.loads(path.read_text(encoding="utf-8")), limit)
    if count:
        path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return count


def shorten_counterexamples(path: Path, events: int, replay: int) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    for record in document.get("records", []):
        example = record.get("counterexample")
        if example:
            example["exchange"] = example["exchange"][:events]
            example["replay"] = example["replay"][:replay]
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("atlas_dir", type=Path)
    parser.add_argument("--head", type=int, default=150)
    parser.add_argument("--tail", type=int, default=50)
    parser.add_argument("--max-chars", type=int, default=400)
    parser.add_argument("--max-frame", type=int, default=4000)
    parser.add_argument("--report-chars", type=int, default=600)
    parser.add_argument("--events", type=int, default=8)
    parser.add_argument("--replay", type=int, default=12)
    args = parser.parse_args(argv)
    for column in sorted((args.atlas_dir / "targets").iterdir()):
        for name in DROPPED:
            (column / name).unlink(missing_ok=True)
        for path in sorted((column / "transcripts").glob("*.jsonl")):
            trim_file(path, head=args.head, tail=args.tail, max_chars=args.max_chars)
        trim_file(column / "atlas-probe.jsonl", head=10_000, tail=0, max_chars=args.max_frame)
        cut = 0
        if (column / "report.json").is_file():
            shorten_counterexamples(column / "report.json", args.events, args.replay)
            cut = cut_json(column / "report.json", args.report_chars)
            load_report(column / "report.json")
        print(
            f"{column.name}: {sum(f.stat().st_size for f in column.rglob('*') if f.is_file()):,} bytes"
            f"{f', {cut} long strings cut' if cut else ''}"
        )
    cut = cut_json(args.atlas_dir / "atlas.json", args.max_frame)
    atlas = load_atlas(args.atlas_dir / "atlas.json")
    columns = [
        c.model_copy(update={"report": f"{c.folder}/report.json"}) if c.report else c for c in atlas.columns
    ]
    write_atlas(atlas.model_copy(update={"columns": columns}), args.atlas_dir)
    total = sum(f.stat().st_size for f in args.atlas_dir.rglob("*") if f.is_file())
    print(f"atlas.json: {cut} long strings cut; total {total:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
