"""Screenshots of report pages for the evidence: the top of each page at 1280 px and at a phone's 390 px,
taken in Debian's Chromium through playwright (`apt-get install chromium`; no browser download).

    python -m scripts.screenshot_reports --out reports/screenshots reports/npm-0.6.2/report.html ...
    python -m scripts.screenshot_reports --out DIR --anchor growth --only desktop --name run-growth PAGE
"""

from __future__ import annotations

import argparse
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
VIEWPORTS = {"desktop": (1280, 860), "phone": (390, 844)}
MAX_BYTES = 300_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--anchor", default="", help="scroll to this in-page anchor first")
    parser.add_argument("--only", choices=list(VIEWPORTS), help="one viewport only")
    parser.add_argument("--name", help="file name stem (one page only); default: the page's folder name")
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for page_path in options.pages:
                stem = options.name or page_path.resolve().parent.name
                for viewport, (width, height) in VIEWPORTS.items():
                    if options.only and viewport != options.only:
                        continue
                    page = browser.new_page(viewport={"width": width, "height": height},
                                            device_scale_factor=1)
                    url = page_path.resolve().as_uri() + (f"#{options.anchor}" if options.anchor else "")
                    page.goto(url, wait_until="load")
                    shot = options.out / f"{stem}-{viewport}.png"
                    page.screenshot(path=str(shot))
                    page.close()
                    size = shot.stat().st_size
                    print(f"{shot} ({size:,} bytes)")
                    if size > MAX_BYTES:
                        raise SystemExit(f"{shot} is over {MAX_BYTES:,} bytes")
        finally:
            browser.close()


if __name__ == "__main__":
    main()
