"""Stdout hygiene as a finding of its own: every line the target wrote on stdout that is not JSON-RPC, in any
phase of the run, with its text and when it came. The drivers read past such a line to the answer after it,
as a stdio client does (so no check fails on it and CMP-4 departs from this count: gate/preflight_departures);
the run's transcripts hold every line, so they are read once more here. An answer that arrived after a stray
line had failed its request (no answer within the drivers' grace) was skipped as late ("late response to
abandoned request N skipped"): that is said too."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Final

from conformance.drivers.wire import jsonrpc_problem
from conformance.report.model import StdoutHygiene, StrayLine

SHOWN: Final = 20
SCANNED_BYTES: Final = 64 << 20
"""Of each transcript (written by this run, at most 128 MiB): a longer one is scanned up to here, and said."""
_LINE_CHARS: Final = 200
_PHASES: Final = {"preflight.jsonl": "the preflight", "witnesses.jsonl": "the witness step"}
_SKIPPED: Final = ("preflight-against", "compare-")
"""Another target's transcripts (`--against`, the comparison): their lines are not this target's."""
_STARTED: Final = re.compile(r"^started pid (\d+)")
_LATE: Final = re.compile(r"^late response to abandoned request (\d+) skipped")
_RPC: Final = b'"data": "{\\"jsonrpc\\"'
_SENT: Final = b'"kind": "sent"'
_KINDS: Final = (b'"kind": "received"', _SENT, b'"kind": "note"')


def stdout_hygiene(transcripts: Path) -> StdoutHygiene | None:
    """What the transcripts in `transcripts` say of the target's stdout; None: it carried only JSON-RPC."""
    lines: list[StrayLine] = []
    seen = 0
    late: list[str] = []
    whole = True
    for path in sorted(transcripts.glob("*.jsonl")) if transcripts.is_dir() else []:
        if path.name.startswith(_SKIPPED) or not path.is_file():
            continue
        phase = _PHASES.get(path.name, "the suite")
        found, dropped, complete = _scan(path, phase)
        seen += len(found)
        lines += found[: SHOWN - len(lines)]
        late += [f"{phase}: request {n}" for n in dropped]
        whole = whole and complete
    if not seen and not late:
        return None
    return StdoutHygiene(lines_seen=seen, lines=lines, late_answers_dropped=late[:SHOWN], scanned_all=whole)


def _scan(path: Path, phase: str) -> tuple[list[StrayLine], list[int], bool]:
    started: dict[int, float] = {}
    last_sent: dict[int, str] = {}
    found: list[StrayLine] = []
    dropped: list[int] = []
    read = 0
    with path.open("rb") as stream:
        for raw in stream:
            read += len(raw)
            if read > SCANNED_BYTES:
                return found, dropped, False
            if not any(kind in raw[:80] for kind in _KINDS):
                continue
            if _SENT in raw[:80]:
                # A frame written (it may be a megabyte long): its process and its first bytes are enough.
                tail = raw.rsplit(b'"pid": ', 1)
                if len(tail) == 2 and tail[1].rstrip(b"}\n").isdigit():
                    last_sent[int(tail[1].rstrip(b"}\n"))] = _request(raw[:400].decode("utf-8", "replace"))
                continue
            if _RPC in raw[:120]:
                continue  # a message as every server writes it ({"jsonrpc": first): not a stray line's shape
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(event, dict):
                continue
            kind, data, t, pid = event.get("kind"), event.get("data"), event.get("t"), event.get("pid")
            if not isinstance(data, str):
                continue
            if kind == "note":
                if (hit := _STARTED.match(data)) is not None and isinstance(t, float):
                    started[int(hit.group(1))] = t
                elif (hit := _LATE.match(data)) is not None:
                    dropped.append(int(hit.group(1)))
            elif kind == "received" and _stray(data):
                since = started.get(pid) if isinstance(pid, int) else None
                after = round(t - since, 2) if isinstance(t, float) and since is not None else None
                text = data if len(data) <= _LINE_CHARS else data[: _LINE_CHARS - 1] + "…"
                found.append(StrayLine(text=text, phase=phase, transcript=f"transcripts/{path.name}",
                                       after_s=after, after_request=last_sent.get(pid) if isinstance(pid, int)
                                       else None))
    return found, dropped, True


def _stray(line: str) -> bool:
    """Whether a received line is not a JSON-RPC 2.0 message (or a batch of them)."""
    try:
        message = json.loads(line, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return True
    if isinstance(message, list):
        return not message or any(jsonrpc_problem(m) is not None for m in message)
    return jsonrpc_problem(message) is not None


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _request(frame: str) -> str:
    """`tools/call (request 20)` of a frame written, from its first bytes (a frame may be a megabyte long)."""
    head = frame[:400].replace('\\"', '"')
    method = re.search(r'"method"\s*:\s*"([^"\\]{1,60})"', head)
    ident = re.search(r'"id"\s*:\s*(-?\d{1,18})', head)
    said = method.group(1) if method else "a frame"
    return f"{said} (request {ident.group(1)})" if ident else said
