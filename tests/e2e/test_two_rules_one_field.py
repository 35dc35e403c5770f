"""A fork adding two rules on one field, each refusing in words of its own, run as a user runs it
(tests/servers/reference_fork.py `two-label-rules`: a label over 16 units, and an eleventh label): each rule
is a cause of its own, and every departure whose own failure quotes one rule's refusal is under the cause
headed by that refusal, none loose and none under the other rule's (gate/evidence `_rules_apart`,
`loose_by_own_refusal`; held-out-multi-18's branch-limits put the eleventh label under the 16-unit limit
and left six departures quoting it each on a line of its own)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Final

from tests.cli import cli
from tests.servers import command

RULES: Final = ("Invalid branchId: must be at most 16 characters", "Invalid branchId: at most 10 branches")


def _rule(text: str) -> str | None:
    said = [rule for rule in RULES if rule in text]
    return said[0] if len(said) == 1 else None


def test_two_rules_on_one_field_are_two_causes_each_explaining_its_own(tmp_path: Path) -> None:
    spec = "cmd:" + shlex.join(command("reference_fork", "two-label-rules"))
    ran = cli("run", "--target", spec, "--profile", "dev", "--seed", "1", out=tmp_path / "out")
    assert ran.code == 1, ran.stdout[-3000:] + ran.stderr[-2000:]
    causes = {cause["id"]: cause for cause in ran.report["root_causes"]}
    headed = {cid: _rule(cause["summary"].partition(" — ")[2]) for cid, cause in causes.items()}
    assert set(RULES) <= set(headed.values()), [cause["summary"] for cause in causes.values()]
    primary = {r for cause in causes.values() for r in cause["records"]}
    for record in ran.report["records"]:
        own = _rule(record["reason"]) if record["verdict"] == "deviates" else None
        if own is None or record["id"] in primary:
            continue
        assert record.get("explained_by"), f"{record['id']} quotes “{own}” on a line of its own"
        assert headed[record["explained_by"]] == own, (
            f"{record['id']} quotes “{own}” under {causes[record['explained_by']]['summary'][:200]}")
