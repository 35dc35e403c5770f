"""A departure placed by its checks' words goes under the cause whose difference they name before one whose
pair merely holds a text they quote, also a cause opened while placing (gate/evidence.split_off, issue 42,
round 14): stopuncle-js' tool list shows four tools added (RTE-1) and the description cut to one line
(OBJ-5); CLM-1's "has no line “- Generates a solution hypothesis”" went under RTE-1."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

AT = "on the example's tools/list (request 2)"
LINES = ["- Generates a solution hypothesis",
         "- Verifies the hypothesis based on the Chain of Thought steps",
         "- Repeats the process until satisfied",
         "- You can adjust total_thoughts up or down as you progress"]


def _listing(description: str, tools: list[str]) -> str:
    listed = [{"name": "sequentialthinking", "description": description}] + [{"name": t} for t in tools]
    return json.dumps({"jsonrpc": "2.0", "result": {"tools": listed}})


def _record(rid: str, evidence: Evidence, message: str,
            contradicted: list[str] | None = None) -> RecordVerdict:
    ref = TestRef(nodeid=f"t::{rid}", status="failed", examples=1, contradicted=contradicted or [],
                  message=message)
    return RecordVerdict(id=rid, kind="cmp", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", evidence=evidence, tests=[ref], reason=message)


@given(line=st.sampled_from(LINES), added=st.lists(st.from_regex(r"[a-z_]{3,12}", fullmatch=True),
                                                    min_size=1, max_size=4, unique=True))
def test_a_line_missing_from_the_description_is_the_descriptions(line: str, added: list[str]) -> None:
    original, target = _listing("\n".join(LINES), []), _listing("Enhanced tool.", added)
    grown = (f"result.tools: 1 item(s) on the original, {len(added) + 1} here: "
             + ", ".join(f"`{t}`" for t in added) + " added")
    cut = (f"result.tools[0].description: 1 line here where the original has {len(LINES)}; drops "
           f"“{LINES[0]}”")
    # As stopuncle-js' run replayed it: the tool list's pair for RTE-1 says the tools added only.
    tools = Evidence(reproduced=True, at=AT, differences=[grown], original=original, target=target,
                     cause="RTE-1")
    described = Evidence(reproduced=True, at=AT, differences=[cut, grown], original=original, target=target)
    elsewhere = Evidence(reproduced=True, at="on the example's initialize (request 1)",
                         not_its_failure=True,
                         differences=["result.serverInfo.name: “a” on the original, “b” here"])
    cause = RootCause(id="RTE-1", records=["RTE-1"], explains=["CLM-1"], evidence=tools,
                      summary=f"RTE-1 departs — {grown}")
    records = [
        _record("RTE-1", tools, f"the server lists {len(added) + 1} tools, not 1", ["RTE-1"]),
        _record("OBJ-5", described, f"the description has 1 lines, not {len(LINES)}"),
        _record("OBJ-12", described,
                f"the description has 1 lines where the original's {len(LINES)} hold it"),
        _record("CLM-1", elsewhere, "CLM-1: the tool description the official client got has no line "
                f"“{line}”, where the original delivers it").model_copy(update={"explained_by": "RTE-1"}),
    ]
    causes, out = checked_explanations([cause], records)
    placed = {rv.id: rv.explained_by for rv in out}
    assert placed["CLM-1"] in ("OBJ-5", "OBJ-12"), (placed, [(c.id, c.explains) for c in causes])
