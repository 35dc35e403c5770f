"""Canonical answers: what a witness answer looks like once everything but the behaviour is taken out.

JSON compared parsed (key order kept where a record is about it), the store read relative to a probe,
and the details each side's SDK owns (docs/reference-server.md) normalized, so a signature changes
exactly when behaviour does.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from conformance.catalog.witnesses import WitnessStep
from conformance.core.eras import REVISIONS
from conformance.core.js import js_truthy
from conformance.core.jsontypes import JSON
from conformance.core.printable import writable
from conformance.core.protocol import PROBE_ARGUMENTS, the_tool
from conformance.core.served import read_served
from conformance.core.witness_words import CARRIED
from conformance.drivers.wire import Exchange

SHORT_STRING: Final = 240
SHORT_ANSWER: Final = 1200


HISTORY: Final = "thoughtHistoryLength"


@dataclass(frozen=True)
class StoreBase:
    """The store as the probe before a record's witnesses saw it: what its answers are read relative to.

    Read by the probe's own answer, not by the original's field names: every count it answers (an integer
    field the probe did not send: the original's `thoughtHistoryLength`, a fork's renamed `historyLength`)
    and every list of labels (`branches`). A fork that renames its count is then still read relative to the
    probe, so a record's signature does not depend on which records were witnessed before it on the same
    process (it did: fork-audit-clock's LOOP-B, signed beside 59 departures in the baseline run and alone
    when its pinned witness was replayed, answered another `historyLength` and more labels, and went
    stale, issue 43)."""

    counts: Mapping[str, int]
    labels: Mapping[str, frozenset[str]]
    carried: bool = False
    """Two fresh processes answered the same first call with different stores (a fork that saves its history
    in a file and restores it in the next process): its counts and labels depend on every earlier run, so they
    read as CARRIED, and the rest of the answer is what a fresh process decides."""




def label_key(label: JSON) -> str:
    """A listed label as the relative reading compares it: a string as itself, any other value (a fork
    listing labels as sent: 42, {}) as its canonical JSON, so a label one record's witnesses leave behind
    is subtracted from every later answer whatever its type (fork-typescript-port, held-out-multi-4)."""
    return label if isinstance(label, str) else json.dumps(label, sort_keys=True, separators=(",", ":"))


def store_base(status: Mapping[str, JSON], *, carried: bool = False) -> StoreBase | None:
    """The probe's accepted status read as a `StoreBase`; None when it answers no count and no label list.
    A count in an object of the status is keyed by its path (`summary.thoughts`): fork-summaries' final
    answers hold the history's size there, and read as it is it followed the witnesses signed before on the
    same process (OBJ-14 "changed" through the relay, held-out-multi-15)."""
    counts = {key: value for key, value in status.items()
              if isinstance(value, int) and not isinstance(value, bool) and key not in PROBE_ARGUMENTS}
    counts |= _nested_counts(status, "")
    labels = {key: frozenset(label_key(v) for v in value) for key, value in status.items()
              if isinstance(value, list)}
    if not counts and not labels:
        return None
    return StoreBase(counts, labels, carried)



def _nested_counts(value: Mapping[str, JSON], path: str) -> dict[str, int]:
    """Every integer of the objects inside `value` but the probe's own arguments, keyed by its dotted path (a
    bounded depth)."""
    found: dict[str, int] = {}
    if path.count(".") >= NESTED_DEPTH:
        return found
    for key, item in value.items():
        if isinstance(item, dict):
            inner = f"{path}{key}."
            found |= {f"{inner}{k}": v for k, v in item.items()
                      if isinstance(v, int) and not isinstance(v, bool) and k not in PROBE_ARGUMENTS}
            found |= _nested_counts(item, inner)
    return found


NESTED_DEPTH: Final = 4
"""How deep in the status a count is read relative to the probe's."""


_YAML_BREAKS: Final = {ord(c): f"\\u{ord(c):04x}" for c in "\x85\u2028\u2029"}
"""Characters JSON strings carry as they are and YAML's reader folds into a space."""


def short_json(value: JSON) -> str:
    """Compact JSON for a report: long strings become their head and digest, the whole is capped. A lone
    surrogate a server sent, and the line breaks YAML reads as a space (U+0085, U+2028, U+2029), are JSON's
    escapes (the same value): a baseline's YAML keeps the answer as its signature was computed."""
    text = writable(json.dumps(_shortened(value), ensure_ascii=False, separators=(",", ":")))
    text = text.translate(_YAML_BREAKS)
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




_VOLATILE: Final[tuple[tuple[re.Pattern[str], str], ...]] = (
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE),
     "<uuid>"),
    (re.compile(r"(?<![\d-])\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"),
     "<datetime>"),
    (re.compile(r"(?<![\d:])\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?:\s?[AaPp][Mm])?(?![\d:])"), "<time>"),
    (re.compile(r"(?<![\d/])\d{1,2}/\d{1,2}/\d{4}(?![\d/])"), "<date>"),
    (re.compile(r"(?<![\d.])1\d{12}(?![\d])|(?<![\d.])1\d{9}(?:\.\d+)?(?![\d])"), "<epoch>"),
    (re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?(?:ms|µs|us|ns)\b"), "<duration>"),
    (re.compile(r"""(\bp?pid\b["']?\s*[:=]?\s*)\d+\b""", re.IGNORECASE), r"\1<pid>"),
)
"""Tokens that name the moment of a call or the process, not its behaviour: a uuid, an ISO date-time, a clock
time, a numeric date, an epoch number (2001-2033, in seconds or milliseconds), a sub-second duration, a
process id as loggers write it (`"pid":19192`, `pid=19192`, `[pid 19192]`: fork-background-worker's banner,
held-out-multi-14, "changed" on every gate)."""
_PROCESS_IDS: Final = frozenset({"pid", "ppid"})
"""Keys whose integer is a process id (a JSON log line's `pid`)."""
_ISO_DATE: Final = re.compile(r"(?<![\d-])(\d{4}-\d{2}-\d{2})(?![\d-])")
_EPOCH_MS: Final = (1_000_000_000_000, 2_000_000_000_000)


