"""A count one short after a call the original fails late, having kept the thought, is that call not kept,
never a cap: OI-Sequential-Thinking reads revisesThought as a number while validating (`isNaN`), so
`{"toString": 1}` throws the original's own late words before the append, and its run's OBJ-2 cause said
"the history stops growing at 1939 thoughts", a cap the server does not have. The late-failure checks run on
a fork doing the same (`reference_fork.py pointers-converted`); their failures must read as no cap."""

from __future__ import annotations

import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from conformance.gate.caps import cap_seen
from tests.servers import command

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ("conformance/suite/test_errors.py::test_render_failure_after_retention",
          "conformance/suite/test_errors.py::test_label_recorded_before_the_render_fails")


def test_a_late_failure_refused_before_the_append_is_no_cap(tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", *CHECKS, "-q", "-p", "no:cacheprovider",
         f"--basetemp={tmp_path / 'pytest'}", f"--junitxml={junit}",
         "--target", "cmd:" + shlex.join(command("reference_fork", "pointers-converted"))],
        cwd=ROOT, capture_output=True, timeout=300, check=False)
    cases = [case for case in ET.parse(junit).getroot().iter("testcase")
             if case.get("name", "").startswith("test_")]
    failures = {case.get("name", "").partition("[")[0]: case.find("failure") for case in cases}
    assert set(failures) == {check.rsplit("::", 1)[1] for check in CHECKS}, failures
    for name, failure in failures.items():
        assert failure is not None, f"{name} held on a fork that keeps no thought of a late-failing call"
        message = failure.get("message", "")
        assert "OBJ-2 contradicted" in message, message
        assert cap_seen(message) == "", f"{name}'s failure reads as a cap: {cap_seen(message)}: {message}"
