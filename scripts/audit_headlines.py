"""Count the headlines of runs a person cannot act on: the root-cause lines (▶) and departure lines of a
`run`'s terminal output that carry a Python repr, a bare number, an escaped line break, a test's name or
"the check's condition" (issue 42's audit).

    python -m conformance run --target npm:2026.8.31 --out /tmp/r > run.txt
    python -m scripts.audit_headlines run.txt [more.txt ...]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Final

KINDS: Final = {
    "repr": re.compile(r"(?:^|[\s(—:])(?:\{'|\['|\('|dict\(|set\(\)|\w+\(\w+=)"),
    "bare number": re.compile(r"departs — -?\d+(?:\.\d+)?(?: \(|$)|^\s*\S+\s+\S+\s+-?\d+(?:\.\d+)?(?: \(|$)"),
    "escaped \\n": re.compile(r"\\n"),
    "test name": re.compile(
        r"test_\w+|::|Failing explicit|Falsifying example|@reproduce_failure|Explanation:"),
    "check's condition": re.compile(r"the check's condition"),
}


def headlines(text: str) -> list[str]:
    """The root-cause lines and the departure lines of a run's terminal summary."""
    out: list[str] = []
    for line in text.splitlines():
        if line.startswith("  ▶ "):
            out.append(line[4:])
        elif re.match(r"^  (deviates|error)\s+\S+\s", line):
            out.append(line.strip())
    return out


def audit(text: str) -> dict[str, list[str]]:
    """Each kind of unactionable headline with the lines that show it."""
    found = headlines(text)
    return {kind: [line for line in found if pattern.search(line)] for kind, pattern in KINDS.items()}


def main(paths: list[str]) -> int:
    for path in paths:
        text = Path(path).read_text(encoding="utf-8")
        bad = audit(text)
        lines = {line for shown in bad.values() for line in shown}
        counts = ", ".join(f"{kind} {len(shown)}" for kind, shown in bad.items())
        print(f"{path}: {len(headlines(text))} headlines, {len(lines)} with a problem ({counts})")
        for kind, shown in bad.items():
            for line in shown[:3]:
                print(f"    [{kind}] {line[:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
