"""`run --select/--deselect` by record ID, alias or kind, and `run --list`: names checked against the catalog
before anything starts, the records left out `not run` with a reason that says so, the gate weighing only
the selected records, and the rerun line repeating the selection (a run: tests/e2e/test_selection_cli.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.catalog.selection import SelectionError, names, select_records
from conformance.catalog.view import load_catalog_view
from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.results import RunResults, TestOutcome
from conformance.gate.assemble import TargetSeen, assemble_report
from conformance.gate.baseline import Baseline, BaselineEntry
from conformance.gate.run_options import RunOptions
from conformance.gate.verdicts import NOT_SELECTED
from conformance.report.model import Preflight, RunInfo
from conformance.report.sections import not_run
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


def test_a_record_left_out_is_not_run_and_its_baseline_entry_not_weighed() -> None:
    """RTE-2's test also evidences RTE-3 and failed; with RTE-3 not selected, RTE-3 is `not run` and its
    baseline entry neither confirms nor fails the gate."""
    selection = select_records(CATALOG.records, CATALOG.canonical, ("RTE-2",))
    results = RunResults(target=TARGET, harness=HARNESS, started="t0", finished="t1", tests=[
        TestOutcome(nodeid="t::a", records=["RTE-2", "RTE-3"], status="failed", message="boom", examples=1)])
    baseline = Baseline(project="fork", deviations=[
        BaselineEntry(record="RTE-2", reason="why", verdict="deviates"),
        BaselineEntry(record="RTE-3", reason="why", verdict="deviates"),
        BaselineEntry(record="OBJ-4", reason="why", verdict="deviates"),
    ])
    report = assemble_report(
        catalog=CATALOG.records, canonical=CATALOG.canonical, results=results,
        seen=TargetSeen(TARGET, Preflight(ok=True), {}, "2024-11-05"), harness=HARNESS,
        run=RunInfo(started="t0", finished="t1", duration_s=1.0, jobs=1, processes_started=1, calls_made=1,
                    tests=1, rerun="python -m conformance run"),
        generated="t1", baseline=baseline, baseline_path="baseline.yaml", not_selected=selection.not_selected,
    )
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


def test_run_with_an_unknown_selection_exits_2_before_anything_starts(tmp_path: Path) -> None:
    ran = cli_here("run", "--select", "RTE-2,NOPE", "--out", str(tmp_path / "out"))
    assert ran.code == 2
    assert_one_clean_error_line(ran)
    assert "--select 'NOPE' is neither a record ID nor a kind" in ran.stderr
    assert not (tmp_path / "out" / "report.json").exists()
