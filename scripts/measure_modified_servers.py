"""Root-cause precision over the single-behaviour modifications of the original (tests/modified_servers/).

Each modification is patched into a scratch copy of npm:0.6.2's dist/index.js and run with
`python -m conformance run --target "cmd:node <copy>"`; its report's root-cause records are compared
with the records the modification breaks. Precision per server = root-cause records among the
modification's primary records / all root-cause records; pooled = the same over the servers of a set.
Recall is kept in view by counting the servers whose causes name none of their primaries.
A combined fork (held-out-multi-1: several changes, each with its own primaries) is also scored per
change: changes named (a change is named when a root cause's records include one of its primaries) /
changes made, and grouping precision: of the departures marked `explained_by` a cause, those whose own
record is a primary of a change and whose cause names a primary of some change can be judged; one is right
when a single change has both the departure's record and one of the cause's records among its primaries (a
cause of its own change). Departures through a channel (no change's primary) and causes naming no primary
are not judged.
Writes tests/modified_servers/observed.json and the table in tests/modified_servers/README.md.
Counterexamples are not shrunk unless --shrink (SEQTHINK_CONFORMANCE_SHRINK=0): which tests fail decides
the causes, and shrinking a departure that fails twenty tests costs minutes per server.

`--reattribute DIR` runs no server: it reads the reports a measurement kept (`--keep DIR`) and chooses
their root causes again with the current gate/rootcauses.py and the suite's current reliances — the
observations (which tests failed, and how) are the runs', only the attribution is redone. Each
"explained by" is then checked as a run checks it (`checked_explanations`) against the replays the run
kept: a cause the run also chose keeps its replay (and the headline its pair wrote), a new one has none
(only a check naming it as contradicted then keeps a departure under it); a cause the run replayed and then
folded keeps the pair the report holds for it (`folded_causes`, report format /7; an older report holds none,
so its re-attribution may differ where its run folded one). The grouping after the pairs is the run's own
(`gate/evidence.grouped`: the poisoning the run found, the headlines' added sentences).

    nice -n 10 python -m scripts.measure_modified_servers [--jobs N] [--set tuning] [--only ID,...]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from conformance.catalog.records import MARKER, RELIES_MARKER
from conformance.catalog.view import load_catalog_view
from conformance.core.errors import HarnessError
from conformance.core.printable import safe
from conformance.core.results import RunResults, TestOutcome
from conformance.gate.evidence import grouped, its_failure, pair_headline, poisoning_kept
from conformance.gate.rootcauses import find_root_causes
from conformance.gate.run_options import RunOptions
from conformance.report.json import load_report
from conformance.report.model import Report, RootCause, TestRef
from conformance.suite.profiles import SHRINK_ENV
from tests.modified_servers.servers import (
    HERE,
    SETS,
    Modification,
    load_modifications,
    materialize,
    original_entry,
    target_spec,
)

REPO = Path(__file__).resolve().parents[1]

OBSERVED = HERE / "observed.json"
README = HERE / "README.md"
TABLE_START = "<!-- measured: start -->"
TABLE_END = "<!-- measured: end -->"


@dataclass(frozen=True)
class Measured:
    id: str
    set: str
    change: str
    primary: list[str]
    exit_code: int
    deviating: list[str]
    root_causes: list[list[str]]
    explained: int
    precision: float | None
    names_a_primary: bool
    seconds: float
    changes_made: int = 0
    """A combined fork's changes (0 for a single modification); the fields below are a fork's only."""
    changes_named: list[str] = field(default_factory=list)
    grouping_judged: int = 0
    grouping_right: int = 0
    no_report: str = ""
    """Why the run left no report (its exit status and last stderr line): the row is said, not scored."""


def root_cause_records(causes: list[list[str]]) -> list[str]:
    return [r for cause in causes for r in cause]


def precision(records: list[str], primary: list[str]) -> float | None:
    """Root-cause records that are among the expected ones / all root-cause records (None: no cause)."""
    if not records:
        return None
    return sum(r in primary for r in records) / len(records)


def changes_named(mod: Modification, causes: list[list[str]]) -> list[str]:
    """The fork's changes one of whose primaries is a root cause's record."""
    named = set(root_cause_records(causes))
    return [c.id for c in mod.changes if named & set(c.primary)]


def grouping(
    mod: Modification, explained_by: dict[str, str], causes: dict[str, list[str]]
) -> tuple[int, int]:
    """(judged, right) over a fork's departures explained by a cause (record → cause id; cause id → its
    records): judged when the departure's record is some change's primary and the cause names some change's
    primary; right when one change holds both."""
    primaries = [set(c.primary) for c in mod.changes]
    every = set().union(*primaries) if primaries else set()
    judged = right = 0
    for record, cause_id in explained_by.items():
        cause = set(causes.get(cause_id, ()))
        if record not in every or not cause & every:
            continue
        judged += 1
        right += any(record in p and cause & p for p in primaries)
    return judged, right


def measured(mod: Modification, report: Report, exit_code: int, seconds: float) -> Measured:
    causes = [list(c.records) for c in report.root_causes]
    named = root_cause_records(causes)
    explained = {r.id: r.explained_by for r in report.records if r.explained_by}
    judged, right = grouping(mod, explained, {c.id: list(c.records) for c in report.root_causes})
    return Measured(
        id=mod.id,
        set=mod.set,
        change=mod.change,
        primary=list(mod.primary),
        exit_code=exit_code,
        deviating=[r.id for r in report.records if r.verdict == "deviates"],
        root_causes=causes,
        explained=sum(1 for r in report.records if r.explained_by),
        precision=precision(named, list(mod.primary)),
        names_a_primary=any(r in mod.primary for r in named),
        seconds=round(seconds, 1),
        changes_made=len(mod.changes),
        changes_named=changes_named(mod, causes),
        grouping_judged=judged,
        grouping_right=right,
    )


def unreported(mod: Modification, exit_code: int, stderr: str, seconds: float) -> Measured:
    """A run that left no report, said by its exit status and last stderr line; the other servers' figures
    are scored without it."""
    last = next((line for line in reversed(stderr.splitlines()) if line.strip()), "no stderr")
    return Measured(id=mod.id, set=mod.set, change=mod.change, primary=list(mod.primary), exit_code=exit_code,
                    deviating=[], root_causes=[], explained=0, precision=None, names_a_primary=False,
                    seconds=round(seconds, 1), changes_made=len(mod.changes),
                    no_report=f"exit {exit_code}: {safe(last.strip(), 200)}")


def scored(mod: Modification, out: Path, exit_code: int, stderr: str, seconds: float) -> Measured:
    """The run's row: measured from its report, or said to have none."""
    report_file = out / "report.json"
    if not report_file.is_file():
        return unreported(mod, exit_code, stderr, seconds)
    try:
        report = load_report(report_file)
    except HarnessError as exc:
        return unreported(mod, exit_code, str(exc), seconds)
    return measured(mod, report, exit_code, seconds)


