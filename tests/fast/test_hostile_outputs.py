"""What the harness writes beside and inside `--out`, and what it merges, may meet a fork's checkout: a
symlink (git keeps them) or an entry planted at any name it writes is refused in one line and its target
is never emptied or written; a folder it said it kept, or another `--out`'s, is never deleted; two merged
parts naming one target or one `targets/NAME` are refused; a merge asks the registry nothing a file names.
Each case under a ceiling of time (seconds, generous enough never to flake) and, where it reads a large
input, of memory."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.atlas import build
from conformance.atlas.write import MAX_COLUMNS, SUMMARY_BYTES, AtlasInputError, within_summary
from conformance.core.create import CreateError, create_file, open_append
from conformance.core.errors import InputError
from conformance.core.outfolder import MANIFEST, OutFolder, claimed, write_file
from conformance.drivers.transcript import Transcript
from conformance.gate.exit_status import USAGE
from conformance.targets import npm, npm_registry
from tests.cli import REPO, Ran, assert_one_clean_error_line, cli_here

ATLAS = REPO / "reports" / "atlas"
REPORT = REPO / "reports" / "npm-0.6.2" / "report.json"
NOWHERE = "cmd:/nonexistent/seqthink-server"
CEILING_S = 120.0
"""A case's time ceiling: far above what any of them takes, so only a hang or a blow-up crosses it."""

PRECIOUS = "a file outside --out that a planted symlink points at\n"
PLANTS = ("link-to-file", "link-to-folder", "dangling-link", "folder", "file")


def victims(root: Path) -> tuple[Path, Path]:
    victim = root / "victim.txt"
    victim.write_text(PRECIOUS, encoding="utf-8")
    folder = root / "victim-folder"
    folder.mkdir()
    (folder / "inside.txt").write_text(PRECIOUS, encoding="utf-8")
    return victim, folder


def plant(path: Path, kind: str, victim: Path, folder: Path) -> None:
    if kind == "link-to-file":
        path.symlink_to(victim)
    elif kind == "link-to-folder":
        path.symlink_to(folder, target_is_directory=True)
    elif kind == "dangling-link":
        path.symlink_to(path.parent / "nowhere")
    elif kind == "folder":
        path.mkdir()
    else:
        path.write_text("a user's notes, not a pid\n", encoding="utf-8")


def untouched(victim: Path, folder: Path) -> None:
    assert victim.read_text(encoding="utf-8") == PRECIOUS
    assert sorted(p.name for p in folder.iterdir()) == ["inside.txt"]
    assert (folder / "inside.txt").read_text(encoding="utf-8") == PRECIOUS


def within_ceiling(started: float) -> None:
    assert time.monotonic() - started < CEILING_S


def one_line(error: BaseException, path: Path) -> None:
    message = str(error)
    assert "\n" not in message and path.name in message, message


# -- every name written beside --out ----------------------------------------------------------------------

BESIDE: dict[str, Callable[[Path], Path]] = {
    "lock": lambda out: out.parent / f".{out.name}.seqthink-lock",
    "staging": lambda out: out.parent / f".{out.name}.seqthink-staging-{os.getpid()}",
    "replaced": lambda out: out.parent / f".{out.name}.seqthink-old-{os.getpid()}",
}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(BESIDE)), kind=st.sampled_from(PLANTS), existing=st.booleans())
def test_an_entry_planted_at_a_name_written_beside_out_is_refused_and_its_target_untouched(
    tmp_path_factory: pytest.TempPathFactory, name: str, kind: str, existing: bool
) -> None:
    root = tmp_path_factory.mktemp("beside")
    victim, folder = victims(root)
    out = root / "out"
    if existing:
        with claimed(out, "run") as previous:
            (previous.staging / "report.json").write_text("previous", encoding="utf-8")
            previous.commit()
    planted = BESIDE[name](out)
    plant(planted, kind, victim, folder)
    started = time.monotonic()
    with pytest.raises(InputError) as refused, claimed(out, "run") as claim:
        (claim.staging / "report.json").write_text("new", encoding="utf-8")
        claim.commit()
    within_ceiling(started)
    one_line(refused.value, planted)
    untouched(victim, folder)
    assert planted.is_symlink() or planted.exists(), "the planted entry is left as it was"
    assert not existing or (out / "report.json").read_text(encoding="utf-8") == "previous"


