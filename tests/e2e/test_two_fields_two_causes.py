"""A fork changing two fields of one tools/list answer, run as a user runs it
(tests/servers/reference_fork.py `paged-one-line`: a `nextCursor` and the description cut to its first
line): each change is a root cause of its own, under the record stating it — RTE-1 headed by the paged
listing, CMP-2 by the description, with the description's records under CMP-2 (gate/stated_apart.py;
held-out-multi-17's fork-client-polish had one cause, RTE-1's, headed by the description)."""

from __future__ import annotations

import shlex
from pathlib import Path

from tests.cli import cli
from tests.servers import command


def test_a_paged_listing_and_a_cut_description_are_two_causes(tmp_path: Path) -> None:
    spec = "cmd:" + shlex.join(command("reference_fork", "paged-one-line"))
    ran = cli("run", "--target", spec, "--profile", "dev", "--seed", "1", out=tmp_path / "out")
    assert ran.code == 1, ran.stdout[-3000:] + ran.stderr[-2000:]
    causes = {cause["id"]: cause for cause in ran.report["root_causes"]}
    said = [cause["summary"] for cause in causes.values()]
    assert {"RTE-1", "CMP-2"} <= set(causes), said
    assert "nextCursor" in causes["RTE-1"]["summary"].partition(" — ")[2].split(";")[0], said
    assert "description" in causes["CMP-2"]["summary"].partition(" — ")[2].split(";")[0], said
    explained = {record["id"]: record.get("explained_by") for record in ran.report["records"]}
    assert explained.get("OBJ-5") == "CMP-2", explained
