"""Every server process the harness starts has a HOME of its server's own in the run, beside its working and
temp folders: a server making a store under `~` at start-up (a task orchestrator's
`~/.task-orchestrator/storage/`, made by the preflight's process and left in the user's HOME) writes nothing
there, while its later processes in the run still see its files, and the launchers' homes under the user's
HOME (npm's cache, a `pip install --user` base) stay reachable. Real processes throughout; which launcher
homes are kept, as a property."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.drivers import workfolder
from conformance.drivers.sdk import SdkDriver
from conformance.drivers.wire import WireDriver

SERVERS = Path(__file__).resolve().parent.parent / "servers"
COMMAND = (sys.executable, str(SERVERS / "home_store.py"))


def _said(driver: WireDriver | SdkDriver) -> dict[str, object]:
    if isinstance(driver, WireDriver):
        driver.initialize()
        exchange = driver.call_tool("sequentialthinking", {"thought": "t"})
        assert exchange.result is not None, exchange.response
        text = exchange.result["content"][0]["text"]
    else:
        result = driver.call_tool("sequentialthinking", {"thought": "t"})
        text = result.content[0].text  # type: ignore[union-attr]
    found = json.loads(text)
    assert isinstance(found, dict)
    return found


def _user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *kept: str) -> Path:
    home = tmp_path / "user-home"
    for below in ("", *kept):
        (home / below).mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    for name in ("npm_config_cache", "PYTHONUSERBASE"):  # what the server reports
        monkeypatch.delenv(name, raising=False)
    return home


def test_a_server_storing_under_its_home_writes_nothing_into_the_user_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = _user_home(tmp_path, monkeypatch)
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    with workfolder.run_folder(state):
        with WireDriver(COMMAND) as first:
            said = [_said(first)]
        with WireDriver(COMMAND) as second, SdkDriver(COMMAND) as sdk:
            said += [_said(second), _said(sdk)]
        store = Path(str(said[0]["store"]))
        assert store.is_relative_to(state), f"the server's store {store} is not in the run's folder"
    assert not (home / ".home-store").exists(), "the server wrote its store into the user's HOME"
    assert list(home.iterdir()) == [], f"the user's HOME holds {sorted(p.name for p in home.iterdir())}"
    assert {str(s["store"]) for s in said} == {str(store)}, f"one server, one HOME: {said}"
    assert sorted(int(str(s["held"])) for s in said) == [0, 1, 2], (
        f"a later process did not see the files its server's earlier ones wrote: {said}")
    assert not store.exists(), "the server's HOME outlived the run"


def test_a_launcher_s_home_under_the_user_s_stays_reachable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = _user_home(tmp_path, monkeypatch, ".npm")
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    with workfolder.run_folder(state), WireDriver(COMMAND) as wire:
        said = _said(wire)
    assert said["npm_config_cache"] == str(home / ".npm"), said
    assert said["PYTHONUSERBASE"] == "", f"a launcher home the user has not was named: {said}"


@given(
    present=st.deferred(lambda: st.sets(st.sampled_from([below for _, below in workfolder.KEPT_HOMES]))),
    preset=st.deferred(lambda: st.sets(st.sampled_from([name for name, _ in workfolder.KEPT_HOMES]))),
)
def test_kept_homes_are_those_the_user_has_and_has_not_named(present: set[str], preset: set[str]) -> None:
    with tempfile.TemporaryDirectory() as home:
        for below in present:
            (Path(home) / below).mkdir(parents=True, exist_ok=True)
        environ = {"HOME": home, **{name: "/set/by/the/user" for name in preset}}
        kept = workfolder.kept_homes(environ)
    wanted = {name: os.path.join(home, below) for name, below in workfolder.KEPT_HOMES
              if below in present and name not in preset}
    assert kept == wanted
    assert workfolder.kept_homes({"PATH": "/bin"}) == {}
