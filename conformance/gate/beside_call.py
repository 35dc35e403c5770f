"""What a replayed call carries beyond an earlier call of its sequence, said in a cause's headline: a call
that differs from a refused call answered alike on both sides only by one extra argument changed its answer
by that argument (issue 42, probe42's OBJ-8 check: `responseFormat: "markdown"` beside a refused call
re-worded the refusal, and the headline said the words changed but not which argument made it).

The frames are the harness's own, but read as data: bounded, parsed, never executed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Final

from conformance.core.differences import refusal
from conformance.core.jsontypes import JSON

FRAME_CHARS: Final = 1_000_000
"""The longest frame read for its arguments: longer is no call this reads."""
_SHOWN_CHARS: Final = 60
"""Characters of an argument's JSON value shown in the headline; longer is cut with "…"."""


def tools_call(sent: str) -> tuple[dict[str, JSON], dict[str, JSON]] | None:
    """A tools/call frame as sent and its arguments, or None (another method, not JSON, no object, longer
    than `FRAME_CHARS`)."""
    if not sent or len(sent) > FRAME_CHARS:
        return None
    try:
        frame = json.loads(sent)
    except (ValueError, RecursionError):
        return None
    if not isinstance(frame, dict) or frame.get("method") != "tools/call":
        return None
    params = frame.get("params")
    arguments = params.get("arguments") if isinstance(params, dict) else None
    return (frame, arguments) if isinstance(arguments, dict) else None


def call_arguments(sent: str) -> Mapping[str, object] | None:
    """The arguments of a tools/call frame as sent, or None (another method, not JSON, no object)."""
    found = tools_call(sent)
    return found[1] if found is not None else None


def _one_more(call: Mapping[str, object], earlier: Mapping[str, object]) -> str:
    """The one key `call` adds to `earlier`, every other argument the same; empty otherwise."""
    added = [k for k in call if k not in earlier]
    if len(added) != 1 or len(call) != len(earlier) + 1:
        return ""
    return added[0] if all(k in call and call[k] == v for k, v in earlier.items()) else ""


def _refused_alike(original: str, target: str) -> bool:
    """Both sides answered the same refusal (the whole response alike)."""
    if original != target:
        return False
    try:
        answer = json.loads(original)
    except (ValueError, RecursionError):
        return False
    return refusal(answer) is not None


def extra_beside(sent: Sequence[str], answered: Sequence[tuple[str, str]], index: int) -> str:
    """"with `name: value` beside it, " when request `index` (1-based) is a call whose arguments are those of
    an earlier call in the sequence plus one, and that earlier call was refused alike on both sides (the
    nearest such call); else empty."""
    if not 1 <= index <= min(len(sent), len(answered)):
        return ""
    call = call_arguments(sent[index - 1])
    if call is None:
        return ""
    for before in range(index - 2, -1, -1):
        earlier = call_arguments(sent[before])
        key = _one_more(call, earlier) if earlier is not None else ""
        if key and _refused_alike(*answered[before]):
            try:
                value = json.dumps(call[key], ensure_ascii=False)
            except (ValueError, RecursionError):
                return ""
            shown = value if len(value) <= _SHOWN_CHARS else value[: _SHOWN_CHARS - 1] + "…"
            name = key if len(key) <= 40 else key[:39] + "…"
            return f"with `{name}: {shown}` beside it, "
    return ""