def measure(
    mod: Modification, scratch: Path, entry: Path, profile: str, seed: int, keep: Path | None, shrink: bool
) -> Measured:
    script = materialize(mod, scratch / mod.id / "server", entry)
    out = (keep / mod.id) if keep is not None else scratch / mod.id / "report"
    command = RunOptions(target=target_spec(script), profile=profile, seed=seed, out=out).command(
        sys.executable, local=True
    )
    env = dict(os.environ)
    if not shrink:
        env[SHRINK_ENV] = "0"
    started = time.monotonic()
    proc = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    return scored(mod, out, proc.returncode, proc.stderr, time.monotonic() - started)


def suite_marks() -> dict[str, dict[str, list[str]]]:
    """Test function name → {marker: record IDs} as the suite declares them now (its modules imported)."""
    suite = REPO / "conformance" / "suite"
    marks: dict[str, dict[str, list[str]]] = {}
    for path in sorted(suite.glob("test_*.py")):
        module = importlib.import_module(f"conformance.suite.{path.stem}")
        for name, function in vars(module).items():
            if not name.startswith("test_"):
                continue
            found: dict[str, list[str]] = {}
            for mark in getattr(function, "pytestmark", []):
                found.setdefault(mark.name, []).extend(str(a) for a in mark.args)
            marks[f"{path.name}::{name}"] = found
    return marks