@pytest.mark.parametrize("kind", ["link-to-file", "link-to-folder", "dangling-link", "folder", "file"])
def test_an_entry_planted_at_write_files_scratch_name_is_refused_and_its_target_untouched(
    tmp_path: Path, kind: str
) -> None:
    victim, folder = victims(tmp_path)
    path = tmp_path / "baseline.yaml"
    scratch = tmp_path / f".baseline.yaml.seqthink-staging-{os.getpid()}"
    plant(scratch, kind, victim, folder)
    for replace in (False, True):
        with pytest.raises(InputError) as refused:
            write_file(path, "generated", replace=replace)
        one_line(refused.value, scratch)
    untouched(victim, folder)
    assert not path.exists() and not path.is_symlink()


def test_a_symlink_at_a_file_written_is_refused_or_replaced_never_written_through(tmp_path: Path) -> None:
    victim, folder = victims(tmp_path)
    path = tmp_path / "baseline.yaml"
    path.symlink_to(victim)
    with pytest.raises(InputError, match="exists and is not replaced"):
        write_file(path, "generated", replace=False)
    write_file(path, "generated", replace=True)
    assert not path.is_symlink() and path.read_text(encoding="utf-8") == "generated"
    untouched(victim, folder)


# -- names written inside --out ---------------------------------------------------------------------------

INSIDE = ["report.json", "report.md", "report.html", "junit.xml", "results.json", "atlas.json", "atlas.md",
          "index.html", MANIFEST, "pytest.log", "transcripts"]


@pytest.mark.parametrize("name", INSIDE)
def test_a_symlink_inside_a_previous_out_is_removed_with_it_never_followed(tmp_path: Path, name: str) -> None:
    """A previous --out whose manifest lists a name now a symlink: replaced, the link's target kept."""
    victim, folder = victims(tmp_path)
    out = tmp_path / "out"
    with claimed(out, "run") as previous:
        (previous.staging / "report.json").write_text("previous", encoding="utf-8")
        previous.commit()
    listed = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    if name != MANIFEST:
        listed["entries"] = sorted({*listed["entries"], name})
        (out / MANIFEST).write_text(json.dumps(listed), encoding="utf-8")
    target = out / name
    target.unlink(missing_ok=True)
    target.symlink_to(folder if name == "transcripts" else victim)
    refused = pytest.raises(InputError) if name == MANIFEST else contextlib.nullcontext()
    with refused, claimed(out, "run") as claim:
        (claim.staging / "report.json").write_text("new", encoding="utf-8")
        claim.commit()
    untouched(victim, folder)


@pytest.mark.parametrize("kind", PLANTS)
def test_the_creator_writes_no_name_through_a_symlink(tmp_path: Path, kind: str) -> None:
    """core/create.py, which every writer goes through: a new name refuses what is there, a replaced name
    replaces it (a link is not followed), an appended file must be a plain file of its own."""
    victim, folder = victims(tmp_path)
    path = tmp_path / "written"
    plant(path, kind, victim, folder)
    with pytest.raises(CreateError) as refused:
        create_file(path, "x")
    one_line(refused.value, path)
    if kind != "folder":
        create_file(path, "x", replace=True)
        assert path.read_text(encoding="utf-8") == "x" and not path.is_symlink()
        path.unlink()
        plant(path, kind, victim, folder)
    if kind == "file":
        with open_append(path) as appended:
            appended.write(b"more")
    else:
        with pytest.raises(CreateError):
            open_append(path)
        with pytest.raises(CreateError):
            Transcript(path)
    untouched(victim, folder)


