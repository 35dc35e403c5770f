"""Two refusals of one request in other words are a refusal's difference: only a check speaking of a refusal
saw it (gate/evidence.py `_tells`, issue 42). ABS-2's check reads what a server lists, then guesses routes
(`resources/read` of `thought://1`, …): a fork serving its history as a listed resource failed ABS-2 on the
listed read, and its pair, whose first difference is the guessed uri refused in other words (“Method not
found” on the original, “Unknown resource: thought://1” here), was taken as that failure's."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.differences import explain
from conformance.gate.evidence import its_failure
from conformance.report.model import Evidence, RecordVerdict, TestRef

METHOD_NOT_FOUND = {"jsonrpc": "2.0", "id": 5, "error": {"code": -32601, "message": "Method not found"}}
URIS = st.sampled_from(["thought://1", "thoughts://1", "thoughtNumber://2", "branch://alpha", "memory://x"])
WORDINGS = st.sampled_from(["Unknown resource: {}", "Resource {} not found", "No resource at {}"])
CODES = st.sampled_from([-32602, -32002, -32000])


def _pair(uri: str, wording: str, code: int) -> Evidence:
    """The pair of the guessed read as the explainer says it, its answers being a real refusal each."""
    refused = {"jsonrpc": "2.0", "id": 5, "error": {"code": code, "message": wording.format(uri)}}
    differences = [d.said() for d in explain(METHOD_NOT_FOUND, refused)]
    at = "on the example's resources/read (request 13)"
    return Evidence(reproduced=True, at=at, differences=differences)


def _record(message: str) -> RecordVerdict:
    test = TestRef(nodeid="t::ABS-2", status="failed", examples=1, message=message)
    return RecordVerdict(id="ABS-2", kind="abs", aliases=[], anchors=[], statement="statement of ABS-2",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", tests=[test], reason=message)


def _listed_read_quotes(uri: str) -> str:
    return (f"the resource '{uri.split(':')[0]}s://history' the server lists, read, quotes the stored "
            'thought "probe: far ahead ⟦02288a19⟧", where the original offers no resource or prompt (its '
            'capabilities hold tools alone): {"result": {"contents": [{"uri": "thoughts://history"}]}}')


@given(uri=URIS, wording=WORDINGS, code=CODES)
def test_a_guessed_route_refused_otherwise_is_not_a_listed_reads_failure(
    uri: str, wording: str, code: int
) -> None:
    """Before: told (an answer of another kind is any check's): the record's line was the guessed route's."""
    pair = _pair(uri, wording, code)
    assert pair.differences[0].startswith("both refuse this call, in other words"), pair.differences
    assert its_failure(_record(_listed_read_quotes(uri)), pair).not_its_failure


@given(uri=URIS, wording=WORDINGS, code=CODES)
def test_a_check_speaking_of_the_refusal_is_still_told_by_it(uri: str, wording: str, code: int) -> None:
    message = (f"resources/read of {uri} was refused with error {code}, where the original answers -32601 "
               "“Method not found” for a method it does not serve")
    assert not its_failure(_record(message), _pair(uri, wording, code)).not_its_failure
