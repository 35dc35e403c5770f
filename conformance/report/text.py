"""Wording shared by the human-readable writers: verdict labels, gate sentences, identity rows."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Final

from conformance.core.outfolder import BASELINE_PATH
from conformance.core.witness_words import CARRIED, NEVER_DEPARTED
from conformance.report.escape import conclusion_kept
from conformance.report.model import (
    LIMIT_REFUSED_WORDS,
    Comparison,
    Difference,
    Gate,
    GateEntry,
    Preflight,
    Report,
    RootCause,
    StoreGrowth,
    WitnessAnswer,
)

VERDICT_MARK = {"holds": "✓", "deviates": "✗", "error": "!", "not observable": "–", "not run": "·"}
"""Text marks with no emoji presentation: they render in any font with basic symbols (HTML draws its own)."""


def gate_sentence(gate: Gate, interrupted: str | None = None) -> str:
    """One line saying whether the gate passed and why not; `interrupted` is why the run stopped early (a
    deadline, a signal), said first: what it left unchecked follows from it."""
    if gate.deferred is not None:
        return f"gate not judged: {gate.deferred}"
    once = "".join(f"; {len(rows)} departure(s) {words}, which do not gate "
                   f"({', '.join(e.record for e in rows)})"
                   for words, rows in seen_once_kinds(gate.seen_once))
    if gate.passed:
        advisory = (f"; {len(gate.advisory)} departure(s) from guidance stated without a keyword, which do"
                    f" not gate ({', '.join(e.record for e in gate.advisory)})") if gate.advisory else ""
        advisory += once
        if gate.expected:
            return (
                f"gate passed: the {len(gate.expected)} departures observed are exactly the baseline's"
                f"{', behaving as pinned' if gate.baseline is not None else ''}"
                f"{_witnessed_clause(gate)}{advisory}"
            )
        return f"gate passed: no {'gating ' if advisory else ''}record departs{advisory}"
    parts = [f"the run stopped early ({interrupted}), its unfinished records not run"] if interrupted else []
    if gate.unexpected:
        parts.append(
            f"{len(gate.unexpected)} departure(s) not in the baseline "
            f"({', '.join(e.record for e in gate.unexpected)})"
        )
    if gate.stale:
        count, named = by_baseline_entry(gate.stale)
        parts.append(f"{count} stale baseline entr{'y' if count == 1 else 'ies'} now holding ({named})")
    if gate.unconfirmed:
        parts.append(
            f"{len(gate.unconfirmed)} baseline entr{'y' if len(gate.unconfirmed) == 1 else 'ies'} "
            f"not confirmed ({', '.join(f'{e.record}: {e.verdict}' for e in gate.unconfirmed)})"
        )
    if gate.changed:
        parts.append(
            f"{len(gate.changed)} departure(s) changed behaviour since the baseline pinned them "
            f"({', '.join(e.record for e in gate.changed)})"
        )
    if gate.unexplained:
        count, named = by_baseline_entry(gate.unexplained)
        parts.append(
            f"{count} baseline reason{' still says' if count == 1 else 's still say'} TODO ({named}): "
            "write why, as --strict-baseline asks"
        )
    if not parts and not gate.passed:
        parts.append("the target could not be checked")
    return "gate failed: " + "; ".join(parts) + once


def carried_sentence(report: Report) -> str:
    """Said once when the witness processes found state carried across processes (gate/canonical.py
    `CARRIED`): the target's fresh processes are not fresh, so its counts and labels were not compared."""
    carried = [rv.id for rv in report.records if any(CARRIED in w.answer for w in rv.witness)]
    if not carried:
        return ""
    return (f"finding: two fresh processes of the target answered the same first call with different stores "
            f"(state carried across processes, as a file the next process restores); its witnesses' counts "
            f"and labels were not compared, only what a fresh process decides ({len(carried)} records signed "
            "so)")


NOT_CONFIRMED_WORDS: Final = "seen once, not confirmed on a fresh process"
"""An unlisted departure neither its witness nor its replayed example showed again (gate/pinned.py)."""


def seen_once_kinds(rows: Sequence[GateEntry]) -> tuple[tuple[str, list[GateEntry]], ...]:
    """The gate's not-gating unlisted departures by why: the limit's refusal met again on a fresh process,
    and those no fresh process showed again; each with the words that head it (empty kinds left out)."""
    limit = [e for e in rows if e.reason.startswith(LIMIT_REFUSED_WORDS)]
    rest = [e for e in rows if not e.reason.startswith(LIMIT_REFUSED_WORDS)]
    return tuple((words, kind) for words, kind in ((LIMIT_REFUSED_WORDS, limit), (NOT_CONFIRMED_WORDS, rest))
                 if kind)


