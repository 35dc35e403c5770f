"""Trim a report's transcripts for committing: long payloads cut, the middle of long runs elided.

Full transcripts of a `ci` run are ~100 MB (a 1 MiB thought, thousands of growth calls). A committed
report keeps every event's position (`seq`) and kind, the first and last events of each file whole
but for payloads over --max-chars, and a note saying what was cut; rerun with the report's seed to
regenerate the full transcripts.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def trim_file(path: Path, *, head: int, tail: int, max_chars: int) -> tuple[int, int]:
    lines = [line for line in path.read_text(encoding="utf-8").split("\n") if line]
    kept = lines if len(lines) <= head + tail else [*lines[:head], "", *lines[-tail:]]
    out: list[str] = []
    for line in kept:
        if not line:
            out.append(json.dumps({"kind": "note", "data": f"[trimmed: {len(lines) - head - tail} events "
                                   f"elided; rerun with the report's seed for the full transcript]"}))
            continue
        event = json.loads(line)
        data = event.get("data", "")
        if isinstance(data, str) and len(data) > max_chars:
            event["data"] = f"{data[:max_chars]}…[trimmed: {len(data) - max_chars} more characters]"
        out.append(json.dumps(event, ensure_ascii=False))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return len(lines), len(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("report_dir", type=Path)
    parser.add_argument("--head", type=int, default=1500)
    parser.add_argument("--tail", type=int, default=500)
    parser.add_argument("--max-chars", type=int, default=600)
    args = parser.parse_args(argv)
    for path in sorted((args.report_dir / "transcripts").glob("*.jsonl")):
        before, after = trim_file(path, head=args.head, tail=args.tail, max_chars=args.max_chars)
        print(f"{path}: {before} -> {after} events, {path.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
