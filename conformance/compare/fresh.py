"""The fresh-process checks: what a target shows once per process — identity, the tool listing, the start-up
banner, a run of accepted calls from an empty store, the exit status on closed stdin."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Final

from conformance.calls.pages import DETAIL_PAGED, ONE_PAGE, Page, follow, pages_said
from conformance.compare.observe import Found, Outcome, compare_step
from conformance.compare.pair import run_on
from conformance.compare.programs import ACCEPTED_RUN, Program
from conformance.core.jsontypes import JSON
from conformance.core.protocol import PROTOCOL_VERSION, TOOL, the_tool
from conformance.drivers.errors import DriverError
from conformance.drivers.listening import listening_addresses
from conformance.drivers.transcript import Transcript
from conformance.targets.specs import Target

BANNER_WAIT: Final = 1.0
NORMALIZED_LIST_CHANGED: Final = (
    "capabilities: `tools.listChanged: false` is read as an absent listChanged (EXT-1, "
    "docs/reference-server.md)"
)


@dataclass
class FreshSide:
    """What one fresh process of a target showed."""

    initialize: dict[str, JSON] = field(default_factory=dict)
    tools: list[JSON] | None = None
    pages: tuple[Page, ...] = ()
    banner: str = ""
    run: list[Outcome] = field(default_factory=list)
    exit_status: int | None = None


@dataclass(frozen=True)
class FreshFound:
    """A fresh-process difference and the program that shows it (steps of the accepted run, if any)."""

    found: Found
    program: Program = ()
    probe: str = ""


def fresh_side(target: Target, timeout: float, transcript: Transcript | None = None) -> FreshSide:
    """One fresh process: initialize, tools/list, banner, the accepted run, then stdin closed.

    Raises `DriverError` when the target cannot even be initialized: the caller reports it unusable.
    The banner is what stderr holds before the first call (waiting up to a second for it to arrive).
    """
    seen = FreshSide()
    with target.wire(timeout=timeout, transcript=transcript) as driver:
        try:
            seen.initialize = driver.initialize(PROTOCOL_VERSION)
        except DriverError as exc:
            if driver.is_alive():  # a server of HTTP: its socket says so (drivers/listening.py)
                exc.listening = listening_addresses(driver.pid, driver.stderr_bytes())
            raise
        listing = driver.list_tools()
        result = listing.result
        tools = result.get("tools") if result is not None else None
        seen.tools = tools if isinstance(tools, list) else None
        seen.pages = follow(listing, lambda params: driver.request("tools/list", params))
        seen.banner = driver.stderr_settled(BANNER_WAIT).decode("utf-8", errors="backslashreplace")
        seen.run = run_on(driver, ACCEPTED_RUN)
        if driver.is_alive():
            seen.exit_status, _ = driver.end_input_paced()
    return seen


def _tool(tools: list[JSON] | None, name: str) -> dict[str, JSON] | None:
    for tool in tools or []:
        if isinstance(tool, dict) and tool.get("name") == name:
            return tool
    return None


def _compared(tools: list[JSON] | None, name: str) -> dict[str, JSON] | None:
    """The listed tool compared: the one named `name`, else, for the original's name, the tool a fork lists
    in its place (`the_tool`: fork-readme-names' `sequential_thinking`, whose description and schema were
    then never compared), its other name one more difference of its keys."""
    named = _tool(tools, name)
    if named is not None or name != TOOL:
        return named
    return the_tool(tools)


LISTED_CHARS: Final = 100_000
"""A listed value is kept whole up to this: its text and schema are diffed word by word (`listing.py`)."""


def _dump(value: JSON, limit: int = 1500) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)[:limit]


def _paths(a: JSON, b: JSON, prefix: str = "") -> list[str]:
    """The JSON paths at which two values differ (objects walked, anything else compared whole)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for key in sorted(set(a) | set(b)):
            here = f"{prefix}.{key}" if prefix else key
            if key not in a or key not in b:
                out.append(here)
            else:
                out += _paths(a[key], b[key], here)
        return out
    return [] if a == b else [prefix or "(whole)"]


def _capabilities(init: dict[str, JSON]) -> tuple[dict[str, JSON], bool]:
    caps = init.get("capabilities")
    if not isinstance(caps, dict):
        return {}, False
    tools = caps.get("tools")
    if isinstance(tools, dict) and "listChanged" in tools and tools["listChanged"] is False:
        caps = {**caps, "tools": {k: v for k, v in tools.items() if k != "listChanged"}}
        return caps, True
    return caps, False


def schema_parts(a: JSON, b: JSON) -> list[tuple[str, dict[str, JSON], dict[str, JSON]]]:
    """Where two schemas differ, one part per keyword (`required`) and per property (`properties.isRevision`),
    each side's part the schema cut to it: a crossing attributes each part to what moves it (issue 47: at
    2026.8.31 zod restores `required` while the code changes three properties' types)."""
    if not isinstance(a, dict) or not isinstance(b, dict):
        return []
    parts: list[tuple[str, dict[str, JSON], dict[str, JSON]]] = []
    for key in sorted(set(a) | set(b)):
        if key == "properties" and isinstance(a.get(key), dict) and isinstance(b.get(key), dict):
            pa, pb = a[key], b[key]
            assert isinstance(pa, dict) and isinstance(pb, dict)
            for name in sorted(set(pa) | set(pb)):
                if pa.get(name) != pb.get(name):
                    parts.append((f"properties.{name}",
                                  {key: {name: pa[name]} if name in pa else {}},
                                  {key: {name: pb[name]} if name in pb else {}}))
        elif a.get(key) != b.get(key):
            parts.append((key, {key: a[key]} if key in a else {}, {key: b[key]} if key in b else {}))
    return parts


