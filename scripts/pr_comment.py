"""Write a comparison's headline table to the job summary and its pull-request comment body to a file
(the action's pull-request mode; `conformance/report/pull_request.py`).

    python -m scripts.pr_comment REPORT_DIR/report.json --summary "$GITHUB_STEP_SUMMARY" --comment FILE

The summary is appended to; the comment file is written whole, under GitHub's 65,536-character limit.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance.report.json import ReportError, load_report
from conformance.report.pull_request import COMMENT_LIMIT, comment_body, headline_table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("report", type=Path, help="a compare report.json")
    parser.add_argument("--summary", type=Path, required=True, help="file the headline table is appended to")
    parser.add_argument("--comment", type=Path, required=True, help="file the comment body is written to")
    parser.add_argument("--limit", type=int, default=COMMENT_LIMIT, help="characters the comment may have")
    args = parser.parse_args(argv)
    try:
        report = load_report(args.report)
    except ReportError as exc:
        print(f"pr_comment: {exc}", file=sys.stderr)
        return 4
    if report.comparison is None:
        print(f"pr_comment: {args.report} is not a comparison's report", file=sys.stderr)
        return 4
    with args.summary.open("a", encoding="utf-8") as summary:
        summary.write(headline_table(report))
    args.comment.write_text(comment_body(report, args.limit), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
