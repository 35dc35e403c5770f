"""A fork declaring a schema property and answering a key of the same name, run as a user runs it
(tests/servers/reference_fork.py `tags-listed-and-answered`: the inputSchema gains `tags`, and once a call
sent tags every answer carries them): the departures whose own checks count the answer's fields ("the answer
has 1 field(s) more than …: tags") are under a cause headed by the answer, not by the listing's property of
that name (gate/evidence `_other_kind_of_call`; held-out-multi-18's tagged-journal put CLM-1, CLM-1b, CLM-5
and CLM-6 under CMP-2's schema)."""

from __future__ import annotations

import shlex
from pathlib import Path

from conformance.gate.added_keys import keys_added
from tests.cli import cli
from tests.servers import command


def test_a_key_the_answer_adds_is_not_explained_by_the_listed_property(tmp_path: Path) -> None:
    spec = "cmd:" + shlex.join(command("reference_fork", "tags-listed-and-answered"))
    ran = cli("run", "--target", spec, "--profile", "dev", "--seed", "1", out=tmp_path / "out")
    assert ran.code == 1, ran.stdout[-3000:] + ran.stderr[-2000:]
    causes = {cause["id"]: cause for cause in ran.report["root_causes"]}
    headed = {cid: cause["summary"].partition(" — ")[2] for cid, cause in causes.items()}
    assert any("properties.tags" in said for said in headed.values()), headed
    counting = [record for record in ran.report["records"] if record["verdict"] == "deviates"
                and "tags" in keys_added(record["reason"])]
    assert len(counting) >= 3, [record["reason"][:120] for record in ran.report["records"]]
    for record in counting:
        home = record.get("explained_by") or record["id"]
        assert home in causes, f"{record['id']} stands on a line of its own"
        assert "properties.tags" not in headed[home] and "tools/list" not in headed[home], (
            f"{record['id']} ({record['reason'][:100]}) under {headed[home][:200]}")
