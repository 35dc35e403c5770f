"""A comparison report as a pull request reads it: the headline table for the job summary, and a comment
body under GitHub's limit that names each difference the pull request does not declare, with the
compare-baseline lines that would declare it (the action's pull-request mode, `scripts/pr_comment.py`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

import yaml

from conformance.report.escape import cut_headline, safe
from conformance.report.markdown_parts import code_block
from conformance.report.markdown_parts import md as _plain_md
from conformance.report.model import Difference, Report, RootCause
from conformance.report.text import era_lines

COMMENT_LIMIT: Final = 65_536
"""GitHub refuses an issue or pull-request comment body longer than this many characters."""
_MARGIN: Final = 200
"""Room kept for the closing line that says what was left out."""
_MENTION: Final = re.compile(r"@(?=[A-Za-z0-9])")


def md(text: str, limit: int | None = 400) -> str:
    """Inline text that pings nobody: a server's name or answer saying `@someone` (or `@org/team`) would
    notify them from the comment, so a zero-width space follows every `@` (GitHub finds no mention there).
    Code spans and blocks need nothing: GitHub looks for mentions in neither."""
    return _MENTION.sub("@&#8203;", _plain_md(text, limit))


def _code(text: str, limit: int = 200) -> str:
    """A code span: read as written (no backslash escapes inside), backticks and pipes kept out."""
    return "`" + safe(text, limit).replace("`", "'").replace("|", "¦") + "`"


def _differences(report: Report) -> dict[str, Difference]:
    return {d.id: d for d in report.comparison.differences} if report.comparison is not None else {}


def _undeclared(cause: RootCause, by_id: dict[str, Difference]) -> list[Difference]:
    return [by_id[i] for i in cause.differences if i in by_id and not by_id[i].accepted]


def _names(report: Report) -> tuple[str, str]:
    comparison = report.comparison
    if comparison is None:
        return "base", "head"
    return comparison.label_a or comparison.a.spec, comparison.label_b or comparison.b.spec


def verdict_line(report: Report) -> str:
    """One sentence: how many differences, how many the pull request declares, and whether it passes."""
    by_id = _differences(report)
    a, b = _names(report)
    if report.run.interrupted:
        return f"**The comparison of {md(a)} and {md(b)} stopped early: {md(report.run.interrupted)}.**"
    new = [d for d in by_id.values() if not d.accepted]
    if not by_id:
        return f"**No behaviour difference between {md(a)} and {md(b)}.**"
    causes = len(report.root_causes)
    said = (f"**{len(by_id)} difference(s) between {md(a)} and {md(b)} in {causes} root cause(s); "
            f"{len(by_id) - len(new)} declared by the pull request")
    if new:
        return f"{said}, {len(new)} not declared: the check fails.**"
    return f"{said}: the check passes.**"


def headline_table(report: Report) -> str:
    """The root causes, one row each: records, differences (undeclared of all), and the headline cut at a
    clause."""
    by_id = _differences(report)
    lines = [f"## Behaviour differences: {md(' vs '.join(_names(report)))}", "", verdict_line(report), ""]
    if report.comparison is not None and report.comparison.eras:
        differing = [md(line, 200) for line in era_lines(report.comparison) if ": both " not in line]
        said = "; ".join(differing) or "the same on both sides for every era"
        lines += [f"Revision settled on, per era's client: {said}.", ""]
    if not report.root_causes:
        return "\n".join(lines) + "\n"
    lines += ["| root cause | records | not declared / differences | what differs |", "|---|---|---|---|"]
    for cause in report.root_causes:
        undeclared = len(_undeclared(cause, by_id))
        lines.append(
            f"| {_code(cause.id, 60)} | {md(', '.join(cause.records) or '—', 120)} | "
            f"{undeclared} / {len(cause.differences)} | {md(cut_headline(cause.summary), None)} |"
        )
    return "\n".join(lines) + "\n"


def _declare(differences: Sequence[Difference]) -> str:
    """The compare-baseline entries that would declare these differences (reasons for a person to write)."""
    entries = [{"id": d.id, "reason": f"TODO say why; observed: {safe(d.summary, 200)}"} for d in differences]
    return yaml.safe_dump({"accepted": entries}, sort_keys=False, allow_unicode=True, width=110)


def _cause_section(cause: RootCause, by_id: dict[str, Difference]) -> str:
    undeclared = _undeclared(cause, by_id)
    parts = [f"### {_code(cause.id, 60)}: {md(cause.summary, None)}", ""]
    if cause.origin:
        parts += [md(cause.origin, None), ""]
    for difference_id in cause.differences:
        d = by_id.get(difference_id)
        if d is None:
            continue
        mark = "declared" if d.accepted else "**not declared**"
        parts.append(f"- {mark}: {md(d.summary, 300)} ({_code(d.id)})")
    if cause.example:
        parts += ["", "Smallest replay (one fresh process of each side):", "",
                  code_block("\n".join(f[:600] for f in cause.example[:8]), "json")]
    if undeclared:
        parts += ["", "To declare these in the pull request's compare baseline:", "",
                  code_block(_declare(undeclared), "yaml")]
    return "\n".join(parts) + "\n"


def comment_body(report: Report, limit: int = COMMENT_LIMIT) -> str:
    """The headline table, then each cause with its differences and what would declare the undeclared ones
    (undeclared causes first), cut before `limit` characters with a line saying what the artifact holds."""
    by_id = _differences(report)
    body = headline_table(report)
    footer = f"\nRerun: {_code(report.run.rerun, 600)}\n" if report.run.rerun else ""
    causes = sorted(report.root_causes, key=lambda c: not _undeclared(c, by_id))
    left = 0
    for index, cause in enumerate(causes):
        section = "\n" + _cause_section(cause, by_id)
        if len(body) + len(section) + len(footer) + _MARGIN > limit:
            left = len(causes) - index
            break
        body += section
    if left:
        body += (f"\n_{left} more root cause(s) are in the report artifact (report.md, report.html): this "
                 f"comment stops below GitHub's {COMMENT_LIMIT:,}-character limit._\n")
    body += footer
    if len(body) > limit:  # a headline table alone over the limit: cut it at a line
        cut = body[: limit - _MARGIN].rsplit("\n", 1)[0]
        body = cut + "\n\n_The rest is in the report artifact (the table is longer than a comment may be)._\n"
    return body
