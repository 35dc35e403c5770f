"""ABS-1 sees a file a server writes outside every folder the harness gave it when its own stderr names the
path: a fork logging each request into a literal `/tmp/mcp-logs/` (vlabs-ts) held ABS-1 ("nothing written
to disk") while leaving 64 MB there. The paths a text names, as a property; what changed at them, on real
files; the check itself on real processes of `ports.py logdir` (fails) and `ports.py logread` (holds)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from conformance.drivers.named_files import KEPT, NAMES, changed_at_named, named_paths
from tests.servers import command

ROOT = Path(__file__).resolve().parents[2]
CHECK = "conformance/suite/test_store.py::test_fresh_process_remembers_nothing_and_writes_nothing"
FILLS = "conformance/suite/test_store.py::test_identical_calls_each_retained"
"""A check run first on the shared process: ABS-1's wants it holding thoughts."""

_segments = st.lists(st.text(st.sampled_from("abcxyz019_.-@+"), min_size=1, max_size=8)
                     .filter(lambda s: s not in {".", ".."}), min_size=1, max_size=5)
_before = st.sampled_from(["", "logs folder: ", "saved to ", "Répertoire de logs: ", "(", "\"", "at "])
_after = st.sampled_from(["", ".", ":", ":12:5", ")", "\"", ", then more", "\n", " ⏎ next"])


@given(segments=_segments, before=_before, after=_after)
def test_a_path_said_in_a_sentence_is_found_whole(segments: list[str], before: str, after: str) -> None:
    path = "/" + "/".join(segments)
    wanted = os.path.normpath(path.rstrip(".:!"))
    found = named_paths(f"{before}{path}{after}")
    if len(wanted) > 1:
        assert found == [wanted], (path, found)


@given(count=st.integers(0, 3 * NAMES))
def test_a_flood_of_paths_is_read_to_a_bound(count: int) -> None:
    text = " ".join(f"/tmp/f{i}.json" for i in range(count))
    assert named_paths(text) == [f"/tmp/f{i}.json" for i in range(min(count, NAMES))]


def test_what_changed_at_named_paths_is_found_and_nothing_else(tmp_path: Path) -> None:
    outside, own = tmp_path / "outside", tmp_path / "run"
    (outside / "responses").mkdir(parents=True)
    (outside / "node_modules").mkdir()
    own.mkdir()
    old = outside / "old.log"
    old.write_text("before the run")
    os.utime(old, ns=(time.time_ns() - 10**10,) * 2)
    since = time.time_ns() - 10**6
    for i in range(KEPT + 3):
        (outside / "responses" / f"{i:02}.json").write_text("{}")
    (outside / "server.log").write_text("a line")
    (outside / "node_modules" / "cache.js").write_text("an interpreter's")
    (own / "mine.json").write_text("the run's own, listed by its folders")
    lone = tmp_path / "lone.txt"
    lone.write_text("a file named alone")
    said = [f"logs folder: {outside}\n".encode(), f"wrote {lone}, read {old}; /tmp and / shared\n".encode(),
            f"store {own / 'mine.json'} in {own}\n".encode()]
    named = changed_at_named(said, since, [str(own)])
    everything = [*sorted([str(outside / "server.log"), str(lone)], key=lambda f: (f.count("/"), f)),
                  *(str(outside / "responses" / f"{i:02}.json") for i in range(KEPT + 3))]
    assert named.files == tuple(everything[:KEPT]) and named.more == len(everything) - KEPT, named
    assert named.said()[-1] == f"and {len(everything) - KEPT} more"
    assert changed_at_named([b"read /tmp and / and /proc/self/status"], since, []).files == ()
    installed = outside / "node_modules" / "cache.js"
    assert changed_at_named([f"at {installed}:3:7".encode()], since, []).files == ()


def _abs1(mode: str, tmp_path: Path) -> tuple[bool, str]:
    """ABS-1's check on `ports.py MODE` whose fixed folder is `tmp_path/outside`: whether it failed, and
    its message."""
    junit = tmp_path / "junit.xml"
    env = {**os.environ, "PORTS_LOG_DIR": str(tmp_path / "outside")}
    subprocess.run(
        [sys.executable, "-m", "pytest", FILLS, CHECK, "-q", "-p", "no:cacheprovider",
         f"--basetemp={tmp_path / 'pytest'}", f"--junitxml={junit}",
         "--target", "cmd:" + shlex.join(command("ports", mode))],
        cwd=ROOT, capture_output=True, timeout=300, check=False, env=env)
    cases = [case for case in ET.parse(junit).getroot().iter("testcase")
             if str(case.get("name")).startswith(CHECK.rsplit("::", 1)[1])]
    assert len(cases) == 1, "ABS-1's check did not run"
    failure = cases[0].find("failure")
    error = cases[0].find("error")
    assert error is None, error.get("message")
    return failure is not None, "" if failure is None else failure.text or ""


def test_a_server_writing_to_a_folder_it_names_fails_abs1_naming_its_files(tmp_path: Path) -> None:
    failed, message = _abs1("logdir", tmp_path)
    outside = tmp_path / "outside"
    assert failed, "ABS-1 held of a server that wrote into a folder outside its own and named it on stderr"
    assert "AssertionError: the server wrote files: " in message, message
    assert str(outside / "server.log") in message and str(outside / "responses") in message, message
    assert "its own stderr named" in message, message


def test_a_server_naming_a_file_it_only_reads_holds_abs1(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    settings = outside / "settings.json"
    settings.write_text("{}")
    os.utime(settings, ns=(time.time_ns() - 10**10,) * 2)
    failed, message = _abs1("logread", tmp_path)
    assert not failed, message