def by_baseline_entry(rows: Sequence[GateEntry]) -> tuple[int, str]:
    """How many baseline entries `rows` come from, and their records grouped by entry: a departure folded
    under another entry shares its reason, so one reason left TODO is counted once, not once per record."""
    groups: dict[str, list[str]] = {}
    for row in rows:
        groups.setdefault(row.folded_under or row.record, []).append(row.record)
    named = []
    for owner, records in groups.items():
        folded = [r for r in records if r != owner]
        if owner not in records:
            named.append(f"{', '.join(folded)} (folded under {owner})")
        elif folded:
            named.append(f"{owner} with {', '.join(folded)} folded under it")
        else:
            named.append(owner)
    return len(groups), "; ".join(named)


DEPARTING = ("deviates", "error")
"""The verdicts the gate weighs: a record whose tests found it false of the target, or could not decide."""


STOP_SAID: Final = 400
"""Characters of the stop's reason the summary's sentence repeats (the line above it has up to 600): what
the server takes, cut, and the conclusion, whole."""


def stopped_before_checks(report: Report) -> bool:
    """Whether a preflight stop ended the run before its checks (the suite never ran): its "not run" records
    were not checked, and the report must not count them as if they had been."""
    return not report.preflight.ok and report.run.pytest_exit is None and not report.run.interrupted


def not_checked(report: Report) -> str | None:
    """How every table says a "not run" record after a preflight stop ended the run (None when it did not):
    not checked, and at which stop, as the summary's sentence says it (issue 46)."""
    if not stopped_before_checks(report):
        return None
    return f"not checked (the run stopped at {stop_named(report.preflight)})"


def stop_named(preflight: Preflight) -> str:
    """The preflight stop that ended a run, by the check that made it."""
    arguments = preflight.arguments
    if preflight.tool_offered is False:
        return "the tool-name check" if preflight.tools else "the tool listing"
    if arguments is not None and arguments.accepted is False:
        return "the argument check"
    if arguments is not None and arguments.accepted:
        return "the stdout check"
    return "start-up"


def records_checked(report: Report) -> str:
    """What a maintainer reads first: how many records this run could check, and what it found of them; after
    a preflight stop, that nothing else was checked, and why."""
    if stopped_before_checks(report):
        departing = [rv.id for rv in report.records if rv.verdict in DEPARTING]
        why = conclusion_kept(report.preflight.error or "it could not be started", STOP_SAID)
        # A stray stdout line read after a tool-name or argument stop: CMP-4 departs beside it, not for it.
        beside = ["CMP-4"] if report.preflight.stray_stdout and "CMP-4" in departing else []
        stopped = [record for record in departing if record not in beside]
        said = (f"; {', '.join(stopped)} depart{'s' if len(stopped) == 1 else ''} for that reason"
                if stopped else "")
        if beside:
            said += "; CMP-4 departs beside it, for a stdout line that is not JSON-RPC"
        others = report.summary.records - report.summary.counts.get("not observable", 0) - len(departing)
        return (f"nothing else was checked: the run stopped before its checks, as the target is not usable "
                f"({why}){said}; the other {others} records were not checked")
    counts = report.summary.counts
    unobservable, unrun = counts.get("not observable", 0), counts.get("not run", 0)
    checked = report.summary.records - unobservable - unrun  # a record not run was not checked
    found = [f"{counts.get('holds', 0)} hold", f"{counts.get('deviates', 0)} depart"]
    found += [f"{counts['error']} error"] if counts.get("error", 0) else []
    rest = f"; {unrun} not run" if unrun else ""
    rest += f"; {unobservable} more cannot be observed from outside" if unobservable else ""
    return f"{checked} record{'s' if checked != 1 else ''} checked: {', '.join(found)}{rest}"


def _witnessed_clause(gate: Gate) -> str:
    """The expected departures the baseline's pinned witnesses vouched for (`gate/pinned.py`), named."""
    kept = [e.record for e in gate.expected if e.witnessed == NEVER_DEPARTED and e.verdict == "holds"]
    reobserved = [e.record for e in gate.expected
                  if e.witnessed is not None and e.verdict == "holds" and e.record not in kept]
    covered = [e.record for e in gate.expected if e.witnessed is not None and e.verdict != "holds"]
    said = []
    if reobserved:
        said.append(f"{', '.join(reobserved)} re-observed by {'its' if len(reobserved) == 1 else 'their'} "
                    "pinned witness on a fresh process")
    if kept:
        said.append(f"{', '.join(kept)} not reached by this run's search and kept: "
                    f"{'its' if len(kept) == 1 else 'their'} pinned witness never departed, so cannot tell "
                    f"{'it' if len(kept) == 1 else 'them'} gone, and other entries depart as pinned")
    if covered:
        said.append(f"{', '.join(covered)} covered by the entry whose pinned difference "
                    f"{'it shows' if len(covered) == 1 else 'they show'}")
    return f" ({'; '.join(said)})" if said else ""


