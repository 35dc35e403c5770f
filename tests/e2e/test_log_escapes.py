"""pytest.log (uploaded by the action, read in terminals and CI log viewers) holds what a server said only
as visible escapes: a server writing an OSC 52 clipboard write, a clear screen and a C1 control on stderr and
in its answers leaves none of them raw in the log."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from tests.cli import cli

SERVER = Path(__file__).resolve().parents[1] / "servers" / "escapes.py"
RAW = (b"\x1b", b"\x07", "\x9b".encode())


def test_a_server_s_terminal_escapes_reach_pytest_log_escaped(tmp_path: Path) -> None:
    target = "cmd:" + shlex.join([sys.executable, str(SERVER)])
    ran = cli("run", "--target", target, "--profile", "dev", "--select", "RTE-10",
              "--out", str(tmp_path / "out"))
    assert ran.code == 1, ran.stderr[-2000:]
    log = (tmp_path / "out" / "pytest.log").read_bytes()
    assert b"\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J" in log, "the server's words are in the log, escaped"
    assert not any(raw in log for raw in RAW), [raw for raw in RAW if raw in log]
