"""The atlas probe: what a target says about its tool, and the few calls that judge it, on a fresh process.

The claims later releases add (tool annotations, a rewritten description, README switches) are judged
against behaviour: the same call sent twice, a `__proto__` branch id, and whether a thought reaches
stderr. Every step is in the probe's transcript, so each judgement has an anchor to replay.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from pathlib import Path
from typing import Final

from conformance.atlas.model import PackageSnapshot, ReadmeSnapshot, ToolSnapshot
from conformance.core.errors import HarnessError, InputError
from conformance.core.inputs import PACKAGE_BYTES, read_bytes, read_json
from conformance.core.js import utf16_length
from conformance.core.jsontypes import JSON
from conformance.core.protocol import PROTOCOL_VERSION, TOOL
from conformance.core.served import read_served
from conformance.drivers.transcript import Transcript
from conformance.drivers.wire import Exchange
from conformance.targets.project import package_dir_of
from conformance.targets.specs import Target

PROBE_THOUGHT: Final = "atlas probe thought 7f3a"
CALL: Final[dict[str, JSON]] = {
    "thought": PROBE_THOUGHT,
    "thoughtNumber": 1,
    "totalThoughts": 1,
    "nextThoughtNeeded": False,
}
PROTO_CALL: Final[dict[str, JSON]] = {**CALL, "branchFromThought": 1, "branchId": "__proto__"}
OFFERS: Final = ("2025-11-25", "2025-06-18")
"""The newest revisions offered at initialize, each on a fresh process, beside the harness's own
(`PROTOCOL_VERSION`): what a release negotiates, not what the harness asked for."""
_SWITCH_SENTENCE: Final = re.compile(r"`([A-Z][A-Z0-9_]{2,})`[^`\n]{0,40}?\bto\s+`([^`\s]+)`")


def _history_length(exchange: Exchange) -> int | None:
    result = exchange.result or {}
    structured = result.get("structuredContent")
    sources: list[object] = [structured] if isinstance(structured, dict) else []
    if exchange.text is not None:
        with contextlib.suppress(ValueError):
            sources.append(read_served(exchange.text, "answer text"))
    for source in sources:
        if isinstance(source, dict):
            value = source.get("thoughtHistoryLength")
            if isinstance(value, int):
                return value
    return None


def _anchor(transcript: str, exchange: Exchange) -> str:
    return (
        f"{transcript}#seq={exchange.transcript_mark}" if exchange.transcript_mark is not None else transcript
    )


def probe_tool(
    target: Target, transcript_path: Path, relative: str, *, timeout: float = 10.0
) -> ToolSnapshot:
    """tools/list, the probe call twice, then a `__proto__` branch and one more call, on one fresh process."""
    anchors: dict[str, str] = {}
    try:
        with (
            Transcript(transcript_path) as transcript,
            target.wire(timeout=timeout, transcript=transcript) as driver,
        ):
            answered = driver.initialize(PROTOCOL_VERSION).get("protocolVersion")
            negotiated = {PROTOCOL_VERSION: answered if isinstance(answered, str) else "no protocolVersion"}
            negotiated |= {offer: _negotiate(target, offer, timeout, transcript) for offer in OFFERS}
            listing = driver.list_tools()
            anchors["tools/list"] = _anchor(relative, listing)
            tools = (listing.result or {}).get("tools")
            tool = (
                next((t for t in tools if isinstance(t, dict) and t.get("name") == TOOL), None)
                if isinstance(tools, list)
                else None
            )
            if tool is None:
                return ToolSnapshot(
                    ok=False, error=f"tools/list offers no {TOOL}", transcript=relative, anchors=anchors,
                    negotiated=negotiated,
                )
            description = tool.get("description")
            text = description if isinstance(description, str) else ""
            annotations = tool.get("annotations")
            title = tool.get("title")
            first = driver.call_tool(TOOL, dict(CALL))
            second = driver.call_tool(TOOL, dict(CALL))
            anchors["repeat"] = _anchor(relative, first)
            stderr = (first.stderr + second.stderr).decode("utf-8", errors="replace")
            proto = driver.call_tool(TOOL, dict(PROTO_CALL))
            anchors["__proto__"] = _anchor(relative, proto)
            after = driver.call_tool(TOOL, dict(CALL))
            lengths = [n for n in (_history_length(first), _history_length(second)) if n is not None]
            before_proto, after_proto = _history_length(second), _history_length(after)
            retained = (
                after_proto - before_proto == 2
                if before_proto is not None and after_proto is not None
                else None
            )
            proto_answer = (
                f"JSON-RPC error {proto.error.get('code')}"
                if proto.error is not None
                else f"isError: {' '.join((proto.text or '').split())[:200]}"
                if proto.is_error
                else "accepted"
            )
            return ToolSnapshot(
                ok=True,
                transcript=relative,
                description_length=utf16_length(text),
                description_sha256=hashlib.sha256(text.encode()).hexdigest(),
                description_head=text[:200],
                title=title if isinstance(title, str) else None,
                annotations=dict(annotations) if isinstance(annotations, dict) else {},
                output_schema=isinstance(tool.get("outputSchema"), dict),
                history_after_repeat=lengths,
                thought_on_stderr=PROBE_THOUGHT in stderr,
                proto_branch=proto_answer,
                proto_branch_retained=retained if proto.is_error or proto.error is not None else None,
                anchors=anchors,
                negotiated=negotiated,
            )
    except HarnessError as exc:
        return ToolSnapshot(ok=False, error=str(exc)[:500], transcript=relative, anchors=anchors)


def _negotiate(target: Target, offer: str, timeout: float, transcript: Transcript) -> str:
    """The revision a fresh process of `target` answers when offered `offer` (or why it answered none)."""
    try:
        with target.wire(timeout=timeout, transcript=transcript) as driver:
            answered = driver.initialize(offer).get("protocolVersion")
    except HarnessError as exc:
        return f"error: {str(exc)[:120]}"
    return answered if isinstance(answered, str) else "no protocolVersion"


def readme_of(target: Target) -> ReadmeSnapshot | None:
    """The installed package's README and the environment switches it documents (npm targets only)."""
    package = package_dir_of(target)
    if package is None:
        return None
    readme = next((p for p in sorted(package.glob("*")) if p.name.lower().startswith("readme")), None)
    if readme is None:
        return ReadmeSnapshot()
    try:
        text = read_bytes(readme, what="README", limit=PACKAGE_BYTES).decode("utf-8", "replace")
    except InputError:
        return ReadmeSnapshot()
    return ReadmeSnapshot(
        sha256=hashlib.sha256(text.encode()).hexdigest(), length=len(text), switches=documented_switches(text)
    )


