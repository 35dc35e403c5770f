"""Files a server writes beside its own script are ABS-1's too (held-out-multi-13: a fork saving its branch
labels to `.branch-labels.json` next to index.js, outside the raw processes' sandboxed HOME and TMPDIR, held
ABS-1). Real processes started by the run's pool; the folder listings as properties over generated folders."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.suite.beside_script import ENTRIES, listings, script_folders, written_since
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
