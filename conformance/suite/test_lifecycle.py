"""The process around the tool (RTE-10, BAP-3, BAP-5, CMP-4, LOOP-A, LOOP-B): the stdio binding, the banner,
how the process ends, and one request-response loop fully determined by its input.

The tests are in the order their processes serve them (`RawPool.lend`): the fresh runs take pristine
processes (the banner and tools/list before initialize are read on them, before their sequence), the final
thought, framing and the loop take used ones, and each test that ends a process runs last (`ends_a_process`)
and takes one that has served the others, a colour row's and the spare among them. tools/list before
initialize and the final thought run before every other check (`before_the_breaker`): a server that ends
itself stops the run early, and they say so.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import secrets
import signal
import time
from dataclasses import replace
from typing import Final

import pytest

from conformance.calls.strategies import Envelope
from conformance.catalog.records import evidences, relies_on
from conformance.core.differences import quoted
from conformance.core.idle import IDLE_HOLD
from conformance.core.jsontypes import JSON
from conformance.core.protocol import PROTOCOL_VERSION, TOOL
from conformance.drivers.ending import STDOUT_BROKEN, signal_end, still_running
from conformance.drivers.transcript import decode
from conformance.suite.answers import describe_response
from conformance.suite.asked_logging import LEVEL, asked_for_debug, carries, declares_logging
from conformance.suite.contradiction import (
    after_the_end,
    brief,
    expect,
    expect_no_own_line,
    expect_not_own_message,
    first_difference,
    response_line,
    stdout_message,
    while_idle,
)
from conformance.suite.fresh_runs import FreshRunner, state_of_answer
from conformance.suite.handover import handover_of
from conformance.suite.rawproc import NUDGE, RawPool, clock_key, without_clock_lines
from conformance.suite.render_box import boxes, boxes_said, drawn, js_length
from conformance.suite.serial_reading import read_serially
from conformance.suite.session import ServerSession
from conformance.targets.specs import Target

BANNER = "Sequential Thinking MCP Server running on stdio"


@evidences("RTE-10", "CMP-4")
def test_banner_without_any_request(target: Target, fresh_runs: FreshRunner) -> None:
    """Once connected, before anything is sent, stderr carries the banner line and stdout stays silent (read
    on the first fresh process, before its fresh run: `FreshRunner`)."""
    unasked = fresh_runs.unasked(target)
    stderr, silent = unasked.stderr, unasked.stdout
    expect_no_own_line(silent, "nothing was sent yet")
    assert decode(stderr).splitlines() == [BANNER], (
        f"stderr reads {quoted(decode(stderr))} before any request, where the original writes the banner "
        f"{quoted(BANNER)} alone")
    assert silent is None, (
        f"stdout carried {quoted(decode(silent or b''))} before any request, where the original writes "
        "nothing "
        f"until asked")


@evidences("RTE-1")
@pytest.mark.before_the_breaker
def test_tools_are_listed_before_initialize(target: Target, fresh_runs: FreshRunner) -> None:
    """tools/list is answered the same before the handshake as after it (RTE-1's "the same every time"):
    the original's SDK serves it on a process no client has initialized yet. Asked on each fresh process
    before its fresh run (`FreshRunner`): each is sent tools/list, initialize and tools/list first."""
    listings = fresh_runs.listings(target)
    assert listings, "the fresh runs had no tools/list before initialize"
    for before, after in listings:
        listed = after.get("result")
        expect("RTE-1", before.get("result") == listed is not None,
               f"tools/list before initialize is answered {brief(before)}, after it {brief(listed)}; the "
               f"original answers both alike")


LINGER: Final = 0.5
"""How long a process is watched after answering a final thought, at least: a server that ends itself once the
thinking is done does so right after its answer goes out."""
LINGER_PACE: Final = 25
"""The watch lasts at least this many times the final call's own round trip (`LINGER_LIMIT` at most): on a
loaded machine a fork's exit 100 ms after its answer comes as late as its answers do. Under two busy loops one
was still running 0.5 s after its answer, and ABS-10 was left to the idle check, with another example."""
LINGER_LIMIT: Final = 10.0
_EXTRA_LINES_KEPT: Final = 64
"""Lines read past the answers due (each one already a message of the server's own, LOOP-A's departure)."""


@evidences("ABS-10")
@pytest.mark.before_the_breaker
def test_the_process_outlives_a_final_thought(target: Target, raw_pool: RawPool) -> None:
    """A call with nextThoughtNeeded false ends nothing: the process is still running a moment after its
    answer and accepts the next call (ABS-10's "calls keep being accepted after nextThoughtNeeded false").
    It runs first: a server that ends itself makes the shared process's checks stop the run early."""
    final = Envelope("the last thought", 1, 1, False).arguments()
    with raw_pool.lend(target) as raw:
        raw.initialize()
        sent = time.monotonic()
        raw.send({"jsonrpc": "2.0", "id": 0, "method": "tools/call",
                  "params": {"name": TOOL, "arguments": final}})
        line = raw.read_line()
        took = time.monotonic() - sent
        # A read that ran out the call timeout is a hang, not the machine's pace: watched for `LINGER` only (a
        # hanging target paid ten seconds more here, on top of its timeout).
        linger = LINGER if took >= raw.timeout else min(LINGER_LIMIT, max(LINGER, LINGER_PACE * took))
        if line is None or not line.lstrip().startswith(b"{"):
            # Dying, hanging or writing garbage on the call itself is the target's failure, which the shared
            # checks report (stopping the run early; garbage is CMP-4's): this check is about a process
            # that answers. But a process that ends cleanly instead of answering has ended itself at a final
            # thought: this one, or an earlier one of the pooled process lent here (a fork exiting 100 ms
            # after its answer was lent on its way out, 1 run in 20 under two busy loops).
            status = raw.wait(linger) if line is None else None
            expect("ABS-10", status != 0,
                   "the process ended by itself (exit status 0) instead of answering a call with "
                   "nextThoughtNeeded false, where the original answers it and keeps accepting calls")
            return
        response_line(line, "the response to a final thought's tools/call was due")
        status = raw.wait(linger)
        expect("ABS-10", status is None,
               f"the process ended (exit status {status}) within {linger:.1f} s of answering a call with "
               f"nextThoughtNeeded false, where the original keeps accepting calls")
        raw.request("tools/call", {"name": TOOL, "arguments": Envelope("one more", 2, 2, False).arguments()})


OPTIONS: Final = ("--version", "--help")
"""The options a binary is most often given to ask about itself."""


@evidences("CMP-6/a1", "RTE-10")
@pytest.mark.launches(*OPTIONS)
def test_options_change_nothing(target: Target, raw_pool: RawPool) -> None:
    """The binary takes no options: launched with --version and --help it starts and serves as without them,
    where a fork reading its arguments would print and exit (CMP-6/a1). Its stdin then ends before any
    initialize: the process ends with status 0, as it does after one (RTE-10). The process is started with the
    session (`launches`), so that its start overlaps the checks before this one; one that ended meanwhile is
    launched again here, and judged on that launch as before."""
    with raw_pool.lend(replace(target, command=(*target.command, *OPTIONS)), spend=True) as raw:
        raw.stderr_now(wait=20.0)
        status = raw.wait(LINGER)
        said = raw.read_line(timeout=0.2) if status is not None else None
        expect("CMP-6/a1", status is None,
               lambda: f"launched with {' '.join(OPTIONS)}, the process ended (exit status {status}) after "
                       f"writing {brief(decode(said or b''))} to stdout, where the original takes no options "
                       f"and serves")
        raw.close_stdin()
        # Learnt for the target's own command: a server that outlives its stdin here does after initialize
        # too, and the checks and witnesses after this one need not pay a whole bound each to see it again.
        outlived = raw.outlived(learn_as=target.command)
        status, waited = raw.wait_for_end("stdin ended before any initialize", learn_as=target.command)
    with after_the_end("stdin"):
        expect("RTE-10", status == 0,
               f"stdin ended before any initialize: {how_it_ended(status, waited, outlived)}, where the "
               f"original ends with status 0 however far the session got")


@evidences("LOOP-B")
@relies_on("RTE-3", "RTE-9", "CMP-5")
def test_replay_on_fresh_processes_is_identical(target: Target, fresh_runs: FreshRunner,
                                                raw_pool: RawPool) -> None:
    """The same sequence on two fresh processes gives identical answers and identical stderr, one box per
    accepted call; lines the target writes on a clock (a heartbeat's, falling into whichever call's read its
    beat met) are no call's, and are left out once learnt."""
    first, second = fresh_runs.of(target).read
    assert first.answers == second.answers, (
        f"two fresh processes answered the same sequence differently: "
        f"{first_difference(first.answers, second.answers)}")
    firsts, seconds = _without_clock(raw_pool, target, first.stderrs, second.stderrs)
    assert firsts == seconds, (
        f"two fresh processes wrote different stderr on the same sequence: "
        f"{first_difference(firsts, seconds, 'stderr')}")
    if not any(drawn(stderr) for stderr in firsts):
        return  # nothing drawn at all (DISABLE_THOUGHT_LOGGING): the render records' to judge (issue 47)
    for answer, stderr in zip(first.answers[:-1], firsts, strict=False):
        result = answer.get("result")
        assert isinstance(result, dict), (
            f"a fresh process answered {describe_response(answer)} without a result, where the original "
            f"answers each call of the sequence with one")
        drew, refused = len(boxes(stderr)), result.get("isError")
        assert drew == (0 if refused else 1), (
            f"{'a refused' if refused else 'an accepted'} call drew {boxes_said(stderr)}, where the "
            f"original draws one per accepted call and none per refused one: {describe_response(answer)}")


@evidences("BAP-3")
@relies_on("RTE-3", "OBJ-4", "RTE-9")
def test_answers_do_not_depend_on_stderr_being_read(target: Target, fresh_runs: FreshRunner) -> None:
    """The same sequence gets the same answers from a process whose stderr is read and from one whose stderr
    goes to /dev/null; no answer refers to the render."""
    runs = fresh_runs.of(target)
    # Two processes whose stderr is read that already answer differently show a server that is not
    # deterministic (LOOP-B's statement): a difference to the discarded one is no evidence about stderr.
    expect("LOOP-B", runs.read[0].answers == runs.read[1].answers,
           lambda: f"two fresh processes whose stderr is read answered the same sequence differently: "
                   f"{first_difference(runs.read[0].answers, runs.read[1].answers)}")
    assert runs.read[0].answers == runs.discarded.answers, (
        f"a process whose stderr goes to /dev/null answered differently: "
        f"{first_difference(runs.read[0].answers, runs.discarded.answers)}")
    text = json.dumps(runs.read[0].answers, ensure_ascii=False)
    assert "┌" not in text and "stderr" not in text.lower(), (
        "an answer refers to the render (" + ("a box border “┌”" if "┌" in text else "the word “stderr”")
        + "), where the original's answers never do: "
        + brief(next((a for a in runs.read[0].answers if "┌" in json.dumps(a, ensure_ascii=False)
                      or "stderr" in json.dumps(a, ensure_ascii=False).lower()), None)))


@evidences("CMP-4")
def test_one_json_object_per_line(target: Target, raw_pool: RawPool) -> None:
    """Requests written one per line - several in one write - are answered one JSON object per line, in order,
    and nothing else appears on stdout."""
    with raw_pool.lend(target) as raw:
        raw.initialize()
        frames = [
            json.dumps({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/list"}).encode() for i in range(3)
        ]
        frames.append(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 103,
                    "method": "tools/call",
                    "params": {"name": TOOL, "arguments": Envelope("t", 1, 1, True).arguments()},
                }
            ).encode()
        )
        raw.write(b"\n".join(frames) + b"\n")
        lines = [raw.read_line() for _ in frames]
        extra = raw.read_line(timeout=0.3)
    ids = []
    for line in lines:
        assert line is not None, (
            f"{len(frames)} requests in one write got {sum(x is not None for x in lines)} answer lines")
        message = response_line(line, "the responses to requests 100 to 103 were due")
        assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", (
            f"a response line reads {brief(message)}, where the original answers each request with a "
            "JSON-RPC "
            f"2.0 object")
        ids.append(message.get("id"))
    assert ids == [100, 101, 102, 103], (
        f"requests 100 to 103 in one write were answered with the ids {ids}, in that order")
    expect_no_own_line(extra, "nothing more was due")
    assert extra is None, (
        f"stdout carried {quoted(decode(extra or b''))} after the four responses, where the original writes "
        f"nothing more")


_LONG_THOUGHT: Final = "loop a, a long thought " + "long " * 600
"""Some 3,000 UTF-16 units: past what a fork warns at (held-out-multi-9's thought-metrics: 2,000), its box
(about 31 KB on stderr) well under a pipe's 64 KB, which this raw process does not read until the answers
are in (the probes' 10,000-unit thought blocked the server on its stderr here)."""


@evidences("LOOP-A")
@relies_on("RTE-3", "RTE-9", "CMP-5", "RTE-10")
def test_one_response_per_request_and_nothing_else(
    target: Target, raw_pool: RawPool, server: ServerSession
) -> None:
    """Every request gets exactly one response with its id; the server sends no request or notification of its
    own (on this process, nor on the shared one since its handshake); stderr carries only the banner and one
    box per accepted call (on a process lent again, the banner came before)."""
    calls: list[JSON] = [
        Envelope("loop a", 1, 2, True).arguments(),
        {"thought": ""},
        Envelope("loop a again", 2, 2, False).arguments(branchFromThought=1, branchId="loop-a"),
    ]
    with raw_pool.lend(target) as raw:
        raw.initialize()
        raw.stderr_now()
        banner = BANNER in decode(bytes(raw.seen))
        frames = [
            {
                "jsonrpc": "2.0",
                "id": 10 + i,
                "method": "tools/call",
                "params": {"name": TOOL, "arguments": arguments},
            }
            for i, arguments in enumerate(calls)
        ]
        # Every other kind of message a client sends, none of which the original writes to stderr about: an
        # unknown tool, a method it has no handler for, initialize again, a notification it does not expect.
        frames.append({"jsonrpc": "2.0", "id": 13, "method": "tools/call",
                       "params": {"name": "loop-a-unknown", "arguments": calls[0]}})
        # A host asking for progress (`_meta.progressToken`): the original answers and sends nothing else.
        frames.append({"jsonrpc": "2.0", "id": 14, "method": "tools/call", "params": {
            "name": TOOL, "arguments": Envelope("loop a, progress asked", 3, 3, True).arguments(),
            "_meta": {"progressToken": "loop-a-progress"}}})
        # A long thought: the original writes its box alone, where a fork measuring thoughts wrote a warning
        # line after it.
        frames.append({"jsonrpc": "2.0", "id": 15, "method": "tools/call", "params": {
            "name": TOOL, "arguments": Envelope(_LONG_THOUGHT, 3, 3, True).arguments()}})
        frames.append({"jsonrpc": "2.0", "id": 20, "method": "tools/list"})
        frames.append({"jsonrpc": "2.0", "id": 21, "method": "ping"})
        frames.append({"jsonrpc": "2.0", "id": 22, "method": "resources/list"})
        # Initialize again as a host offering roots, sampling and elicitation, then initialized and a call
        # that ends the thinking (id 0 below): the original asks the client nothing whatever it offers.
        offered: JSON = {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {}}
        frames.append({"jsonrpc": "2.0", "id": 23, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL_VERSION, "capabilities": offered,
            "clientInfo": {"name": "loop-a-again", "version": "1"}}})
        frames.append({"jsonrpc": "2.0", "method": "notifications/initialized"})
        frames.append({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
        # An id used before (a client numbering from 1 again): answered like any request.
        frames.append({"jsonrpc": "2.0", "id": 21, "method": "ping"})
        # The falsy ids JSON-RPC allows (0, ""), a call among them: each a request like any other.
        frames.append({"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": {
            "name": TOOL, "arguments": Envelope("loop a, id 0", 4, 4, False).arguments()}})
        frames.append({"jsonrpc": "2.0", "id": "", "method": "ping"})
        # String ids JSON-RPC allows and clients send, digits among them: each echoed as the string it was
        # (a gateway reading "24" as 24 answered the number, and no id the harness sent was a string).
        frames.append({"jsonrpc": "2.0", "id": "24", "method": "ping"})
        frames.append({"jsonrpc": "2.0", "id": "25", "method": "tools/call", "params": {
            "name": TOOL, "arguments": Envelope("loop a, a string id", 5, 5, False).arguments()}})
        frames.append({"jsonrpc": "2.0", "id": "loop-a-26", "method": "ping"})
        requests = sorted(_id_said(f["id"]) for f in frames if "id" in f)
        # Lines that are no JSON-RPC message (a host's stray output, a batch of numbers): the original's SDK
        # drops them without a word on stdout or stderr.
        stray = b"this line is not JSON\n" + b'{"jsonrpc": "2.0", "not": "a message"}\n' + b"[1, 2]\n"
        raw.write(b"".join(json.dumps(f).encode() + b"\n" for f in frames) + stray)
        received: list[dict[str, JSON]] = []
        # One deadline for the answers due (not one per line: a server chattering without end would never
        # let the loop end) and a cap on what is kept: past the answers, a few lines show a departure.
        deadline = time.monotonic() + raw.timeout
        while len(received) < len(requests) + _EXTRA_LINES_KEPT:
            due = len(received) < len(requests)
            wait = deadline - time.monotonic() if due else 0.3
            if wait <= 0 or (line := raw.read_line(timeout=wait)) is None:
                break
            message = stdout_message(line, "only responses to requests were due")
            assert isinstance(message, dict), f"stdout line is JSON but no JSON-RPC message: {brief(message)}"
            received.append(message)
        stderr = decode(raw.stderr_now(wait=0.5))
    for message in received:
        expect_not_own_message(message, "only responses to requests were due")
    shared = server.wire
    shared.request("tools/list")  # a round trip: what the shared process sent since its handshake is read
    for message in shared.unsolicited:
        expect_not_own_message(message, "the shared process awaited a response")
    answered = sorted(_id_said(m.get("id")) for m in received)
    retyped = _retyped_ids(requests, answered)
    assert not retyped, (
        f"{retyped[0][0]} was answered with the id {retyped[0][1]}, where the original echoes each id as "
        f"sent, a string as the string" + (f" ({len(retyped)} ids alike)" if len(retyped) > 1 else ""))
    assert answered == requests, (
        f"responses to the ids {', '.join(answered)}, where each of {', '.join(requests)} gets one: "
        f"{brief(received, 400)}")
    assert all("method" not in m for m in received), (
        f"the server sent {brief(next((m for m in received if 'method' in m), None))} of its own among its "
        "responses, "
        f"where the original sends only responses")
    # One box per call the server accepted, whichever it accepted: which calls it should accept is other
    # records' business (RTE-2, RTE-3), not the loop's.
    calls_made = {_id_said(f["id"]) for f in frames if f.get("method") == "tools/call"}
    results = [m.get("result") for m in received if _id_said(m.get("id")) in calls_made]
    accepted = sum(1 for r in results if _status_answer(r))
    rendered = boxes(stderr.encode())
    # Nothing drawn at all (DISABLE_THOUGHT_LOGGING) is the render records' to judge (RTE-9), not the loop's.
    assert len(rendered) == accepted or not drawn(stderr.encode()), (
        f"stderr holds {boxes_said(stderr.encode(), show=False)} after {accepted} accepted call(s): "
        f"{quoted(stderr, 300)}")
    leftover = stderr
    for box in rendered:
        leftover = leftover.replace(box.text, "", 1)
    assert banner and leftover.split() in ([], BANNER.split()), (
        f"stderr holds more than the banner and one box per accepted call: {quoted(leftover, 300)}")


def _id_said(request_id: object) -> str:
    """An id as JSON writes it: the string "24" and the number 24 are two ids."""
    return json.dumps(request_id)


def _retyped_ids(sent: list[str], answered: list[str]) -> list[tuple[str, str]]:
    """(id sent, id answered) for each id sent that was answered only as the same text of another type (the
    string "24" as the number 24)."""
    left = list(answered)
    out: list[tuple[str, str]] = []
    for said in sent:
        if said in left:
            left.remove(said)
            continue
        bare = said.strip('"')
        other = next((a for a in left if a.strip('"') == bare), None)
        if other is not None:
            left.remove(other)
            out.append((f"the request with the id {said}", other))
    return out


@pytest.mark.ends_a_process
@evidences("LOOP-A")
@relies_on("RTE-3", "RTE-9", "CMP-3")
def test_debug_logging_asked_sends_nothing_of_its_own(target: Target, raw_pool: RawPool,
                                                       server: ServerSession, pytestconfig: pytest.Config,
                                                       ) -> None:
    """A server declaring the `logging` capability (the original declares only tools) is asked for debug
    logging, as a client wanting every message asks, and sent a thought: the original, asked alike, sends no
    message of its own, so any the server sends then is a change, and one carrying the thought sends it
    beside the stderr box (OBJ-9). A server declaring no `logging` is asked nothing here (EXT-1's check sends
    it `logging/setLevel`). The process asked keeps its level, so it is spent: no other check reads it."""
    handover = handover_of(pytestconfig)
    offered = handover.initialize_answer(target) if handover is not None else None
    # The preflight's answer when it has one: a run whose checks never used the shared process starts none.
    if not declares_logging({"result": offered if offered is not None else server.wire.initialize_result}):
        return  # no process is spent on a server that has nothing to ask
    thought = f"asked for debug logging ({secrets.token_hex(4)})"
    with raw_pool.lend(target, spend=True) as raw:
        asked = asked_for_debug(raw, Envelope(thought, 1, 1, True).arguments())
    if not asked.declared:
        return
    assert isinstance(asked.call_answer, dict), (
        f"no response to a tools/call after logging/setLevel {LEVEL!r} "
        f"(answered {brief(asked.level_answer)})")
    carrying = next((m for m in asked.own if carries(m, thought)), None)
    expect("OBJ-9", carrying is None,
           lambda: f"after logging/setLevel {LEVEL!r}, the server sent the thought as "
                   f"{brief(carrying, 300)}, where the original's thought leaves the process only in its "
                   "stderr box")
    if asked.own:
        expect_not_own_message(asked.own[0], f"logging/setLevel {LEVEL!r} had been answered "
                                             f"{brief(asked.level_answer)}")


def _status_answer(result: JSON) -> bool:
    """Whether a tools/call was accepted: a result not flagged isError, the one flag the original sets on
    every refusal. Reading the status for thoughtNumber said "4 boxes after 0 accepted calls" of four accepted
    calls whose status sat under a `result` key (issue 42, held-out-multi-7's fork-api-envelope) or behind a
    summary block (held-out-multi-4's fork-progress-meter)."""
    return isinstance(result, dict) and result.get("isError") is not True


@evidences("LOOP-A")
@relies_on("RTE-3", "OBJ-4", "RTE-5", "OBJ-2")
def test_a_cancelled_call_is_kept(target: Target, raw_pool: RawPool) -> None:
    """No cancellation handling of its own: a call cancelled in the same write is still processed and
    retained (the original's SDK only withholds its response), so the next call counts it. Measured against
    a control step on the same process: where a plain call does not raise the count by one, counting is
    other records' business (OBJ-2, RTE-5), not cancellation's. A count other than the original's is read
    against the same calls sent one at a time, none cancelled, on a fresh process (`serial_reading`): only a
    count that reading does not give is the cancellation's; one it gives is the store's."""
    # Four different calls at numbers new to the process: a fork that drops a repeated thought, or counts
    # distinct numbers, still counts each of them.
    base = 1_000 + secrets.randbelow(1_000_000)
    first, plain, call, last = calls = [
        Envelope(f"{text} ({base})", base + i, base + 3, i < 3).arguments()
        for i, text in enumerate(["before the cancelled call", "a plain call", "cancelled, yet kept",
                                  "the next call"])]

    def count(answer: dict[str, JSON]) -> int:
        return state_of_answer(answer).history_length

    with raw_pool.lend(target) as raw:
        raw.initialize()
        start = count(raw.request("tools/call", {"name": TOOL, "arguments": first}))
        control = count(raw.request("tools/call", {"name": TOOL, "arguments": plain}))
        cancelled: list[JSON] = [
            {"jsonrpc": "2.0", "id": "cancelled", "method": "tools/call",
             "params": {"name": TOOL, "arguments": call}},
            {"jsonrpc": "2.0", "method": "notifications/cancelled",
             "params": {"requestId": "cancelled", "reason": "conformance"}},
        ]
        raw.write(b"".join(json.dumps(frame).encode() + b"\n" for frame in cancelled))
        following = "after-cancel"
        raw.send({"jsonrpc": "2.0", "id": following, "method": "tools/call",
                  "params": {"name": TOOL, "arguments": last}})
        answer: object = None
        deadline = time.monotonic() + raw.timeout  # one deadline, however much the server says meanwhile
        while (wait := deadline - time.monotonic()) > 0 and (line := raw.read_line(timeout=wait)) is not None:
            answer = response_line(line, f"the response to {following} was due")
            if isinstance(answer, dict) and answer.get("id") == following:
                break
    assert isinstance(answer, dict) and answer.get("id") == following, (
        f"no response to the call after a cancelled one: {brief(answer)}")
    assert control == start + 1, (
        f"thoughtHistoryLength {control} after a plain call, {start} before it: not one per accepted call")
    after = count(answer)
    if after == control + 2:
        return
    serial = read_serially(raw_pool, target, calls)
    alone = serial.steps(1, 3)
    if alone == after - control:
        return  # the store counts these calls so, cancelled or not: its own records say how
    seen = f"thoughtHistoryLength {after} on the call after a cancelled one, {control} before it"
    if alone is None:
        expect("LOOP-A", False,
               f"{seen}, where the original counts both ({control + 2}); {serial.said()}, so whether the "
               f"cancellation or the store moved the count is not told")
        return
    # The conclusion first: a headline is cut at its length, the serial reading said after it.
    expect("LOOP-A", False,
           f"{seen}: the cancelled call was "
           f"{'not kept' if alone > after - control else 'counted otherwise than sent alone'}, where the "
           f"original has no cancellation handling and counts it as it counts it sent alone "
           f"({control + alone}); {serial.said()}, a rise of {alone} over those two calls")


_BEHIND: Final = 2
"""Calls written right behind the long one, in the same write."""


@evidences("LOOP-B")
@relies_on("RTE-3", "OBJ-4", "RTE-5", "OBJ-2")
def test_calls_written_behind_a_long_one_are_processed_after_it(target: Target, raw_pool: RawPool) -> None:
    """One synchronous pass per call, in the order read: a long thought and the short calls written right
    behind it in one write are stored and answered in that order, each counting the one before. A fork that
    defers long thoughts (held-out-multi-14's background-worker, 300 ms for more than 500 units) answered
    nothing out of order while every request waited for its answer: here the later calls overtake it."""
    base = 1_000 + secrets.randbelow(1_000_000)
    sent = [Envelope(_LONG_THOUGHT, base, base + _BEHIND, True).arguments(),
            *(Envelope(f"loop b, written behind a long thought ({base}, {i})", base + i, base + _BEHIND,
                       i < _BEHIND).arguments() for i in range(1, _BEHIND + 1))]
    ids = [f"loop-b-{i}" for i in range(len(sent))]
    with raw_pool.lend(target) as raw:
        raw.initialize()
        raw.write(b"".join(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                                       "params": {"name": TOOL, "arguments": arguments}}).encode() + b"\n"
                           for request_id, arguments in zip(ids, sent, strict=True)))
        answers: list[dict[str, JSON]] = []
        deadline = time.monotonic() + raw.timeout  # one deadline for the answers due
        while len(answers) < len(ids) and (wait := deadline - time.monotonic()) > 0 and (
                line := raw.read_line(timeout=wait)) is not None:
            answer = response_line(line, f"the responses to {len(ids)} calls were due")
            if isinstance(answer, dict) and answer.get("id") in ids:
                answers.append(answer)
        raw.stderr_now()  # the long box (some 31 KB) read, so the process goes back with its pipe empty
    order = [str(a.get("id")) for a in answers]
    assert sorted(order) == sorted(ids), (
        f"responses to {', '.join(order) or 'none'} of the calls {', '.join(ids)} written in one write")
    counts = {str(a.get("id")): state_of_answer(a).history_length for a in answers}
    units = js_length(_LONG_THOUGHT)
    assert all(_status_answer(a.get("result")) for a in answers), (
        f"a call written behind a long thought was refused: {brief(answers, 300)}")
    rising = [counts[i] for i in ids] == list(range(counts[ids[0]], counts[ids[0]] + len(ids)))
    if order == ids and rising:
        return
    serial = read_serially(raw_pool, target, sent)
    alone = serial.offsets()
    seen = [counts[i] - counts[ids[0]] for i in ids]
    in_order = alone is not None and seen == alone  # the counts the calls get processed in the order sent
    if order == ids and in_order:
        return  # the store counts these calls so, sent alone too: its own records say how
    answered = (f"{len(ids) - 1} calls written right behind one whose thought is {units} UTF-16 units long "
                f"were answered in the order {', '.join(order)} with thoughtHistoryLength "
                f"{', '.join(str(counts[i]) for i in order)}")
    if alone is None:
        expect("LOOP-B", False, f"{answered}, where the original answers {', '.join(ids)} with counts "
                                f"rising by one; {serial.said()}, so whether the order or the store moved "
                                f"the counts is not told")
    last = all(counts[ids[0]] > counts[i] for i in ids[1:])
    # The conclusion first: a headline is cut at its length, the serial reading said after it.
    expect("LOOP-B", in_order,
           lambda: f"{answered}: "
                   + ("the long call was processed after the ones sent behind it" if last else
                      "the calls were not processed in the order sent")
                   + f", where the original processes each call in one synchronous pass in the order sent; "
                     f"{serial.said()}")
    expect("LOOP-B", order == ids,
           lambda: f"{answered}: answered out of the order sent, where the original answers {', '.join(ids)} "
                   f"in that order; the counts are those of the calls processed in the order sent "
                   f"({serial.said()})")


