"""Re-render report.md, report.html and junit.xml from a committed report.json (after a writer changed, no
new run).

    python scripts/render_report.py reports/npm-0.6.2/report.json [more report.json ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from conformance.report.html import write_html  # noqa: E402
from conformance.report.json import load_report  # noqa: E402
from conformance.report.junit import write_junit  # noqa: E402
from conformance.report.markdown import write_markdown  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", type=Path, metavar="REPORT.json")
    for path in parser.parse_args().reports:
        report = load_report(path)
        write_markdown(report, path.parent / "report.md")
        write_html(report, path.parent / "report.html")
        write_junit(report, path.parent / "junit.xml")
        print(f"rendered {path.parent}/report.md, report.html and junit.xml")


if __name__ == "__main__":
    main()
