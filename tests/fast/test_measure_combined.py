"""How a combined fork's run is scored per change (scripts/measure_modified_servers.py): changes named,
and grouping precision (a departure explained by a cause of its own change)."""

from __future__ import annotations

from scripts.measure_modified_servers import changes_named, grouping
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
