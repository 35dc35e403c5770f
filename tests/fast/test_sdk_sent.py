"""What the official client sent, kept as wire frames (drivers/sdk_sent.py, issue 43): a check through the SDK
driver gets a call sequence to replay, so its departure has a pair of its own that a baseline pins and a
later run's departure matches.

Round 11's held-out-multi-6 strict-schema fork refused a whitespace thought; OBJ-4/a2's episode check (through
the official client) drew one under some seeds, and its report said "no call to replay": no pair, nothing a
pin could cover, "new" under 5 of 9 cells. Real processes here: tests/servers/reference_fork.py
`blank-refused` and the reference, over stdio, through the SDK driver and the wire driver.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.strategies import Envelope
from conformance.core.protocol import PROTOCOL_VERSION, TOOL
from conformance.core.results import TranscriptEvent
from conformance.drivers.sdk import SdkDriver
from conformance.drivers.sdk_sent import FRAME_KEPT_CHARS, SENT, SentLog
from conformance.drivers.wire import WireDriver
from conformance.gate.verdicts import replay_frames
from conformance.report.model import Report
from tests.cli import REPO, cli
from tests.servers import command

BLANK = "Invalid thought: must not be blank"
HOST_SUITE = str(REPO / "tests" / "cli_suite" / "host_suite.py")


def _fork() -> list[str]:
    return command("reference_fork", "blank-refused")


_steps = st.lists(st.tuples(st.integers(0, 2), st.sampled_from(["call", "long", "mark"])), max_size=30)


@given(steps=_steps, kept=st.integers(1, 8))
def test_a_span_is_the_last_drivers_frames_and_only_when_all_are_kept(
    steps: list[tuple[int, str]], kept: int
) -> None:
    """A model of the log: the span since a mark holds the frames the last driver sent in it, in order, and
    nothing once one fell out of the log or was too long to keep."""
    log = SentLog(kept=kept)
    serials = [log.serial() for _ in range(3)]
    sent: list[tuple[int, int, str | None]] = []
    marks: list[int] = [0]
    for index, (driver, kind) in enumerate(steps):
        if kind == "mark":
            marks.append(log.mark())
            continue
        arguments = {"thought": "x" * (FRAME_KEPT_CHARS + 1) if kind == "long" else f"t{index}"}
        log.wrote(serials[driver], "tools/call", {"name": TOOL, "arguments": arguments}, index)
        frame = json.dumps({"jsonrpc": "2.0", "id": index, "method": "tools/call",
                            "params": {"name": TOOL, "arguments": arguments}}, separators=(",", ":"))
        sent.append((len(sent), serials[driver], None if kind == "long" else frame))
    for mark in marks:
        span = [(serial, frame) for position, serial, frame in sent if position >= mark]
        dropped = len(sent) > kept and sent[len(sent) - kept][0] > mark
        mine = [frame for serial, frame in span if serial == span[-1][0]] if span else []
        expected = [] if dropped or None in mine else mine
        assert log.since(mark) == expected, (mark, sent)


def test_the_official_clients_calls_replay_on_the_wire_as_they_were_answered() -> None:
    """The frames the SDK driver logged, replayed by the wire driver on a fresh process of the same server
    (a handshake before them, as a report's replay has), are answered as the official client was answered:
    the refused blank thought included."""
    calls = [Envelope("a first thought", 1, 3, True).arguments(),
             Envelope("\u00a0\u3000\ufeff", 2, 3, True).arguments(),
             Envelope("a last thought", 3, 3, False).arguments()]
    mark = SENT.mark()
    with SdkDriver(_fork(), timeout=30.0) as host:
        host.list_tools()
        through_sdk = [host.call_tool(TOOL, arguments) for arguments in calls]
    frames = SENT.since(mark)
    assert [json.loads(f)["method"] for f in frames] == ["tools/list", *["tools/call"] * 3]
    assert [json.loads(f)["params"]["arguments"] for f in frames[1:]] == calls
    replay = replay_frames([TranscriptEvent(kind="sent", data=f, t=0.0) for f in frames])
    assert json.loads(replay[0])["method"] == "initialize" and replay[2:] == frames
    with WireDriver(_fork(), timeout=30.0) as wire:
        wire.initialize(PROTOCOL_VERSION)
        on_the_wire = [wire.request_raw(f.encode() + b"\n", request_id=json.loads(f)["id"],
                                        method="tools/call") for f in frames[1:]]
    assert [r.is_error for r in through_sdk] == [e.is_error for e in on_the_wire] == [False, True, False]
    assert BLANK in (on_the_wire[1].text or "")
    for answered, replayed in zip(through_sdk, on_the_wire, strict=True):
        assert json.loads(getattr(answered.content[0], "text", "")) == json.loads(replayed.text or "")


def test_a_check_through_the_official_client_has_a_pair_of_its_own(tmp_path: Path) -> None:
    """Through the command line: each check of the stand-in suite goes through the official client only; on
    the fork refusing blank thoughts, its record departs with its own call sequence replayed on fresh
    processes of the fork and of the original, the refused call where the two differ: the pair a baseline
    pins. Before the SDK driver logged its frames, the report said "no call sequence to replay"."""
    spec = "cmd:" + shlex.join(_fork())
    ran = cli("run", "--target", spec, "--suite", HOST_SUITE, "--profile", "dev", "--seed", "1",
              out=tmp_path / "out")
    assert ran.code == 1, ran.stdout + ran.stderr
    report = Report.model_validate(ran.report)
    by_id = {rv.id: rv for rv in report.records}
    for record, refused in (("OBJ-4/a2", None), ("RTE-8/a1", "\u00a0\u3000")):
        rv = by_id[record]
        assert rv.verdict == "deviates", (record, rv.reason)
        assert rv.counterexample is not None and rv.counterexample.replay, (record, rv.counterexample)
        sent = [json.loads(f) for f in rv.counterexample.replay]
        assert sent[0]["method"] == "initialize" and sent[-1]["method"] == "tools/call", sent
        thought = sent[-1]["params"]["arguments"]["thought"]
        assert not thought.strip() if refused is None else thought == refused, sent[-1]
        evidence = rv.evidence
        assert evidence is not None and evidence.reproduced and not evidence.own_failure, (record, evidence)
        assert not evidence.not_its_failure, (record, evidence)
        assert BLANK in evidence.target and BLANK not in evidence.original, (record, evidence)
        assert "the original accepts this call" in evidence.differences[0], evidence.differences
