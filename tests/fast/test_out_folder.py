"""The output folder holds only what the harness wrote: staged and moved into place, its manifest the list of
what a later command may replace, a folder holding anything else refused untouched, one command at a time."""

from __future__ import annotations

import json
import os
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.core.errors import InputError
from conformance.core.outfolder import MANIFEST, OutFolder, claimed, entries_of, write_file
from conformance.gate.exit_status import USAGE
from tests.cli import assert_one_clean_error_line, cli_here


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every path under `root` with its bytes (a symlink: where it points), symlinks not followed."""
    seen: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = Path(dirpath) / name
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                seen[key] = "-> " + os.readlink(path)
            elif path.is_file():
                seen[key] = path.read_bytes()
            else:
                seen[key] = "dir"
    return seen


def write_run(out: Path, text: str) -> None:
    with claimed(out, "run") as folder:
        (folder.staging / "transcripts").mkdir()
        (folder.staging / "report.json").write_text(text, encoding="utf-8")
        (folder.staging / "transcripts" / "t.jsonl").write_text(text, encoding="utf-8")
        folder.commit()


def test_a_committed_folder_lists_what_it_wrote_and_a_later_run_replaces_it(tmp_path: Path) -> None:
    out = tmp_path / "nested" / "out"
    write_run(out, "first")
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["entries"] == ["report.json", "transcripts/", "transcripts/t.jsonl"]
    assert manifest["command"] == "run"
    with claimed(out, "run") as folder:
        (folder.staging / "report.json").write_text("second", encoding="utf-8")
        folder.commit()
    assert (out / "report.json").read_text(encoding="utf-8") == "second"
    assert not (out / "transcripts").exists(), "what the first run wrote and the second did not is gone"
    assert sorted(p.name for p in tmp_path.joinpath("nested").iterdir()) == ["out"], "no staging, no lock"


def test_a_failure_before_commit_leaves_the_previous_output_whole(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_run(out, "previous")
    before = snapshot(tmp_path)
    with pytest.raises(RuntimeError), claimed(out, "run") as folder:
        (folder.staging / "report.json").write_text("partial", encoding="utf-8")
        raise RuntimeError("the run failed before the target could be judged")
    assert snapshot(tmp_path) == before


def test_a_failure_on_a_new_folder_leaves_nothing_behind(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), claimed(tmp_path / "a" / "b" / "out", "run"):
        raise RuntimeError("stopped")
    assert list(tmp_path.iterdir()) == []


names = st.text(string.ascii_letters + string.digits + "._- ", min_size=1, max_size=12).map(lambda n: f"u{n}")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    files=st.dictionaries(names, st.binary(max_size=64), min_size=1, max_size=4),
    with_manifest=st.booleans(),
    link=st.booleans(),
)
def test_a_folder_holding_what_the_harness_did_not_write_is_refused_untouched(
    tmp_path_factory: pytest.TempPathFactory, files: dict[str, bytes], with_manifest: bool, link: bool
) -> None:
    root = tmp_path_factory.mktemp("refuse")
    outside = root / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("keep", encoding="utf-8")
    out = root / "out"
    if with_manifest:
        write_run(out, "ours")
    else:
        out.mkdir()
    for name, data in files.items():
        (out / name).write_bytes(data)
    if link:
        (out / "link-out").symlink_to(outside, target_is_directory=True)
    before = snapshot(root)
    with pytest.raises(InputError) as refused, claimed(out, "run") as folder:
        folder.commit()
    message = str(refused.value)
    assert "\n" not in message and str(out) in message
    assert "choose an empty or new folder" in message
    assert snapshot(root) == before


def test_a_file_appearing_during_the_run_is_kept_and_so_is_the_runs_output(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_run(out, "previous")
    folder = OutFolder(out, "run")
    folder.claim()
    try:
        (folder.staging / "report.json").write_text("new", encoding="utf-8")
        (out / "notes.md").write_text("a user's", encoding="utf-8")
        with pytest.raises(InputError, match=r"appeared during the run.*this run's output is in"):
            folder.commit()
    finally:
        folder.release()
    assert (out / "notes.md").read_text(encoding="utf-8") == "a user's"
    assert (out / "report.json").read_text(encoding="utf-8") == "previous"
    assert (folder.staging / "report.json").read_text(encoding="utf-8") == "new"


def test_two_commands_cannot_write_one_folder_at_once(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with (
        claimed(out, "run"),
        pytest.raises(InputError, match=f"being written by another run \\(pid {os.getpid()}\\)"),
    ):
        OutFolder(out, "run").claim()
    write_run(out, "after the first released it")
    assert (out / "report.json").is_file()


def test_leftovers_of_a_killed_command_are_cleared_by_the_next(tmp_path: Path) -> None:
    out = tmp_path / "out"
    killed = OutFolder(out, "run")
    killed.claim()
    (killed.staging / "report.json").write_text("half", encoding="utf-8")
    if killed._lock is not None:  # the system drops a dead process's lock; this one closes it
        os.close(killed._lock)
    write_run(out, "next")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.parametrize("kind", ["file", "root", "dangling"])
def test_an_out_that_is_not_a_folder_is_refused(tmp_path: Path, kind: str) -> None:
    if kind == "file":
        out = tmp_path / "out"
        out.write_text("x", encoding="utf-8")
    elif kind == "dangling":
        out = tmp_path / "out"
        out.symlink_to(tmp_path / "nowhere")
    else:
        out = Path("/")
    with pytest.raises(InputError, match="--out"):
        OutFolder(out, "run")


def test_write_file_never_overwrites_unless_asked(tmp_path: Path) -> None:
    path = tmp_path / "baseline.yaml"
    path.write_text("a human's", encoding="utf-8")
    with pytest.raises(InputError, match="exists"):
        write_file(path, "generated", replace=False)
    assert path.read_text(encoding="utf-8") == "a human's"
    write_file(path, "generated", replace=True)
    assert path.read_text(encoding="utf-8") == "generated"
    assert entries_of(tmp_path) == ["baseline.yaml"]


def test_run_refuses_a_folder_it_did_not_write_in_one_line_before_anything_starts(tmp_path: Path) -> None:
    (tmp_path / "report.md").write_text("my notes", encoding="utf-8")
    ran = cli_here("run", "--target", "cmd:/no/such/server", "--out", str(tmp_path))
    assert ran.code == USAGE, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert "not written by seqthink-conformance" in ran.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]


def test_a_run_refused_after_the_target_resolved_leaves_the_previous_report(tmp_path: Path) -> None:
    """A baseline of another project is found only once the target is resolved: the previous report stays."""
    out = tmp_path / "out"
    write_run(out, "the previous report")
    before = snapshot(tmp_path)
    baseline = tmp_path / "other.yaml"
    baseline.write_text(
        "format: seqthink-conformance-baseline/2\nproject: some-other-server\ndeviations: []\n",
        encoding="utf-8",
    )
    ran = cli_here("run", "--target", "reference", "--baseline", str(baseline), "--out", str(out))
    assert ran.code == USAGE, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert "is for project 'some-other-server'" in ran.stderr
    assert snapshot(tmp_path) == {**before, "other.yaml": baseline.read_bytes()}


def test_compare_refuses_to_write_over_a_compare_baseline_before_it_starts(tmp_path: Path) -> None:
    accepted = tmp_path / "accepted.yaml"
    accepted.write_text("# reasons a human wrote\n", encoding="utf-8")
    out = tmp_path / "out"
    ran = cli_here(
        "compare", "cmd:/no/such/a", "cmd:/no/such/b", "--write-baseline", str(accepted), "--out", str(out)
    )
    assert ran.code == USAGE, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert accepted.read_text(encoding="utf-8") == "# reasons a human wrote\n" and not out.exists()
