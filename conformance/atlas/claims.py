"""The claim audit across releases: the suite's CLM verdicts per release, and the claims later releases
add — tool annotations, a rewritten description, README switches — judged against observed behaviour.

A tool that appends every accepted call to a store is neither read-only nor idempotent: the probe sends
the same call twice and reads `thoughtHistoryLength` grow. Absent annotations are `not declared` (the
MCP defaults then say: not read-only, not idempotent, destructive, open-world).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from conformance.atlas.model import Column, Judgement, JudgementVerdict, ToolSnapshot
from conformance.report.model import Report

HINTS: Final = ("readOnlyHint", "idempotentHint", "destructiveHint", "openWorldHint")
DESCRIPTION_LIMIT: Final = 1024


def _grows(tool: ToolSnapshot) -> bool | None:
    lengths = tool.history_after_repeat
    return lengths[1] > lengths[0] if len(lengths) == 2 else None


def _hint(column: Column, tool: ToolSnapshot, hint: str) -> Judgement:
    declared = tool.annotations.get(hint)
    grows = _grows(tool)
    lengths = " → ".join(str(n) for n in tool.history_after_repeat)
    observed = {
        "readOnlyHint": f"the same call twice: thoughtHistoryLength {lengths} (it writes its store)",
        "idempotentHint": f"the same call twice: thoughtHistoryLength {lengths} (a repeat has an effect)",
        "destructiveHint": "calls only append to the store; nothing observed removes or overwrites",
        "openWorldHint": "answers depend on the call and the store only; no external effect is observable",
    }[hint]
    verdict: JudgementVerdict
    if not isinstance(declared, bool):
        verdict = "not declared"
    elif hint in ("readOnlyHint", "idempotentHint"):
        verdict = "not observed" if grows is None else ("contradicted" if declared and grows else "supported")
    else:
        verdict = "unsupported" if declared else "supported"
    anchor = tool.anchors.get("repeat" if hint in ("readOnlyHint", "idempotentHint") else "tools/list", "")
    return Judgement(
        column=column.label,
        claim=hint,
        declared="absent" if declared is None else str(declared).lower(),
        observed=observed,
        verdict=verdict,
        anchor=anchor,
    )


def _description(column: Column, tool: ToolSnapshot, previous: ToolSnapshot | None) -> Judgement:
    length = tool.description_length or 0
    rewritten = (
        "first release in the atlas"
        if previous is None or previous.description_sha256 is None
        else "rewritten since the previous release"
        if previous.description_sha256 != tool.description_sha256
        else "unchanged"
    )
    return Judgement(
        column=column.label,
        claim="description fits hosts' 1,024-character limit",
        declared=f"{length} UTF-16 code units; {rewritten}",
        observed=f"tools/list description: {tool.description_head[:120]}…",
        verdict="supported" if length <= DESCRIPTION_LIMIT else "contradicted",
        anchor=tool.anchors.get("tools/list", ""),
    )


def _switches(column: Column, variants: Sequence[Column]) -> list[Judgement]:
    out = []
    readme = column.readme
    for name, value in (readme.switches if readme else {}).items():
        variant = next(
            (v for v in variants if v.identity is not None and v.identity.env.get(name) == value), None
        )
        base_logs = column.tool.thought_on_stderr if column.tool else None
        switched_logs = variant.tool.thought_on_stderr if variant and variant.tool else None
        verdict: JudgementVerdict
        if variant is None or base_logs is None or switched_logs is None:
            verdict, observed = "not observed", "no switch column was run"
        elif base_logs and not switched_logs:
            verdict, observed = "supported", "the thought reaches stderr by default and not with the switch"
        elif not switched_logs:
            verdict, observed = "unsupported", "no thought reaches stderr with or without the switch"
        else:
            verdict, observed = "contradicted", "the thought still reaches stderr with the switch set"
        out.append(
            Judgement(
                column=column.label,
                claim=f"README: {name}={value} disables thought logging",
                declared=f"README documents {name} set to {value}",
                observed=observed,
                verdict=verdict,
                anchor=variant.tool.anchors.get("repeat", "") if variant and variant.tool else "",
            )
        )
    return out


def _suite_claims(column: Column, report: Report | None) -> list[Judgement]:
    if report is None:
        return []
    return [
        Judgement(
            column=column.label,
            claim=c.claim,
            declared=c.statement[:300],
            observed=(c.observations[0].observation[:300] if c.observations else "no observation"),
            verdict=c.verdict,
            anchor=f"{column.folder}/report.json#/claims/{c.claim}",
        )
        for c in report.claims
    ]


def judge(columns: Sequence[Column], reports: dict[str, Report | None]) -> list[Judgement]:
    """Judgements per release column, in column order; switch columns are judged through their release."""
    out: list[Judgement] = []
    previous: ToolSnapshot | None = None
    for column in columns:
        if column.variant_of is not None:
            continue
        out += _suite_claims(column, reports.get(column.spec))
        tool = column.tool
        if tool is not None and tool.ok:
            out += [_hint(column, tool, hint) for hint in HINTS]
            out.append(_description(column, tool, previous))
            previous = tool
        out += _switches(column, [c for c in columns if c.variant_of == column.spec])
    return out
