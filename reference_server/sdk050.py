"""What the original's SDK (@modelcontextprotocol/sdk 0.5.0, zod 3) accepts and how it words a refusal.

The Python SDK validates with pydantic and answers `-32602 Invalid request parameters`; SDK 0.5.0 parses
each frame with `JSONRPCMessageSchema` (a frame that fails is dropped, unanswered) and each handled
request again with its method's schema, whose `ZodError` becomes `-32603` with the issue list,
`JSON.stringify(issues, null, 2)`, as the message. Only the schemas the original serves are modelled
(types.js of 0.5.0: the JSON-RPC envelope, `initialize`, `ping`, `tools/list`, `tools/call`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, Final

HANDLED_METHODS: Final = frozenset({"initialize", "ping", "tools/list", "tools/call"})
"""The request handlers the original registers: the SDK's ping and initialize, the server's two."""

SUPPORTED_PROTOCOL_VERSIONS: Final = ("2024-11-05", "2024-10-07")
LATEST_PROTOCOL_VERSION: Final = "2024-11-05"

Issue = dict[str, Any]
_MISSING: Final = object()


def parsed_type(value: object) -> str:
    """zod's `getParsedType` for a JSON value (`_MISSING` is JavaScript's undefined)."""
    if value is _MISSING:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _is_js_integer(value: object) -> bool:
    """`Number.isInteger` of the double JSON.parse makes (1.0 and 1e20 are integers; 1e400 is not)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        number = float(value)
    except OverflowError:
        return False
    return math.isfinite(number) and number.is_integer()


def _is_object(value: object) -> bool:
    return isinstance(value, dict)


def _id_ok(value: object) -> bool:
    return isinstance(value, str) or _is_js_integer(value)


def _request_params_ok(params: object) -> bool:
    """BaseRequestParamsSchema, optional: an object whose `_meta`, if given, is an object whose
    `progressToken`, if given, is a string or an integer."""
    if params is _MISSING:
        return True
    if not _is_object(params):
        return False
    assert isinstance(params, dict)
    meta = params.get("_meta", _MISSING)
    if meta is _MISSING:
        return True
    if not _is_object(meta):
        return False
    assert isinstance(meta, dict)
    token = meta.get("progressToken", _MISSING)
    return token is _MISSING or _id_ok(token)


def _notification_params_ok(params: object) -> bool:
    if params is _MISSING:
        return True
    if not _is_object(params):
        return False
    assert isinstance(params, dict)
    meta = params.get("_meta", _MISSING)
    return meta is _MISSING or _is_object(meta)


def message_accepted(value: object) -> bool:
    """Whether `JSONRPCMessageSchema.parse` takes the frame (the four envelopes are `.strict()`)."""
    if not isinstance(value, dict) or value.get("jsonrpc", _MISSING) != "2.0":
        return False
    keys = set(value)
    method, params = value.get("method", _MISSING), value.get("params", _MISSING)
    request = keys <= {"jsonrpc", "id", "method", "params"} and "id" in keys and isinstance(method, str)
    if request and _id_ok(value["id"]) and _request_params_ok(params):
        return True
    notification = keys <= {"jsonrpc", "method", "params"} and isinstance(method, str)
    if notification and _notification_params_ok(params):
        return True
    if keys == {"jsonrpc", "id", "result"}:
        result = value["result"]
        return _id_ok(value["id"]) and _is_object(result) and _notification_params_ok(result)
    error = value.get("error")
    if keys == {"jsonrpc", "id", "error"} and _id_ok(value["id"]) and isinstance(error, dict):
        return _is_js_integer(error.get("code", _MISSING)) and isinstance(error.get("message", _MISSING), str)
    return False