def reattributed(report: Report, marks: dict[str, dict[str, list[str]]]) -> Report:
    """The report's observations with root causes chosen again by the current code and reliances."""
    catalog = load_catalog_view()
    records_of: dict[str, list[str]] = {}
    refs: dict[str, TestRef] = {}
    for rv in report.records:
        for ref in rv.tests:
            records_of.setdefault(ref.nodeid, []).append(rv.id)
            refs[ref.nodeid] = ref
    tests: list[TestOutcome] = []
    for nodeid, ref in refs.items():
        function = nodeid.split("[")[0].split("/")[-1]
        relies = marks.get(function, {}).get(RELIES_MARKER, [])
        evidenced = records_of[nodeid]
        declared = marks.get(function, {}).get(MARKER, evidenced)
        evidenced = [r for r in evidenced if r in declared or r not in ref.contradicted]
        tests.append(TestOutcome(nodeid=nodeid, records=evidenced, status=ref.status, message=ref.message,
                                 relies=[r for r in relies if r not in evidenced],
                                 contradicted=ref.contradicted))
    results = RunResults(target=report.target, harness=report.harness, started=report.run.started,
                         finished=report.run.finished, tests=tests)
    # Each record's pair held again against its checks' words by the current code (`its_failure`), as a run
    # holds it before grouping.
    cleared = [rv.model_copy(update={"explained_by": None, "evidence": None if rv.evidence is None
                                     else its_failure(rv, rv.evidence)}) for rv in report.records]
    causes, explained_by = find_root_causes(cleared, results, catalog.canonical)
    verdicts = [rv.model_copy(update={"explained_by": explained_by.get(rv.id)}) for rv in cleared]
    # A cause the run also chose keeps its pair, the sequence that pair replayed (the run's example may be
    # another candidate's than the grouping's first) and, where the pair reproduced, the headline it wrote;
    # one the run replayed and then folded into another keeps the pair report.json holds for it (/7).
    kept = {c.id: c for c in [*report.folded_causes, *report.root_causes]}
    causes = [_as_kept(c, kept[c.id]) if c.id in kept else c.model_copy(update={"evidence": None})
              for c in causes]
    causes, verdicts = grouped(causes, verdicts, poisoning_kept(report.root_causes))
    return report.model_copy(update={"root_causes": causes, "records": verdicts})


def _as_kept(cause: RootCause, kept: RootCause) -> RootCause:
    """The grouping's cause with what the run's replay gave it: its pair, example and check, and the headline
    a run writes from the pair where it reproduced where its checks failed (`gate/evidence._evidenced`): the
    run's own where it is one (it says where it reproduced; a rule found by re-testing is said only there),
    else the pair's line (a kept headline the grouping of its day wrote is not the pair's)."""
    update: dict[str, object] = {"evidence": kept.evidence, "example": kept.example, "test": kept.test}
    evidence = kept.evidence
    if evidence is not None and evidence.reproduced and not evidence.not_its_failure:
        pair = pair_headline(evidence)
        written = f"{', '.join(cause.records)} departs — {pair}"[:400] if pair else cause.summary
        update["summary"] = kept.summary if REPRODUCED in kept.summary else written
    return cause.model_copy(update=update)


REPRODUCED = " (reproduced at "
"""How a headline written from a reproduced pair says where (`Evidence.headline`)."""