def departures_sentence(gate: Gate, departing: int) -> str:
    """The departures as the gate weighed them: new ones (not in the baseline) fail it, accepted ones
    (declared in the baseline, behaving as pinned) do not. Never says "failing" of a gate that passed."""
    if departing == 0:
        return "no record departs"
    noun = f"{departing} departure{'s' if departing != 1 else ''}"
    if gate.deferred is not None:
        return f"{noun}, weighed against the baseline on the merged report"
    advisory = len(gate.advisory) + len(gate.seen_once)
    guidance = ", ".join(
        [f"{len(rows)} {words} (not gating)" for rows, words in (
            (gate.advisory, "from guidance stated without a keyword"),
            *((kind, words) for words, kind in seen_once_kinds(gate.seen_once)))
         if rows])
    if gate.baseline is None and advisory:
        return f"{noun}: {departing - advisory} new (no baseline given), {guidance}"
    if gate.baseline is None:
        return f"{noun}, {'all new' if departing > 1 else 'new'} (no baseline given)"
    new = len(gate.unexpected)
    accepted = sum(e.verdict != "holds" for e in gate.expected)
    covered = sum(e.witnessed is not None and e.verdict != "holds" for e in gate.expected)
    parts = [f"{new} new (not in the baseline)" if new else "0 new",
             f"{accepted} accepted (declared in the baseline"
             + (f", {covered} of them as an entry's pinned difference)" if covered else ")")]
    if gate.changed:
        parts.append(f"{len(gate.changed)} declared but changed since pinned")
    if advisory:
        parts.append(guidance)
    others = departing - new - accepted - len(gate.changed) - advisory
    if others > 0:
        parts.append(f"{others} declared with another verdict")
    return f"{noun}: {', '.join(parts)}"


LEGEND: Final = ("In quoted answers: “…” marks text cut for length, [ ] the words that differ from the other "
                  "answer, ⏎ a line break.")
"""The marks the evidence lines use, said once where they first appear (the root causes)."""


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`1 example`, `2 examples`: a count with its noun agreeing."""
    return f"{count} {noun if count == 1 else (plural or noun + 's')}"


def departing_records(report: Report) -> int:
    return sum(report.summary.counts.get(v, 0) for v in DEPARTING)


def next_steps(report: Report, folder: str) -> list[tuple[str, str]]:
    """What acts on a red or stale gate, each (when, command): take the departures into the baseline (once
    they are known to be intended), drop the entries that now hold, write the reasons still TODO. `folder`
    is where the report's report.json is."""
    gate = report.gate
    if gate.deferred is not None or is_comparison_only(report) or not report.preflight.ok:
        return []
    if report.run.interrupted:
        return []
    made = shlex.join(["python", "-m", "conformance", "baseline", f"{folder}/report.json"])
    steps: list[tuple[str, str]] = []
    if gate.unexpected or gate.changed or gate.unconfirmed:
        if gate.baseline is not None:
            drop = " --drop-stale" if gate.stale else ""
            steps.append(("if these departures are intended",
                          f"{made} --refresh {shlex.quote(gate.baseline)}{drop}"))
        else:
            steps.append(("if these departures are intended, write a baseline, then replace each entry's "
                          "“TODO say why” with its reason", f"{made} -o {BASELINE_PATH}"))
            again = _with_baseline(report, folder)
            if again:
                steps.append(("then run again with it", again))
    elif gate.stale and gate.baseline is not None:
        steps.append(("drop the entries that now hold",
                      f"{made} --refresh {shlex.quote(gate.baseline)} --drop-stale"))
    if gate.unexplained and gate.baseline is not None:
        steps.append((f"write the reasons still TODO in {gate.baseline}", ""))
    replay = _replay_step(report, folder)
    if replay is not None and not gate.passed:
        steps.append(replay)
    return steps