def how_it_ended(status: int | None, waited: float, outlived: float | None = None) -> str:
    """How a process ended, in words: its exit status, or that it still ran when the wait ended
    (held-out-multi-11: "exit status None" said a process that never exits), with the whole wait another
    process of it outlived for the same end when this wait was the shorter one that stands on it."""
    if status is None:
        return still_running(waited, outlived)
    return f"exit status {status}" if status >= 0 else f"ended by signal {-status}"


@pytest.mark.ends_a_process
@evidences("RTE-10", "BAP-5")
def test_end_of_stdin_ends_the_process_quietly(target: Target, raw_pool: RawPool) -> None:
    """Closing stdin is not fatal: the process ends with status 0 and writes nothing more."""
    with raw_pool.lend(target, spend=True) as raw:
        raw.initialize()
        raw.stderr_now(wait=raw.banner_wait())
        before = bytes(raw.seen)
        # A last request without its newline: the original's transport reads whole lines only, so the end of
        # stdin leaves it unread, and no further output follows.
        raw.write(json.dumps({"jsonrpc": "2.0", "id": "unterminated", "method": "ping"}).encode())
        raw.close_stdin()
        outlived = raw.outlived()
        status, waited = raw.wait_for_end("stdin ended")
        after_out = raw.read_line(timeout=0.2)
        said_after = raw.stderr_now()
    after_err = _without_clock(raw_pool, target, (said_after,), (b"",))[0][0]
    expect_no_own_line(after_out, "stdin had ended")
    with after_the_end("stdin"):
        expect("RTE-10", after_out is None,
               lambda: f"after stdin ended, stdout carried {brief(decode(after_out or b''))}: a last "
                       f"request left without its newline was answered, where the original ends with no "
                       f"further output")
    assert BANNER in decode(before), (  # written before stdin ended: a replay's start-up shows it too
        f"stderr does not begin with the banner {quoted(BANNER)}: {quoted(decode(before))}")
    with after_the_end("stdin"):
        assert status == 0, (
            f"{how_it_ended(status, waited, outlived)} after stdin ended, where the original ends with "
            f"status 0")
        assert after_out is None and after_err == b"", (
            f"after stdin ended, the process wrote {quoted(decode(after_out or b''))} to stdout and "
            f"{quoted(decode(after_err))} to stderr, where the original writes nothing more")


