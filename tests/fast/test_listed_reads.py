"""ABS-2 reads what a server lists beyond the tool (held-out-multi-15's fork-protocol-upgrade served its
history as resource thoughts://history; the check sent resources/read 37 times, all for its own guess): the
listed reads of a fork holding the thoughts, none of a server declaring nothing, and ABS-2's check run on each
fork whose listing quotes the stored thought."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from conformance.calls.listed import LISTED_MAX, listed_reads
from conformance.drivers.wire import WireDriver
from conformance.targets.specs import resolve_target
from tests.servers import command, suite_outcomes

_STORED = {"thought": "kept-0b1c", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}


def _driver(*argv: str) -> WireDriver:
    return resolve_target("cmd:" + shlex.join(argv)).wire(timeout=20)


@pytest.mark.parametrize(("change", "what"), [
    ("history-resource", "the resource 'thoughts://history' the server lists, read,"),
    ("recap-prompt", "the prompt 'recap' the server lists, read,"),
    ("thought-template", "the resource template 'thoughts://{number}' the server lists, read,"),
])
def test_each_listed_item_is_read(change: str, what: str) -> None:
    """A fork declaring resources or prompts: its listing and each listed item's read, which quotes the
    thought stored before."""
    with _driver(*command("reference_fork", change)) as driver:
        driver.initialize()
        driver.call_tool("sequentialthinking", _STORED)
        reads = listed_reads(driver)
    assert [r.said() for r in reads if r.name] == [what], reads
    read = next(r for r in reads if r.name)
    assert "kept-0b1c" in str(read.exchange.response), read.exchange.response


def test_a_server_declaring_neither_is_asked_nothing() -> None:
    """The reference declares tools alone: nothing is listed or read, no request sent."""
    with _driver(sys.executable, "-m", "reference_server") as driver:
        driver.initialize()
        before = driver.requests_sent
        assert listed_reads(driver) == []
        assert driver.requests_sent == before
    assert LISTED_MAX >= 1


@pytest.mark.parametrize("change", ["history-resource", "recap-prompt", "thought-template"])
def test_abs2_departs_on_a_listed_route(change: str, tmp_path: Path) -> None:
    """ABS-2's check fails on a fork whose listed resource or prompt quotes the stored thought, in words
    naming what it read."""
    target = "cmd:" + shlex.join(command("reference_fork", change))
    seen = suite_outcomes("test_absences.py", ["test_no_route_returns_a_stored_thought"], target, tmp_path)
    outcome, message = seen["test_no_route_returns_a_stored_thought"]
    assert outcome == "failed", seen
    assert "the server lists, read, quotes the stored thought" in message, message
