"""A property the inputSchema gained or lost, shown by the same tools/list pair as a tool added, is a cause of
its own, headed by the property (issue 42: held-out-multi-13's fork-session-tools, whose `reset` property
went under the added `thinking_status` tool's cause, RTE-1, and was never named as a change)."""

from __future__ import annotations

import json
from typing import Final

from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.other_tools import MARK
from conformance.gate.schema_properties import properties_apart
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef

_NAME = st.from_regex(r"[a-z][a-zA-Z]{2,12}", fullmatch=True).filter(
    lambda n: n not in {"property", "properties", "tools", "tool"})


def _record(rid: str, message: str, contradicted: bool = False, explained_by: str | None = None
            ) -> RecordVerdict:
    test = TestRef(nodeid=f"t-{rid}", status="failed", examples=1, message=message,
                   contradicted=[rid] if contradicted else [])
    return RecordVerdict(id=rid, kind="cmp", aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict="deviates", evidence_before="implemented", evidence_after="observed",
                         reason=message, tests=[test], explained_by=explained_by)


def _listing(name: str, added: bool) -> list[str]:
    value = json.dumps({"type": "boolean"})
    prop = (f"result.tools[0].inputSchema.properties.{name}: absent on the original, {value} here" if added
            else f"result.tools[0].inputSchema.properties.{name}: {value} on the original, absent here")
    return [prop, "result.tools: 1 item(s) on the original, 2 here: `status` added"]


def _cause(differences: list[str]) -> RootCause:
    evidence = Evidence(reproduced=True, at="on the example's tools/list (request 2)",
                        differences=differences, original_spec="npm:0.6.2")
    return RootCause(id="RTE-1", records=["RTE-1"], explains=["CMP-2", "OBJ-7"], summary="RTE-1 departs — x",
                     example=["{}"], evidence=evidence)


@given(name=_NAME, added=st.booleans())
def test_the_property_opens_its_own_cause(name: str, added: bool) -> None:
    records = [
        _record("RTE-1", "RTE-1 contradicted: tools/list serves 2 tools, not the original's one", True),
        _record("CMP-2", f"the served tool spec differs: inputSchema.properties: {name} differs",
                explained_by="RTE-1"),
        _record("OBJ-7", f"the inputSchema's property types are not the original's: {name} differs",
                explained_by="RTE-1"),
    ]
    causes, out = properties_apart([_cause(_listing(name, added))], records)
    by_id = {c.id: c for c in causes}
    assert set(by_id) == {"RTE-1", "CMP-2"}, [c.summary for c in causes]
    assert f"properties.{name}" in by_id["CMP-2"].summary and "`status` added" not in by_id["CMP-2"].summary
    assert "`status` added" in by_id["RTE-1"].summary and f"properties.{name}" not in by_id["RTE-1"].summary
    assert by_id["CMP-2"].explains == ["OBJ-7"] and by_id["RTE-1"].explains == []
    assert {rv.id: rv.explained_by for rv in out} == {"RTE-1": None, "CMP-2": None, "OBJ-7": "CMP-2"}


@given(name=_NAME)
def test_a_lead_whose_own_check_names_the_property_keeps_its_cause(name: str) -> None:
    """The leading record's own check speaks of the property: the cause is the property's already."""
    records = [_record("RTE-1", f"RTE-1 contradicted: the schema's {name} differs", True),
               _record("OBJ-7", f"{name} differs", explained_by="RTE-1")]
    cause = _cause(_listing(name, True))
    causes, out = properties_apart([cause], records)
    assert causes == [cause] and out == records


