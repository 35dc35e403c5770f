"""A check that saw the server send a message of its own is told only by an unasked difference
(gate/evidence.py `_tells`, issue 42): held-out-multi-13's client-protocol answers every refusal with a
JSON-RPC error and sends notifications/progress for a call carrying a progress token; LOOP-A's replay met a
refused call first, and its cause was headed, then merged, by the refusal, another change."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import its_failure
from conformance.report.model import UNASKED, Evidence, RecordVerdict, TestRef

KINDS = st.sampled_from(["notification", "request"])
METHODS = st.sampled_from(["notifications/progress", "notifications/message", "sampling/createMessage"])
CODES = st.sampled_from([-32602, -32603, -32000])
WORDS = st.sampled_from(["Invalid thought: must be a string", "Invalid thoughtNumber: must be a number"])


def _refused(code: int, words: str) -> list[str]:
    return [f"both refuse in the same words, “{words}” as isError on the original, JSON-RPC error {code} "
            "here",
            f'error: absent on the original, {{"code": {code}, "message": "{words}"}} here']


def _record(message: str) -> RecordVerdict:
    test = TestRef(nodeid="t::LOOP-A", status="failed", examples=1, contradicted=["LOOP-A"], message=message)
    return RecordVerdict(id="LOOP-A", kind="cmp", aliases=[], anchors=[], statement="statement of LOOP-A",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", tests=[test], reason=message)


def _sent(kind: str, method: str) -> str:
    return (f'LOOP-A contradicted: the server sent a {kind} of its own, {{"method": "{method}", "params": '
            '{}, "jsonrpc": "2.0"}, where only responses to requests were due; the original never sends one')


@given(kind=KINDS, method=METHODS, code=CODES, words=WORDS)
def test_a_refusal_is_not_the_message_it_saw_sent(kind: str, method: str, code: int, words: str) -> None:
    """The pair's first request differs by a refusal's form only: not the check's failure (before: told by
    the error's difference, the refusal headed LOOP-A)."""
    pair = Evidence(reproduced=True, at="on the example's tools/call 2", differences=_refused(code, words))
    assert its_failure(_record(_sent(kind, method)), pair).not_its_failure


@given(kind=KINDS, method=METHODS, code=CODES, words=WORDS)
def test_the_message_sent_is(kind: str, method: str, code: int, words: str) -> None:
    """Where the pair shows the message sent unasked, that difference leads, a refusal beside it or not."""
    unasked = f'{UNASKED}none on the original, [{{"method": "{method}", "jsonrpc": "2.0"}}] here'
    pair = Evidence(reproduced=True, at="on the example's tools/call 5",
                    differences=[*_refused(code, words), unasked])
    told = its_failure(_record(_sent(kind, method)), pair)
    assert not told.not_its_failure and told.differences[0] == unasked


@given(code=CODES, words=WORDS)
def test_a_check_that_saw_a_refusal_is_still_told_by_it(code: int, words: str) -> None:
    """A check of the answers (no message of the server's own) is told by the refusal's form as before."""
    pair = Evidence(reproduced=True, at="on the example's tools/call 1", differences=_refused(code, words))
    message = ("RTE-8 contradicted: protocol error instead of an isError result: "
               f'JSON-RPC error {code}, "{words}"')
    assert not its_failure(_record(message), pair).not_its_failure