def without_volatile(value: JSON) -> JSON:
    """`value` with its volatile tokens (`_VOLATILE`, ISO dates inside a longer string other than a protocol
    revision, integers in the epoch-milliseconds range) replaced by placeholders: an unchanged fork that
    stamps its answers or its stderr with the time keeps its signature from run to run (fork-audit-clock,
    issue 43)."""
    if isinstance(value, str):
        if _ISO_DATE.fullmatch(value):
            return value  # a whole value that is a date is a protocol version (SPEC-1 negotiates 1999-01-01)
        for pattern, placeholder in _VOLATILE:
            value = pattern.sub(placeholder, value)
        return _ISO_DATE.sub(lambda m: m.group(1) if m.group(1) in REVISIONS else "<date>", value)
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and _EPOCH_MS[0] <= value < _EPOCH_MS[1]:
        return "<epoch>"
    if isinstance(value, list):
        return [without_volatile(v) for v in value]
    if isinstance(value, dict):
        return {k: "<pid>" if k.lower() in _PROCESS_IDS and isinstance(v, int) and not isinstance(v, bool)
                else without_volatile(v) for k, v in value.items()}
    return value


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


def error_class(error: Mapping[str, JSON]) -> str:
    """JSON-RPC errors by class: the code and text of a refusal are each SDK's own (EXT-1)."""
    return "method not found" if error.get("code") == -32601 else "protocol error"


def canonical_response(exchange: Exchange, base: StoreBase | None) -> dict[str, JSON]:
    if exchange.error is not None:
        return {"error": error_class(exchange.error)}
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


def _content_item(item: JSON, base: StoreBase | None) -> JSON:
    if not isinstance(item, dict):
        return item
    shown = {k: sorted_json(v) for k, v in sorted(item.items()) if k != "text"}
    text = item.get("text")
    if isinstance(text, str):
        try:
            parsed = read_served(text, "answer text")
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


def _relative(value: JSON, base: StoreBase | None, path: str = "") -> JSON:
    """The store read relative to the probe: counts as growth since it, labels as those added since. At the
    top a count is keyed by its name; inside an object of the status by its dotted path, where the probe
    answered one there (`store_base`), else by its name (a status wrapped in an envelope)."""
    if isinstance(value, list):
        return [_relative(v, base) for v in value]
    if not isinstance(value, dict):
        return value
    shown: dict[str, JSON] = {}
    counts = base.counts if base is not None else {}
    lists = base.labels if base is not None else {}
    for key, item in value.items():
        name = f"{path}{key}" if f"{path}{key}" in counts else key
        if base is not None and base.carried and (name in counts or key == HISTORY or key in lists):
            shown[key] = CARRIED
        elif isinstance(item, int) and not isinstance(item, bool) and (name in counts or key == HISTORY):
            shown[key] = f"+{item - counts[name]}" if name in counts else "?"
        elif isinstance(item, list) and key in lists:
            shown[key] = [b for b in item if label_key(b) not in lists[key]]
        elif isinstance(item, dict):
            shown[key] = _relative(item, base, f"{path}{key}.")
        else:
            shown[key] = _relative(item, base)
    return shown


def accepted_status(exchange: Exchange) -> dict[str, JSON] | None:
    text = exchange.text
    if exchange.error is not None or exchange.is_error or text is None:
        return None
    try:
        parsed = read_served(text, "answer text")
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def tool_view(step: WitnessStep, exchange: Exchange) -> JSON:
    if exchange.error is not None:
        return {"error": error_class(exchange.error)}
    result = dict(exchange.result or {})
    result.pop("_meta", None)
    tools = result.get("tools")
    listed = [t for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
    if step.view == "names":
        return [t.get("name") for t in listed]
    if step.view == "tool":
        return sorted_json(result)
    tool = the_tool(listed)
    if tool is None:
        return {"tool": "not listed"}
    description = tool.get("description")
    text = description if isinstance(description, str) else ""
    if step.view == "keys":
        return json_strings(tool)
    if step.view == "extras":
        return sorted_json({k: v for k, v in tool.items() if k not in ("description", "inputSchema")})
    if step.view == "stats":
        lines = text.split("\n")
        return {"lines": len(lines), "first": lines[0], "last": lines[-1]}
    if step.view == "description":
        return text_view(text, step)
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
        "required": json_strings(str(r) for r in required) if isinstance(required, list) else None,
    }


def json_strings(items: Iterable[str]) -> list[JSON]:
    """Sorted, as JSON (a set or a key listing whose order no record is about)."""
    return list[JSON](sorted(items))


def text_view(text: str, step: WitnessStep) -> JSON:
    lines = text.split("\n")
    if step.lines is not None:
        first, last = step.lines
        return list[JSON](lines[first - 1 : last])
    if step.grep is not None:
        pattern = re.compile(step.grep)
        return [line for line in lines if pattern.search(line)]
    return text