def compare_fresh(
    a: FreshSide, b: FreshSide, tool: str, *, split_schemas: bool = False
) -> tuple[list[FreshFound], set[str]]:
    """Every fresh-process difference, each key of each object its own; and what was normalized.
    `split_schemas` (a crossed comparison): a listed schema's change is one difference per keyword and per
    property (`schema_parts`), so each is attributed apart; without it one difference per schema, whose id
    compare baselines name."""
    found: list[FreshFound] = []
    normalized: set[str] = set()
    tools_probe = "tools/list"

    def add(
        aspect: str, fld: str, detail: str, va: str, vb: str, program: Program = (), probe: str = ""
    ) -> None:
        found.append(FreshFound(Found(aspect, fld, "", detail, va, vb, False), program, probe))

    pa, pb = a.initialize.get("protocolVersion"), b.initialize.get("protocolVersion")
    if pa != pb:
        add("protocol_version", "protocolVersion", "changed", _dump(pa), _dump(pb), probe="initialize")
    ia, ib = a.initialize.get("serverInfo"), b.initialize.get("serverInfo")
    ia = ia if isinstance(ia, dict) else {}
    ib = ib if isinstance(ib, dict) else {}
    for key in sorted(set(ia) | set(ib)):
        if ia.get(key) != ib.get(key):
            add("server_info", key, _change(ia, ib, key), _show(ia, key), _show(ib, key), probe="initialize")
    ca, norm_a = _capabilities(a.initialize)
    cb, norm_b = _capabilities(b.initialize)
    if norm_a or norm_b:
        normalized.add(NORMALIZED_LIST_CHANGED)
    for key in sorted(set(ca) | set(cb)):
        if ca.get(key) != cb.get(key):
            add("capabilities", key, _change(ca, cb, key), _show(ca, key), _show(cb, key), probe="initialize")
    ta, tb = _compared(a.tools, tool), _compared(b.tools, tool)
    others_a = _others(a.tools, str(ta.get("name")) if ta is not None else tool)
    others_b = _others(b.tools, str(tb.get("name")) if tb is not None else tool)
    if _names(a.tools) != _names(b.tools) and others_a != others_b:
        add("tools_list", "tools", "names", _dump(others_a, LISTED_CHARS), _dump(others_b, LISTED_CHARS),
            probe=tools_probe)
    paged_a, paged_b = pages_said(a.pages), pages_said(b.pages)
    if paged_a != paged_b:
        add("tools_list", "nextCursor", DETAIL_PAGED, paged_a or ONE_PAGE, paged_b or ONE_PAGE,
            probe=tools_probe)
    if ta is not None and tb is not None:
        for key in sorted(set(ta) | set(tb)):
            if ta.get(key) != tb.get(key):
                split = split_schemas and key.endswith("Schema")
                parts = schema_parts(ta.get(key), tb.get(key)) if split else []
                for part, part_a, part_b in parts:
                    found.append(FreshFound(Found("tools_list", key, part, "changed",
                                                  _dump(part_a, LISTED_CHARS), _dump(part_b, LISTED_CHARS),
                                                  False), probe=tools_probe))
                if parts:
                    continue
                where = ", ".join(_paths(ta.get(key), tb.get(key))[:6]) if key in ta and key in tb else ""
                detail = _change(ta, tb, key)
                va, vb = _show(ta, key, LISTED_CHARS), _show(tb, key, LISTED_CHARS)
                if where:
                    va, vb = f"{va} (differs at {where})", vb
                add("tools_list", key, detail, va, vb, probe=tools_probe)
    if a.banner != b.banner:
        add("banner", "stderr", "changed", repr(a.banner)[:600], repr(b.banner)[:600], probe="start")
    for index, (oa, ob) in enumerate(zip(a.run, b.run, strict=False)):
        differences = compare_step(ACCEPTED_RUN[index], oa, ob)
        for difference in differences:
            if difference.signature not in {f.found.signature for f in found}:
                found.append(FreshFound(difference, ACCEPTED_RUN[: index + 1]))
        for outcome in (oa, ob):
            normalized |= outcome.normalized
        if any(d.affects_state for d in differences):
            break
    if a.exit_status != b.exit_status:
        add("exit_status", "stdin closed", "changed", _status(a.exit_status), _status(b.exit_status),
            ACCEPTED_RUN, probe="close stdin")
    return found, normalized


def _names(tools: list[JSON] | None) -> list[JSON]:
    return [n for n in sorted(str(t.get("name")) for t in tools or [] if isinstance(t, dict))]


def _change(a: dict[str, JSON], b: dict[str, JSON], key: str) -> str:
    return "added" if key not in a else "removed" if key not in b else "changed"


def _show(obj: dict[str, JSON], key: str, limit: int = 1500) -> str:
    return _dump(obj[key], limit) if key in obj else f"no {key}"


def _others(tools: list[JSON] | None, name: str) -> list[JSON]:
    """The listed tools other than `name`, whole, by name: what a reviewer of an added tool reads."""
    others = [t for t in tools or [] if isinstance(t, dict) and t.get("name") != name]
    return sorted(others, key=lambda t: str(t.get("name")) if isinstance(t, dict) else "")


def _status(status: int | None) -> str:
    return "still running" if status is None else f"exit status {status}"


__all__ = ["FreshFound", "FreshSide", "compare_fresh", "fresh_side"]
