"""A description whose "You should:" rules are bullets, not numbers, fails OBJ-5's check with the
check's own words, never with the ValueError of reading a bullet as a number (held-out-multi-18's
fork-docs-console: "invalid literal for int()" was OBJ-5's and OBJ-5/c1's failure reason)."""

from __future__ import annotations

import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.servers import command

ROOT = Path(__file__).resolve().parents[2]


def test_bulleted_rules_fail_the_check_in_its_own_words(tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest",
         "conformance/suite/test_tool_spec.py::test_description_is_not_uniformly_second_person",
         "-q", "-p", "no:cacheprovider", f"--basetemp={tmp_path / 'pytest'}", f"--junitxml={junit}",
         "--target", "cmd:" + shlex.join(command("reference_fork", "bulleted-rules"))],
        cwd=ROOT, capture_output=True, timeout=300, check=False)
    failures = [case.find("failure") for case in ET.parse(junit).getroot().iter("testcase")]
    assert len(failures) == 1 and failures[0] is not None, "the bulleted rules were not a failure"
    message = failures[0].get("message", "")
    assert message.startswith("AssertionError: “You should:” marks its 11 rules [\"-\", \"-\""), message
    assert "ValueError" not in message and "invalid literal" not in message, message