def _with_baseline(report: Report, folder: str) -> str:
    """The run's own command line (its rerun, the same examples) with the baseline written at BASELINE_PATH
    and the same --out; empty when the report has no rerun line to build on."""
    try:
        argv = shlex.split(report.run.rerun)
    except ValueError:
        return ""
    if argv[:4] != ["python", "-m", "conformance", "run"] or "--baseline" in argv:
        return ""
    return shlex.join([*argv, "--baseline", BASELINE_PATH, "--out", folder])


def _replay_step(report: Report, folder: str) -> tuple[str, str] | None:
    """The leading root cause's example piped into a fresh process of the target (its frames are in
    report.json), when the cause reproduced and the target is a command line."""
    causes = run_causes(report)
    cause = causes[0] if causes else None
    command = report.target.command
    if cause is None or not cause.example or not command:
        return None
    if cause.evidence is not None and not cause.evidence.reproduced:
        return None
    index = report.root_causes.index(cause)
    frames = (f'import json, sys; print(*json.load(open(sys.argv[1]))["root_causes"][{index}]["example"], '
              "sep=chr(10))")
    # The target's own environment goes with it (agiprolabs-ts' DATA_PATH): without it the pipe starts another
    # configuration of the server than the one gated.
    env = [f"{key}={value}" for key, value in sorted(report.target.env.items())]
    started = shlex.join(["env", *env, *command] if env else command)
    return (f"replay {', '.join(cause.records)}'s example on a fresh process",
            f"python -c {shlex.quote(frames)} {shlex.quote(folder + '/report.json')} | {started}")


def step_line(step: tuple[str, str]) -> str:
    when, command = step
    return f"{when}: {command}" if command else when


NO_STEP = "(no such witness)"


def paired_answers(
    before: Sequence[WitnessAnswer], after: Sequence[WitnessAnswer]
) -> list[tuple[str, str, str]]:
    """(step, before, after) for a changed departure, matched by step name (witness sets can change)."""
    later = {w.step: w.answer for w in after}
    rows = [(b.step, b.answer, later.pop(b.step, NO_STEP)) for b in before]
    return rows + [(a.step, NO_STEP, a.answer) for a in after if a.step in later]