def summarize(rows: list[Measured]) -> dict[str, float | int | None]:
    """The figures of the servers whose runs left a report; those that left none are counted apart."""
    unreported = sum(1 for m in rows if m.no_report)
    rows = [m for m in rows if not m.no_report]
    pooled = [(r in m.primary) for m in rows for cause in m.root_causes for r in cause]
    per_server = [m.precision for m in rows if m.precision is not None]
    departing = [m for m in rows if m.deviating]
    forks = [m for m in rows if m.changes_made]
    if forks:
        judged = sum(m.grouping_judged for m in forks)
        right = sum(m.grouping_right for m in forks)
        fork_figures: dict[str, float | int | None] = {
            "changes_made": sum(m.changes_made for m in forks),
            "changes_named": sum(len(m.changes_named) for m in forks),
            "grouping_judged": judged,
            "grouping_right": right,
            "grouping_precision": round(right / judged, 3) if judged else None,
        }
    else:
        fork_figures = {}
    return {
        "servers": len(rows) + unreported,
        "servers_without_report": unreported,
        "servers_departing": len(departing),
        "servers_with_a_root_cause": len(per_server),
        "precision_pooled": round(sum(pooled) / len(pooled), 3) if pooled else None,
        "precision_mean_per_server": round(sum(per_server) / len(per_server), 3) if per_server else None,
        "servers_all_causes_expected": sum(1 for p in per_server if p == 1.0),
        "servers_naming_no_primary": sum(1 for m in departing if not m.names_a_primary),
        "servers_without_departure": len(rows) - len(departing),
        **fork_figures,
    }


def summaries(rows: list[Measured]) -> dict[str, dict[str, float | int | None]]:
    """Per set (tuning, held-out) and over all servers."""
    out = {name: summarize([m for m in rows if m.set == name]) for name in SETS}
    out = {name: s for name, s in out.items() if s["servers"]}
    out["all"] = summarize(rows)
    return out


def _summary_line(name: str, s: dict[str, float | int | None]) -> str:
    line = (f"{name}: precision **{s['precision_pooled']}** pooled over the root-cause records of "
            f"{s['servers_with_a_root_cause']} servers (mean per server {s['precision_mean_per_server']}; "
            f"{s['servers_all_causes_expected']} name only expected records); of {s['servers_departing']} "
            f"servers with a departure, {s['servers_naming_no_primary']} name none of their primaries; "
            f"{s['servers_without_departure']} of {s['servers']} show no departure.")
    if s.get("servers_without_report"):
        line += f" {s['servers_without_report']} left no report (not scored)."
    if "changes_made" in s:
        line += (f" Combined forks: **{s['changes_named']} of {s['changes_made']}** changes named; grouping "
                 f"precision **{s['grouping_precision']}** ({s['grouping_right']} of {s['grouping_judged']} "
                 f"judged departures explained by a cause of their own change).")
    return line


def table(rows: list[Measured], sets: dict[str, dict[str, float | int | None]], command: str) -> str:
    lines = [
        TABLE_START,
        f"Measured with `{command}`:",
        "",
        "| modification | set | primary (expected) | deviating | root causes | explained | precision |",
        "|---|---|---|---:|---|---:|---:|",
    ]
    for m in rows:
        if m.no_report:
            said = _cell(m.no_report)
            lines.append(f"| `{m.id}` | {m.set} | {', '.join(m.primary)} | — | no report ({said}) | — | — |")
            continue
        causes = "; ".join(", ".join(c) for c in m.root_causes) or "—"
        shown = "—" if m.precision is None else f"{m.precision:.2f}"
        lines.append(f"| `{m.id}` | {m.set} | {', '.join(m.primary)} | {len(m.deviating)} | {causes} | "
                     f"{m.explained} | {shown} |")
    lines += ["", *(f"- {_summary_line(name, s)}" for name, s in sets.items()), TABLE_END]
    return "\n".join(lines)


def _cell(text: str) -> str:
    """Text in a Markdown table cell: its pipes and backticks cannot end the cell or open code."""
    return text.replace("|", "\\|").replace("`", "'")


