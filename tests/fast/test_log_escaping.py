"""pytest.log's writer escapes every control character a server could have put in a failure message but a
line feed and a tab: the log reads as lines, and no terminal it is printed in runs a sequence from it."""

from __future__ import annotations

import io
import re

from hypothesis import given
from hypothesis import strategies as st

from conformance.cli.runner.suite import EscapedLog

ESCAPES = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b[H\x9b31m\r\u202e"


def _written(text: str) -> str:
    out = io.StringIO()
    log = EscapedLog(out)
    assert log.write(text) == len(text)
    log.flush()
    return out.getvalue()


def test_terminal_sequences_are_written_as_escapes_and_lines_stay_lines() -> None:
    written = _written(f"E   AssertionError: starting{ESCAPES}\n\tnext line\n")
    escaped = "\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J\\x1b[H\\x9b31m\\x0d\\u202e"
    assert written == f"E   AssertionError: starting{escaped}\n\tnext line\n"


@given(st.text())
def test_nothing_a_terminal_acts_on_survives(text: str) -> None:
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", _written(text))