def around_difference(before: str, after: str, width: int) -> tuple[str, str]:
    """Both answers cut to `width` around their first difference: a long shared prefix must not hide it."""
    start = next((i for i, (x, y) in enumerate(zip(before, after, strict=False)) if x != y),
                 min(len(before), len(after)))
    skip = max(0, start - width // 4)
    if skip < 8:
        return before[:width], after[:width]
    return "…" + before[skip : skip + width - 1], "…" + after[skip : skip + width - 1]


def identity_rows(report: Report) -> list[tuple[str, str]]:
    """(label, value) pairs naming exactly what was run and by what."""
    target = report.target.model_dump(mode="json")
    rows: list[tuple[str, str]] = []
    for key, value in target.items():
        if value is None or value == [] or value == {}:
            continue
        rows.append((f"target {key}", _flat(value)))
    if report.server_info:
        rows.append(("serverInfo", ", ".join(f"{k}={v}" for k, v in report.server_info.items())))
    if report.protocol_version:
        rows.append(("protocol version", report.protocol_version))
    if report.eras:
        rows.append(("eras (client: settled on)", ", ".join(
            f"{era}: {settled or 'none agreed'}" for era, settled in report.eras.items())))
    h = report.harness
    rows += [
        ("harness version", h.version),
        ("harness commit", h.git_commit or "not a git checkout"),
        ("profile", h.profile),
        ("hypothesis seed", h.seed or "random"),
        *([("shard", f"{h.shard} (this report holds only its share of the run's tests)")] if h.shard else []),
        ("python", h.python),
        ("rerun", report.run.rerun),
        ("started", report.run.started),
        ("duration", f"{report.run.duration_s:.1f} s"),
        *([("shards", _shard_runs(report))] if report.run.shards else []),
        ("jobs", str(report.run.jobs)),
        ("server processes started", str(report.run.processes_started)),
        ("calls made", str(report.run.calls_made)),
    ]
    return rows


def _shard_runs(report: Report) -> str:
    """A merged run's shards: the duration is the longest's, as if they ran side by side."""
    runs = "; ".join(
        f"{s.shard}: {s.tests} tests, {s.duration_s:.1f} s{f' ({s.interrupted})' if s.interrupted else ''}"
        for s in report.run.shards
    )
    return f"merged from {len(report.run.shards)} ({runs})"


def _flat(value: object) -> str:
    if isinstance(value, list):
        return " ".join(_flat(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={_flat(v)}" for k, v in value.items())
    return str(value)


def growth_rows(growth: StoreGrowth) -> tuple[list[str], list[list[str]]]:
    """The store-growth checkpoints as a table: the text equivalent of the growth pictures."""
    header = ["accepted calls", "thoughtHistoryLength", "server RSS (MiB)"]
    rows = [
        [f"{p.calls:,}", f"{p.history_length:,}", _mib(p.rss_bytes)] for p in growth.points
    ]
    return header, rows


def _mib(value: int | None) -> str:
    return "—" if value is None else f"{value / 2**20:.1f}"


# -- comparisons -------------------------------------------------------------------------------------


def is_comparison_only(report: Report) -> bool:
    """A `compare` report: a comparison and no record verdicts."""
    return report.comparison is not None and not report.records


def headline(report: Report) -> str:
    """The report's first sentence: the gate's, or for a `compare` report what the comparison found."""
    if is_comparison_only(report) and report.comparison is not None:
        return comparison_sentence(report.comparison)
    return gate_sentence(report.gate, report.run.interrupted)


def era_lines(comparison: Comparison) -> list[str]:
    """What each side settled on with each era's client (compare's era pass), one line per era, e.g.
    "2025-06-18 client: 2025.7.1 answers 2024-11-05; 2025.11.25 answers 2025-06-18"."""
    a, b = comparison.label_a or comparison.a.spec, comparison.label_b or comparison.b.spec
    lines = []
    for settled in comparison.eras:
        said_a = _settled(settled.a, settled.failure_a)
        said_b = _settled(settled.b, settled.failure_b)
        if said_a == said_b:
            lines.append(f"{settled.era} client: both {_settled(settled.a, settled.failure_a, both=True)}")
        else:
            lines.append(f"{settled.era} client: {a} {said_a}; {b} {said_b}")
    return lines


def other_tool_lines(comparison: Comparison) -> list[str]:
    """Each tool only one side lists, called or not and why, e.g. "`reset` (only head lists it): not
    called: --no-call-other-tools"."""
    return [f"`{t.name}` ({'' if ' and ' in t.offered_by else 'only '}{t.offered_by} list"
            f"{'' if ' and ' in t.offered_by else 's'} it): {'called' if t.called else 'not called'}: {t.why}"
            for t in comparison.other_tools]


def where_run_looks(comparison: Comparison) -> str:
    """When the sides settle differently under some era's client: where `run` looks, so a gate that stays
    silent about it is not read as contradicting this comparison; empty when every era agrees."""
    if all(_settled(e.a, e.failure_a) == _settled(e.b, e.failure_b) for e in comparison.eras):
        return ""
    return ("run's gate judges the records through one client (--era, auto by default: the revision that "
            "client settles on), so a difference only some eras' clients meet shows in run under those eras "
            "only (run --era all; docs/eras.md)")


def _settled(version: str | None, failure: str, *, both: bool = False) -> str:
    s = "" if both else "s"
    if failure:
        return f"stop{s} early ({' '.join(failure.split())[:120]})"
    return f"answer{s} {version}" if version else f"agree{s} on no revision"


def comparison_sentence(comparison: Comparison) -> str:
    """E.g. "3 differences between 2025.12.18 and 2026.7.4 (1 accepted by the baseline)": the sides by their
    labels (a report before /3 has none: its specs)."""
    a, b = comparison.label_a or comparison.a.spec, comparison.label_b or comparison.b.spec
    n = len(comparison.differences)
    if n == 0:
        return f"no difference between {a} and {b} ({comparison.programs} programs, {comparison.calls} calls)"
    accepted = sum(d.accepted for d in comparison.differences)
    extra = f", {accepted} accepted by the baseline" if accepted else ""
    budget = "; the search stopped at its budget" if comparison.budget_reached else ""
    return f"{n} difference{'s' if n != 1 else ''} between {a} and {b}{extra}{budget}"


def run_causes(report: Report) -> list[RootCause]:
    """The root causes found from this run's failing tests (those of a comparison group differences)."""
    return [cause for cause in report.root_causes if not cause.differences]


def difference_groups(report: Report) -> list[tuple[RootCause | None, list[Difference]]]:
    """The comparison's differences under their root causes (report order), the ungrouped ones last."""
    comparison = report.comparison
    if comparison is None:
        return []
    by_cause: dict[str, list[Difference]] = {}
    for difference in comparison.differences:
        by_cause.setdefault(difference.cause, []).append(difference)
    groups: list[tuple[RootCause | None, list[Difference]]] = []
    for cause in report.root_causes:
        members = by_cause.pop(cause.id, [])
        if members:
            groups.append((cause, members))
    rest = [d for members in by_cause.values() for d in members]
    if rest:
        groups.append((None, rest))
    return groups
