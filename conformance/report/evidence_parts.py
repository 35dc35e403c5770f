"""A departure's evidence as every writer renders it: the sequence replayed, which original answered, both
answers, what differs marked, and whether it reproduced on fresh processes (and why not).

One rendering per medium (a terminal line, Markdown, HTML, plain text for JUnit), shared by the root causes
and the departures, so a pair reads the same wherever it is shown.
"""

from __future__ import annotations

from typing import Final

from conformance.report.markdown_parts import code_block, md, replay_block
from conformance.report.markup import Content, tag
from conformance.report.model import Evidence, RecordVerdict, Report, quote_fitted
from conformance.report.text import around_difference

ANSWER_CHARS: Final = 900
DIFFERENCES: Final = 12
WHY_RECORD: Final = "Why this record: the difference contradicts its statement's words"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def on_both(evidence: Evidence) -> str:
    return f"fresh processes of this server and {evidence.original_named()}"


def shared_note(evidence: Evidence) -> str:
    """Where a record's pair comes from when it is not its own replay."""
    if not evidence.cause:
        return ""
    return f"the replay of root cause {evidence.cause}, reused, not replayed again"


EVIDENCE_LINE_CHARS: Final = 200
"""Characters of the terminal's evidence line under a cause."""


def evidence_line(evidence: Evidence, limit: int = EVIDENCE_LINE_CHARS) -> str:
    """One line: the first difference, where, and whether it reproduced; two quotes side by side said by
    their words that differ when the whole would pass `limit` (`quote_fitted`), so both sides' words stay."""
    if not evidence.reproduced:
        return _unreproduced(evidence) + ": " + evidence.why
    first = evidence.differences[0] if evidence.differences else "answers differ"
    lead = f"reproduced {evidence.at} against {evidence.original_short()}: "
    return lead + quote_fitted(first, max(limit - len(lead), 60))


def _unreproduced(evidence: Evidence) -> str:
    """Why a record shows no pair, truly: no call to replay, the budget, or a replay without a difference."""
    if evidence.own_failure:
        return "its check's own failure, no call to replay"
    if evidence.not_replayed:
        return "not replayed (the report's replay budget)"
    return "not reproduced on fresh processes"


def evidence_md(evidence: Evidence, detail: int, *, frames: bool = True) -> list[str]:
    """What differs, marked, and both answers; with `frames`, the sequence replayed before them."""
    if not evidence.reproduced:
        if evidence.own_failure or evidence.not_replayed:
            return [f"**{md(_capital(_unreproduced(evidence)))}**: {md(evidence.why, 600)}", ""]
        return [f"**Not reproduced** on {on_both(evidence)}: {md(evidence.why, 600)}", ""]
    shared = shared_note(evidence)
    lines = [f"**Reproduced** on {on_both(evidence)}, {md(evidence.at)}"
             + (f" ({md(shared, 300)})" if shared else "") + ":", ""]
    if evidence.not_its_failure:
        # Said as checked: the pair is not what the check's words speak of. Whether it is another change's
        # is not known here (a cause's own change shows so when its check words it otherwise: issue 42).
        lines[-2:-1] = [f"**Its example differs elsewhere** on {on_both(evidence)} ({md(evidence.at)}) than "
                        "its check's words say (the line above is its check's own failure); what differs "
                        "there may be another change of this server's:"]
    shown = evidence.differences[:DIFFERENCES] if detail else evidence.differences[:3]
    lines += [f"- {md(d, 600 if detail else 300)}" for d in shown]
    if len(evidence.differences) > len(shown):
        lines.append(f"- and {len(evidence.differences) - len(shown)} more (report.html lists them)")
    if evidence.breaks:
        lines += ["", f"{WHY_RECORD} “{md(evidence.breaks, 300)}”"]
    if evidence.why:
        lines += ["", f"Why this example: {md(evidence.why, 400)}"]
    if frames and evidence.example and detail >= 2:
        lines += ["", "The call sequence, to replay on a fresh process (one JSON-RPC frame per line on "
                  "stdin):", "", replay_block(evidence.example, "records → evidence → example")]
    if detail >= 1:
        theirs, ours = around_difference(evidence.original, evidence.target, ANSWER_CHARS)
        lines += ["", f"{md(_capital(evidence.original_named()))} answered (keys sorted, cut around the "
                  "difference):", "", code_block(theirs, "json"), "", "This server answered:", "",
                  code_block(ours, "json")]
    return [*lines, ""]


def evidence_html(evidence: Evidence, *, frames: bool = True) -> list[Content]:
    if not evidence.reproduced:
        if evidence.own_failure or evidence.not_replayed:
            return [tag("p", tag("strong", _capital(_unreproduced(evidence))), ": ", evidence.why)]
        return [tag("p", tag("strong", "Not reproduced"), f" on {on_both(evidence)}: ", evidence.why)]
    shared = shared_note(evidence)
    body: list[Content] = [
        tag("p", tag("strong", "Reproduced"), f" on {on_both(evidence)}, {evidence.at}",
            f" ({shared})" if shared else "", ":"),
        tag("ul", [tag("li", d) for d in evidence.differences[:DIFFERENCES]]),
        *([tag("p", f"{WHY_RECORD} “", evidence.breaks, "”")] if evidence.breaks else []),
        *([tag("p", "Why this example: ", evidence.why)] if evidence.why else []),
    ]
    if frames and evidence.example:
        body += [tag("h4", "The call sequence, to replay on a fresh process (one frame per line on stdin)"),
                 tag("pre", "\n".join(evidence.example))]
    return [*body,
            tag("h4", f"{_capital(evidence.original_named())} answered (keys sorted)"),
            tag("pre", evidence.original[:20000]),
            tag("h4", "This server answered"), tag("pre", evidence.target[:20000])]


def evidence_text(evidence: Evidence) -> str:
    """Plain lines (JUnit): the sequence, where it differs, what differs, and both answers."""
    if not evidence.reproduced:
        return _unreproduced(evidence) + ": " + evidence.why
    shared = shared_note(evidence)
    lines = [f"reproduced on {on_both(evidence)}, {evidence.at}" + (f" ({shared})" if shared else "") + ":",
             *(f"  {d}" for d in evidence.differences)]
    if evidence.breaks:
        lines.append(f"{WHY_RECORD} “{evidence.breaks}”")
    if evidence.example:
        lines += ["the call sequence (one frame per line on stdin):", *(f"  {f}" for f in evidence.example)]
    lines += [f"{evidence.original_named()} answered: {evidence.original}",
              f"this server answered: {evidence.target}"]
    return "\n".join(lines)


def record_evidence(report: Report) -> dict[str, Evidence]:
    """Each departure's pair: its own (/5), else its root cause's (a /4 report kept them on causes only)."""
    out: dict[str, Evidence] = {rv.id: rv.evidence for rv in report.records if rv.evidence is not None}
    for cause in report.root_causes:
        if cause.evidence is not None:
            shared = cause.evidence.model_copy(update={"cause": cause.id, "example": list(cause.example)})
            for record in [*cause.records, *cause.explains]:
                out.setdefault(record, shared)
    return out


def unreplayed(records: list[RecordVerdict] | tuple[RecordVerdict, ...]) -> list[str]:
    """The departures shown without their own replay because the report's replay budget was spent."""
    return [rv.id for rv in records if rv.evidence is not None and rv.evidence.not_replayed]
