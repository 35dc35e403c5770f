"""The preflight: start the target once before the suite, so a target that cannot start, does not offer the
tool, or writes garbage on stdout gets a one-line reason and a report saying so instead of a suite full of
identical failures. A usable process is handed over to become the suite's shared server."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

from conformance.catalog.startup_hints import StartFailure, diagnose
from conformance.compare.arguments import (
    CALL_TIMEOUT,
    answers_the_original_name,
    check_arguments,
    exited_clause,
    lookalike,
    map_not_used,
    stop_sentence,
)
from conformance.core.identity import info_texts
from conformance.core.jsontypes import JSON
from conformance.core.protocol import PROTOCOL_VERSION, TOOL
from conformance.drivers.errors import (
    DriverError,
    ProtocolViolation,
    ServerExited,
    ServerTimeout,
    TargetError,
)
from conformance.drivers.listening import listening_addresses, listening_clause
from conformance.drivers.transcript import Transcript
from conformance.drivers.wire import Exchange, WireDriver
from conformance.gate.assemble import TargetSeen
from conformance.report.model import Preflight
from conformance.suite.handover import Handover
from conformance.targets.project import missing_path, node_engines
from conformance.targets.specs import Target


def check_target(
    target: Target,
    transcript_path: Path,
    timeout: float,
    *,
    handover: Handover | None = None,
    meanwhile: Callable[[], object] | None = None,
    mapped_from: str | None = None,
) -> tuple[Preflight, dict[str, str], str | None]:
    """Start the target once: it must initialize over clean JSON-RPC and offer the tool. A usable process is
    handed over (to become the suite's shared server) instead of closed, when `handover` is given.
    `meanwhile` runs once the process is started and before it is asked to initialize: work of this
    process that then overlaps the target's own start-up. The original's call is sent once (through the
    target's `--arguments-map`, `mapped_from`): a target refusing it for its argument names is not usable.
    A stopped target's process found listening on TCP is said so (`listening_clause`)."""
    listens: list[str] = []
    checked, server_info, protocol = _checked(target, transcript_path, timeout, handover, meanwhile,
                                              mapped_from, listens)
    if not checked.ok and listens:
        checked = checked.model_copy(update={"error": f"{checked.error}{listening_clause(listens)}"})
    return checked, server_info, protocol


def _checked(
    target: Target,
    transcript_path: Path,
    timeout: float,
    handover: Handover | None,
    meanwhile: Callable[[], object] | None,
    mapped_from: str | None,
    listens: list[str],
) -> tuple[Preflight, dict[str, str], str | None]:
    """`check_target`'s start and checks; the addresses a process it closes listens on go in `listens`."""
    server_info: dict[str, str] = {}
    protocol: str | None = None
    with Transcript(transcript_path) as transcript:
        driver = target.wire(timeout=timeout, transcript=transcript)
        handed = False
        handshake: float | None = None  # when initialize was answered
        try:
            with _closing_unless(driver, lambda: handed, listens, lambda: handshake is None):
                try:
                    if meanwhile is not None:
                        meanwhile()
                    result = driver.initialize(PROTOCOL_VERSION)
                    handshake = time.monotonic()
                    info = result.get("serverInfo")
                    if isinstance(info, dict):
                        server_info = info_texts(info)
                    version = result.get("protocolVersion")
                    protocol = version if isinstance(version, str) else None
                    listing = driver.list_tools()
                    checked = _offers_the_tool(listing, driver.stderr_tail())
                    if checked.tool_offered is False and checked.tools and answers_the_original_name(driver):
                        checked = checked.model_copy(update={"ok": True, "error": None})
                    if checked.ok:
                        arguments = check_arguments(driver, listing, mapped_from)
                        checked = checked.model_copy(update={"arguments": arguments})
                        if arguments.accepted is False:
                            stop = stop_sentence(arguments)
                            checked = checked.model_copy(update={"ok": False, "error": stop})
                        elif arguments.accepted is None:
                            return checked, server_info, protocol  # the call failed: not one to hand over
                        else:
                            stray = _watch(driver, handshake, QUIET_AFTER_HANDSHAKE, green=True)
                            if stray is not None:  # its stderr (the call's box) says nothing of it
                                checked = checked.model_copy(update={"ok": False, "error": stray})
                                return checked, server_info, protocol
                    if checked.ok and handover is not None:
                        handover.offer(target, driver)
                        handed = True
                    elif not checked.ok:
                        watched = _watch(driver, handshake, STOPPED_WATCH)
                        stray = driver.first_stray or watched  # a line read past to an answer comes first
                        if driver.first_stray is not None and checked.tool_offered is False and checked.tools:
                            # the tools/list answer came after the stray line: both stops, CMP-2 beside CMP-4
                            checked = checked.model_copy(update={"error": f"{stray}; and {checked.error}"})
                        elif stray is not None:  # CMP-4 departs beside the stop (gate/preflight_departures)
                            checked = checked.model_copy(update={"stray_stdout": stray})
                    return checked, server_info, protocol
                except ProtocolViolation as exc:
                    # A stray line failed a request: the lines after it are kept too, before it closes.
                    since = handshake if handshake is not None else time.monotonic()
                    answers: list[dict[str, JSON]] = []
                    _watch(driver, since, QUIET_AFTER_HANDSHAKE, answers)
                    listed = _listing_said(answers) or (_listing_after(driver, answers) if handshake is None
                                                        else None)
                    if listed is None:
                        ended = _ended(driver, answers)
                        if ended is None:
                            raise
                        # its last words went to stdout (a print() of an import error): the stop says it
                        # ended, and the start-up hints read those words as they read stderr's
                        checked = Preflight(ok=False, error=f"{exc}{exited_clause(ended, handshake is None)}",
                                            stderr_tail=driver.stderr_tail())
                        return checked, server_info, protocol
                    # the tools/list answer came after the stray line: both stops known, CMP-2 beside CMP-4
                    also, tools = listed
                    checked = Preflight(ok=False, tool_offered=False, tools=tools, error=f"{exc}; and {also}",
                                        stderr_tail=exc.stderr_tail)
                    return checked, server_info, protocol
        except DriverError as exc:
            return (Preflight(ok=False, error=str(exc), stderr_tail=exc.stderr_tail), server_info, protocol)
        except TargetError as exc:
            return Preflight(ok=False, error=str(exc)), server_info, protocol


def _offers_the_tool(listing: Exchange, stderr_tail: str) -> Preflight:
    """The preflight's verdict on the answer to tools/list."""
    tools = _tool_names(listing.result)
    if listing.error is not None:
        error = f"tools/list was answered with an error: {listing.error}"
        return Preflight(ok=False, tool_offered=False, stderr_tail=stderr_tail, error=error)
    if tools is None:
        error = "tools/list answer has no list of tools"
        return Preflight(ok=False, tool_offered=False, stderr_tail=stderr_tail, error=error)
    if TOOL not in tools:
        error = f"it does not offer the {TOOL} tool (it offers: {', '.join(tools) or 'no tools'})"
        error += lookalike(listing.result)
        return Preflight(ok=False, tool_offered=False, tools=tools, stderr_tail=stderr_tail, error=error)
    return Preflight(ok=True, tool_offered=True, tools=tools, stderr_tail=stderr_tail)


QUIET_AFTER_START: Final = 1.0
"""How long after its start a target's stdout must have stayed free of anything but answers: a logger that
writes asynchronously (pino's default destination, a timer) writes its first line within it
(docs/robustness.md says what was measured)."""
QUIET_AFTER_HANDSHAKE: Final = 0.8
"""And this long after it answered initialize: a server slow to start (tsx compiling TypeScript at start,
1.3-2.2 s) sets its logger up about when it answers, and pino-pretty's worker thread wrote its first line
0.15-0.6 s after that answer (axefield-ts, load 10; docs/robustness.md)."""
QUIET_AFTER_ANSWER: Final = 0.2
"""And at least this long after the preflight's call was answered: a logger of each call writes by then."""
STOPPED_WATCH: Final = 1.5
"""A stopped preflight reads its target's stdout this long after the handshake before closing it: under load
16 pino-pretty's first line came 0.23-1.21 s after the answer to initialize (axefield-ts, 5 starts), later
than the green run's watch. A stop is not a green run's cost, but every stopped run of the tests pays it."""


def _window(driver: WireDriver, handshake: float, after_handshake: float | None = None
            ) -> tuple[float, float]:
    """When the target started, and until when its stdout is watched (the constants read at each call)."""
    started = driver.started_at if driver.started_at is not None else time.monotonic()
    after = QUIET_AFTER_HANDSHAKE if after_handshake is None else after_handshake
    until = max(started + QUIET_AFTER_START, handshake + after, time.monotonic() + QUIET_AFTER_ANSWER)
    return started, until


def _listing_said(answers: list[dict[str, JSON]]) -> tuple[str, list[str]] | None:
    """The tool-name stop's words and the tools listed when a tools/list answer among `answers` (read after a
    stray line stopped the preflight) does not offer the tool; None otherwise (wild13's axefield-ts: the stop
    said CMP-4 only when a logger's line came before the listing's answer, and the renamed tool was never
    mentioned)."""
    for message in answers:
        result = message.get("result")
        tools = _tool_names(result) if isinstance(result, dict) and "tools" in result else None
        if tools is not None and TOOL not in tools:
            return (f"it does not offer the {TOOL} tool (it offers: {', '.join(tools) or 'no tools'})"
                    + lookalike(result)), tools
    return None


def _listing_after(driver: WireDriver, answers: list[dict[str, JSON]]) -> tuple[str, list[str]] | None:
    """The tool-name stop's words for a server whose stray line came before its answer to initialize, once
    that answer is among `answers`: its tools are listed on the same process (uookong-ts: a console.log right
    after connecting hid that it offers no `sequentialthinking`, the stop a maintainer met next). None when
    initialize was not answered, the listing fails, or the tool is offered."""
    results = [m.get("result") for m in answers]
    if not any(isinstance(result, dict) and "protocolVersion" in result for result in results):
        return None
    try:
        driver.notify("notifications/initialized")
        listing = driver.request("tools/list", timeout=min(driver.timeout, CALL_TIMEOUT))
    except DriverError:
        return None
    return _listing_said([listing.response])


def _watch(driver: WireDriver, handshake: float, after_handshake: float,
           answers: list[dict[str, JSON]] | None = None, *, green: bool = False) -> str | None:
    """Read the target's stdout to `after_handshake` after the handshake (`_window`), every line kept in the
    preflight's transcript so that a stray one (an asynchronous logger's) is reported with its text, not lost
    with the process (issue 46), and return the first line that is not a JSON-RPC message, in the stdout
    check's words and with when it came (None: none). The `green` watch (`QUIET_AFTER_HANDSHAKE` after a
    usable preflight) says that nothing was asked, and lets a framing error other than timeout or exit through
    until a stray line is seen; a stopped preflight's (`STOPPED_WATCH`, or the green window once a stray line
    stopped it: its followers are read) ends quietly at any driver error. Messages are kept in `answers`."""
    if driver.started_at is None:
        return None
    started, until = _window(driver, handshake, after_handshake)
    stray: str | None = None
    while (left := until - time.monotonic()) > 0:
        try:
            line = driver.read_frame(left)
        except (ServerTimeout, ServerExited):
            break  # quiet to the end, or ended after answering: ABS-10's to judge, as before the watch
        except DriverError:
            if green and stray is None:
                raise
            break
        try:
            message = driver.read_parsed(line)
        except ProtocolViolation as exc:
            if stray is None:
                asked = ", with nothing asked" if green else ""
                stray = f"{exc} ({time.monotonic() - started:.2f} s after the server started{asked})"
                if green:  # the stop is made; the lines after it are read a while longer, as a stop's are
                    until = max(until, time.monotonic() + QUIET_AFTER_ANSWER)
            continue
        if answers is not None:
            answers.append(message)
    return stray


def _ended(driver: WireDriver, answers: list[dict[str, JSON]]) -> int | None:
    """The exit status of a target whose stray stdout line stopped the preflight before it answered
    initialize, waited for up to the call timeout and ended by its exit: a Python port printing its import
    error, then tearing down numpy and scikit-learn, exited 1-2 s after the line at load 27, past the watch.
    None when it answered initialize (it runs on) or is still running at the bound."""
    results = [message.get("result") for message in answers]
    if any(isinstance(result, dict) and "protocolVersion" in result for result in results):
        return driver.returncode
    deadline = time.monotonic() + driver.timeout
    while (ended := driver.returncode) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    return ended


@contextlib.contextmanager
def _closing_unless(driver: WireDriver, kept: Callable[[], bool], listens: list[str],
                    unanswered: Callable[[], bool]) -> Iterator[WireDriver]:
    """Start `driver`; close it on the way out unless it was handed over, first putting in `listens` the TCP
    addresses its still running processes listen on when it never answered initialize (a stdio server with a
    dashboard of its own is no server of HTTP)."""
    try:
        driver.start()
        yield driver
    finally:
        if not kept():
            if unanswered() and driver.is_alive():
                listens.extend(listening_addresses(driver.pid, driver.stderr_bytes()))
            driver.close()


def explained(preflight: Preflight, engines: str | None = None) -> Preflight:
    """A failed preflight with what the server's stderr says, when it died before listing its tools (its
    first error line and last few lines), and the hint of the known case it matches (`catalog/startup_hints`);
    `engines` is what the target's package.json asks of Node.js."""
    if preflight.ok:
        return preflight
    stderr = preflight.stderr_tail if preflight.tool_offered is None else ""
    failure = diagnose(preflight.error or "", stderr, engines)
    return preflight.model_copy(
        update={"stderr_lines": list(failure.lines), "known_case": failure.case, "hint": failure.hint}
    )


def failure_clause(preflight: Preflight) -> str:
    """The stderr lines and hint of an explained preflight, for the one line on stderr."""
    return StartFailure(tuple(preflight.stderr_lines), preflight.known_case, preflight.hint).clause()


def _tool_names(result: object) -> list[str] | None:
    if not isinstance(result, dict):
        return None
    tools = result.get("tools")
    if not isinstance(tools, list):
        return None
    return [str(t.get("name")) for t in tools if isinstance(t, dict)]


def preflight(target: Target, transcripts: Path, timeout: float, handover: Handover | None,
              meanwhile: Callable[[], object] | None = None, mapped_from: str | None = None) -> TargetSeen:
    """`check_target` as the report records it, its transcript in `transcripts/preflight.jsonl`, a failure
    explained."""
    checked, server_info, protocol = check_target(
        target, transcripts / "preflight.jsonl", timeout, handover=handover, meanwhile=meanwhile,
        mapped_from=mapped_from,
    )
    if not checked.ok and checked.tool_offered is False and mapped_from is not None:
        checked = checked.model_copy(update={"error": f"{checked.error}{map_not_used(mapped_from)}"})
    if not checked.ok:
        problem = missing_path(target, f"{checked.error}\n{checked.stderr_tail}")
        if problem is not None:
            checked = checked.model_copy(update={"error": f"{checked.error}; {problem}"})
        checked = explained(checked, node_engines(target))
    checked = checked.model_copy(update={"transcript": "transcripts/preflight.jsonl"})
    return TargetSeen(target.identity, checked, server_info, protocol)
