"""Count the headlines of runs a person cannot act on: the root-cause lines and departure lines that carry a
Python repr, a bare number, an escaped line break, a test's name, "the check's condition", or a whole answer
object dumped where a sentence should say what differs (issue 42's audit).

Reads what a person reads: a run's terminal output, its report.md, and the pull-request comment
`scripts/pr_comment.py` would write from its report.json (`conformance/report/pull_request.py`). A directory
argument is a report folder: its report.md and the comment rendered from its report.json are audited.

    python -m conformance run --target npm:2026.8.31 --out /tmp/r > run.txt
    python -m scripts.audit_headlines run.txt /tmp/r [more ...]
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path
from typing import Final

from conformance.report.json import ReportError, load_report
from conformance.report.pull_request import comment_body

KINDS: Final = {
    "repr": re.compile(r"(?:^|[\s(—:])(?:\{'|\['|\('|dict\(|set\(\)|\w+\(\w+=)"),
    "bare number": re.compile(
        r"departs? — -?\d+(?:\.\d+)?(?: \(|$)|^\s*\S+\s+\S+\s+-?\d+(?:\.\d+)?(?: \(|$)"),
    "escaped \\n": re.compile(r"\\n"),
    "test name": re.compile(
        r"test_\w+|::|Failing explicit|Falsifying example|@reproduce_failure|Explanation:"),
    "check's condition": re.compile(r"the check's condition"),
    # A whole answer quoted where a sentence should say what differs: "the answer { "thoughtNumber": 1, …",
    # "isError {"error": …", a JSON-RPC response or an answer's status object written out.
    "answer dump": re.compile(
        r"(?:\bthe answer|\bisError|\banswered(?: with)?|\bresponse)[: ]\s*\{\s*\""
        r"|\{\s*\"(?:jsonrpc|result|content|thoughtNumber|thoughtHistoryLength|nextThoughtNeeded)\"\s*:"),
}
MAX_FILE_CHARS: Final = 2_000_000
"""A file longer than this is read only so far: a report is hostile data, an audit reads its headlines."""

_MD_ESCAPE: Final = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")
_MD_HEADLINE: Final = re.compile(r"^(?:\|\s*`?[A-Z]+-\d+\S*`?\s*\|.*|(?:[A-Z]+-\d+\S*(?:, [A-Z]+-\d+\S*)*) "
                                 r"departs? — .*|- [A-Z]+-\d+\S*(?:, [A-Z]+-\d+\S*)* — .*)$")
_SUMMARY: Final = re.compile(r"<summary>(.*?)</summary>")
_TAG: Final = re.compile(r"<[^>]{0,200}>")


def headlines(text: str) -> list[str]:
    """The root-cause lines and the departure lines of a run's terminal summary (`compare`'s: its "root
    cause …" and "differs …" lines)."""
    out: list[str] = []
    for line in text.splitlines():
        if line.startswith("  ▶ "):
            out.append(line[4:])
        elif line.startswith("root cause "):
            out.append(line)
        elif re.match(r"^  (deviates|error|differs)\s+\S+\s", line):
            out.append(line.strip())
    return out


def _unescaped(line: str) -> str:
    """A markdown line as a person reads it: backslash escapes, entities and tags removed."""
    return html.unescape(_TAG.sub("", _MD_ESCAPE.sub(r"\1", line)))


def markdown_headlines(text: str) -> list[str]:
    """The headlines of report.md or a pull-request comment: each cause's "X departs — …" line (or "### `X`:
    …" heading), a root-cause table row, an unexplained departure's "- X — …" line, and each departure's
    `<summary>` line."""
    out: list[str] = []
    for raw in text.splitlines():
        for found in _SUMMARY.finditer(raw):
            out.append(_unescaped(found.group(1)))
        line = _unescaped(raw)
        if raw.startswith("### ") and ": " in line:
            out.append(line.split(": ", 1)[1])  # a comment's cause heading: "### `X`: X departs — …"
        elif _MD_HEADLINE.match(line) and not line.startswith("|---"):
            out.append(line)
    return out


def audit_lines(found: list[str]) -> dict[str, list[str]]:
    """Each kind of unactionable headline with the lines that show it."""
    return {kind: [line for line in found if pattern.search(line)] for kind, pattern in KINDS.items()}


def audit(text: str) -> dict[str, list[str]]:
    """`audit_lines` of a terminal capture's headlines."""
    return audit_lines(headlines(text))


def _read(path: Path) -> str:
    with path.open(encoding="utf-8", errors="replace") as handle:
        return handle.read(MAX_FILE_CHARS)


def sources(path: Path) -> list[tuple[str, list[str], int]]:
    """What a person reads of one argument, as (name, headlines, characters): a terminal capture's lines, or
    a report folder's report.md and the pull-request comment its report.json makes."""
    if not path.is_dir():
        text = _read(path)
        found = markdown_headlines(text) if path.suffix == ".md" else headlines(text)
        return [(str(path), found, len(text))]
    out: list[tuple[str, list[str], int]] = []
    markdown = path / "report.md"
    if markdown.is_file():
        text = _read(markdown)
        out.append((str(markdown), markdown_headlines(text), len(text)))
    report = path / "report.json"
    if report.is_file():
        try:
            loaded = load_report(report)
        except ReportError as exc:
            print(f"audit_headlines: {report}: {exc}", file=sys.stderr)
            return out
        if loaded.comparison is not None:  # a comparison's report alone makes a comment (pr_comment.py)
            body = comment_body(loaded)
            out.append((f"{report} (pull-request comment)", markdown_headlines(body), len(body)))
    return out


def main(paths: list[str]) -> int:
    """Print, per source, its headline count, how many have a problem, by kind, with examples; exit 1 when
    any has one (0 otherwise, 4 on a missing path)."""
    flagged = 0
    for arg in paths:
        path = Path(arg)
        if not path.exists():
            print(f"audit_headlines: no such file or folder: {arg}", file=sys.stderr)
            return 4
        for name, found, chars in sources(path):
            bad = audit_lines(found)
            lines = {line for shown in bad.values() for line in shown}
            flagged += len(lines)
            counts = ", ".join(f"{kind} {len(shown)}" for kind, shown in bad.items())
            print(f"{name}: {chars:,} characters, {len(found)} headlines, {len(lines)} with a problem "
                  f"({counts})")
            for kind, shown in bad.items():
                for line in shown[:3]:
                    print(f"    [{kind}] {line[:160]}")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
