"""A shared-process session on one of tests/servers' real servers, tagged so that a test can find its
processes, and the count an accepted call answers: what the session tests hold the process's life against."""

from __future__ import annotations

import json
import shlex

from conformance.drivers.transcript import Transcript
from conformance.drivers.wire import Exchange
from conformance.suite.session import ServerSession
from conformance.targets.specs import resolve_target
from tests.fast.test_sdk_driver import tagged


def tagged_session(server: str, *args: str, timeout: float) -> tuple[ServerSession, str]:
    """A session on tests/servers/<server>.py started with `args`, and the tag its processes carry."""
    argv, tag = tagged(server, *args)
    return ServerSession(target=resolve_target("cmd:" + shlex.join(argv)), transcript=Transcript(None),
                         timeout=timeout), tag


def history_length(exchange: Exchange) -> int:
    """An accepted call's thoughtHistoryLength (the call must have been accepted)."""
    assert exchange.result is not None and not exchange.is_error, exchange
    content = exchange.result["content"]
    assert isinstance(content, list) and isinstance(content[0], dict)
    count = json.loads(str(content[0]["text"]))["thoughtHistoryLength"]
    assert isinstance(count, int)
    return count
