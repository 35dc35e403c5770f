"""Files a server writes beside its own script are ABS-1's too (held-out-multi-13: a fork saving its branch
labels to `.branch-labels.json` next to index.js, outside the raw processes' sandboxed HOME and TMPDIR, held
ABS-1). Real processes started by the run's pool; the folder listings as properties over generated folders."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.suite.beside_script import ENTRIES, listings, replaced_since, script_folders, written_since
from conformance.suite.rawproc import RawPool
from conformance.targets.specs import resolve_target

_WRITER = """import pathlib, sys
if sys.argv[1] == "write":
    (pathlib.Path(__file__).parent / "labels.json").write_text("[]")
sys.stdin.read()
"""


def _written_by(tmp_path: Path, how: str) -> list[str]:
    script = tmp_path / "server.py"
    script.write_text(_WRITER)
    (tmp_path / "kept.txt").write_text("untouched")
    target = resolve_target(f"cmd:{sys.executable} {script} {how}")
    pool = RawPool(timeout=30.0)
    try:
        with pool.lend(target) as raw:
            raw.close_stdin()
            raw.wait(30.0)
        return pool.files_written(target)
    finally:
        pool.close()


def test_a_file_a_process_writes_beside_its_script_is_written(tmp_path: Path) -> None:
    assert _written_by(tmp_path, "write") == [str(tmp_path.resolve() / "labels.json")]


def test_a_process_that_writes_nothing_wrote_nothing(tmp_path: Path) -> None:
    assert _written_by(tmp_path, "quiet") == []


def _replace_with_copy(folder: Path) -> None:
    """What an install replaced under a run does to its folder: a fresh copy renamed over it, every file's
    time the copy's."""
    copy = folder.with_name(folder.name + ".new")
    shutil.copytree(folder, copy)
    for path in copy.iterdir():
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    old = folder.with_name(folder.name + ".old")
    folder.rename(old)
    copy.rename(folder)
    shutil.rmtree(old)


def test_an_install_replaced_under_the_pool_is_not_the_server_s_writing(tmp_path: Path) -> None:
    folder = tmp_path / "install"
    folder.mkdir()
    script = folder / "server.py"
    script.write_text(_WRITER)
    target = resolve_target(f"cmd:{sys.executable} {script} quiet")
    pool = RawPool(timeout=30.0)
    try:
        with pool.lend(target) as raw:
            raw.close_stdin()
            raw.wait(30.0)
        _replace_with_copy(folder)
        assert (pool.files_written(target), pool.folders_replaced(target)) == ([], [folder.resolve()])
    finally:
        pool.close()


names = st.text(alphabet="abcdefgh.", min_size=1, max_size=6).filter(lambda n: n not in {".", ".."})


@settings(max_examples=25, deadline=None)
@given(before=st.dictionaries(names, st.binary(max_size=8), max_size=6),
       touched=st.dictionaries(names, st.binary(min_size=9, max_size=12), max_size=4))
def test_new_and_changed_files_are_written_unchanged_ones_are_not(
        before: dict[str, bytes], touched: dict[str, bytes]) -> None:
    with tempfile.TemporaryDirectory() as made:
        folder = Path(made)
        for name, data in before.items():
            (folder / name).write_bytes(data)
        listed = listings([folder])
        for name, data in touched.items():  # longer than any file before: its size always changes
            (folder / name).write_bytes(data)
        assert written_since(listed) == [str(folder / name) for name in sorted(touched)]


def test_the_interpreter_and_missing_paths_are_not_watched_and_a_crowded_folder_is_not_listed(
        tmp_path: Path) -> None:
    script = tmp_path / "index.js"
    script.write_text("")
    assert script_folders([sys.executable, "-m", "reference_server"]) == []
    assert script_folders([sys.executable, str(script), str(tmp_path / "absent.js")]) == [tmp_path.resolve()]
    crowded = tmp_path / "crowded"
    crowded.mkdir()
    for index in range(ENTRIES + 1):
        (crowded / f"f{index}").touch()
    assert listings([crowded]) == {}


@settings(max_examples=25, deadline=None)
@given(before=st.dictionaries(names, st.binary(max_size=8), min_size=1, max_size=6),
       added=st.dictionaries(names, st.binary(min_size=9, max_size=12), max_size=3))
def test_a_folder_replaced_by_a_copy_writes_only_what_is_new_or_resized_in_it(
        before: dict[str, bytes], added: dict[str, bytes]) -> None:
    with tempfile.TemporaryDirectory() as made:
        folder = Path(made) / "dist"
        folder.mkdir()
        for name, data in before.items():
            (folder / name).write_bytes(data)
        listed = listings([folder])
        _replace_with_copy(folder)
        for name, data in added.items():  # longer than any file before: new or resized
            (folder / name).write_bytes(data)
        assert replaced_since(listed) == [folder]
        assert written_since(listed) == [str(folder / name) for name in sorted(added)]


@settings(max_examples=25, deadline=None)
@given(inner=st.sampled_from(["data", "memory-bank", "store"]), existed=st.booleans(),
       touched=st.dictionaries(names, st.binary(min_size=9, max_size=12), min_size=1, max_size=3))
def test_a_file_written_in_a_folder_beside_the_script_is_written(
        inner: str, existed: bool, touched: dict[str, bytes]) -> None:
    """A port keeping its store in `data/` beside its script (the folder new, or already there with a
    placeholder) wrote those files; the interpreter's byte-code cache, installed dependencies, a virtualenv
    and dot-folders are not the server's writing."""
    with tempfile.TemporaryDirectory() as made:
        folder = Path(made)
        (folder / "server.py").write_text("")
        if existed:
            (folder / inner).mkdir()
            (folder / inner / ".gitkeep").write_text("")
        for own in ("__pycache__", "node_modules", ".git", "venv"):
            (folder / own).mkdir()
        (folder / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
        listed = listings([folder])
        (folder / inner).mkdir(exist_ok=True)
        for name, data in touched.items():
            (folder / inner / name).write_bytes(data)
        for own in ("__pycache__", "node_modules", ".git", "venv"):
            (folder / own / "server.cpython-311.pyc").write_bytes(b"\0" * 16)
        assert written_since(listed) == [str(folder / inner / name) for name in sorted(touched)]
