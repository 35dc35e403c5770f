"""A difference beside the one a cause's pair leads with is the cause's only when the cause's own words say
it (gate/evidence.py `_same_change`, issue 42, round 14): agiprolabs-ts' initialize showed the banner,
serverInfo.name and capabilities at once, and CMP-3 (serverInfo.name) went under LOOP-A (stderr lines)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

AT = "on the example's initialize (request 1)"
BANNER = ("stderr: 4 lines here where the original has 1; adds “Transport mode: stdio”; changes line 1 "
          "“Sequential Thinking MCP Server running on stdio” "
          "to “DevPattern MCP Server v0.2.0”")
LOGGED = ("stderr holds more than the banner and one box per accepted call: "
          "“[EventPublisher] Not connected to Redis, skipping event”")


ORIGINAL = "sequential-thinking-server"
NAMES = st.from_regex(r"[a-z][a-z-]{2,20}", fullmatch=True).filter(lambda n: n != ORIGINAL)


def _name(name: str) -> str:
    return f"result.serverInfo.name: “sequential-thinking-server” on the original, “{name}” here"


def _record(rid: str, evidence: Evidence, message: str, contradicted: list[str]) -> RecordVerdict:
    ref = TestRef(nodeid=f"t::{rid}", status="failed", examples=1, contradicted=contradicted, message=message)
    return RecordVerdict(id=rid, kind="cmp", aliases=[], anchors=[], statement=f"statement of {rid}",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", evidence=evidence, tests=[ref], reason=message)


def _placed(name: str, summary: str) -> dict[str, str | None]:
    theirs = Evidence(reproduced=True, at=AT, differences=[BANNER, _name(name)])
    own = Evidence(reproduced=True, at=AT, differences=[_name(name)])
    cause = RootCause(id="LOOP-A", records=["LOOP-A"], explains=["CMP-3"],
                      summary=f"LOOP-A departs — {summary}", evidence=None)
    records = [_record("LOOP-A", theirs, LOGGED, ["LOOP-A"]),
               _record("CMP-3", own, f'serverInfo.name is "{name}", not "sequential-thinking-server"', [])
               .model_copy(update={"explained_by": "LOOP-A"})]
    causes, out = checked_explanations([cause], records)
    return {rv.id: rv.explained_by for rv in out} | {f"cause {c.id}": ",".join(c.explains) for c in causes}


@given(name=NAMES)
def test_a_name_beside_the_banner_is_not_the_logged_lines(name: str) -> None:
    """The cause's pair (its leading record's, its own not replayed) leads with the banner and shows the
    name beside it; the cause's words are about lines logged beside the box: CMP-3 is not LOOP-A's (before:
    "LOOP-A explains CMP-3")."""
    placed = _placed(name, LOGGED)
    assert placed["CMP-3"] != "LOOP-A"
    assert "CMP-3" not in str(placed["cause LOOP-A"])


@given(name=NAMES)
def test_a_name_the_cause_says_is_its_own(name: str) -> None:
    """A cause whose words say the name it changed still explains a record whose pair leads with that name."""
    assert _placed(name, f"serverInfo.name: “sequential-thinking-server” on the original, “{name}” here"
                   )["CMP-3"] == "LOOP-A"
