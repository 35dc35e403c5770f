"""benchmarks/replay.py: which of a transcript's frames the floor replays, and a replay that cannot hang.

Generated transcripts interleave the frames of several processes (a handed-over one counting its ids from
3, the others from 1, as drivers do), answered and unanswered requests, notifications both ways, stderr,
notes and garbage lines; the frames extracted must be exactly the answered requests, in the order they were
sent, and a frame whose process its id told went to that process."""

from __future__ import annotations

import json
import shlex
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.bench_drivers import BareLoop, ServerDidNotStart
from benchmarks.replay import Frame, extract, read_transcript, replay
from conformance.targets.specs import resolve_target
from tests.servers import command

METHODS = ("tools/call", "tools/list", "initialize", "ping", "resources/list")


@dataclass
class Generated:
    lines: list[bytes]
    answered: list[bytes]
    """The answered requests' frames, in the order sent: what the extraction must return."""
    processes: list[str]
    """The process each answered request went to."""


def event(kind: str, data: str, pid: int | None = None) -> bytes:
    line: dict[str, object] = {"seq": 0, "kind": kind, "data": data, "t": 0.0}
    if pid is not None:
        line["pid"] = pid
    return json.dumps(line, ensure_ascii=False).encode() + b"\n"


garbage = st.one_of(
    st.binary(max_size=60).map(lambda b: b.replace(b"\n", b" ") + b"\n"),
    st.sampled_from([b"[]\n", b"null\n", b"{}\n", b'{"kind": "sent"}\n', b'{"kind": 1, "data": "x"}\n',
                     b'{"kind": "sent", "data": 5}\n', b'"sent"\n', b"\n", b"{" * 3000 + b"\n"]),
    st.sampled_from(["not json", "[1, 2]", '{"id": 1}', "{\"method\": 3, \"id\": 1}", "[" * 5000]).map(
        lambda data: event("sent", data)),
    st.sampled_from(["{oops", "42", '{"jsonrpc": "2.0", "method": "notifications/message", "id": 1}']).map(
        lambda data: event("received", data)),
)

step = st.one_of(
    st.tuples(st.just("request"), st.integers(0, 2), st.sampled_from(METHODS), st.booleans(),
              st.text(max_size=8)),
    st.tuples(st.just("notification"), st.integers(0, 2)),
    st.tuples(st.just("noise"), garbage),
    st.tuples(st.just("stderr"), st.text(max_size=20)),
    st.tuples(st.just("note"), st.sampled_from(["late response to abandoned request 3 skipped",
                                                "started pid 123456789012345: too long", "closed pid 7"])),
)


def build(steps: list[tuple[object, ...]], string_ids: bool, named: bool = False) -> Generated:
    """A transcript as one thread of calls writes it: a request's answer (if any) before the next request.
    Process 0 is handed over (its count starts at 3, as after a preflight), 1 and 2 start when first used.
    `named`: every frame's line names its process, as the harness writes them now."""
    next_ids = [3, 1, 1]
    lines: list[bytes] = [event("note", "shared process: pid 100, started and initialized by preflight")]
    answered: list[bytes] = []
    processes: list[str] = []
    started = {0}
    for item in steps:
        kind = item[0]
        if kind == "request":
            _, proc, method, gets_answer, thought = item
            assert isinstance(proc, int)
            if proc not in started:
                started.add(proc)
                lines.append(event("note", f"started pid {100 + proc}: server"))
            number = next_ids[proc]
            next_ids[proc] += 1
            request_id: int | str = f"r{number}" if string_ids and proc == 2 else number
            data = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method,
                               "params": {"thought": thought}}, ensure_ascii=False) + "\n"
            pid = 100 + proc if named else None
            lines.append(event("sent", data, pid))
            if gets_answer:
                answer = {"jsonrpc": "2.0", "id": request_id, "result": {}}
                lines.append(event("stderr", "before the answer", pid))
                lines.append(event("received", json.dumps({"jsonrpc": "2.0", "method": "notifications/x"}),
                                   pid))
                lines.append(event("received", json.dumps(answer), pid))
                answered.append(data.encode())
                processes.append(str(100 + proc))
        elif kind == "notification":
            lines.append(event("sent", json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})))
        elif kind == "noise":
            noise = item[1]
            assert isinstance(noise, bytes)
            lines.append(noise)
        elif kind == "stderr":
            lines.append(event("stderr", str(item[1])))
        else:
            lines.append(event("note", str(item[1])))
    # A response to nobody's request (an id no request carries) answers nothing.
    lines.append(event("received", json.dumps({"jsonrpc": "2.0", "id": "stray", "result": {}})))
    lines += [event("note", f"closed pid {100 + proc}, exit status 0") for proc in sorted(started)]
    return Generated(lines, answered, processes)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(step, max_size=40), string_ids=st.booleans(), named=st.booleans())