def test_the_gate_check_of_explanations_opens_it() -> None:
    """Through the gate's own pass over "explained by" (`checked_explanations`), where a run applies it."""
    from conformance.gate.evidence import checked_explanations

    records = [
        _record("RTE-1", "RTE-1 contradicted: tools/list serves 2 tools, not the original's one", True),
        _record("CMP-2", "the served tool spec differs: inputSchema.properties: reset differs",
                explained_by="RTE-1"),
        _record("OBJ-7", "the inputSchema's property types are not the original's: reset differs",
                explained_by="RTE-1"),
    ]
    shared = _cause(_listing("reset", True)).evidence
    assert shared is not None
    records = [rv.model_copy(update={"evidence": shared}) for rv in records]
    causes, _ = checked_explanations([_cause(_listing("reset", True))], records)
    said = [c.summary for c in causes]
    assert any(c.id != "RTE-1" and "properties.reset" in c.summary for c in causes), said


_TYPE = st.sampled_from(["string", "number", "boolean", "integer"])


@given(old=_NAME, new=_NAME, kind=_TYPE, other=_TYPE)
def test_a_property_dropped_beside_one_added_of_its_type_is_said_as_its_new_name(
        old: str, new: str, kind: str, other: str) -> None:
    """One property gone and one come, of the same type: the headline names both as one name become the
    other (held-out-multi-13's team-console: `branchId` served as `branchName`); of other types, the pair's
    own headline stays."""
    if old == new:
        return
    at = "result.tools[0].inputSchema.properties"
    differences = [f"{at}.{old}: {json.dumps({'type': kind})} on the original, absent here",
                   f"{at}.{new}: absent on the original, {json.dumps({'type': other})} here"]
    evidence = Evidence(reproduced=True, at="on the example's tools/list (request 2)",
                        differences=differences, original_spec="npm:0.6.2")
    cause = RootCause(id="CMP-2", records=["CMP-2"], summary=f"CMP-2 departs — {evidence.headline()}",
                      example=["{}"], evidence=evidence)
    causes, _ = properties_apart([cause], [_record("CMP-2", f"{old} is missing, {new} is added", True)])
    said = causes[0].summary
    if kind == other:
        assert f"`{old}` is `{new}` here, both of type {kind}" in said and "(reproduced at tools/list" in said
    else:
        assert said == cause.summary


_UNHEADED: Final = {
    "a Python repr": "{{'{name}': {{'type': 'boolean'}}}}",
    "a sentence about the check": "the check's condition did not hold: '{name}' in served is False",
    "a test's name": "tests/fast/x.py::test_listed_types[npm] {name} differs",
    "the added tools' words": "2 tools listed." + MARK + "`status` takes {{\"{name}\": true}}, nothing kept.",
}
"""Words naming a property that could not head a line (`failure_text.unspoken`) or that tell another call
(`other_tools.outside`): what gate/check_words leaves out of what a check says."""


@given(name=_NAME, form=st.sampled_from(sorted(_UNHEADED)))
def test_a_check_naming_the_property_in_any_words_goes_with_it(name: str, form: str) -> None:
    """Whether a record's check speaks of the property is read from every word its failure holds, those no
    line is headed by included: a schema's repr naming the property is about it all the same."""
    records = [
        _record("RTE-1", "RTE-1 contradicted: tools/list serves 2 tools, not the original's one", True),
        _record("OBJ-7", _UNHEADED[form].format(name=name), explained_by="RTE-1"),
    ]
    causes, out = properties_apart([_cause(_listing(name, True))], records)
    assert [c.id for c in causes] == ["RTE-1", "OBJ-7"], [c.summary for c in causes]
    assert {rv.id: rv.explained_by for rv in out} == {"RTE-1": None, "OBJ-7": None}


@given(name=_NAME, form=st.sampled_from(sorted(_UNHEADED)))
def test_a_lead_naming_the_property_in_any_words_keeps_its_cause(name: str, form: str) -> None:
    """A leading record none of whose checks names it contradicted speaks of the property in any of its
    failure's words: the cause is the property's already, and stays whole."""
    records = [_record("RTE-1", _UNHEADED[form].format(name=name)),
               _record("OBJ-7", f"the inputSchema's types differ: {name}", explained_by="RTE-1")]
    cause = _cause(_listing(name, True))
    causes, out = properties_apart([cause], records)
    assert causes == [cause] and out == records
