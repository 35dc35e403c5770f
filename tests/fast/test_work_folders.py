"""Every server starts in a working folder and temp folder made for it in the run's folder, removed at the
run's end, so no server's files leak from one run to the next or into the folder the run started in
(held-out-multi-15's fork-durable-history kept its history in the system temp folder, read back by every later
process, of that run and the next; a port writing `data/` into the folder it runs in), while its own later
processes still see them (a store kept in files is carried across processes: LOOP-A's departure). Real
processes throughout; the removal and the listing as properties over generated trees."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.core.failure_text import FILES_WRITTEN
from conformance.drivers import workfolder
from conformance.drivers.sdk import SdkDriver
from conformance.drivers.wire import WireDriver
from conformance.gate.unsequenced import _subject
from conformance.suite.rawproc import FOLDERS_SAID, RawPool
from conformance.targets.specs import resolve_target

SERVERS = Path(__file__).resolve().parent.parent / "servers"

_WRITER = """import json, os, pathlib, sys
log = sys.argv[1]
data = pathlib.Path("data")
data.mkdir(exist_ok=True)
tmp = pathlib.Path(os.environ["TMPDIR"]) / "history.json"
seen = {"cwd": os.getcwd(), "tmp": str(tmp.parent), "data": len(list(data.iterdir())),
        "history": tmp.exists()}
(data / "thoughts.json").write_text("[]")
tmp.write_text("[]")
with open(log, "a") as out:
    out.write(json.dumps(seen) + "\\n")
