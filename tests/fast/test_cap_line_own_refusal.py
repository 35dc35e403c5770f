"""A record whose line is a cap (numbers answered without their sign) but whose own replayed pair shows the
refusal of the cause it is under, a failing check of it naming that cause's record, stays under that cause
(held-out-multi-8's fork-friendly-errors: RTE-3, a call without arguments refused as invalid params, its pair
RTE-8's, went to the dropped signs' cause by its line). Without both signs the cap's cause takes it, and a
count's cap always does: a short replay does not reach a count a long run met (nalyk-ts)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import held_by_caps
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef
from tests.verdicts import cause, departing

SIGN = ('OBJ-14 contradicted: thoughtNumber -3.5 sent, 3.5 answered: the answer '
        '{ "thoughtNumber": 3.5, "totalThoughts": 5 }')
PROTOCOL = ('RTE-8 contradicted: protocol error instead of an isError result: JSON-RPC error -32602, '
            '"Invalid params: arguments are required"')
REFUSAL = ("both refuse this call, in other words (and as isError on the original, JSON-RPC error -32602 "
           "here): “Cannot read properties of undefined (reading 'thought')” on the original (a runtime "
           "error), “Invalid params: arguments are required” here")
COUNT = ('OBJ-2 contradicted: an accepted call left thoughtHistoryLength at 40, where each accepted call '
         'adds one: the answer { "thoughtNumber": 1, "totalThoughts": 1, "thoughtHistoryLength": 40 }')
OTHER = ("the original accepts this call and this server refuses it — “Invalid thought: at most 10 lines” "
         "(isError)")


def _pair(first: str) -> Evidence:
    return Evidence(reproduced=True, at="on the example's tools/call 1", differences=[first])


def _checked(rv: RecordVerdict, *failures: tuple[str, list[str]]) -> RecordVerdict:
    tests = [TestRef(nodeid=f"t{i}-{rv.id}", status="failed", examples=1, message=message, contradicted=named)
             for i, (message, named) in enumerate(failures)]
    return rv.model_copy(update={"tests": tests})


@given(own_pair=st.booleans(), names_home=st.booleans(), signs=st.booleans())
def test_a_cap_line_stays_under_the_refusal_its_own_pair_shows(own_pair: bool, names_home: bool,
                                                               signs: bool) -> None:
    line, capper = (SIGN, "OBJ-14") if signs else (COUNT, "OBJ-2")
    lead = _checked(departing(capper, line), (line, [capper]))
    home = _checked(departing("RTE-8", PROTOCOL), (PROTOCOL, ["RTE-8"])).model_copy(
        update={"evidence": _pair(REFUSAL)})
    failures = [(line, [capper]), (PROTOCOL, ["RTE-8"] if names_home else [])]
    both = _checked(departing("RTE-3", line), *failures).model_copy(update={
        "explained_by": "RTE-8", "evidence": _pair(REFUSAL if own_pair else OTHER)})
    refused = cause("RTE-8", ["RTE-3"], PROTOCOL).model_copy(update={"evidence": _pair(REFUSAL)})
    causes: list[RootCause] = [cause(capper, [], line), refused]
    out, placed = held_by_caps(causes, [lead, home, both])
    under = {rv.id: rv.explained_by for rv in placed}
    stays = own_pair and names_home and signs
    assert under["RTE-3"] == ("RTE-8" if stays else capper)
    explains = {c.id: c.explains for c in out}
    assert ("RTE-3" in explains["RTE-8"]) == stays and ("RTE-3" in explains[capper]) != stays