def _without_clock(raw_pool: RawPool, target: Target, written: tuple[bytes, ...], expected: tuple[bytes, ...]
                   ) -> tuple[tuple[bytes, ...], tuple[bytes, ...]]:
    """`written` and `expected` without the target's clock lines (`_clock_lines`); when they still differ, the
    lines are learnt first, a process held idle (`RawPool.hold_idle`, as ABS-10's check does later): a beat
    met before the check that learns them left a line in one read and none in the other on some runs only."""
    clock = _clock_lines(raw_pool, target)
    kept = (tuple(without_clock_lines(w, clock) for w in written),
            tuple(without_clock_lines(e, clock) for e in expected))
    if kept[0] == kept[1]:
        return kept
    raw_pool.hold_idle(target, IDLE_HOLD)
    clock = _clock_lines(raw_pool, target)
    return (tuple(without_clock_lines(w, clock) for w in written),
            tuple(without_clock_lines(e, clock) for e in expected))


def _clock_lines(raw_pool: RawPool, target: Target) -> frozenset[bytes]:
    """The lines the target's pooled processes wrote while idle (a heartbeat: `RawPool.clock_lines`), the
    banner apart: no line a process writes on a clock is its end's or its signal's, whenever its beat fell."""
    return raw_pool.clock_lines(target) - {clock_key(BANNER.encode())}