def cancelled_request(params: Mapping[str, Any] | None) -> object:
    """The request a `notifications/cancelled` names when its params pass `CancelledNotificationSchema`
    (`requestId` a string or an integer, `reason` absent or a string), as the id SDK 0.5.0 keys it by;
    None when they do not (the notification handler throws, nothing is aborted)."""
    if params is None:
        return None
    request_id, reason = params.get("requestId", _MISSING), params.get("reason", _MISSING)
    if not _id_ok(request_id) or not (reason is _MISSING or isinstance(reason, str)):
        return None
    return js_request_id(request_id)


def js_request_id(value: object) -> object:
    """An accepted id as SDK 0.5.0 echoes it: JSON.parse keeps a double, so `1.0` and `-0` come back as
    `1` and `0` and an integer beyond 2**53 rounded (from 1e21 JavaScript writes an exponent:
    `jsvalue.stringify` writes it so)."""
    if isinstance(value, float):
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53:
        return int(float(value))
    return value


def _type_issue(expected: str, value: object, path: list[str]) -> Issue:
    received = parsed_type(value)
    message = "Required" if value is _MISSING else f"Expected {expected}, received {received}"
    return {
        "code": "invalid_type",
        "expected": expected,
        "received": received,
        "path": path,
        "message": message,
    }


def _check(
    value: object, expected: str, path: list[str], issues: list[Issue], *, optional: bool = False
) -> bool:
    """One `z.string()`, `z.object()`, `z.boolean()` or `z.record()`: records its issue, says if it held."""
    if optional and value is _MISSING:
        return False
    held = {
        "string": isinstance(value, str),
        "object": _is_object(value),
        "boolean": isinstance(value, bool),
    }[expected]
    if not held:
        issues.append(_type_issue(expected, value, path))
    return held


def _initialize_issues(params: Mapping[str, Any], issues: list[Issue]) -> None:
    _check(params.get("protocolVersion", _MISSING), "string", ["params", "protocolVersion"], issues)
    capabilities = params.get("capabilities", _MISSING)
    if _check(capabilities, "object", ["params", "capabilities"], issues):
        assert isinstance(capabilities, dict)
        at = ["params", "capabilities"]
        for key in ("experimental", "sampling"):
            _check(capabilities.get(key, _MISSING), "object", [*at, key], issues, optional=True)
        roots = capabilities.get("roots", _MISSING)
        if _check(roots, "object", [*at, "roots"], issues, optional=True):
            assert isinstance(roots, dict)
            listed = roots.get("listChanged", _MISSING)
            _check(listed, "boolean", [*at, "roots", "listChanged"], issues, optional=True)
    client = params.get("clientInfo", _MISSING)
    if _check(client, "object", ["params", "clientInfo"], issues):
        assert isinstance(client, dict)
        for key in ("name", "version"):
            _check(client.get(key, _MISSING), "string", ["params", "clientInfo", key], issues)


def request_issues(method: str, params: Mapping[str, Any] | None) -> list[Issue]:
    """The zod issues of a handled request whose envelope `message_accepted` took, in zod's order."""
    issues: list[Issue] = []
    if method in ("initialize", "tools/call"):
        if params is None:
            return [_type_issue("object", _MISSING, ["params"])]
        if method == "initialize":
            _initialize_issues(params, issues)
        else:
            _check(params.get("name", _MISSING), "string", ["params", "name"], issues)
            arguments = params.get("arguments", _MISSING)
            _check(arguments, "object", ["params", "arguments"], issues, optional=True)
    elif method == "tools/list" and params is not None:
        _check(params.get("cursor", _MISSING), "string", ["params", "cursor"], issues, optional=True)
    return issues


def zod_error_message(issues: list[Issue]) -> str:
    """`ZodError.message`: the issue list as `JSON.stringify(issues, null, 2)`."""
    return json.dumps(issues, indent=2, ensure_ascii=False)


def negotiated_version(params: Mapping[str, Any]) -> str:
    """SDK 0.5.0's `_oninitialize`: the requested revision when it supports it, else its latest."""
    requested = params.get("protocolVersion")
    return requested if requested in SUPPORTED_PROTOCOL_VERSIONS else LATEST_PROTOCOL_VERSION
