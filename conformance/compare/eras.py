"""compare's era pass: both sides met as each revision's client, the revision each settles on, and what
differs under some eras only.

The search speaks as a 2024-11-05 client. Here each side is met once per revision (`calls/meetings.py`, the
meeting the suite's spec checks read: one short process each) and each answer is read as that revision's
client reads it: a key the revision does not define (`structuredContent` before 2025-06-18, a tool's
`outputSchema`, ...) is not part of what its client sees. A difference seen under every era met is the
search's to report; one seen under some eras only is reported here, naming them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Final

from conformance.calls.meetings import CALLS, Meeting, meet
from conformance.compare.fresh import FreshSide, compare_fresh
from conformance.compare.observe import Base, Found, Outcome, compare_step, observe
from conformance.compare.programs import Step
from conformance.core.eras import ERAS, REVISIONS, Era
from conformance.core.jsontypes import JSON
from conformance.core.protocol import CLIENT_INFO, TOOL
from conformance.drivers.wire import Exchange, encode_message
from conformance.report.model import EraSettled
from conformance.targets.specs import Target

RESULT_KEYS_SINCE: Final[dict[str, str]] = {"structuredContent": "2025-06-18", "resultType": "2026-07-28"}
"""Tool-result keys and the revision that defines them: an older client does not read them."""

TOOL_KEYS_SINCE: Final[dict[str, str]] = {
    "annotations": "2025-03-26", "title": "2025-06-18", "outputSchema": "2025-06-18", "icons": "2025-11-25",
    "execution": "2025-11-25",
}
"""Keys of a listed tool and the revision that defines them."""

MEETING_WORKERS: Final = 4
"""Meetings run at once: each is mostly a node start-up waiting, so four overlap well on two cores."""


@dataclass(frozen=True)
class EraFound:
    """A difference seen under some of the eras met (not all), with what shows it under the first."""

    found: Found
    eras: tuple[str, ...]
    program: list[str]
    answers: tuple[tuple[str, str, str], ...] = ()
    """Per era seen: (era, A's answer, B's answer), for a headline that says what each side did."""


@dataclass
class EraPass:
    """Every era met on both sides: what each settled on, and the differences of some eras only."""

    settled: list[EraSettled] = field(default_factory=list)
    found: list[EraFound] = field(default_factory=list)


def knows(era: Era, since: str) -> bool:
    """Whether `era`'s client reads what revision `since` defines."""
    return REVISIONS.index(era.revision) >= REVISIONS.index(since)


def seen_result(era: Era, response: dict[str, JSON]) -> dict[str, JSON]:
    """A tools/call response as `era`'s client reads it: result keys of later revisions left out."""
    result = response.get("result")
    if not isinstance(result, dict):
        return response
    kept = {k: v for k, v in result.items() if k not in RESULT_KEYS_SINCE or knows(era, RESULT_KEYS_SINCE[k])}
    return {**response, "result": kept}


def seen_tools(era: Era, tools: list[JSON]) -> list[JSON]:
    """The tool list as `era`'s client reads it: keys of later revisions left out of each tool."""
    return [{k: v for k, v in tool.items() if k not in TOOL_KEYS_SINCE or knows(era, TOOL_KEYS_SINCE[k])}
            if isinstance(tool, dict) else tool for tool in tools]


def _side(era: Era, meeting: Meeting) -> FreshSide:
    initialize = dict(meeting.initialize or {})
    initialize["protocolVersion"] = meeting.negotiated
    return FreshSide(initialize=initialize, tools=seen_tools(era, meeting.tools))


def _outcome(era: Era, arguments: JSON, response: dict[str, JSON]) -> Outcome:
    """One call's answer as `era`'s client reads it. A meeting's process is fresh, so the result's other keys
    are kept whole: the search reads the store in them relative to a program's start, which would hide a
    `structuredContent` counting the store otherwise than the text does."""
    seen = seen_result(era, response)
    outcome = observe(Exchange("tools/call", arguments, seen, b"", 0.0, 0.0), Base())
    result = seen.get("result")
    if outcome.kind != "result" or not isinstance(result, dict):
        return outcome
    whole = {key: value for key, value in result.items() if key not in ("content", "isError")}
    return replace(outcome, extras={**outcome.extras, **whole})


def _step(arguments: JSON) -> Step:
    return Step(TOOL, arguments)


def differences_under(era: Era, a: Meeting, b: Meeting) -> list[tuple[Found, list[str]]]:
    """What differs between two meetings of one era, as its client reads them, each with its program."""
    if a.failure or b.failure:
        if bool(a.failure) == bool(b.failure):
            return []
        stopped = "a" if a.failure else "b"
        return [(Found("error_class", "era client", "", f"meeting stopped on {stopped}",
                       a.failure or "answered every request", b.failure or "answered every request", False),
                 program_of(era, 0, listing=True))]
    out: list[tuple[Found, list[str]]] = []
    fresh, _ = compare_fresh(_side(era, a), _side(era, b), TOOL)
    for item in fresh:
        out.append((item.found, program_of(era, 0, listing=item.probe == "tools/list")))
    for index, ((arguments, ra), (_, rb)) in enumerate(zip(a.calls, b.calls, strict=False)):
        found = compare_step(_step(arguments), _outcome(era, arguments, ra), _outcome(era, arguments, rb))
        out += [(f, program_of(era, index + 1)) for f in found]
        if any(f.affects_state for f in found):
            break
    return out


