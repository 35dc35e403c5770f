"""A request or notification of the server's own quoted in a check's failure is said by its method and
params, never as "an accepted answer" (issue 42: LOOP-A's headline read "the server sent a notification of
its own, an accepted answer" of a progress notification, and a thought sent as a debug log message read as an
answer)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.failure_text import spoken

_METHOD = st.from_regex(r"notifications/[a-z]{3,12}|[a-z]{3,8}/[a-z]{3,8}", fullmatch=True)
_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=3, max_size=30)


@given(method=_METHOD, data=_WORD, request=st.booleans(), node_order=st.booleans())
def test_a_message_of_its_own_is_said_by_its_method_and_params(method: str, data: str, request: bool,
                                                               node_order: bool) -> None:
    """In either key order: the SDK's (`jsonrpc` first) or node's as a fork's notification serializes it
    (`method` first, held-out-multi-13's fork-client-protocol)."""
    message: dict[str, object] = {"jsonrpc": "2.0", **({"id": 7} if request else {}), "method": method,
                                  "params": {"data": data}}
    if node_order:
        message = {"method": method, "params": {"data": data}, "jsonrpc": "2.0"}
    said = spoken(f"the server sent {json.dumps(message)}, where nothing was due", "t::c")
    assert method in said and data.strip() in said and "accepted answer" not in said, said


@given(text=_WORD)
def test_a_response_is_still_said_as_an_answer(text: str) -> None:
    """What a response is said as is unchanged: an accepted one is "an accepted answer"."""
    answer = {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": text}]}}
    said = spoken(f"the call was answered {json.dumps(answer)}, where a refusal was due", "t::c")
    assert "an accepted answer" in said and "result" not in said, said
