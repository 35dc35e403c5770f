"""SPEC-1's headline says its difference whole (issue 42, held-out-multi-15's fork-protocol-upgrade): the
check's words open with the record's prefix, its citation and the client that met it, and the cut at 240
characters (the gate's) and at the terminal's 160 ate the difference ("…, where a server…"). The prefix is
cut, not the difference. A real process: tests/servers/reference_fork.py `versions-only:`."""

from __future__ import annotations

import pytest

from conformance.calls.meetings import meet
from conformance.core.eras import AUTO
from conformance.core.failure_text import spoken
from conformance.report.escape import cut_headline
from conformance.suite.spec_checks import SpecDeparture, judge
from tests.servers import fork_target

REFUSAL = ("initialize offering 2025-11-25 was refused, error -32602 “Unsupported protocol version: "
           "2025-11-25”, where a server answers a version it supports")
ACCEPTED = "2025-06-18, offered next, was accepted"


def test_spec_1s_refusal_is_said_whole_wherever_its_headline_is_cut() -> None:
    fork = fork_target("versions-only:2025-06-18")
    meeting = meet(fork, AUTO, timeout=20)
    with pytest.raises(SpecDeparture) as raised:
        judge("SPEC-1", meeting)
    message = str(raised.value)
    assert message.startswith("SPEC-1 (") and len(message) > 240, message
    said = spoken(message, "tests/test_spec_eras.py::test_initialize_settles_on_a_revision[auto]", 240)
    assert len(said) <= 240
    assert said.endswith(f": {REFUSAL}; {ACCEPTED}"), said
    headline = f"SPEC-1 departs — {said}"
    for limit in (200, 300, 400):
        cut = cut_headline(headline, limit)
        assert len(cut) <= limit
        assert cut.startswith("SPEC-1 departs — ") and cut.endswith(f"; {ACCEPTED}"), cut
        assert "initialize offering 2025-11-25 was refused, error -32602" in cut, cut
    terminal = cut_headline(headline, 160)
    assert terminal.startswith("SPEC-1 departs — initialize offering 2025-11-25 was refused"), terminal
    assert terminal.endswith(f"; {ACCEPTED}"), terminal
