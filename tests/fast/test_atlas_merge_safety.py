"""`atlas --merge` reads artifacts a fork's job may have written: they are data. A command named in them is
never started, a folder name in them never reaches outside --out, a symlink in them is never followed."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.gate.exit_status import USAGE
from conformance.report.json import load_report, write_json
from tests.cli import REPO, assert_one_clean_error_line, cli_here

ATLAS = REPO / "reports" / "atlas"
REPORT = REPO / "reports" / "npm-0.6.2" / "report.json"


def evil_spec(mark: Path) -> str:
    return "cmd:" + shlex.join([sys.executable, "-c", f"open({str(mark)!r}, 'w').close()"])


def atlas_part(tmp_path: Path, columns: int = 2) -> tuple[Path, dict[str, Any]]:
    """A merge source: the committed atlas cut to its first `columns` columns (their run folders copied)."""
    part = tmp_path / "part"
    document = json.loads((ATLAS / "atlas.json").read_text(encoding="utf-8"))
    document["columns"] = [c for c in document["columns"] if c["variant_of"] is None][:columns]
    document["pairs"] = []
    for column in document["columns"]:
        shutil.copytree(ATLAS / column["folder"], part / column["folder"])
    return part, document


def save(part: Path, document: dict[str, Any]) -> None:
    (part / "atlas.json").write_text(json.dumps(document), encoding="utf-8")


def test_a_command_named_in_an_atlas_is_not_started_and_the_atlas_says_so(tmp_path: Path) -> None:
    mark = tmp_path / "started"
    part, document = atlas_part(tmp_path)
    document["columns"][1]["spec"] = evil_spec(mark)
    save(part, document)
    out = tmp_path / "out"
    ran = cli_here("atlas", "--merge", str(part), "--out", str(out), "--seed", "1")
    assert ran.code == 0, ran.stdout + ran.stderr
    assert not mark.exists(), "the merge started a command named in a merged file"
    [pair] = json.loads((out / "atlas.json").read_text(encoding="utf-8"))["pairs"]
    assert pair["comparison"] == "skipped" and "named by a merged file" in pair["note"]


def test_a_command_named_in_a_report_of_a_folder_without_atlas_is_not_probed(tmp_path: Path) -> None:
    mark = tmp_path / "started"
    report = load_report(REPORT)
    evil = report.model_copy(update={"target": report.target.model_copy(update={"spec": evil_spec(mark)})})
    part = tmp_path / "part"
    (part / "targets" / "x").mkdir(parents=True)
    write_json(evil, part / "targets" / "x" / "report.json")
    out = tmp_path / "out"
    ran = cli_here("atlas", "--merge", str(part), "--out", str(out))
    assert ran.code == 0, ran.stdout + ran.stderr
    assert not mark.exists(), "the merge probed a command named in a merged report"
    assert "not probed" in ran.stdout
    assert (out / "targets" / "x" / "report.json").is_file()


@pytest.mark.parametrize(
    "folder",
    [".", "..", "../victim", "targets/../../victim", "targets/..", "/tmp/x", "targets/a/b", "targets/"],
)
def test_a_folder_name_that_is_not_one_plain_component_is_refused(tmp_path: Path, folder: str) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("mine", encoding="utf-8")
    part, document = atlas_part(tmp_path, columns=1)
    document["columns"][0]["folder"] = folder
    save(part, document)
    out = tmp_path / "out"
    out.mkdir()
    ran = cli_here("atlas", "--merge", str(part), "--out", str(out), "--no-compare")
    assert ran.code == USAGE, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert "is not targets/NAME" in ran.stderr
    assert (victim / "keep.txt").read_text(encoding="utf-8") == "mine"
    assert list(out.iterdir()) == []


def test_symlinks_in_a_merged_folder_are_not_followed(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "id_rsa").write_text("private-key-7f3a9c", encoding="utf-8")  # no record's words
    part, document = atlas_part(tmp_path, columns=1)
    save(part, document)
    column = part / document["columns"][0]["folder"]
    (column / "leak").symlink_to(secret, target_is_directory=True)
    (column / "leak.txt").symlink_to(secret / "id_rsa")
    out = tmp_path / "out"
    ran = cli_here("atlas", "--merge", str(part), "--out", str(out), "--no-compare")
    assert ran.code == 0, ran.stdout + ran.stderr
    copied = out / document["columns"][0]["folder"]
    assert (copied / "report.json").is_file()
    assert not (copied / "leak").exists() and not (copied / "leak.txt").exists()
    files = [p for p in out.rglob("*") if p.is_file()]
    assert not any("private-key-7f3a9c" in p.read_text(errors="replace") for p in files)

    linked = tmp_path / "linked"
    linked.symlink_to(part, target_is_directory=True)
    refused = cli_here("atlas", "--merge", str(linked), "--out", str(tmp_path / "out2"), "--no-compare")
    assert refused.code == USAGE and "symlink" in refused.stderr


def test_merge_into_a_folder_it_did_not_write_is_refused(tmp_path: Path) -> None:
    part, document = atlas_part(tmp_path, columns=1)
    save(part, document)
    out = tmp_path / "out"
    out.mkdir()
    (out / "index.html").write_text("a user's page", encoding="utf-8")
    ran = cli_here("atlas", "--merge", str(part), "--out", str(out), "--no-compare")
    assert ran.code == USAGE, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert (out / "index.html").read_text(encoding="utf-8") == "a user's page"
