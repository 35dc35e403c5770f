"""Re-render report.md, report.html and junit.xml from a committed report.json (after a writer changed, no
new run).

    python -m scripts.render_report reports/npm-0.6.2/report.json [more report.json ...]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from conformance.report.html import write_html
from conformance.report.json import load_report
from conformance.report.junit import write_junit
from conformance.report.markdown import write_markdown


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
