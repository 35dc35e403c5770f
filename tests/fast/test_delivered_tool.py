"""The checks that read the served tool's description or schema find it by its name: a fork listing another
tool first (`tests/servers/extra_tool.py noop first`) is judged on its sequentialthinking tool, never on the
tool listed first (issue 42's review)."""

from __future__ import annotations

import shlex
from typing import cast

import pytest

from conformance.drivers.sdk import SdkDriver
from conformance.suite.plugin import Evidence
from conformance.suite.session import ServerSession
from conformance.suite.test_claims import check_nothing_to_verify
from conformance.suite.test_tool_spec import test_directives_delivered_but_not_enforced as directives_check
from conformance.targets.specs import resolve_target
from tests.servers import command, session_on

FIRST = command("extra_tool", "noop", "first")


def test_the_answer_argument_of_a_tool_listed_first_is_not_the_tools() -> None:
    """The tool listed first takes `answer`; sequentialthinking does not: the check reads past the argument
    and fails, if at all, on the concluding call's answer (this small server's status has three fields)."""
    target = resolve_target("cmd:" + shlex.join(FIRST))
    with session_on(target) as server, SdkDriver(FIRST, timeout=60) as host, \
            pytest.raises(AssertionError) as failed:
        check_nothing_to_verify(host, server)
    assert "Conclusion: 42." in str(failed.value), str(failed.value)
    assert "can hold a hypothesis or an answer" not in str(failed.value), str(failed.value)


def test_the_directives_are_read_from_the_sequentialthinking_description() -> None:
    """The description a host gets for sequentialthinking ("test double") is the one quoted, not the first
    listed tool's."""
    with SdkDriver(FIRST, timeout=60) as host, pytest.raises(AssertionError) as failed:
        # It fails on the description before it calls anything: no session or evidence is reached.
        directives_check(cast(ServerSession, None), host, cast(Evidence, None))
    assert "test double" in str(failed.value) and "listed first" not in str(failed.value), str(failed.value)