def test_a_file_linked_under_another_name_is_not_appended_to(tmp_path: Path) -> None:
    victim, folder = victims(tmp_path)
    os.link(victim, tmp_path / "transcript.jsonl")
    with pytest.raises(CreateError, match="not a plain file of its own"):
        open_append(tmp_path / "transcript.jsonl")
    untouched(victim, folder)


def test_a_fifo_at_a_transcripts_name_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    started = time.monotonic()
    with pytest.raises(CreateError):
        open_append(fifo)
    within_ceiling(started)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


# -- the command line, as the issue found it ---------------------------------------------------------------

PLANT_THEN_RUN = """
import os, sys
from pathlib import Path
name, argv = sys.argv[1], sys.argv[2:]
path = Path(name.format(pid=os.getpid()))
path.mkdir() if name.endswith("{pid}") else None
from conformance.cli.main import main
sys.exit(main(argv))
"""


def child(*argv: str, cwd: Path) -> Ran:
    """The command line in a child process of this checkout's Python; a `{pid}` name is planted first."""
    done = subprocess.run(
        [sys.executable, "-c", PLANT_THEN_RUN, *argv], cwd=cwd, capture_output=True, text=True,
        timeout=CEILING_S, check=False, env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    return Ran(done.returncode, done.stdout, done.stderr, cwd)


def part(root: Path, folders: list[str], **changes: Any) -> Path:
    """A merge source: columns of the committed atlas (their run folders copied), changed by `changes`."""
    document = json.loads((ATLAS / "atlas.json").read_text(encoding="utf-8"))
    document["columns"] = [c for c in document["columns"] if c["folder"] in [f"targets/{f}" for f in folders]]
    document["pairs"] = []
    root.mkdir(parents=True)
    for column in document["columns"]:
        source = ATLAS / column["folder"]
        column.update(changes)
        shutil.copytree(source, root / column["folder"])
    (root / "atlas.json").write_text(json.dumps(document), encoding="utf-8")
    return root


@pytest.mark.parametrize("command", ["run", "atlas --merge"])
def test_a_symlinked_lock_beside_out_is_refused_in_one_line_and_its_target_kept(
    tmp_path: Path, command: str
) -> None:
    victim, folder = victims(tmp_path)
    out = tmp_path / "out"
    (tmp_path / ".out.seqthink-lock").symlink_to(victim)
    if command == "run":
        ran = cli_here("run", "--target", NOWHERE, "--out", str(out))
    else:
        merged = part(tmp_path / "part", ["npm-0.6.2"])
        ran = cli_here("atlas", "--merge", str(merged), "--out", str(out), "--no-compare")
    assert ran.code == USAGE, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert ".out.seqthink-lock is already there (a symlink" in ran.stderr
    untouched(victim, folder)
    assert not out.exists()


def test_a_planted_staging_folder_is_a_usage_error_in_one_line(tmp_path: Path) -> None:
    ran = child(".out.seqthink-staging-{pid}", "run", "--target", NOWHERE, "--out", "out", cwd=tmp_path)
    assert ran.code == USAGE, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert "is already there (a folder)" in ran.stderr
    [staging] = [p for p in tmp_path.iterdir() if ".seqthink-staging-" in p.name]
    assert staging.is_dir(), "the planted folder is not removed either"


# -- what the harness keeps, and what is not its own -------------------------------------------------------


def test_a_folder_the_harness_said_it_kept_is_not_deleted_by_the_next_command(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with claimed(out, "run") as previous:
        (previous.staging / "report.json").write_text("previous", encoding="utf-8")
        previous.commit()
    folder = OutFolder(out, "run")
    folder.claim()
    try:
        (folder.staging / "report.json").write_text("kept", encoding="utf-8")
        (out / "notes.md").write_text("a user's", encoding="utf-8")
        with pytest.raises(InputError, match="this run's output is in"):
            folder.commit()
    finally:
        folder.release()
    (out / "notes.md").unlink()
    with claimed(out, "run") as later:
        (later.staging / "report.json").write_text("later", encoding="utf-8")
        later.commit()
    assert (folder.staging / "report.json").read_text(encoding="utf-8") == "kept"


@pytest.mark.parametrize("kind", PLANTS)
def test_an_entry_at_the_kept_name_is_passed_over_untouched(tmp_path: Path, kind: str) -> None:
    victim, folder = victims(tmp_path)
    out = tmp_path / "out"
    with claimed(out, "run") as previous:
        previous.commit()
    planted = tmp_path / f".out.seqthink-kept-{os.getpid()}"
    plant(planted, kind, victim, folder)
    with pytest.raises(InputError, match="this run's output is in") as refused, claimed(out, "run") as claim:
        (claim.staging / "report.json").write_text("kept", encoding="utf-8")
        (out / "notes.md").write_text("a user's", encoding="utf-8")
        claim.commit()
    assert claim.staging == tmp_path / f".out.seqthink-kept-{os.getpid()}-1"
    assert str(claim.staging) in str(refused.value)
    assert (claim.staging / "report.json").read_text(encoding="utf-8") == "kept"
    untouched(victim, folder)


def test_a_command_never_deletes_the_live_staging_of_another_out(tmp_path: Path) -> None:
    q = tmp_path / "q"
    with claimed(tmp_path / "q.seqthink-staging-9", "run") as live:
        (live.staging / "report.json").write_text("live", encoding="utf-8")
        with claimed(q, "run") as other:
            other.commit()
        assert (live.staging / "report.json").read_text(encoding="utf-8") == "live"
        live.commit()
    assert (tmp_path / "q.seqthink-staging-9" / "report.json").is_file()


def test_a_dead_commands_leftovers_are_removed_and_only_those(tmp_path: Path) -> None:
    """The pid a dead command left in its lock names its staging and replaced folders; a kept folder of
    another pid, beside them, stays."""
    out = tmp_path / "out"
    kept = tmp_path / ".out.seqthink-staging-1"
    kept.mkdir()
    (kept / MANIFEST).write_text("{}", encoding="utf-8")
    killed = OutFolder(out, "run")
    killed.claim()
    assert killed._lock is not None
    os.close(killed._lock)  # what the system does when the command dies
    old = tmp_path / f".out.seqthink-old-{os.getpid()}"
    shutil.copytree(killed.staging, old)
    with claimed(out, "run") as later:
        later.commit()
    assert sorted(p.name for p in tmp_path.iterdir()) == [kept.name, "out"]


# -- merges -----------------------------------------------------------------------------------------------


def test_a_forged_part_naming_a_releases_folder_cannot_hide_its_deviations(tmp_path: Path) -> None:
    """The issue's case: a part whose one column points at targets/npm-2026.8.31 (holding 0.6.2's report)
    merged before the genuine part would have turned 29 deviating cells into 0, exit 0."""
    forged = part(tmp_path / "forged", ["npm-0.6.2"])
    (forged / "targets" / "npm-0.6.2").rename(forged / "targets" / "npm-2026.8.31")
    document = json.loads((forged / "atlas.json").read_text(encoding="utf-8"))
    document["columns"][0]["folder"] = "targets/npm-2026.8.31"
    (forged / "atlas.json").write_text(json.dumps(document), encoding="utf-8")
    genuine = part(tmp_path / "genuine", ["npm-2026.8.31"])
    out = tmp_path / "out"
    started = time.monotonic()
    ran = cli_here("atlas", "--merge", str(forged), str(genuine), "--out", str(out), "--no-compare")
    within_ceiling(started)
    assert ran.code == USAGE, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert "names folder targets/npm-2026.8.31" in ran.stderr and "one part only" in ran.stderr
    assert not out.exists()


@pytest.mark.parametrize("collision", ["same target", "same folder", "within one part"])
def test_two_columns_naming_one_target_or_one_folder_are_refused(tmp_path: Path, collision: str) -> None:
    first = part(tmp_path / "a", ["npm-0.6.2"])
    if collision == "within one part":
        document = json.loads((first / "atlas.json").read_text(encoding="utf-8"))
        twin = dict(document["columns"][0], spec="npm:9.9.9")
        document["columns"].append(twin)
        (first / "atlas.json").write_text(json.dumps(document), encoding="utf-8")
        parts = [first]
    elif collision == "same target":
        parts = [first, part(tmp_path / "b", ["npm-2025.7.1"], spec="npm:0.6.2")]
    else:
        second = part(tmp_path / "b", ["npm-2025.7.1"])
        (second / "targets" / "npm-2025.7.1").rename(second / "targets" / "npm-0.6.2")
        document = json.loads((second / "atlas.json").read_text(encoding="utf-8"))
        document["columns"][0]["folder"] = "targets/npm-0.6.2"
        (second / "atlas.json").write_text(json.dumps(document), encoding="utf-8")
        parts = [first, second]
    out = tmp_path / "out"
    ran = cli_here("atlas", "--merge", *map(str, parts), "--out", str(out), "--no-compare")
    assert ran.code == USAGE, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert "one part only" in ran.stderr
    assert not out.exists()


def test_parts_holding_more_columns_than_an_atlas_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(build, "MAX_COLUMNS", 1)
    parts = [part(tmp_path / "a", ["npm-0.6.2"]), part(tmp_path / "b", ["npm-2025.7.1"])]
    with pytest.raises(AtlasInputError, match="more than 1 columns"):
        build.merge_atlases(parts, tmp_path / "out", compare=False, cache=tmp_path / "cache", timeout=10,
                            progress=lambda line: None)
    assert not (tmp_path / "out").exists()


READ_ATLAS = """
import time, sys
from pathlib import Path
from conformance.atlas.write import load_atlas
from conformance.core.errors import InputError
started = time.monotonic()
try:
    load_atlas(Path(sys.argv[1]))
    said = "read"
except InputError as exc:
    said = str(exc)
print(time.monotonic() - started)
print(said)
"""

LAUNCH = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True, check=True)
print(done.stdout, end="")
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
"""
"""Runs its arguments as its own child and prints the child's peak memory: a child of the test process
would start with the test process's own peak (Linux keeps it across exec), which grows over a session."""


def test_an_atlas_of_too_many_columns_is_refused_before_its_cost(tmp_path: Path) -> None:
    """Refused by its column count, before the schema check whose cost grows with every column: a 2,000
    column atlas.json (about 5 MB) is answered within the time and memory ceilings."""
    document = json.loads((ATLAS / "atlas.json").read_text(encoding="utf-8"))
    column = document["columns"][0]
    count = 2000
    document["columns"] = [dict(column, spec=f"cmd:s{i}", label=f"s{i}", folder=f"targets/s{i}")
                           for i in range(count)]
    document["grid"] = [dict(row, cells=[row["cells"][0]] * count, changed=[False] * count)
                        for row in document["grid"]]
    path = tmp_path / "atlas.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", LAUNCH, sys.executable, "-c", READ_ATLAS, str(path)],
                          capture_output=True, text=True,
                          timeout=CEILING_S, check=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    seconds, said, peak = done.stdout.splitlines()
    assert f"has {count} columns, more than an atlas's {MAX_COLUMNS}" in said
    assert float(seconds) < CEILING_S
    assert int(peak) < 40 * path.stat().st_size + 200 * 2**20, "memory: a small multiple of the file"


