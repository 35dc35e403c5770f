"""Behaviour signatures: each record's witness calls sent to one fresh process, made canonical, hashed.

A baseline pins a departure's signature, so a departure whose behaviour changes again fails the gate.
The digest must depend on the behaviour only: fixed witnesses (no generated examples), the store read
relative to a probe sent before each record's witnesses (so records need no process of their own), JSON
compared parsed, and the details each side's SDK owns (docs/reference-server.md) normalized away.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from conformance.catalog.witnesses import WitnessSet, WitnessStep, default_witnesses
from conformance.drivers.errors import DriverError, HarnessError
from conformance.drivers.transcript import Transcript, decode
from conformance.drivers.wire import Exchange, WireDriver, js_truthy
from conformance.jsontypes import JSON, OMIT
from conformance.report.model import WitnessAnswer
from conformance.suite.session import PROBE_ARGUMENTS, PROTOCOL_VERSION, TOOL
from conformance.targets.specs import Target, resolve_target

PACKAGE_NAME: Final = "@modelcontextprotocol/server-sequential-thinking"
PACKAGE_VERSION: Final = "<package version>"
"""What serverInfo.version reads as when it equals the installed package's version (true of every release
since the version fix, so the next release keeps the signature)."""
SHORT_STRING: Final = 240
SHORT_ANSWER: Final = 1200
BANNER_WAIT: Final = 1.0
EXIT_WAIT: Final = 5.0
_IMPORT = re.compile(r"""(?:\bfrom\s+|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"']+)["']""")


@dataclass(frozen=True)
class RecordSignature:
    """A record's signature and the (shortened) canonical answers it was computed from."""

    record: str
    signature: str
    witness: list[WitnessAnswer]


@dataclass(frozen=True)
class _Base:
    """The store as the probe before a record's witnesses saw it: what its answers are read relative to."""

    count: int
    labels: frozenset[str]


def witness_signatures(
    target: Target | str,
    records: Iterable[str],
    *,
    timeout: float = 10.0,
    cache_dir: Path | None = None,
    witnesses: WitnessSet | None = None,
    transcript: Transcript | None = None,
) -> dict[str, RecordSignature]:
    """Signatures of `records` (those with witnesses) on one fresh process of `target`."""
    resolved = resolve_target(target, cache_dir=cache_dir) if isinstance(target, str) else target
    chosen = witnesses or default_witnesses()
    wanted = set(records)
    plan = [(rid, chosen.steps_of(rid)) for rid in chosen.records if rid in wanted]
    if not plan:
        return {}
    observed = {step.observe for _, steps in plan for _, step in steps if step.observe is not None}
    session = _WitnessSession(resolved, timeout, transcript)
    try:
        answers: dict[str, list[tuple[str, JSON]]] = {}
        session.start(first_call="first-call" in observed)
        for rid, steps in plan:
            base = session.probe()
            answers[rid] = [(name, session.answer(step, base)) for name, step in steps]
        if "exit-on-stdin-close" in observed:
            session.end()
        for rid, steps in plan:
            answers[rid] = [
                (name, session.observation("exit-on-stdin-close"))
                if step.observe == "exit-on-stdin-close"
                else (name, value)
                for (name, value), (_, step) in zip(answers[rid], steps, strict=True)
            ]
    finally:
        session.close()
    return {rid: _signed(rid, pairs) for rid, pairs in answers.items()}


def sign_departures(
    target: Target, records: list[str], timeout: float, transcript_path: Path
) -> dict[str, RecordSignature]:
    """A run's signatures: what cannot be computed (the target died, would not start) is left out, and the
    gate then reports pinned departures it could not check as not confirmed."""
    if not records:
        return {}
    witnesses = default_witnesses()  # a broken witness file is the harness's error, reported as such
    try:
        with Transcript(transcript_path) as transcript:
            return witness_signatures(
                target, records, timeout=timeout, transcript=transcript, witnesses=witnesses
            )
    except HarnessError:
        return {}


def signature_of(answers: Iterable[tuple[str, JSON]]) -> str:
    """sha256 hex of the canonical answers, step names included."""
    body = json.dumps([[name, value] for name, value in answers], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()


def _signed(record: str, pairs: list[tuple[str, JSON]]) -> RecordSignature:
    shown = [WitnessAnswer(step=name, answer=short_json(value)) for name, value in pairs]
    return RecordSignature(record, signature_of(pairs), shown)


def short_json(value: JSON) -> str:
    """Compact JSON for a report: long strings become their head and digest, the whole is capped."""
    text = json.dumps(_shortened(value), ensure_ascii=False, separators=(",", ":"))
    if len(text) <= SHORT_ANSWER:
        return text
    return f"{text[:SHORT_ANSWER]}… ({len(text)} chars, sha256 {_digest(text)})"


def _shortened(value: JSON) -> JSON:
    if isinstance(value, str) and len(value) > SHORT_STRING:
        return f"{value[:SHORT_STRING]}… ({len(value)} chars, sha256 {_digest(value)})"
    if isinstance(value, list):
        return [_shortened(v) for v in value]
    if isinstance(value, dict):
        return {k: _shortened(v) for k, v in value.items()}
    return value


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


class _WitnessSession:
    """One witness process: startup observations, then each record's witnesses after a probe."""

    def __init__(self, target: Target, timeout: float, transcript: Transcript | None) -> None:
        self.target = target
        self.timeout = timeout
        self.transcript = transcript
        self.driver: WireDriver | None = None
        self.observations: dict[str, JSON] = {}
        self.package_dir = package_dir_of(target)
        self.package_version = _package_version(self.package_dir)

    # -- the process -------------------------------------------------------------------------------

    def start(self, *, first_call: bool) -> None:
        driver = self._spawn()
        init = driver.initialize_result or {}
        self.observations["server-info"] = self._server_info(init.get("serverInfo"))
        self.observations["capabilities"] = offered_capabilities(init.get("capabilities"))
        deadline = time.monotonic() + BANNER_WAIT
        while not driver.stderr_bytes() and time.monotonic() < deadline:
            time.sleep(0.02)
        self.observations["banner"] = decode(driver.stderr_bytes())
        if first_call:
            self.observations["first-call"] = self._call(dict(PROBE_ARGUMENTS), None, stderr=False)

    def _spawn(self) -> WireDriver:
        driver = self.target.wire(timeout=self.timeout, transcript=self.transcript)
        driver.start()
        self.driver = driver
        driver.initialize(PROTOCOL_VERSION)
        return driver

    def _live(self) -> WireDriver:
        """The witness process; a dead one is replaced (its failure is already in an answer)."""
        if self.driver is None or not self.driver.is_alive():
            if self.driver is not None:
                self.driver.close()
            return self._spawn()
        return self.driver

    def end(self) -> None:
        driver = self._live()
        status = driver.end_input(EXIT_WAIT)
        self.observations["exit-on-stdin-close"] = {"exit": status if status is not None else "still running"}

    def close(self) -> None:
        if self.driver is not None:
            self.driver.close()

    def observation(self, name: str) -> JSON:
        return self.observations.get(name, {"observation": "not made"})

    # -- answers -----------------------------------------------------------------------------------

    def probe(self) -> _Base | None:
        try:
            exchange = self._live().call_tool(TOOL, dict(PROBE_ARGUMENTS))
        except DriverError:
            return None
        status = _status(exchange)
        if status is None:
            return None
        count, branches = status.get("thoughtHistoryLength"), status.get("branches")
        if not isinstance(count, int) or not isinstance(branches, list):
            return None
        return _Base(count, frozenset(str(b) for b in branches))

    def answer(self, step: WitnessStep, base: _Base | None) -> JSON:
        kind = step.kind
        if kind == "observe":
            assert step.observe is not None
            return self.observation(step.observe)
        if kind == "artifact":
            return self._artifact(step)
        try:
            if kind == "call":
                return self._call(OMIT if step.no_arguments else step.call, base, stderr=step.stderr,
                                  name=step.tool)
            if kind == "list":
                params: JSON = step.params if step.params is not None else {}
                return _tool_view(step, self._live().request("tools/list", params))
            assert step.request is not None
            return self._request(step.request, step.params)
        except DriverError as exc:
            return {"failure": type(exc).__name__}

    def _call(self, arguments: object, base: _Base | None, *, stderr: bool, name: str = TOOL) -> JSON:
        exchange = self._live().call_tool(name, arguments)  # type: ignore[arg-type]
        answer = _response(exchange, base)
        if stderr and isinstance(answer, dict):
            answer["stderr"] = decode(exchange.stderr)
        return answer

    def _request(self, method: str, params: JSON) -> JSON:
        exchange = self._live().request(method, params if params is not None else OMIT)
        if exchange.error is not None:
            return {"error": _error_class(exchange.error)}
        result = dict(exchange.result or {})
        result.pop("_meta", None)
        if method == "initialize":
            result["serverInfo"] = self._server_info(result.get("serverInfo"))
            result["capabilities"] = offered_capabilities(result.get("capabilities"))
        return {"result": sorted_json(result)}

    def _server_info(self, info: object) -> JSON:
        if not isinstance(info, dict):
            return {"serverInfo": "absent"}
        shown = {str(k): v for k, v in info.items()}
        if self.package_version is not None and shown.get("version") == self.package_version:
            shown["version"] = PACKAGE_VERSION
        return sorted_json(dict(shown))

    def _artifact(self, step: WitnessStep) -> JSON:
        root = self.package_dir
        if root is None:
            return {"artifact": "not available"}
        try:
            if step.artifact == "files":
                return _strings(
                    str(p.relative_to(root)) for p in root.rglob("*")
                    if p.is_file() and "node_modules" not in p.relative_to(root).parts
                )
            path = root / str(step.artifact)
            if not path.is_file():
                return {"artifact": "missing"}
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            return {"artifact": f"unreadable: {type(exc).__name__}"}
        if step.artifact == "package.json":
            try:
                manifest = json.loads(text)
            except ValueError:
                return {"artifact": "not JSON"}
            if not isinstance(manifest, dict):
                return {"artifact": "not an object"}
            return {key: sorted_json(manifest[key]) for key in step.keys if key in manifest}
        if step.imports:
            return _strings(set(_IMPORT.findall(text)))
        return _text_view(text, step)


# -- canonical forms ---------------------------------------------------------------------------------


def sorted_json(value: JSON) -> JSON:
    """Keys sorted at every level: for objects whose key order belongs to an SDK, not to a record."""
    if isinstance(value, dict):
        return {k: sorted_json(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sorted_json(v) for v in value]
    return value


def offered_capabilities(capabilities: object) -> JSON:
    """Capabilities with `listChanged: false` dropped: spelling out the default offers the same thing."""
    if not isinstance(capabilities, dict):
        return {"capabilities": "absent"}
    shown: dict[str, JSON] = {}
    for name, value in capabilities.items():
        if isinstance(value, dict):
            value = {k: v for k, v in value.items() if not (k == "listChanged" and v is False)}
        shown[str(name)] = value
    return sorted_json(shown)


def _error_class(error: Mapping[str, JSON]) -> str:
    """JSON-RPC errors by class: the code and text of a refusal are each SDK's own (EXT-1)."""
    return "method not found" if error.get("code") == -32601 else "protocol error"


def _response(exchange: Exchange, base: _Base | None) -> dict[str, JSON]:
    if exchange.error is not None:
        return {"error": _error_class(exchange.error)}
    result = exchange.result or {}
    shown: dict[str, JSON] = {"isError": js_truthy(result.get("isError", False))}
    for key in sorted(result):
        if key in ("isError", "_meta"):
            continue
        value = result[key]
        if key == "content" and isinstance(value, list):
            shown["content"] = [_content_item(item, base) for item in value]
        else:
            shown[key] = _relative(sorted_json(value), base)
    return {"result": shown}


def _content_item(item: JSON, base: _Base | None) -> JSON:
    if not isinstance(item, dict):
        return item
    shown = {k: sorted_json(v) for k, v in sorted(item.items()) if k != "text"}
    text = item.get("text")
    if isinstance(text, str):
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict | list):
            shown["json"] = _relative(parsed, base)
            shown["layout"] = _layout(text, parsed)
        else:
            shown["text"] = text
    return shown


def _layout(text: str, parsed: JSON) -> str:
    """How the JSON text was written (OBJ-4 pins two-space indentation; parsing alone would hide it)."""
    if text == json.dumps(parsed, indent=2, ensure_ascii=False):
        return "indent 2"
    if text == json.dumps(parsed, ensure_ascii=False, separators=(",", ":")):
        return "compact"
    return "other"


def _relative(value: JSON, base: _Base | None) -> JSON:
    """The store read relative to the probe: counts as growth since it, labels as those added since."""
    if isinstance(value, list):
        return [_relative(v, base) for v in value]
    if not isinstance(value, dict):
        return value
    shown: dict[str, JSON] = {}
    for key, item in value.items():
        if key == "thoughtHistoryLength" and isinstance(item, int) and not isinstance(item, bool):
            shown[key] = f"+{item - base.count}" if base is not None else "?"
        elif key == "branches" and isinstance(item, list):
            labels = base.labels if base is not None else frozenset()
            shown[key] = [b for b in item if not (isinstance(b, str) and b in labels)]
        else:
            shown[key] = _relative(item, base)
    return shown


def _status(exchange: Exchange) -> dict[str, JSON] | None:
    text = exchange.text
    if exchange.error is not None or exchange.is_error or text is None:
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _tool_view(step: WitnessStep, exchange: Exchange) -> JSON:
    if exchange.error is not None:
        return {"error": _error_class(exchange.error)}
    result = dict(exchange.result or {})
    result.pop("_meta", None)
    tools = result.get("tools")
    listed = [t for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
    if step.view == "names":
        return [t.get("name") for t in listed]
    if step.view == "tool":
        return sorted_json(result)
    tool = next((t for t in listed if t.get("name") == TOOL), None)
    if tool is None:
        return {"tool": "not listed"}
    description = tool.get("description")
    text = description if isinstance(description, str) else ""
    if step.view == "keys":
        return _strings(tool)
    if step.view == "extras":
        return sorted_json({k: v for k, v in tool.items() if k not in ("description", "inputSchema")})
    if step.view == "stats":
        lines = text.split("\n")
        return {"lines": len(lines), "first": lines[0], "last": lines[-1]}
    if step.view == "description":
        return _text_view(text, step)
    schema = tool.get("inputSchema")
    if step.view == "schema":
        return sorted_json(schema)
    properties = schema.get("properties") if isinstance(schema, dict) else None
    required = schema.get("required") if isinstance(schema, dict) else None
    return {
        "properties": sorted_json(
            {k: v.get("type") if isinstance(v, dict) else None for k, v in properties.items()}
            if isinstance(properties, dict) else None
        ),
        "required": _strings(str(r) for r in required) if isinstance(required, list) else None,
    }


def _strings(items: Iterable[str]) -> list[JSON]:
    """Sorted, as JSON (a set or a key listing whose order no record is about)."""
    return list[JSON](sorted(items))


def _text_view(text: str, step: WitnessStep) -> JSON:
    lines = text.split("\n")
    if step.lines is not None:
        first, last = step.lines
        return list[JSON](lines[first - 1 : last])
    if step.grep is not None:
        pattern = re.compile(step.grep)
        return [line for line in lines if pattern.search(line)]
    return text


def package_dir_of(target: Target) -> Path | None:
    """The installed npm package an `npm:` target runs (artifact witnesses); other targets have none."""
    if not target.spec.startswith("npm:"):
        return None
    for part in reversed(target.command):
        path = Path(part)
        if not path.is_absolute() or not path.exists():
            continue
        for parent in [path, *path.parents]:
            manifest = parent / "package.json"
            if manifest.is_file():
                try:
                    name = json.loads(manifest.read_text(encoding="utf-8")).get("name")
                except (OSError, ValueError, AttributeError):
                    continue
                if name == PACKAGE_NAME:
                    return parent
    return None


def _package_version(root: Path | None) -> str | None:
    if root is None:
        return None
    try:
        version = json.loads((root / "package.json").read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError, AttributeError):
        return None
    return version if isinstance(version, str) else None
