"""`baseline --refresh` keeps what humans wrote: reasons, comments, the entries a report cannot speak for;
drops an entry only when asked and only when the report saw its record hold; refuses a report that cannot
say what departs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.catalog.view import load_catalog_view
from conformance.gate.baseline import (
    Baseline,
    BaselineEntry,
    dump_baseline,
    evaluate_gate,
    load_baseline,
    parse_baseline,
)
from conformance.gate.exit_status import USAGE
from conformance.gate.refresh import refresh
from conformance.report.json import load_report, write_json
from conformance.report.model import Evidence, Report, RootCause
from tests.cli import REPO, assert_one_clean_error_line, cli_here

REPORT = load_report(REPO / "reports" / "npm-0.6.2" / "report.json")
PROJECT = "@modelcontextprotocol/server-sequential-thinking"
IDS = [r.id for r in REPORT.records if r.verdict == "holds"][:6]
SIGNATURE = "a" * 64
CANONICAL = load_catalog_view().canonical


def with_verdicts(verdicts: dict[str, str], **update: object) -> Report:
    records = [
        r.model_copy(
            update={
                "verdict": verdicts[r.id],
                "signature": SIGNATURE if verdicts[r.id] in ("deviates", "error") else None,
            }
        )
        if r.id in verdicts
        else r
        for r in REPORT.records
    ]
    return REPORT.model_copy(update={"records": records, **update})


def human_baseline(ids: list[str]) -> Baseline:
    return Baseline(
        project=PROJECT,
        deviations=[BaselineEntry(record=i, reason=f"because of {i}, says a human") for i in ids],
    )


@settings(max_examples=50, deadline=None)
@given(
    verdicts=st.fixed_dictionaries(
        {i: st.sampled_from(["holds", "deviates", "error", "not run"]) for i in IDS}
    ),
    listed=st.lists(st.sampled_from(IDS), unique=True),
    drop=st.booleans(),
)
def test_refresh_loses_no_reason_unless_asked_and_the_record_held(
    verdicts: dict[str, str], listed: list[str], drop: bool
) -> None:
    existing = human_baseline(listed)
    done = refresh(
        with_verdicts(verdicts), PROJECT, {e.record: e for e in existing.deviations}, drop_stale=drop
    )
    after = {e.record: e for e in done.baseline.deviations}
    for record in listed:
        if drop and verdicts[record] == "holds":
            assert record not in after and record in done.stale
        else:
            assert after[record].reason == f"because of {record}, says a human"
    departing = {i for i, v in verdicts.items() if v in ("deviates", "error")}
    assert departing <= set(after)
    assert set(done.added) == departing - set(listed)
    assert set(done.unchecked) == {i for i in listed if verdicts[i] == "not run"}


def write(tmp_path: Path, report: Report, baseline_text: str) -> tuple[Path, Path]:
    report_path, baseline_path = tmp_path / "report.json", tmp_path / "baseline.yaml"
    write_json(report, report_path)
    baseline_path.write_text(baseline_text, encoding="utf-8")
    return report_path, baseline_path


def test_comments_are_carried_with_their_entries(tmp_path: Path) -> None:
    first, second = IDS[0], IDS[1]
    text = dump_baseline(human_baseline([first, second]))
    text = text.replace(f"- record: {second}", f"# {second}: upstream issue 123\n- record: {second}")
    text = text.replace("format:", "# owned by the fork's maintainers\nformat:")
    report_path, baseline_path = write(tmp_path, with_verdicts({first: "deviates", second: "deviates"}), text)
    ran = cli_here("baseline", str(report_path), "--refresh", str(baseline_path))
    assert ran.code == 0, ran.stderr
    assert "2 comment line(s) kept" in ran.stdout
    after = baseline_path.read_text(encoding="utf-8")
    assert f"# {second}: upstream issue 123\n- record: {second}" in after
    assert "# owned by the fork's maintainers" in after
    assert load_baseline(baseline_path).deviations[0].signature == SIGNATURE
    assert cli_here("baseline", str(report_path), "--refresh", str(baseline_path)).code == 0
    assert baseline_path.read_text(encoding="utf-8") == after, "a second refresh changes nothing"


def test_stale_entries_are_listed_and_kept_until_asked(tmp_path: Path) -> None:
    report_path, baseline_path = write(tmp_path, with_verdicts({}), dump_baseline(human_baseline([IDS[0]])))
    kept = cli_here("baseline", str(report_path), "--refresh", str(baseline_path))
    assert kept.code == 0 and f"no longer departing, kept with their reasons: {IDS[0]}" in kept.stdout
    assert [e.record for e in load_baseline(baseline_path).deviations] == [IDS[0]]
    dropped = cli_here("baseline", str(report_path), "--refresh", str(baseline_path), "--drop-stale")
    assert dropped.code == 0 and f"removed 1 ({IDS[0]})" in dropped.stdout
    assert load_baseline(baseline_path).deviations == []


@pytest.mark.parametrize(
    ("update", "says"),
    [
        ({"run": REPORT.run.model_copy(update={"interrupted": "deadline (--max-time 5)"})}, "was stopped"),
        (
            {"preflight": REPORT.preflight.model_copy(update={"ok": False, "error": "exited"})},
            "could not be used",
        ),
        ({"target": REPORT.target.model_copy(update={"package_name": "another-server"})}, "another-server"),
    ],
    ids=["stopped", "unusable", "other-project"],
)
def test_a_report_that_cannot_say_what_departs_is_refused(
    tmp_path: Path, update: dict[str, object], says: str
) -> None:
    text = "# mine\n" + yaml.safe_dump(
        {
            "format": "seqthink-conformance-baseline/2",
            "project": PROJECT,
            "deviations": [{"record": IDS[0], "reason": "a human's"}],
        }
    )
    report_path, baseline_path = write(tmp_path, with_verdicts({}, **update), text)
    ran = cli_here("baseline", str(report_path), "--refresh", str(baseline_path), "--drop-stale")
    assert ran.code == USAGE, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert says in ran.stderr
    assert baseline_path.read_text(encoding="utf-8") == text


def test_a_new_baseline_never_overwrites_a_file(tmp_path: Path) -> None:
    report_path, baseline_path = write(tmp_path, with_verdicts({IDS[0]: "deviates"}), "# a human's file\n")
    ran = cli_here("baseline", str(report_path), "-o", str(baseline_path))
    assert ran.code == USAGE and "--refresh" in ran.stderr
    assert_one_clean_error_line(ran)
    assert baseline_path.read_text(encoding="utf-8") == "# a human's file\n"


@settings(max_examples=50, deadline=None)
@given(
    cause=st.sampled_from(IDS[:3]),
    explained=st.lists(st.sampled_from(IDS[3:]), min_size=1, unique=True),
    listed=st.lists(st.sampled_from(IDS), unique=True),
)
def test_one_entry_per_root_cause_with_its_departures_folded_under_it(
    cause: str, explained: list[str], listed: list[str]
) -> None:
    """/3: a cause and what it explains are one entry asking one reason; the gate still weighs each record,
    and a reason an older baseline gave any of them is kept."""
    report = with_verdicts({cause: "deviates", **{e: "deviates" for e in explained}}, root_causes=[
        RootCause(id=cause, records=[cause], explains=explained, summary=f"{cause} departs")])
    existing = human_baseline(listed)
    done = refresh(report, PROJECT, {e.record: e for e in existing.deviations}, drop_stale=True)
    tops = [e for e in done.baseline.deviations if e.record == cause]
    assert len(tops) == 1 and sorted(x.record for x in tops[0].explains) == sorted(explained)
    assert not any(e.record in explained for e in done.baseline.deviations)
    told = [i for i in [cause, *explained] if i in listed]
    assert tops[0].reason == (f"because of {told[0]}, says a human" if told else tops[0].reason)
    assert tops[0].reason.startswith("TODO") == (not told)
    reloaded = Baseline.model_validate(yaml.safe_load(dump_baseline(done.baseline)))
    assert reloaded.format == "seqthink-conformance-baseline/4" and reloaded == done.baseline
    gate = evaluate_gate(report.records, reloaded, baseline_path="b.yaml", canonical=CANONICAL)
    assert gate.passed and {e.record for e in gate.expected} == {cause, *explained}
    strict = evaluate_gate(report.records, reloaded, baseline_path="b.yaml", canonical=CANONICAL, strict=True)
    assert strict.passed == bool(told)


def test_an_advisory_departure_is_written_only_when_the_baseline_already_declares_it() -> None:
    """A guidance departure never gates: `baseline -o` leaves it out (its TODO reason would fail
    --strict-baseline for nothing); an entry a human already wrote for it is kept."""
    report = with_verdicts({IDS[0]: "deviates"})
    advisory = report.records[0].model_copy(update={"id": "SPEC-12", "kind": "spec", "verdict": "deviates"})
    report = report.model_copy(update={"records": [*report.records, advisory]})
    gate = evaluate_gate(report.records, None, baseline_path=None, canonical=CANONICAL)
    assert [e.record for e in gate.advisory] == ["SPEC-12"]
    report = report.model_copy(update={"gate": gate})
    written = refresh(report, PROJECT, {}, drop_stale=False).baseline
    records = {e.record for e in written.deviations}
    assert "SPEC-12" not in records and IDS[0] in records
    why = "we answer unknown tools as results, as 0.6.2 does"
    declared = {"SPEC-12": BaselineEntry(record="SPEC-12", reason=why)}
    kept = refresh(report, PROJECT, declared, drop_stale=False).baseline
    assert [e.reason for e in kept.deviations if e.record == "SPEC-12"] == [declared["SPEC-12"].reason]


def test_each_entry_pins_its_reproduced_pair_and_a_refresh_without_one_keeps_it() -> None:
    """gate/pinned_pairs.py: the call that made a departure depart, written beside its witness; a refresh
    from a run whose evidence reproduced nothing for it keeps the pair the file had."""
    first, folded = IDS[0], IDS[1]
    pair = Evidence(reproduced=True, original_spec="npm:0.6.2", at="on the example's tools/call 4",
                    original='{"result":{"content":[]}}', target='{"result":{"isError":true}}',
                    differences=["the original accepts this call and this server refuses it"])
    report = with_verdicts({first: "deviates", folded: "deviates"})
    records = [r.model_copy(update={"evidence": pair}) if r.id in (first, folded) else r
               for r in report.records]
    report = report.model_copy(update={"records": records, "root_causes": [
        RootCause(id="C1", records=[first], explains=[folded], summary="one change")]})
    written = refresh(report, PROJECT, {}, drop_stale=False).baseline
    entry = written.deviations[0]
    assert entry.pair is not None and entry.pair.target == pair.target and entry.pair.at == pair.at
    assert entry.explains[0].pair == entry.pair
    assert parse_baseline(dump_baseline(written), "the written baseline") == written
    unreproduced = report.model_copy(update={"records": [
        r.model_copy(update={"evidence": None}) if r.id in (first, folded) else r for r in report.records]})
    kept = {e.record: e for e in written.deviations[0].flattened()}
    assert refresh(unreproduced, PROJECT, kept, drop_stale=False).baseline.deviations[0].pair == entry.pair
