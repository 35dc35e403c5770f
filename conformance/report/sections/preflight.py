"""Why the target could not be checked, when starting it before the suite failed: the harness's error, what
the server's stderr said (its first error line and last few lines) and the hint of a known case."""

from __future__ import annotations

from conformance.report.escape import conclusion_kept, safe
from conformance.report.markdown_parts import code_block, md
from conformance.report.markup import Content, tag
from conformance.report.model import Preflight, Report
from conformance.report.sections.section import NOT_SHOWN, Detail, NotShown, section
from conformance.report.text import is_comparison_only

STDERR_LINES = "Its stderr (the first error line, then the last lines)"


def view(report: Report) -> Preflight | NotShown:
    if is_comparison_only(report) or report.preflight.ok:
        return NOT_SHOWN
    return report.preflight


def markdown(preflight: Preflight, detail: Detail) -> list[str]:
    said = conclusion_kept(preflight.error or "unknown error")
    lines = [f"> The target could not be checked: {md(said, None)}", ""]
    if preflight.stderr_lines:
        lines += [f"{STDERR_LINES}:", "", code_block("\n".join(preflight.stderr_lines)), ""]
    if preflight.hint:
        lines += [f"**Hint ({md(preflight.known_case or 'known case')}):** {md(preflight.hint, 600)}", ""]
    return lines


def html(preflight: Preflight) -> list[Content]:
    parts: list[Content] = [
        tag("p", "The target could not be checked: ", tag("code", preflight.error or ""), class_="gate fail")
    ]
    if preflight.hint:
        parts += [tag("p", tag("strong", f"Hint ({preflight.known_case or 'known case'}): "), preflight.hint)]
    if preflight.stderr_lines:
        parts += [tag("h4", STDERR_LINES), tag("pre", "\n".join(preflight.stderr_lines))]
    if preflight.stderr_tail:
        parts += [tag("h4", "Its stderr (tail)"), tag("pre", preflight.stderr_tail)]
    return parts


def terminal(preflight: Preflight) -> list[str]:
    lines = [f"  the target could not be checked: {conclusion_kept(preflight.error or 'unknown error')}"]
    for n, said in enumerate(preflight.stderr_lines):
        lines.append(f"    {'its stderr: ' if n == 0 else ' ' * 12}{safe(said, 1000)}")
    if preflight.hint:
        lines.append(f"    hint ({safe(preflight.known_case or 'known case')}): {safe(preflight.hint, 300)}")
    return lines


SECTION = section("preflight", view, markdown=markdown, html=html, terminal=terminal)
