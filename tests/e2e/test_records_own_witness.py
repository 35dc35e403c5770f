"""Records judged on their statements, not on words or another record's witness (issue 47, the round-7
audit): a release that rewords its description and a switched-off render leave OBJ-5, OBJ-12, CLM-2 and
CLM-6 holding, with what differs from the original said beside the verdict."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli import cli

RECORDS = ("OBJ-5", "OBJ-12", "CLM-2", "CLM-6")


def test_a_reworded_description_and_a_switched_off_render_depart_none_of_these(tmp_path: Path) -> None:
    """2025.12.18 with DISABLE_THOUGHT_LOGGING=true: rule 11 names nextThoughtNeeded (OBJ-5 pinned the
    original's last line), the parameter entries are camelCase and indented otherwise (OBJ-12 compared
    the block word for word), and no box is drawn (CLM-2 and CLM-6 failed on RTE-9's witness). Each
    record's statement still holds; the rewording is a note."""
    out = tmp_path / "run"
    selected = [arg for record in RECORDS for arg in ("--select", record)]
    ran = cli("run", "--target", "npm:2025.12.18", "--env", "DISABLE_THOUGHT_LOGGING=true", *selected,
              "--profile", "ci", "--seed", "20261130", out=out)
    assert ran.code == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    verdicts = {r["id"]: r["verdict"] for r in report["records"] if r["id"] in RECORDS}
    assert verdicts == dict.fromkeys(RECORDS, "holds"), verdicts
    notes = [n for r in report["records"] if r["id"] in ("OBJ-5", "OBJ-12") for t in r["tests"]
             for n in t.get("notes", [])]
    assert any(n.startswith("OBJ-5: the last line is") and "nextThoughtNeeded" in n for n in notes), notes
    assert any(n.startswith("OBJ-12: worded otherwise than the original's") for n in notes), notes
