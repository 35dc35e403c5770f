"""What stops a run before or during its checks can itself be a record's departure. A server that writes
something other than JSON-RPC on stdout breaks CMP-4 ("nothing else is written to stdout") whichever check
was reading when it did: the preflight that could not start the suite, or the tests the target's failure
ended, are that record's evidence. A server whose tools/list does not offer the tool (renamed, say) breaks
CMP-2 (the listing is the original's), and so does one whose tool refuses the original's call for its argument
names (its inputSchema is not the original's). Either departs as the run's one cause."""

from __future__ import annotations

from typing import Final

from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.protocol import ARGUMENT_NAMES, TOOL
from conformance.core.results import RunResults, TestOutcome
from conformance.drivers.wire import NOT_JSON_RPC
from conformance.report.model import Preflight, StdoutHygiene

STDOUT_RECORD: Final = "CMP-4"
STDOUT_CHECK: Final = "stdout carries only JSON-RPC"
"""The synthesized outcomes' node ids: no suite test has them, so they never collide with one."""
LISTING_RECORD: Final = "CMP-2"
LISTING_CHECK: Final = "tools/list offers the tool"
ARGUMENTS_CHECK: Final = "the tool takes the original's call"
_TOOL_STOP: Final = f"; and it does not offer the {TOOL} tool"
"""How the preflight joins a tool-name stop to a stray line's (cli/runner/preflight)."""
_SAID: Final = "where the original writes nothing but JSON-RPC to stdout (its banner and boxes go to stderr)"


def with_preflight_departure(results: RunResults | None, preflight: Preflight, target: TargetIdentity,
                             harness: HarnessIdentity, when: str) -> RunResults | None:
    """`results` with one more failed outcome naming CMP-4 when the preflight, or a test the target's failure
    ended, saw a stdout line that is not JSON-RPC, or naming CMP-2 when the preflight found other tools
    listed and not this one (results made for it when the suite never ran)."""
    found = _violation(results, preflight)
    beside: list[TestOutcome] = []
    if found is not None:
        seen, transcript = found
        outcome = TestOutcome(nodeid=STDOUT_CHECK, records=[STDOUT_RECORD], contradicted=[STDOUT_RECORD],
                              status="failed", message=f"{seen}, {_SAID}", transcript=transcript)
        if preflight.tool_offered is False and preflight.tools:  # the listing read past the stray line
            beside.append(_listing_outcome(preflight))
            # CMP-4's words are the stray line's; the tool stop joined to it is CMP-2's (its headline read
            # "…'Sequential Thinking MCP Server started'; and 1 more": uookong-ts)
            outcome = outcome.model_copy(update={"message": f"{seen.split(_TOOL_STOP, 1)[0]}, {_SAID}"})
    elif preflight.arguments is not None and preflight.arguments.accepted is False:
        check = preflight.arguments
        said = (f"the server's {TOOL} requires {', '.join(check.required) or 'other fields'} and refuses the "
                f"original's call ({', '.join(check.sent)}): “{check.refusal}”, where the original takes "
                f"{', '.join(ARGUMENT_NAMES)}")
        outcome = TestOutcome(nodeid=ARGUMENTS_CHECK, records=[LISTING_RECORD], contradicted=[LISTING_RECORD],
                              status="failed", transcript=preflight.transcript or None, message=said)
    elif preflight.tool_offered is False and preflight.tools:
        outcome = _listing_outcome(preflight)
    else:
        return results
    outcomes = [outcome, *beside]
    if found is None and preflight.stray_stdout and not _departs(results):
        # A tool-name or argument stop, and stray lines read before the target was closed: CMP-4 departs too,
        # as the stdout finding beside the stop says, not "not checked".
        outcomes.append(TestOutcome(
            nodeid=STDOUT_CHECK, records=[STDOUT_RECORD], contradicted=[STDOUT_RECORD], status="failed",
            message=f"{preflight.stray_stdout}, {_SAID}", transcript=preflight.transcript or None))
    if results is None:
        return RunResults(target=target, harness=harness, started=when, finished=when, tests=outcomes)
    return results.model_copy(update={"tests": [*results.tests, *outcomes]})


def with_stray_lines(results: RunResults | None, hygiene: StdoutHygiene | None) -> RunResults | None:
    """`results` with one more failed outcome naming CMP-4 when the run's transcripts hold stdout lines that
    are not JSON-RPC and no outcome says so yet: the drivers read past such a line to the answer after it (as
    a stdio client does), so no check fails on it, and the stdout finding is CMP-4's own departure."""
    if results is None or hygiene is None or not hygiene.lines_seen or _departs(results):
        return results
    first = hygiene.lines[0] if hygiene.lines else None
    lines = f"{hygiene.lines_seen} line{'s' if hygiene.lines_seen != 1 else ''}"
    said = f"stdout carried {lines} that {'are' if hygiene.lines_seen != 1 else 'is'} not JSON-RPC"
    if first is not None:
        when = f", after {first.after_request}" if first.after_request else ""
        said += f", the first {first.text!r} in {first.phase}{when}"
    said += "; the answer after each was still read"
    outcome = TestOutcome(nodeid=STDOUT_CHECK, records=[STDOUT_RECORD], contradicted=[STDOUT_RECORD],
                          status="failed", message=f"{said}, {_SAID}",
                          transcript=first.transcript if first is not None else None)
    return results.model_copy(update={"tests": [*results.tests, outcome]})


def _departs(results: RunResults | None) -> bool:
    """Whether an outcome of `results` already says CMP-4 departs for the stdout channel, or a test the stray
    line ended will (`with_preflight_departure`, from that test's error)."""
    return results is not None and any(
        o.nodeid == STDOUT_CHECK or (o.status == "error" and NOT_JSON_RPC in o.message)
        for o in results.tests)


def _listing_outcome(preflight: Preflight) -> TestOutcome:
    """CMP-2's failed outcome: tools/list offers other tools, not this one."""
    said = f"tools/list offers {', '.join(preflight.tools or [])}, where the original offers {TOOL}"
    if preflight.ok:
        said += f" (a call to {TOOL} is still answered, so every other record was checked on it)"
    return TestOutcome(nodeid=LISTING_CHECK, records=[LISTING_RECORD], contradicted=[LISTING_RECORD],
                       status="failed", transcript=preflight.transcript or None, message=said)


def _violation(results: RunResults | None, preflight: Preflight) -> tuple[str, str | None] | None:
    """The first stdout violation seen and its transcript: the preflight's error, else a test error's (its
    words from `NOT_JSON_RPC` on, without the "target failure:" wrapping)."""
    if not preflight.ok and preflight.error is not None and preflight.error.startswith(NOT_JSON_RPC):
        return preflight.error, preflight.transcript or None
    for outcome in results.tests if results is not None else []:
        if outcome.status == "error" and NOT_JSON_RPC in outcome.message:
            return outcome.message[outcome.message.index(NOT_JSON_RPC):], outcome.transcript
    return None