def test_a_merge_asks_the_registry_nothing_a_file_names(tmp_path: Path) -> None:
    """Columns naming versions the registry does not list are not compared: no npm is run for them (an `npm`
    on PATH that records its calls stays silent), the pair's note says why."""
    merged = part(tmp_path / "part", ["npm-0.6.2", "npm-2025.7.1"])
    document = json.loads((merged / "atlas.json").read_text(encoding="utf-8"))
    for position, column in enumerate(document["columns"]):
        column["spec"] = column["label"] = f"npm:9.9.{position}"
    (merged / "atlas.json").write_text(json.dumps(document), encoding="utf-8")
    cache = tmp_path / "cache"
    metadata = npm_registry.metadata_path(cache, npm.PACKAGE)
    metadata.parent.mkdir(parents=True)
    metadata.write_text(json.dumps({
        "package": npm.PACKAGE, "fetched_at": "2026-09-01T00:00:00+00:00", "versions": ["0.6.2"],
        "time": {"0.6.2": "2024-11-01T00:00:00.000Z"},
    }), encoding="utf-8")
    tools = tmp_path / "bin"
    tools.mkdir()
    calls = tmp_path / "npm-calls"
    for tool in ("npm", "node"):
        script = tools / tool
        script.write_text(f"#!/bin/sh\necho \"$0 $*\" >> {calls}\nexit 1\n", encoding="utf-8")
        script.chmod(0o755)
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "atlas", "--merge", str(merged), "--out", str(out),
         "--target-cache", str(cache), "--seed", "1"],
        capture_output=True, text=True, timeout=CEILING_S, check=False, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO), "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert not calls.exists(), calls.read_text(encoding="utf-8")
    [pair] = json.loads((out / "atlas.json").read_text(encoding="utf-8"))["pairs"]
    assert pair["comparison"] == "skipped" and "named by a merged file" in pair["note"]