sys.stdin.read()
"""


def _pwd(driver: WireDriver | SdkDriver) -> dict[str, str]:
    if isinstance(driver, WireDriver):
        driver.initialize()
        exchange = driver.call_tool("pwd", {})
        assert exchange.result is not None, exchange.response
        text = exchange.result["content"][0]["text"]
    else:
        result = driver.call_tool("pwd", {})
        text = result.content[0].text  # type: ignore[union-attr]
    found = json.loads(text)
    assert isinstance(found, dict)
    return found


def test_a_server_s_processes_share_its_folders_and_a_run_s_end_removes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script, log = tmp_path / "server" / "writer.py", tmp_path / "logs" / "seen.jsonl"
    start, state = tmp_path / "start", tmp_path / "state"
    for folder in (script.parent, log.parent, start, state):
        folder.mkdir(mode=0o700)
    script.write_text(_WRITER)
    monkeypatch.chdir(start)
    spec = f"cmd:{sys.executable} ../server/writer.py {log}"  # anchored to the run's folder
    written: list[list[str]] = []
    for _ in range(2):  # two runs: the second sees nothing of the first's
        with workfolder.run_folder(state):
            pool = RawPool(timeout=30.0)
            try:
                for target in (resolve_target(spec), resolve_target(spec), resolve_target(f"{spec} other")):
                    with pool.lend(target, spend=True) as raw:
                        raw.close_stdin()
                        raw.wait(30.0)
                written.append(pool.files_written(resolve_target(spec)))
            finally:
                pool.close()
        assert list(state.iterdir()) == [], "a run's servers' folders outlived it"
        assert not any(key[0].startswith(str(state)) for key in workfolder._servers), (
            "a run's servers stayed known after its end")
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(seen) == 6
    assert [(s["data"], s["history"]) for s in seen] == [(0, False), (1, True), (0, False)] * 2, (
        "a server's second process did not see its first's files, or another server or run saw them")
    assert seen[0]["cwd"] == seen[1]["cwd"] != seen[2]["cwd"]
    assert seen[0]["tmp"] == seen[1]["tmp"] != seen[2]["tmp"]
    assert written[0] == ["$TMPDIR/history.json", "./data/thoughts.json"]  # the second's: the log too, beside
    assert list(start.iterdir()) == [], "a server wrote into the folder the run started in"
    assert not any(os.path.exists(s["cwd"]) or os.path.exists(s["tmp"]) for s in seen)


def test_both_drivers_start_a_server_in_its_folders_and_one_given_is_kept(tmp_path: Path) -> None:
    command = (sys.executable, str(SERVERS / "extra_tool.py"), "pwd")
    given_folder = tmp_path / "given"
    given_folder.mkdir()
    (given_folder / "mine.txt").write_text("the user's")
    kept_in = str(given_folder)
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    with (workfolder.run_folder(state), WireDriver(command) as wire, SdkDriver(command) as sdk,
          WireDriver(command, cwd=kept_in) as kept):
        found = [_pwd(wire), _pwd(sdk), _pwd(kept)]
    made = found[:2]
    assert all(Path(f["cwd"]).parent == Path(f["tmp"]).parent for f in made), found
    assert made[0]["cwd"] == made[1]["cwd"] and os.getcwd() != made[0]["cwd"], "one server, one folder"
    assert not any(os.path.exists(f["cwd"]) for f in made), "a folder made for a server outlived its run"
    assert found[2]["cwd"] == str(given_folder) and found[2]["tmp"] != os.environ.get("TMPDIR")
    assert (given_folder / "mine.txt").read_text() == "the user's", "a folder given by the caller was removed"


def test_a_run_s_servers_have_their_folders_in_its_state_folder_removed_at_its_end(tmp_path: Path) -> None:
    command = (sys.executable, str(SERVERS / "extra_tool.py"), "pwd")
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    with workfolder.run_folder(state):
        with WireDriver(command) as wire:
            found = _pwd(wire)
        inside = list(state.iterdir())
    assert Path(found["cwd"]).is_relative_to(state) and Path(found["tmp"]).is_relative_to(state), found
    assert found["run_folder"] == "", "the harness's word for its run's folder reached the server"
    assert len(inside) == 1 and list(state.iterdir()) == [], "the run's servers' folders outlived it"
    assert workfolder.RUN_FOLDER_ENV not in os.environ


_NAMES = st.text(alphabet="abcXYZ019-_.", min_size=1, max_size=8).filter(lambda n: n not in {".", ".."})
_TREES = st.recursive(st.just("file"), lambda children: st.dictionaries(_NAMES, children, max_size=4),
                      max_leaves=12)


def _build(folder: Path, tree: object, label: str) -> list[str]:
    files: list[str] = []
    if isinstance(tree, dict):
        for name, child in tree.items():
            path = folder / name
            if isinstance(child, dict):
                path.mkdir()
                files += _build(path, child, f"{label}/{name}")
            else:
                path.write_text("x")
                files.append(f"{label}/{name}")
    return files


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cwd_tree=_TREES, tmp_tree=_TREES, locked=st.booleans())
def test_a_folder_is_listed_then_removed_whatever_its_server_left(
    tmp_path: Path, cwd_tree: object, tmp_tree: object, locked: bool
) -> None:
    outside = tmp_path / f"outside-{os.urandom(4).hex()}"
    outside.mkdir()
    (outside / "keep.txt").write_text("not the harness's")
    folder = workfolder.made()
    files = _build(folder.cwd, cwd_tree, ".") + _build(folder.tmp, tmp_tree, "$TMPDIR")
    (folder.cwd / "link-out").symlink_to(outside, target_is_directory=True)
    files.append("./link-out")
    if locked:
        (folder.tmp / "locked").mkdir()
        (folder.tmp / "locked" / "inside").write_text("x")
        files.append("$TMPDIR/locked/inside")
        os.chmod(folder.tmp / "locked", 0)
        os.chmod(folder.cwd, stat.S_IRUSR | stat.S_IXUSR)
    held = workfolder.listed(folder) if not locked else None
    workfolder.remove(folder.path)
    assert not os.path.lexists(folder.path)
    assert (outside / "keep.txt").read_text() == "not the harness's", "a link was followed"
    if held is not None:
        assert sorted(held.files) == sorted(files) and held.more == 0


def test_the_files_a_process_wrote_are_the_cause_s_subject() -> None:
    message = (f"{FILES_WRITTEN}: $TMPDIR/seqthink-history-1a2b.json, ./data/thoughts.json ({FOLDERS_SAID})")
    assert _subject(message) == frozenset({"file seqthink-history-1a2b.json", "file thoughts.json"})
