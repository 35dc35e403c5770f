"""A fork whose answered count leaves the branch thoughts out, run as a user runs it
(tests/servers/reference_fork.py `count-without-branches`: the history kept whole): the cause of the count
one lower on a branching call is led by the record stating that the count counts branches, OBJ-4/a2, and its
headline says the call was a branch, not OBJ-2's store "never pruned" (gate/count_kinds.py;
held-out-multi-18's branch-board)."""

from __future__ import annotations

import shlex
from pathlib import Path

from tests.cli import cli
from tests.servers import command


def test_a_count_leaving_branches_out_is_said_under_the_record_stating_it(tmp_path: Path) -> None:
    spec = "cmd:" + shlex.join(command("reference_fork", "count-without-branches"))
    ran = cli("run", "--target", spec, "--profile", "dev", "--seed", "1", out=tmp_path / "out")
    assert ran.code == 1, ran.stdout[-3000:] + ran.stderr[-2000:]
    causes = {cause["id"]: cause for cause in ran.report["root_causes"]}
    said = [cause["summary"] for cause in causes.values()]
    assert "OBJ-4/a2" in causes, said
    assert "branching call" in causes["OBJ-4/a2"]["summary"], said
    explained = {record["id"]: record.get("explained_by") for record in ran.report["records"]}
    assert "OBJ-2" not in causes and explained.get("OBJ-2") == "OBJ-4/a2", (said, explained)