TERMINATING: Final = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGUSR2)
"""The signals a host or a terminal ends a server with (kill, a closed terminal, Ctrl-C), and the one a fork
would take for a status dump or a log reopen (SIGUSR2); node's default action for each ends the process by it
(SIGUSR1 would start node's inspector, so it is not among them)."""


@pytest.mark.ends_a_process
@evidences("RTE-10")
def test_terminating_signals_are_not_handled(target: Target, raw_pool: RawPool) -> None:
    """Each terminating signal ends the process by that signal, with no message: RTE-10's "no signal handling
    or graceful shutdown", whichever signal a host sends. The signals go to their processes at once and the
    ends are awaited together: a server trapping them all costs one bound, not one per signal."""
    with contextlib.ExitStack() as lent:
        raws = []
        for sent in TERMINATING:  # each started and its start-up read before the next, as when alone
            raw = lent.enter_context(raw_pool.lend(target, spend=True))
            raw.initialize()
            raw.stderr_now(wait=raw.banner_wait())
            raws.append((sent, raw))
        signalled = time.monotonic()
        for sent, raw in raws:
            raw.signal(sent)
        ended = []
        for sent, raw in raws:
            outlived = raw.outlived(signal_end(sent.name))
            status, waited = raw.wait_for_end(f"{sent.name} sent", end=signal_end(sent.name), since=signalled)
            ended.append((sent, status, waited, outlived, raw.stderr_now()))
    kept, _ = _without_clock(raw_pool, target, tuple(said for *_, said in ended), tuple(b"" for _ in ended))
    ended = [(sent, status, waited, outlived, said)
             for (sent, status, waited, outlived, _), said in zip(ended, kept, strict=True)]
    for sent, status, waited, outlived, said in ended:
        with after_the_end(sent.name):
            assert status == -sent, (
                f"{sent.name} sent: {how_it_ended(status, waited, outlived)}, where the original is ended by "
                f"the signal ({-sent})")
            assert said == b"", (
                f"{sent.name} sent: stderr {quoted(decode(said))}, where the original writes nothing")


