"""The look every HTML page of the harness shares (report, atlas): one style sheet, one CSP, one page frame.

Pages must read at 1280 px and on a phone: text wraps (frames and data anywhere; test ids and paths only
between their parts, `code.id`; links and words never mid-word), wide tables scroll inside their own box,
never the page. No script, no external resource, no font beyond the system's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from conformance.report.markup import Content, Markup, raw_css, tag

CSS: Final = """
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0 auto;
max-width:80rem;padding:1.2rem clamp(.6rem,3vw,2rem) 3rem;color:#1d1d1f;background:#fff;
overflow-wrap:break-word}
h1{font-size:1.55rem;line-height:1.25;margin:.4em 0 .6em}
h2{font-size:1.25rem;margin-top:2.2em;padding-bottom:.2em;border-bottom:1px solid #d9d9de}
h3,h4{margin:1.2em 0 .4em}
a{color:#0b57d0}
code,pre{font-family:ui-monospace,"SFMono-Regular","DejaVu Sans Mono",Menlo,Consolas,monospace;
font-size:.88em}
code{background:#f1f1f4;padding:0 .2em;border-radius:3px;overflow-wrap:anywhere;word-break:break-word}
pre{background:#f6f8fa;border:1px solid #e3e5e8;border-radius:4px;padding:.6em .7em;margin:.4em 0;
white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-all;max-height:40em;overflow:auto;max-width:100%}
.scroll{max-width:100%;overflow-x:auto;margin:.5em 0;-webkit-overflow-scrolling:touch}
table{border-collapse:collapse;margin:0}
td,th{border:1px solid #d9d9de;padding:.3em .55em;vertical-align:top;text-align:left}
th{background:#f4f4f6;font-weight:600}
td code{white-space:normal}
td li,td code{overflow-wrap:anywhere}
td a{overflow-wrap:break-word}
code.id{overflow-wrap:normal;word-break:normal}
.data{overflow-wrap:anywhere;display:block;min-width:16em}
.lead{font-size:1.05em}
td ul{padding-left:1.1em;margin:.1em 0;min-width:14em}
td:first-child{min-width:5.5em}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
table.wide{min-width:48rem}
table.wide td:first-child{min-width:8em}
.v{font-weight:600;white-space:nowrap;display:inline-flex;align-items:center;gap:.3em}
.mark{width:1em;height:1em;flex:none;vertical-align:-.15em}
.holds{color:#137333}.deviates{color:#b3261e}.error{color:#8e24aa}
.not-observable,.not-run{color:#5f6368}
.gate{padding:.6em 1em;border-radius:6px;font-weight:600;margin:.6em 0}
.pass{background:#e6f4ea}.fail{background:#fce8e6}
details{margin:.3em 0;border-bottom:1px solid #f0f0f2;padding:.15em 0}
details>summary{cursor:pointer;padding:.15em 0}
details[open]>summary{margin-bottom:.4em}
.muted{color:#5f6368}
nav.toc{font-size:.92em;margin:.6em 0 1em}
nav.toc a{margin-right:.9em;white-space:nowrap;display:inline-block}
figure{margin:1em 0;max-width:100%}
figure svg{display:block;max-width:100%;height:auto}
figcaption{font-size:.9em;color:#5f6368;margin-top:.3em}
.legend{display:flex;flex-wrap:wrap;gap:.3em 1em;margin:.4em 0;padding:0;list-style:none}
.legend li{display:inline-flex;align-items:center;gap:.3em}
.swatch{display:inline-block;width:.85em;height:.85em;border-radius:2px}
@media (max-width:600px){body{font-size:14px}h1{font-size:1.3rem}td,th{padding:.25em .4em}}
"""

CSP: Final = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'"
)
"""Inline style only: no script of any origin, no image, font or frame fetched from anywhere."""


def page(title: str, body: Content, *, lang: str = "en") -> str:
    """A complete, self-contained HTML document with the shared style sheet and CSP."""
    head = tag(
        "head",
        tag("meta", charset="utf-8"),
        tag("meta", http_equiv="Content-Security-Policy", content=CSP),
        tag("meta", name="viewport", content="width=device-width, initial-scale=1"),
        tag("title", title),
        tag("style", raw_css(CSS)),
    )
    return "<!DOCTYPE html>\n" + tag("html", head, tag("body", body), lang=lang) + "\n"


def table(
    header: Sequence[Content], rows: Sequence[Sequence[Content]], *, wide: bool = False,
    numeric: Sequence[int] = ()
) -> Markup:
    """A table in its own horizontally scrolling box, so a wide one never widens the page."""
    def cell(name: str, value: Content, index: int) -> Markup:
        return tag(name, value, class_="num" if index in numeric else None)

    return tag(
        "div",
        tag(
            "table",
            tag("thead", tag("tr", [cell("th", h, i) for i, h in enumerate(header)])),
            tag("tbody", [tag("tr", [cell("td", c, i) for i, c in enumerate(row)]) for row in rows]),
            class_="wide" if wide else None,
        ),
        class_="scroll",
    )


def toc(entries: Sequence[tuple[str, str]]) -> Markup:
    """In-page links to the sections present: (anchor id, label)."""
    return tag("nav", [tag("a", label, href=f"#{anchor}") for anchor, label in entries], class_="toc")