def write_readme_table(text: str) -> None:
    current = README.read_text(encoding="utf-8") if README.exists() else ""
    if TABLE_START in current and TABLE_END in current:
        head, rest = current.split(TABLE_START, 1)
        _, tail = rest.split(TABLE_END, 1)
        current = head + text + tail
    else:
        current = current.rstrip("\n") + "\n\n" + text + "\n"
    README.write_text(current, encoding="utf-8")


def _selected(
    mods: list[Modification], only: str, chosen: str, parser: argparse.ArgumentParser
) -> list[Modification]:
    if only:
        wanted = set(only.split(","))
        unknown = wanted - {m.id for m in mods}
        if unknown:
            parser.error(f"unknown modification(s): {', '.join(sorted(unknown))}")
        mods = [m for m in mods if m.id in wanted]
    return [m for m in mods if m.set in SETS and chosen in ("all", m.set)]


def _reattribute(mods: list[Modification], kept: Path) -> list[Measured]:
    marks = suite_marks()
    rows: list[Measured] = []
    for mod in mods:
        path = kept / mod.id / "report.json"
        if not path.is_file():
            rows.append(unreported(mod, 0, f"no kept report at {path}", 0.0))
            continue
        report = load_report(path)
        rows.append(measured(mod, reattributed(report, marks), 0 if report.gate.passed else 1,
                             report.run.duration_s))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1, help="modified servers run at once")
    parser.add_argument("--profile", default="dev", choices=("dev", "ci", "thorough"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--set", dest="chosen", default="all", choices=(*SETS, "all"),
                        help="measure one set only (writes nothing)")
    parser.add_argument("--only", default="", help="comma-separated modification ids (writes nothing)")
    parser.add_argument("--keep", type=Path, default=None, help="keep each run's report under DIR/<id>")
    parser.add_argument("--reattribute", type=Path, default=None, metavar="DIR",
                        help="run nothing: choose again the root causes of the reports kept in DIR "
                        "(writes nothing)")
    parser.add_argument("--shrink", action="store_true",
                        help="shrink counterexamples as a normal run does (slow when many tests fail)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave observed.json and README")
    args = parser.parse_args(argv)
    mods = _selected(load_modifications(), args.only, args.chosen, parser)
    if args.reattribute is not None:
        rows = _reattribute(mods, args.reattribute)
    else:
        entry = original_entry()
        with (
            tempfile.TemporaryDirectory(prefix="seqthink-modified-") as tmp,
            ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool,
        ):
            scratch = Path(tmp)
            rows = list(pool.map(
                lambda m: measure(m, scratch, entry, args.profile, args.seed, args.keep, args.shrink), mods
            ))
    sets = summaries(rows)
    for m in rows:
        if m.no_report:
            print(f"{m.id:<30} {m.set:<8}   no report ({m.no_report})")
            continue
        shown = "  n/a" if m.precision is None else f"{m.precision:5.2f}"
        print(f"{m.id:<30} {m.set:<8} {shown}  causes {m.root_causes}  expected {m.primary}  "
              f"({len(m.deviating)} deviate, {m.seconds:.0f} s)")
        if m.changes_made:
            print(f"{'':<30} changes named {len(m.changes_named)} of {m.changes_made} {m.changes_named}; "
                  f"grouping {m.grouping_right} of {m.grouping_judged} judged")
    for name, s in sets.items():
        print(_summary_line(name, s).replace("**", ""))
    whole = not (args.only or args.chosen != "all" or args.reattribute is not None)
    if whole and not args.no_write:
        command = shlex.join(["python", "-m", "scripts.measure_modified_servers",
                              *(argv if argv is not None else sys.argv[1:])])
        OBSERVED.write_text(json.dumps({
            "format": "seqthink-modified-servers-observed/2",
            "command": command,
            "profile": args.profile,
            "seed": args.seed,
            "shrink": args.shrink,
            "summary": sets,
            "servers": [asdict(m) for m in rows],
        }, indent=2) + "\n", encoding="utf-8")
        write_readme_table(table(rows, sets, command))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