@pytest.mark.ends_a_process
@evidences("BAP-5", "RTE-10")
def test_broken_stdout_exits_with_status_1(target: Target, raw_pool: RawPool) -> None:
    """When stdout breaks, the first response write fails and the process exits with status 1."""
    with raw_pool.lend(target, spend=True, discard_stderr=True, any_stderr=True) as raw:
        raw.initialize()
        raw.close_stdout()
        request_ids = itertools.count(2)

        def nudge() -> None:
            with contextlib.suppress(BrokenPipeError):
                raw.send({"jsonrpc": "2.0", "id": next(request_ids), "method": "tools/list"})

        outlived = raw.outlived(STDOUT_BROKEN)
        status, waited = raw.wait_for_end("stdout closed", nudge, end=STDOUT_BROKEN)
    with after_the_end("stdout"):
        assert status == 1, (
            f"{how_it_ended(status, waited, outlived)} after the transport broke (a request written every "
            f"{NUDGE:g} s), where the original ends with status 1")


@evidences("ABS-10")
@pytest.mark.after_the_rest
@pytest.mark.holds_idle
def test_idle_processes_wait_for_their_next_call(target: Target, raw_pool: RawPool) -> None:
    """The processes the run left waiting in the pool all still run and none wrote within `IDLE_HOLD` of its
    last call: a server waits for its next call however long it idles, and does nothing meanwhile (ABS-10),
    where a fork with an idle timeout ends and one with a reminder or a heartbeat writes. It judges that
    window only, as the gate's idle witness holds its fresh processes (waiting out the rest when no process
    idled so long): a timer that fast is seen on every run, a slower one on none, however long the run (what
    a process was found to have done after idling longer is a clock line, not judged here)."""
    raw_pool.hold_idle(target, IDLE_HOLD)
    ended = [(waited, status) for waited, status in raw_pool.ended_waiting(target) if waited <= IDLE_HOLD]
    with while_idle(ended[0][0] if ended else 0.0):
        expect("ABS-10", not ended,
               lambda: f"a process left waiting for a call ended by itself (exit status {ended[0][1]}) "
                       f"within {ended[0][0]:.0f} s, where the original waits however long it idles")
    spoke = [(waited, text) for waited, said in raw_pool.spoke_waiting(target)
             if waited <= IDLE_HOLD and (text := decode(said).replace(BANNER, "", 1).strip())]
    with while_idle(spoke[0][0] if spoke else 0.0):
        expect("ABS-10", not spoke,
               lambda: f"a process left waiting for a call wrote {quoted(spoke[0][1], 300)} to stderr "
                       f"within {spoke[0][0]:.1f} s of its last call, where the original writes nothing "
                       f"between calls")
