"""Departures no call sequence shows (files written, what initialize advertises, a listing) each open a cause
of their own change, and those naming the same subject share one (issue 42: fork-remembered-labels' labels
file and `experimental` capability stayed two loose lines, `_left_alone` opening a cause only for a lone
one)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.failure_text import FILES_WRITTEN
from conformance.gate.evidence import checked_explanations
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef
from tests.verdicts import cause

_OWN = Evidence(reproduced=False, own_failure=True, original_spec="npm:0.6.2",
                why="its checks read the installed files or watch the process and kept no call sequence")


def _record(rid: str, message: str, kind: str = "abs") -> RecordVerdict:
    test = TestRef(nodeid=f"conformance/suite/test_x.py::test_{rid.lower().replace('-', '_')}[cmd:x]",
                   status="failed", examples=1, message=message)
    return RecordVerdict(id=rid, kind=kind, aliases=[], anchors=[], statement="s", channels=["wire"],
                         verdict="deviates", evidence_before="implemented", evidence_after="observed",
                         evidence=_OWN, reason=message, tests=[test])


def _files(*names: str) -> str:
    return f"{FILES_WRITTEN}: " + ", ".join(f"/tmp/sandbox/server/{name}" for name in names)


def _capability(name: str) -> str:
    return (f"initialize advertises capabilities {{\"tools\": {{}}, \"{name}\": {{}}}}, where the original "
            f"advertises only tools: {name}: absent on the original, {{}} here")


def _grouped(causes: list[RootCause], records: list[RecordVerdict]
             ) -> tuple[list[RootCause], dict[str, str | None]]:
    out_causes, out = checked_explanations(causes, records)
    return out_causes, {rv.id: rv.explained_by for rv in out}


_NAME = st.from_regex(r"[a-z][a-z0-9]{2,10}", fullmatch=True)


@given(file=_NAME.map(lambda n: f".{n}.json"), capability=_NAME)
def test_each_unsequenced_change_opens_its_own_cause(file: str, capability: str) -> None:
    """Two departures without a sequence, a file written and a capability added, beside a cause of another
    change: two causes more, each headed by its own check's words (fork-remembered-labels)."""
    other = cause("OBJ-2", [], "thoughtHistoryLength: 2 on the original, 1 here")
    records = [_record("ABS-1", _files(file)), _record("CMP-3", _capability(capability), kind="cmp")]
    causes, placed = _grouped([other], records)
    led = {c.id: c.summary for c in causes}
    assert set(led) == {"OBJ-2", "ABS-1", "CMP-3"}
    assert file in led["ABS-1"] and capability in led["CMP-3"]
    assert placed == {"ABS-1": None, "CMP-3": None}


@given(file=_NAME.map(lambda n: f"{n}.log"), others=st.lists(_NAME.map(lambda n: f"{n}.txt"), max_size=2))
def test_the_same_files_written_are_one_change(file: str, others: list[str]) -> None:
    """Two checks finding the same file written (beside others) are one change: one cause, led by the
    catalog's first, the other explained by it."""
    records = [_record("ABS-1", _files(file)), _record("CMP-1", _files(*others, file), kind="cmp")]
    causes, placed = _grouped([], records)
    assert len(causes) == 1, [c.summary for c in causes]
    lead, = causes
    follower = ({"ABS-1", "CMP-1"} - {lead.id}).pop()
    assert lead.explains == [follower] and file in lead.summary
    assert placed == {lead.id: None, follower: lead.id}


@given(capability=_NAME)
def test_a_cause_saying_the_field_already_holds_it(capability: str) -> None:
    """A cause whose headline already says the field (initialize replayed: `capabilities.<name>`) takes the
    departure that names it: no second cause of one change."""
    said = cause("CMP-3/a1", [], f"capabilities.{capability}: absent on the original, {{}} here")
    causes, placed = _grouped([said], [_record("CMP-3", _capability(capability), kind="cmp")])
    assert [c.id for c in causes] == ["CMP-3/a1"]
    assert placed == {"CMP-3": "CMP-3/a1"}


def test_a_departure_with_a_sequence_is_left_to_its_pair() -> None:
    """Only departures whose evidence is their own failure open a cause here: one whose replay was merely
    not reproduced keeps its line."""
    rv = _record("ABS-1", _files(".labels.json"))
    rv = rv.model_copy(update={"evidence": Evidence(reproduced=False, original_spec="npm:0.6.2",
                                                    example=["{}"], why="not reproduced")})
    causes, placed = _grouped([], [rv])
    assert causes == [] and placed == {"ABS-1": None}


@given(words=st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=10, max_size=60))
def test_words_naming_no_file_or_field_open_no_cause(words: str) -> None:
    """A departure whose check names neither files written nor a field differing (a box's form: any change's)
    keeps its own line: a cause of it would repeat another change's (held-out-multi-12's fork-thought-log,
    LOOP-B's box in CRLF beside CMP-5's cause)."""
    causes, placed = _grouped([], [_record("LOOP-B", f"an accepted call drew no box: {words}", kind="loop")])
    assert causes == [] and placed == {"LOOP-B": None}


def test_stderr_at_start_is_a_subject_of_its_own() -> None:
    """What a process writes before any request is read without calls: it opens a cause."""
    said = ("stderr reads “[x] Sequential Thinking MCP Server running on stdio ⏎ ” before any request, where "
            "the original writes the banner alone")
    causes, _ = _grouped([], [_record("CMP-4", said, kind="cmp")])
    assert [c.id for c in causes] == ["CMP-4"]