def test_env_is_refused_by_atlas_merge_not_ignored(tmp_path: Path) -> None:
    ran = cli_here("atlas", "--merge", str(tmp_path), "--out", str(tmp_path / "out"), "--env", "A=1")
    assert ran.code == USAGE, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert "--env is not taken by atlas --merge" in ran.stderr


@pytest.mark.parametrize("spec", ["npm:../../etc", "npm:^1.0.0", "npm:latest", "npm:", "npm:1.0.0@tomorrow"])
def test_a_bad_npm_version_is_a_bad_option_value(tmp_path: Path, spec: str) -> None:
    ran = cli_here("run", "--target", spec, "--out", str(tmp_path / "out"))
    assert ran.code == USAGE, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert "needs an exact version" in ran.stderr
    assert not (tmp_path / "out").exists()


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(st.one_of(st.text(max_size=80), st.sampled_from(["## Section", "  ```json", "  ```"])),
                   max_size=300),
    budget=st.integers(2_100, 8_000),
)
def test_atlas_md_is_cut_under_its_budget_and_says_what_is_left_out(lines: list[str], budget: int) -> None:
    text = "\n".join(lines) + "\n"
    cut = within_summary(text, budget)
    if len(text.encode("utf-8")) <= budget:
        assert cut == text
        return
    assert len(cut.encode("utf-8")) <= budget
    assert "atlas.json and index.html beside it hold the whole atlas" in cut
    assert sum(line.strip().startswith("```") for line in cut.splitlines()) % 2 == 0, "no fence left open"
    body = cut.split("\n> atlas.md ends here")[0].rstrip("\n").removesuffix("\n  ```")
    assert text.startswith(body), "what is kept is the atlas.md's beginning, unchanged"


def test_a_cut_inside_an_example_closes_its_fence_and_names_the_sections_left_out() -> None:
    example = ["  ```json", *["x" * 50] * 100, "  ```"]
    text = "\n".join(["## Pairs", *["a" * 50] * 10, *example, "## Claims", "y"])
    cut = within_summary(text + "\n", 3_000)
    assert "\n  ```\n\n> atlas.md ends here" in cut
    assert "the sections Claims are left out" in cut
    assert SUMMARY_BYTES < 2**20, "GitHub's job-summary limit"
