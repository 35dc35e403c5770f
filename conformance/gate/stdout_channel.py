"""A server that writes something other than JSON-RPC on stdout breaks CMP-4 ("nothing else is written to
stdout") whichever check was reading when it did: the preflight that could not start the suite, or the tests
the target's failure ended, are that record's evidence, and CMP-4 departs as their one cause."""

from __future__ import annotations

from typing import Final

from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.results import RunResults, TestOutcome
from conformance.drivers.wire import NOT_JSON_RPC
from conformance.report.model import Preflight

STDOUT_RECORD: Final = "CMP-4"
STDOUT_CHECK: Final = "stdout carries only JSON-RPC"
"""The synthesized outcome's node id: no suite test has it, so it never collides with one."""
_SAID: Final = "where the original writes nothing but JSON-RPC to stdout (its banner and boxes go to stderr)"


def with_stdout_departure(results: RunResults | None, preflight: Preflight, target: TargetIdentity,
                          harness: HarnessIdentity, when: str) -> RunResults | None:
    """`results` with one more failed outcome naming CMP-4 when the preflight, or a test the target's failure
    ended, saw a stdout line that is not JSON-RPC (results made for it when the suite never ran)."""
    found = _violation(results, preflight)
    if found is None:
        return results
    seen, transcript = found
    outcome = TestOutcome(nodeid=STDOUT_CHECK, records=[STDOUT_RECORD], contradicted=[STDOUT_RECORD],
                          status="failed", message=f"{seen}, {_SAID}", transcript=transcript)
    if results is None:
        return RunResults(target=target, harness=harness, started=when, finished=when, tests=[outcome])
    return results.model_copy(update={"tests": [*results.tests, outcome]})


def _violation(results: RunResults | None, preflight: Preflight) -> tuple[str, str | None] | None:
    """The first stdout violation seen and its transcript: the preflight's error, else a test error's (its
    words from `NOT_JSON_RPC` on, without the "target failure:" wrapping)."""
    if not preflight.ok and preflight.error is not None and preflight.error.startswith(NOT_JSON_RPC):
        return preflight.error, preflight.transcript or None
    for outcome in results.tests if results is not None else []:
        if outcome.status == "error" and NOT_JSON_RPC in outcome.message:
            return outcome.message[outcome.message.index(NOT_JSON_RPC):], outcome.transcript
    return None