_FIELD: Final = 200


def package_of(target: Target) -> PackageSnapshot | None:
    """The installed package.json's licence, author, repository, mcpName and dependency ranges, and whether a
    LICENSE file ships (npm targets only; the file is data: bounded, never executed)."""
    package = package_dir_of(target)
    if package is None:
        return None
    try:
        manifest = read_json(package / "package.json", what="package.json", limit=PACKAGE_BYTES)
    except InputError:
        return PackageSnapshot()
    if not isinstance(manifest, dict):
        return PackageSnapshot()
    dependencies = manifest.get("dependencies")
    return PackageSnapshot(
        license=_field(manifest.get("license")),
        license_file=any(p.name.upper().startswith(("LICENSE", "LICENCE")) for p in package.glob("*")),
        author=_field(manifest.get("author")),
        repository=_field(manifest.get("repository")),
        mcp_name=_field(manifest.get("mcpName")),
        dependencies={str(k)[:_FIELD]: str(v)[:_FIELD] for k, v in list(dependencies.items())[:50]}
        if isinstance(dependencies, dict) else {},
    )


def _field(value: object) -> str | None:
    """A package.json field as one line: a string as written, an object's `name`/`url` (npm's two forms)."""
    if isinstance(value, dict):
        value = value.get("url") or value.get("name")
    return str(value)[:_FIELD] if isinstance(value, str | int | float) else None


def documented_switches(readme: str) -> dict[str, str]:
    """The README's "set env var: `NAME` to `value`" sentences (the form every release uses)."""
    found: dict[str, str] = {}
    for name, value in _SWITCH_SENTENCE.findall(readme):
        found.setdefault(name, value)
    return found