def test_the_frames_are_exactly_the_answered_requests_in_order(steps: list[tuple[object, ...]],
                                                               string_ids: bool, named: bool) -> None:
    generated = build(steps, string_ids, named)
    found = extract(generated.lines)
    assert [frame.data for frame in found.frames] == generated.answered
    told = [(frame.process, truth) for frame, truth in zip(found.frames, generated.processes, strict=True)
            if not frame.guessed]
    assert all(process == truth for process, truth in told)
    if named:
        assert found.guessed == 0 and len(told) == len(generated.processes)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.jsonl"
        path.write_bytes(b"".join(generated.lines))
        from_file = read_transcript(path)
    assert from_file.frames == found.frames
    assert not from_file.truncated


@settings(max_examples=150, deadline=None)
@given(content=st.binary(max_size=2000), limit=st.integers(0, 3000), line_limit=st.integers(1, 400))
def test_garbage_never_raises_and_reading_stays_bounded(content: bytes, limit: int, line_limit: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.jsonl"
        path.write_bytes(content)
        found = read_transcript(path, limit=limit, line_limit=line_limit)
    assert found.truncated == (len(content) > limit)
    assert found.frames == [] or all(frame.data.endswith(b"\n") for frame in found.frames)


def test_a_request_sent_again_with_the_same_id_leaves_the_first_unanswered() -> None:
    first = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize"})
    second = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    answer = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {}})
    found = extract([event("sent", first), event("sent", second), event("received", answer),
                     event("received", answer)])
    assert [frame.data for frame in found.frames] == [second.encode() + b"\n"]
    assert found.unanswered == 1


def test_two_processes_waiting_on_the_same_id_are_each_answered_by_their_own() -> None:
    """Named lines: requests 4 of two processes both pending, answered in the other order; neither is lost
    and neither is guessed. A transcript without names can tell only the last request sent with an id."""
    ask = [json.dumps({"jsonrpc": "2.0", "id": 4, "method": m}) for m in ("tools/call", "tools/list")]
    answer = json.dumps({"jsonrpc": "2.0", "id": 4, "result": {}})
    named = extract([event("sent", ask[0], 11), event("sent", ask[1], 12), event("received", answer, 12),
                     event("received", answer, 11)])
    assert [(frame.data, frame.process, frame.guessed) for frame in named.frames] == [
        (ask[0].encode() + b"\n", "11", False), (ask[1].encode() + b"\n", "12", False)]
    assert named.unanswered == 0
    unnamed = extract([event("sent", ask[0]), event("sent", ask[1]), event("received", answer),
                       event("received", answer)])
    assert unnamed.unanswered == 1


@pytest.mark.parametrize("pid", [True, 0, -3, 2**31, 1.5, "12"])
def test_a_pid_that_is_no_process_id_leaves_the_line_unnamed(pid: object) -> None:
    line = {"seq": 0, "kind": "sent", "data": json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
            "t": 0.0, "pid": pid}
    answer = event("received", json.dumps({"jsonrpc": "2.0", "id": 1, "result": {}}))
    found = extract([json.dumps(line).encode() + b"\n", answer])
    assert [frame.process for frame in found.frames] == ["before any process note"]


