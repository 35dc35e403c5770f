"""How a combined fork's run is scored per change (scripts/measure_modified_servers.py): changes named,
and grouping precision (a departure explained by a cause of its own change)."""

from __future__ import annotations

from pathlib import Path

from scripts.measure_modified_servers import Measured, changes_named, grouping, scored, summaries, table
from tests.modified_servers.servers import Change, Modification, Patch


def _fork() -> Modification:
    changes = (
        Change("cap", "a history cap", (Patch("a", "b"),), ("OBJ-2", "RTE-5")),
        Change("keys", "extra keys", (Patch("c", "d"),), ("OBJ-4", "RTE-7")),
        Change("version", "a version", (Patch("e", "f"),), ("CMP-3/a1",)),
    )
    return Modification(id="fork", set="held-out-multi-1", change="a fork", changes=changes,
                        patches=tuple(p for c in changes for p in c.patches),
                        primary=("OBJ-2", "RTE-5", "OBJ-4", "RTE-7", "CMP-3/a1"))


def test_a_change_is_named_when_a_cause_holds_one_of_its_primaries() -> None:
    assert changes_named(_fork(), [["RTE-5"], ["CMP-5"], ["RTE-7", "OBJ-9"]]) == ["cap", "keys"]
    assert changes_named(_fork(), []) == []


def test_grouping_judges_own_change_departures_under_a_cause_naming_a_change() -> None:
    causes = {"rc-1": ["RTE-5"], "rc-2": ["CMP-5"]}
    explained = {
        "OBJ-2": "rc-1",  # same change as its cause: right
        "OBJ-4": "rc-1",  # another change's primary under the cap's cause: wrong
        "ABS-11": "rc-1",  # no change's primary (a channel): not judged
        "RTE-7": "rc-2",  # a cause naming no primary: not judged
    }
    assert grouping(_fork(), explained, causes) == (2, 1)


def _single(mod_id: str) -> Modification:
    return Modification(id=mod_id, set="tuning", change="one change", changes=(), patches=(Patch("a", "b"),),
                        primary=("OBJ-4",))


def test_a_server_without_a_report_is_said_and_the_others_are_scored(tmp_path: Path) -> None:
    """One fork whose run left no report (a writer's crash) keeps the others' figures: its row says its exit
    status and last stderr line, and the figures are the others'."""
    stderr = "Traceback (most recent call last):\n  ...\nUnicodeEncodeError: surrogates not allowed\n"
    crashed = scored(_single("fork-crash"), tmp_path / "none", 1, stderr, 9.0)
    assert crashed.no_report == "exit 1: UnicodeEncodeError: surrogates not allowed"
    fine = Measured(id="fork-fine", set="tuning", change="one change", primary=["OBJ-4"], exit_code=1,
                    deviating=["OBJ-4"], root_causes=[["OBJ-4"]], explained=0, precision=1.0,
                    names_a_primary=True, seconds=5.0)
    sets = summaries([crashed, fine])
    assert sets["tuning"]["servers"] == 2
    assert sets["tuning"]["servers_without_report"] == 1
    assert sets["tuning"]["servers_departing"] == 1
    assert sets["tuning"]["precision_pooled"] == 1.0
    assert sets["tuning"]["servers_without_departure"] == 0
    shown = table([crashed, fine], sets, "python -m scripts.measure_modified_servers")
    said = "no report (exit 1: UnicodeEncodeError: surrogates not allowed)"
    assert f"| `fork-crash` | tuning | OBJ-4 | — | {said} | — | — |" in shown
    assert "| `fork-fine` | tuning | OBJ-4 | 1 | OBJ-4 | 0 | 1.00 |" in shown
    assert "1 left no report (not scored)" in shown
