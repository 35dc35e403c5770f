"""Policy the user controls. `run --select/--deselect` by record ID, alias or kind, and `run --list`: names
checked against the catalog before anything starts, the records left out `not run` with a reason that says
so, the gate weighing only the selected records, the rerun line repeating the selection (a run:
tests/e2e/test_run_policy_cli.py). `--strict-baseline` failing an entry whose reason still says TODO, and the
terminal counting the departures the gate accepts instead of listing them."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.catalog.selection import SelectionError, names, select_records
from conformance.catalog.view import load_catalog_view
from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.results import RunResults, TestOutcome
from conformance.gate import exit_status
from conformance.gate.assemble import TargetSeen, assemble_report
from conformance.gate.baseline import Baseline, BaselineEntry, ExplainedEntry, evaluate_gate
from conformance.gate.run_options import RunOptions
from conformance.gate.verdicts import NOT_SELECTED
from conformance.report.junit import render_junit
from conformance.report.model import Gate, Preflight, Report, RunInfo
from conformance.report.sections import departures, not_run
from conformance.report.terminal import summary_lines
from conformance.report.text import gate_sentence
from tests.cli import assert_one_clean_error_line, cli_here

CATALOG = load_catalog_view()
IDS = [r.id for r in CATALOG.records]
KINDS = sorted({r.kind for r in CATALOG.records})


def _select(select: tuple[str, ...] = (), deselect: tuple[str, ...] = ()) -> tuple[str, ...]:
    return select_records(CATALOG.records, CATALOG.canonical, select, deselect).selected


def test_ids_aliases_and_kinds_select_in_catalog_order() -> None:
    alias, canonical = next((a, r) for a, r in CATALOG.canonical.items() if a != r)
    assert _select(("RTE-3", "RTE-2")) == ("RTE-2", "RTE-3")
    assert _select(("rte-3",)) == ("RTE-3",)
    assert _select((alias,)) == (canonical,)
    assert _select(("RTE",)) == tuple(r.id for r in CATALOG.records if r.kind == "rte")
    rte = tuple(r.id for r in CATALOG.records if r.kind == "rte")
    assert _select(("rte",), ("RTE-2",)) == tuple(rid for rid in rte if rid != "RTE-2")
    assert _select((), ("rte",)) == tuple(r.id for r in CATALOG.records if r.kind != "rte")
    assert _select() == tuple(IDS)


NAMES = st.lists(st.sampled_from([*IDS, *KINDS]), max_size=6)


@given(NAMES, NAMES)
def test_selected_and_not_selected_split_the_catalog(select: list[str], deselect: list[str]) -> None:
    try:
        selection = select_records(CATALOG.records, CATALOG.canonical, select, deselect)
    except SelectionError as refused:
        assert "leaves no record a test can observe" in str(refused)
        return
    assert sorted([*selection.selected, *selection.not_selected]) == sorted(IDS)
    assert not set(selection.selected) & set(deselect)
    assert selection.narrowed == bool(selection.not_selected)


@pytest.mark.parametrize(
    ("select", "deselect", "says"),
    [
        (("NOPE-1",), (), "--select 'NOPE-1' is neither a record ID nor a kind"),
        (("RTE-2",), ("bogus",), "--deselect 'bogus' is neither a record ID nor a kind"),
        (("RTE-2",), ("rte",), "leaves no record a test can observe"),
        (("source",), (), "leaves no record a test can observe"),
    ],
    ids=["unknown-id", "unknown-deselect", "nothing-left", "only-unobservable"],
)
def test_a_selection_that_names_nothing_is_refused(select: tuple[str, ...], deselect: tuple[str, ...],
                                                   says: str) -> None:
    with pytest.raises(SelectionError) as refused:
        _select(select, deselect)
    assert says in str(refused.value)


def test_names_split_commas_and_drop_repeats_and_blanks() -> None:
    assert names(["RTE-2,RTE-3", " rte ", "RTE-2", ","]) == ("RTE-2", "RTE-3", "rte")


def test_the_rerun_line_repeats_the_selection() -> None:
    options = RunOptions(target="reference", profile="dev", seed=1, out=Path("out"), select=("RTE-2", "abs"),
                         deselect=("ABS-1",))
    assert options.command()[-6:] == ["--select", "RTE-2", "--select", "abs", "--deselect", "ABS-1"]


TARGET = TargetIdentity(spec="cmd:node fork.js", kind="cmd", command=["node", "fork.js"])
HARNESS = HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3.11")


def _report(failed: dict[str, list[str]], reasons: dict[str, str], *, not_selected: tuple[str, ...] = (),
            strict: bool = False) -> Report:
    """A report of tests named by `failed` (test → the records it evidences, each test failed) against a
    baseline of `reasons` (record → its reason, each expected to deviate)."""
    results = RunResults(target=TARGET, harness=HARNESS, started="t0", finished="t1", tests=[
        TestOutcome(nodeid=f"t::{name}", records=records, status="failed", message="boom", examples=1)
        for name, records in failed.items()])
    baseline = Baseline(project="fork", deviations=[
        BaselineEntry(record=record, reason=reason, verdict="deviates") for record, reason in reasons.items()
    ])
    return assemble_report(
        catalog=CATALOG.records, canonical=CATALOG.canonical, results=results,
        seen=TargetSeen(TARGET, Preflight(ok=True), {}, "2024-11-05"), harness=HARNESS,
        run=RunInfo(started="t0", finished="t1", duration_s=1.0, jobs=1, processes_started=1, calls_made=1,
                    tests=len(failed), rerun="python -m conformance run"),
        generated="t1", baseline=baseline, baseline_path="baseline.yaml", not_selected=not_selected,
        strict=strict,
    )


def test_a_record_left_out_is_not_run_and_its_baseline_entry_not_weighed() -> None:
    """RTE-2's test also evidences RTE-3 and failed; with RTE-3 not selected, RTE-3 is `not run` and its
    baseline entry neither confirms nor fails the gate."""
    selection = select_records(CATALOG.records, CATALOG.canonical, ("RTE-2",))
    report = _report({"a": ["RTE-2", "RTE-3"]}, {"RTE-2": "why", "RTE-3": "why", "OBJ-4": "why"},
                     not_selected=selection.not_selected)
    verdicts = {rv.id: rv for rv in report.records}
    assert verdicts["RTE-2"].verdict == "deviates"
    assert (verdicts["RTE-3"].verdict, verdicts["RTE-3"].reason, verdicts["RTE-3"].tests) == (
        "not run", NOT_SELECTED, [])
    assert report.gate.passed and [e.record for e in report.gate.expected] == ["RTE-2"]
    assert not report.gate.unconfirmed
    groups = not_run.view(report)
    assert not isinstance(groups, type(not_run.NOT_SHOWN))
    line = next(line for line in not_run.terminal(groups) if NOT_SELECTED in line)
    left_out = [rv for rv in report.records if rv.reason == NOT_SELECTED]
    assert len(left_out) == sum(r.observable for r in CATALOG.records if r.id in selection.not_selected)
    assert line.startswith(f"  not run  {len(left_out)} records (")


def test_run_list_prints_the_selected_records_and_starts_nothing(tmp_path: Path) -> None:
    ran = cli_here("run", "--list", "--select", "rte", "--deselect", "RTE-2", "--out", str(tmp_path / "out"))
    assert ran.code == 0, ran.stderr
    rte = [r for r in CATALOG.records if r.kind == "rte" and r.id != "RTE-2"]
    listed = ran.stdout.splitlines()
    assert [line.split()[0] for line in listed[:-1]] == [r.id for r in rte]
    assert listed[-1] == (f"{len(rte)} of {len(IDS)} records selected ({sum(r.observable for r in rte)} "
                          f"observable, judged by the run); {len(IDS) - len(rte)} not selected")
    assert not (tmp_path / "out").exists()


def test_run_with_an_unknown_selection_exits_4_before_anything_starts(tmp_path: Path) -> None:
    ran = cli_here("run", "--select", "RTE-2,NOPE", "--out", str(tmp_path / "out"))
    assert ran.code == exit_status.USAGE
    assert_one_clean_error_line(ran)
    assert "--select 'NOPE' is neither a record ID nor a kind" in ran.stderr
    assert not (tmp_path / "out" / "report.json").exists()


@pytest.mark.parametrize("reason", ["TODO say why; observed: boom", "  todo: ask upstream", "TODO"])
def test_strict_baseline_fails_an_entry_whose_reason_still_says_todo(reason: str) -> None:
    reasons = {"RTE-2": reason, "RTE-3": "the fork keeps the old guard on purpose"}
    failed = {"a": ["RTE-2"], "b": ["RTE-3"]}
    assert _report(failed, reasons).gate.passed, "without --strict-baseline a TODO reason passes"
    report = _report(failed, reasons, strict=True)
    assert not report.gate.passed
    assert [e.record for e in report.gate.unexplained] == ["RTE-2"]
    assert "1 baseline reason still says TODO (RTE-2)" in gate_sentence(report.gate)
    junit = ET.fromstring(render_junit(report))
    failures = {c.get("name"): c.find("failure") for c in junit.iter("testcase")}
    assert failures["RTE-3"] is None
    failure = failures["RTE-2"]
    assert failure is not None and failure.get("type") == "baseline reason TODO"


def test_a_reason_left_todo_is_counted_once_with_the_departures_folded_under_it() -> None:
    """One reason per cause: an entry and the departures it explains share one reason, so the gate's
    sentence counts entries, naming each with what is folded under it; a folded departure that holds on its
    own is named under its entry."""
    baseline = Baseline(project="fork", deviations=[
        BaselineEntry(record="OBJ-2", reason="TODO say why", explains=[
            ExplainedEntry(record="CMP-1"), ExplainedEntry(record="ABS-1")]),
        BaselineEntry(record="RTE-2", reason="TODO", explains=[ExplainedEntry(record="RTE-3")]),
    ])
    departing = [rv.model_copy(update={"verdict": "holds"}) if rv.id == "RTE-3" else rv
                 for rv in _report({"a": ["OBJ-2", "CMP-1", "ABS-1", "RTE-2"]}, {}).records]
    gate = evaluate_gate(departing, baseline, baseline_path="b.yaml", canonical=CATALOG.canonical,
                         strict=True)
    assert {e.record: e.folded_under for e in gate.unexplained} == {
        "OBJ-2": None, "CMP-1": "OBJ-2", "ABS-1": "OBJ-2", "RTE-2": None, "RTE-3": "RTE-2"}
    assert [e.record for e in gate.stale] == ["RTE-3"] and gate.stale[0].folded_under == "RTE-2"
    sentence = gate_sentence(gate)
    order = [e.record for e in gate.unexplained]
    obj2 = f"OBJ-2 with {', '.join(r for r in order if r in ('CMP-1', 'ABS-1'))} folded under it"
    todo = sorted([("OBJ-2", obj2), ("RTE-2", "RTE-2 with RTE-3 folded under it")],
                  key=lambda entry: order.index(entry[0]))
    named = "; ".join(text for _, text in todo)
    assert f"2 baseline reasons still say TODO ({named})" in sentence, sentence
    assert "1 stale baseline entry now holding (RTE-3 (folded under RTE-2))" in sentence, sentence


def test_a_reason_that_only_mentions_todo_is_a_reason() -> None:
    report = _report({"a": ["RTE-2"]}, {"RTE-2": "Todoist's fork renders no box; see TODO.md"}, strict=True)
    assert report.gate.passed and not report.gate.unexplained


def test_the_terminal_counts_accepted_departures_and_names_the_others() -> None:
    report = _report({"a": ["RTE-2"], "b": ["RTE-3"], "c": ["OBJ-4"]},
                     {"RTE-2": "why", "RTE-3": "why"})
    view = departures.view(report)
    assert isinstance(view, departures.Departures)
    lines = departures.terminal(view)
    assert [line.split()[:2] for line in lines[:-1]] == [["deviates", "OBJ-4"]]
    assert lines[-1] == "  accepted 2 departures the baseline lists (each with its reason in report.md)"
    markdown = "\n".join(departures.markdown(view, 2))
    assert all(rid in markdown for rid in ("RTE-2", "RTE-3", "OBJ-4")), "report.md still shows each one"


def test_strict_baseline_is_in_the_rerun_line() -> None:
    options = RunOptions(target="reference", profile="dev", seed=1, out=Path("out"), strict_baseline=True)
    assert options.command()[-1] == "--strict-baseline"


def test_an_example_database_replaces_the_fixed_seed_in_the_rerun_line(tmp_path: Path) -> None:
    options = RunOptions(target="reference", profile="dev", seed=1, out=Path("out"), example_db=tmp_path)
    assert options.forced_seed is None
    assert "--seed" not in options.command() and options.command()[-2:] == ["--example-db", str(tmp_path)]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--seed", "3", "--example-db", "db"], "--seed and --example-db exclude each other"),
        (["--example-db", "a-file"], "a-file' is not a folder"),
        (["--example-db", "linked"], "is a symlink; the example database is written to"),
        (["--example-db", "holds-link"], "holds 'abc', a symlink: the example database is written to"),
    ],
    ids=["with-seed", "a-file", "a-link", "a-link-inside"],
)
def test_a_misused_example_database_exits_4_before_anything_starts(argv: list[str], says: str,
                                                                    tmp_path: Path) -> None:
    """A committed symlink (the database itself, or a key folder in it) would have hypothesis write through it
    wherever it points."""
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "linked").symlink_to(elsewhere)
    (tmp_path / "holds-link").mkdir()
    (tmp_path / "holds-link" / "abc").symlink_to(elsewhere)
    resolved = [str(tmp_path / a) if a in ("db", "a-file", "linked", "holds-link") else a for a in argv]
    ran = cli_here("run", *resolved, "--out", str(tmp_path / "out"))
    assert ran.code == exit_status.USAGE
    assert_one_clean_error_line(ran)
    assert says in ran.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "db").exists()
    assert not any(elsewhere.iterdir()), "nothing written through the link"


def test_a_run_stopped_early_says_so_in_the_gate_sentence() -> None:
    """A deadline or a signal is what happened, not "the target could not be checked"."""
    stopped = Gate(baseline=None, passed=False)
    assert gate_sentence(stopped) == "gate failed: the target could not be checked"
    assert gate_sentence(stopped, "deadline: --max-time 10 s reached") == (
        "gate failed: the run stopped early (deadline: --max-time 10 s reached), its unfinished records "
        "not run"
    )
    report = _report({"a": ["RTE-2"]}, {})
    run = report.run.model_copy(update={"interrupted": "cancelled by SIGTERM"})
    report = report.model_copy(update={"run": run, "gate": report.gate.model_copy(update={"passed": False})})
    assert summary_lines(report)[-1].startswith("gate failed: the run stopped early (cancelled by SIGTERM), ")
    assert "1 departure(s) not in the baseline (RTE-2)" in summary_lines(report)[-1]