def test_an_overlong_line_is_skipped_and_counted() -> None:
    answered = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"})
    long_one = event("sent", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "x" * 500}))
    answer = event("received", '{"jsonrpc": "2.0", "id": 2, "result": {}}')
    lines = [long_one, event("sent", answered), answer]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.jsonl"
        path.write_bytes(b"".join(lines))
        found = read_transcript(path, line_limit=300)
    assert [frame.data for frame in found.frames] == [answered.encode() + b"\n"]
    assert found.skipped_lines == 1


def frames_of(*methods: str) -> list[bytes]:
    lines: list[bytes] = []
    for number, method in enumerate(methods, start=10):
        request = {"jsonrpc": "2.0", "id": number, "method": method, "params": {"name": "sequentialthinking"}}
        lines.append(event("sent", json.dumps(request)))
        lines.append(event("received", json.dumps({"jsonrpc": "2.0", "id": number, "result": {}})))
    return lines


def test_the_replay_sends_every_frame_to_a_real_server_one_process_per_process_of_the_run() -> None:
    target = resolve_target("cmd:" + shlex.join(command("mini")))
    frames = extract(frames_of("tools/list", "ping", "tools/call", "tools/list")).frames
    frames = [Frame(frame.data, frame.id, process) for frame, process in zip(frames, "abab", strict=True)]
    done = replay(target, frames, timeout=10)
    assert done.completed and done.reason == ""
    assert (done.frames, done.processes) == (4, 2)
    assert done.seconds > 0


def test_a_server_that_dies_or_answers_the_wrong_id_ends_the_replay_with_a_reason() -> None:
    frames = extract(frames_of("tools/list", "tools/call", "tools/list")).frames
    crashed = replay(resolve_target("cmd:" + shlex.join(command("crash_on_call"))), frames, timeout=10)
    assert (crashed.frames, crashed.completed) == (1, False)
    assert "no answer to request 2" in crashed.reason
    # 5 s: the wrong id's answer is waited for to the end, and the start before it must fit on a slow machine.
    stuck = replay(resolve_target("cmd:" + shlex.join(command("wrong_id"))), frames, timeout=5)
    assert (stuck.frames, stuck.completed) == (1, False)
    assert "within 5 s" in stuck.reason


def test_a_runs_shared_and_spare_processes_are_told_apart_by_their_counts() -> None:
    """As a run writes it: a spare started, the preflight's process handed over (its count at 3), calls to
    both interleaved, and hand-made ids the counts cannot tell (sent to the previous request's process)."""
    lines = [event("note", "started pid 7: server"),
             event("note", "shared process: pid 5, started and initialized by preflight")]
    plan = [("5", 3), ("5", 4), ("7", 1), ("5", 5), ("7", 2), ("7", 3), ("5", 6), ("5", 2000000000),
            ("5", 7), ("7", 4)]
    for _, request_id in plan:
        request = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call"}
        lines.append(event("sent", json.dumps(request)))
        lines.append(event("received", json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {}})))
    lines.append(event("note", "closed pid 7, exit status 0"))
    found = extract(lines)
    assert [(frame.process, frame.id) for frame in found.frames] == plan
    assert [frame.id for frame in found.frames if frame.guessed] == [3, 2000000000]
    assert found.processes == ["5", "7"]


def test_a_server_that_never_answers_initialize_is_stopped_and_named() -> None:
    """The bare client's start has a time limit of its own: a silent server is ended, not waited on."""
    silent = resolve_target("cmd:" + shlex.join(command("never_answers")))
    began = time.monotonic()
    with pytest.raises(ServerDidNotStart, match=r"no answer to initialize within 0\.5 s"):
        BareLoop(silent, drain_stderr=True, initialize_seconds=0.5)
    assert time.monotonic() - began < 30
    with pytest.raises(ServerDidNotStart) as exited:
        BareLoop(resolve_target("cmd:" + shlex.join(command("exit_at_start"))), drain_stderr=True)
    assert "no answer to initialize (" in str(exited.value)
    done = replay(silent, extract(frames_of("tools/list")).frames, timeout=1)
    assert (done.frames, done.completed) == (0, False)
    assert done.reason.startswith("a replay process did not start: ")