def program_of(era: Era, calls: int, *, listing: bool = False) -> list[str]:
    """The frames that show a difference to `era`'s client on a fresh process: its opening, the tool list
    when that is what differs, and the meeting's first `calls` calls; the last frame's answer shows it."""
    def request(number: int, method: str, params: dict[str, JSON] | None = None) -> JSON:
        stamped = era.stamped(params) if era.stateless else params
        return {"jsonrpc": "2.0", "id": number, "method": method, **({"params": stamped} if stamped else {})}

    out: list[JSON] = []
    if era.stateless:
        out.append(request(1, "server/discover", {}))
    else:
        out.append(request(1, "initialize", {"protocolVersion": era.revision, "capabilities": {},
                                             "clientInfo": dict(CLIENT_INFO)}))
        if listing or calls:
            out.append({"jsonrpc": "2.0", "method": "notifications/initialized"})
    if listing:
        out.append(request(2, "tools/list"))
    for number, arguments in enumerate(CALLS[:calls], start=3):
        out.append(request(number, "tools/call", {"name": TOOL, "arguments": arguments}))
    return [encode_message(message).decode("utf-8").rstrip("\n") for message in out]


def meet_both(a: Target, b: Target, timeout: float, eras: Sequence[Era] = ERAS
              ) -> list[tuple[Era, Meeting, Meeting]]:
    """Each side met once as each era's client, the meetings overlapping (`MEETING_WORKERS`)."""
    with ThreadPoolExecutor(max_workers=MEETING_WORKERS) as pool:
        futures = [(era, pool.submit(meet, a, era, timeout=timeout),
                    pool.submit(meet, b, era, timeout=timeout)) for era in eras]
        met = [(era, fa.result(), fb.result()) for era, fa, fb in futures]
    # A meeting that stopped while others overlapped it may have met a busy machine, not the server's
    # behaviour: it is met again alone, and only a second stop is the server's answer.
    return [(era, _again_alone(a, era, ma, timeout), _again_alone(b, era, mb, timeout))
            for era, ma, mb in met]


def _again_alone(target: Target, era: Era, meeting: Meeting, timeout: float) -> Meeting:
    return meet(target, era, timeout=timeout) if meeting.failure else meeting


def era_pass(a: Target, b: Target, timeout: float, say: Callable[[str], None] = lambda _line: None,
             eras: Sequence[Era] = ERAS) -> EraPass:
    """Meet both sides as each era's client; what each settled on, and what differs under some eras only."""
    met = meet_both(a, b, timeout, eras)
    done = EraPass()
    seen: dict[str, dict[str, tuple[Found, list[str]]]] = {}
    for era, ma, mb in met:
        done.settled.append(EraSettled(era=era.name, a=ma.negotiated, b=mb.negotiated,
                                       failure_a=ma.failure or "", failure_b=mb.failure or ""))
        for found, program in differences_under(era, ma, mb):
            seen.setdefault(found.signature, {}).setdefault(era.name, (found, program))
    everywhere = {signature for signature, under in seen.items()
                  if set(under) >= _observable(next(iter(under.values()))[0], [era for era, _, _ in met])}
    for signature, under in seen.items():
        if signature in everywhere or _follows(under, seen, everywhere):
            continue
        first, program = next(iter(under.values()))
        done.found.append(EraFound(first, tuple(under), program,
                                   tuple((name, f.a, f.b) for name, (f, _) in under.items())))
        say(f"eras: {signature} seen by {', '.join(under)} clients only")
    return done


def _follows(under: dict[str, tuple[Found, list[str]]], seen: dict[str, dict[str, tuple[Found, list[str]]]],
             everywhere: set[str]) -> bool:
    """Whether a difference some eras see comes with one every era sees, on the same call under each of its
    eras (a head keeping no state: its `structuredContent` differs because its text does). A listing's keys
    are each their own."""
    return all('"tools/call"' in program[-1]
               and any(signature in everywhere and era in others and others[era][1] == program
                       for signature, others in seen.items())
               for era, (_, program) in under.items())


INITIALIZE_ASPECTS: Final = frozenset({"server_info", "capabilities"})
"""What only `initialize` shows: a stateless client never sees it, so it is no difference of some eras."""


def _observable(found: Found, met: Sequence[Era]) -> set[str]:
    """The eras met whose clients could see `found` at all: under all of them it is the search's to report."""
    if found.aspect in INITIALIZE_ASPECTS:
        return {era.name for era in met if not era.stateless}
    return {era.name for era in met}


def era_summary(item: EraFound, line: str, name_a: str, name_b: str) -> str:
    """A difference's line, said for the eras that see it; the negotiated version said per era."""
    eras = ", ".join(item.eras)
    if item.found.aspect == "protocol_version":
        per_era = "; ".join(f"to a {era} client {name_a} answers {_bare(va)}, {name_b} {_bare(vb)}"
                            for era, va, vb in item.answers)
        return f"the revision settled on differs under {eras} only: {per_era}"
    return f"seen only by {eras} clients: {line}"


def _bare(version: str) -> str:
    """A revision as the report says it: `2024-11-05`, not its JSON `"2024-11-05"`; none agreed: `none`."""
    return "none" if version == "null" else version.strip('"')


__all__ = ["EraFound", "EraPass", "era_pass", "era_summary", "knows", "seen_result", "seen_tools"]
