"""Root causes from test outcomes: every failing test accounted for, every departure either a cause or
explained by one, and reliances pointing the way (gate/rootcauses.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.results import Counterexample, RunResults, TestOutcome, TranscriptEvent
from conformance.gate.rootcauses import find_root_causes, signature, stem
from conformance.report.model import RecordVerdict

RECORDS = [f"R-{i}" for i in range(1, 9)]
CANONICAL = {r: r for r in RECORDS}


def _verdicts(tests: list[TestOutcome]) -> list[RecordVerdict]:
    failing = {r for t in tests if t.status == "failed" for r in t.records}
    return [
        RecordVerdict(id=r, kind="rte", aliases=[], anchors=[], statement=f"statement of {r}",
                      channels=["wire"], verdict="deviates" if r in failing else "holds",
                      evidence_before="implemented", evidence_after="observed")
        for r in RECORDS
    ]


def _results(tests: list[TestOutcome]) -> RunResults:
    return RunResults(
        target=TargetIdentity(spec="cmd:x", kind="cmd", command=["x"]),
        harness=HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3"),
        started="", finished="", tests=tests,
    )


def _outcome(
    name: str, records: list[str], relies: list[str], failed: bool, message: str = ""
) -> TestOutcome:
    frame = f'{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{name}"}}}}'
    return TestOutcome(
        nodeid=f"suite/test_x.py::{name}", records=records, relies=relies,
        status="failed" if failed else "passed", message=message or f"AssertionError: {name}",
        counterexample=(
            Counterexample(falsifying=name, exchange=[TranscriptEvent(kind="sent", data=frame, t=0.0)])
            if failed else None
        ),
    )


_tests = st.lists(
    st.tuples(
        st.lists(st.sampled_from(RECORDS), min_size=1, max_size=3, unique=True),
        st.lists(st.sampled_from(RECORDS), max_size=3, unique=True),
        st.booleans(),
        st.sampled_from(["", "AssertionError: the count did not grow by one per call", "assert 1 == 2"]),
        st.lists(st.sampled_from(RECORDS), max_size=1),
    ),
    max_size=12,
).map(lambda rows: [
    _outcome(f"test_{i}", ev, [r for r in rel if r not in ev], failed, message).model_copy(
        update={"contradicted": named if failed else []}
    )
    for i, (ev, rel, failed, message, named) in enumerate(rows)
])


@settings(max_examples=60)
@given(tests=_tests)
def test_every_departure_is_a_cause_or_explained(tests: list[TestOutcome]) -> None:
    verdicts = _judged(tests, RECORDS)
    causes, explained_by = find_root_causes(verdicts, _results(tests), CANONICAL)
    deviating = {v.id for v in verdicts if v.verdict == "deviates"}
    primary = [r for c in causes for r in c.records]
    assert len(primary) == len(set(primary)), "a record is the primary of two causes"
    assert set(primary) <= deviating
    assert set(primary) | set(explained_by) == deviating
    assert not set(primary) & set(explained_by)
    ids = {c.id for c in causes}
    assert set(explained_by.values()) <= ids
    for cause in causes:
        assert sorted(cause.explains) == sorted(r for r, c in explained_by.items() if c == cause.id)
        assert cause.example[0].startswith('{"jsonrpc":"2.0","id":0,"method":"initialize"')
    assert len(causes) <= len(deviating)


def test_a_departure_relied_on_explains_the_dependents() -> None:
    tests = [
        _outcome("test_count", ["R-1"], [], True),
        _outcome("test_labels", ["R-2"], ["R-1"], True),
        _outcome("test_derived", ["R-3"], ["R-1", "R-4"], True),
        _outcome("test_shape", ["R-4"], [], False),
    ]
    causes, explained_by = find_root_causes(_verdicts(tests), _results(tests), CANONICAL)
    assert [c.records for c in causes] == [["R-1"]]
    assert explained_by == {"R-2": "R-1", "R-3": "R-1"}
    assert causes[0].explains == ["R-2", "R-3"]
    assert causes[0].test == "suite/test_x.py::test_count"


def test_a_record_failing_only_beside_another_is_explained_by_it() -> None:
    """A test evidencing two records fails; one of them also fails on its own: that one is the cause."""
    tests = [
        _outcome("test_machine", ["R-1", "R-2", "R-3"], [], True),
        _outcome("test_total", ["R-2"], [], True),
    ]
    causes, explained_by = find_root_causes(_verdicts(tests), _results(tests), CANONICAL)
    assert [c.records for c in causes] == [["R-2"]]
    assert explained_by == {"R-1": "R-2", "R-3": "R-2"}


def test_independent_changes_are_separate_causes() -> None:
    tests = [
        _outcome("test_a", ["R-1"], [], True, "AssertionError: banner reworded on stderr"),
        _outcome("test_b", ["R-5"], [], True, "AssertionError: serverInfo version changed"),
        _outcome("test_c", ["R-6"], ["R-5"], True),
    ]
    causes, explained_by = find_root_causes(_verdicts(tests), _results(tests), CANONICAL)
    assert sorted(c.records[0] for c in causes) == ["R-1", "R-5"]
    assert explained_by == {"R-6": "R-5"}


def test_the_same_failure_twice_is_one_cause() -> None:
    """Two records failing their own tests with the same message (numbers aside) are one change."""
    tests = [
        _outcome("test_a", ["R-1"], [], True, "AssertionError: count stayed at 3 after a call"),
        _outcome("test_b", ["R-1"], [], True, "AssertionError: count stayed at 7 after a call"),
        _outcome("test_c", ["R-2"], [], True, "AssertionError: count stayed at 9 after a call"),
    ]
    causes, explained_by = find_root_causes(_verdicts(tests), _results(tests), CANONICAL)
    assert [c.records for c in causes] == [["R-1"]]
    assert explained_by == {"R-2": "R-1"}


def test_nothing_departs_no_cause() -> None:
    tests = [_outcome("test_a", ["R-1"], ["R-2"], False)]
    assert find_root_causes(_verdicts(tests), _results(tests), CANONICAL) == ([], {})


def test_signature_masks_numbers_and_ignores_bare_comparisons() -> None:
    one, two = "AssertionError: got 3 boxes for 4 calls", "AssertionError: got 5 boxes for 1 calls"
    assert signature(one) == signature(two)
    assert signature("AssertionError: assert 1 == 2") == ""
    assert signature("") == ""


def _judged(tests: list[TestOutcome], records: list[str]) -> list[RecordVerdict]:
    """Verdicts as `judge` gives them: a record departs when a test evidencing it fails, or a failing test
    names it as contradicted."""
    failing = {r for t in tests if t.status == "failed" for r in [*t.records, *t.contradicted]}
    return [
        RecordVerdict(id=r, kind="rte", aliases=[], anchors=[], statement=f"statement of {r}",
                      channels=["wire"], verdict="deviates" if r in failing else "holds",
                      evidence_before="implemented", evidence_after="observed")
        for r in records
    ]


def test_a_failure_naming_the_record_it_contradicts_is_that_records() -> None:
    """A test evidencing R-1 finds a behaviour it relies on (R-2: the count) broken and says so; R-2's own
    tests pass. The cause is R-2, the record the failure names."""
    tests = [
        _outcome("test_labels", ["R-1"], ["R-2"], True).model_copy(update={"contradicted": ["R-2"]}),
        _outcome("test_other_labels", ["R-1"], ["R-2"], True).model_copy(update={"contradicted": ["R-2"]}),
        _outcome("test_count", ["R-2"], [], False),
    ]
    causes, explained_by = find_root_causes(_judged(tests, RECORDS), _results(tests), CANONICAL)
    assert [c.records for c in causes] == [["R-2"]]
    assert explained_by == {"R-1": "R-2"}
    assert causes[0].test == "suite/test_x.py::test_labels"


def test_a_record_whose_own_test_passes_is_not_the_cause_of_a_shared_failure() -> None:
    """The served spec (R-1, R-2) differs and the schema test (R-3, relying on R-2) fails; R-2's test of
    its own passes on clean ground, so the shared failure is R-1's, and the schema failure, touching the
    same records, follows from it."""
    tests = [
        _outcome("test_spec_matches", ["R-1", "R-2"], [], True),
        _outcome("test_listing_is_static", ["R-2"], [], False),
        _outcome("test_schema_shape", ["R-3"], ["R-2"], True),
    ]
    causes, explained_by = find_root_causes(_judged(tests, RECORDS), _results(tests), CANONICAL)
    assert [c.records for c in causes] == [["R-1"]]
    assert explained_by == {"R-2": "R-1", "R-3": "R-1"}


def test_a_failure_beside_an_explained_record_joins_its_cause() -> None:
    """The answer's shape (R-1) changed. A test evidencing R-2 (relying on R-1) fails, and so does a test
    evidencing R-3 and R-2 together that declares nothing; R-3's own test passes. No second cause: the
    shared failure touches R-2, which R-1 already accounts for."""
    tests = [
        _outcome("test_shape", ["R-1"], [], True),
        _outcome("test_content_free", ["R-2"], ["R-1"], True),
        _outcome("test_corpus", ["R-3", "R-2"], [], True),
        _outcome("test_box", ["R-3"], [], False),
    ]
    causes, explained_by = find_root_causes(_judged(tests, RECORDS), _results(tests), CANONICAL)
    assert [c.records for c in causes] == [["R-1"]]
    assert explained_by == {"R-2": "R-1", "R-3": "R-1"}


def test_a_base_record_before_its_amendment() -> None:
    """A test evidencing a record and its amendment fails; each passes another test (the amendment's
    relying on its base): the base record is named, the amendment explained by it."""
    records = ["R-1", "R-1/a1", "R-2"]
    canonical = {r: r for r in records}
    tests = [
        _outcome("test_guards_decide", ["R-1", "R-1/a1"], [], True),
        _outcome("test_messages", ["R-1"], ["R-2"], False),
        _outcome("test_falsy_guards", ["R-1/a1"], ["R-1"], False),
    ]
    causes, explained_by = find_root_causes(_judged(tests, records), _results(tests), canonical)
    assert [c.records for c in causes] == [["R-1"]]
    assert explained_by == {"R-1/a1": "R-1"}


def test_a_reliance_the_checks_watch_is_no_cause_where_it_held() -> None:
    """A fork changes validation (R-1: checks of other records name it as contradicted when a call they
    needed accepted is refused, more often than failures lean on it silently) and caps the labels (R-2).
    The labels checks rely on R-1 but name nothing: their calls were accepted, so they failed on R-2, a
    second cause, not under R-1."""
    tests = [
        _outcome("test_guards", ["R-3"], ["R-1"], True).model_copy(update={"contradicted": ["R-1"]}),
        _outcome("test_types", ["R-4"], ["R-1"], True).model_copy(update={"contradicted": ["R-1"]}),
        _outcome("test_numbers", ["R-5"], ["R-1"], True).model_copy(update={"contradicted": ["R-1"]}),
        _outcome("test_labels_verbatim", ["R-2"], ["R-1"], True, "AssertionError: label 'x' not returned"),
        _outcome("test_labels_order", ["R-2"], ["R-1"], True, "AssertionError: labels out of key order"),
    ]
    causes, explained_by = find_root_causes(_judged(tests, RECORDS), _results(tests), CANONICAL)
    assert sorted(c.records[0] for c in causes) == ["R-1", "R-2"]
    assert explained_by == {"R-3": "R-1", "R-4": "R-1", "R-5": "R-1"}


def test_a_failure_leaning_on_a_named_contradictions_reader_is_another_change() -> None:
    """The count changed (R-1): the acceptance check (R-3) finds the count fall and names R-1; R-3's plainest
    check passes. The answer-shape check (R-4) leans on acceptance and fails on its own: another change,
    R-4's, not joined to R-1 because R-1's check happened to evidence R-3."""
    tests = [
        _outcome("test_count", ["R-1"], [], True, "AssertionError: count 1000 became 1000 after a call"),
        _outcome("test_guards", ["R-3"], [], True).model_copy(update={"contradicted": ["R-1"]}),
        _outcome("test_accepts", ["R-3"], [], False),
        _outcome("test_shape", ["R-4"], ["R-3"], True, "AssertionError: the answer has 7 keys, not 5"),
    ]
    causes, explained_by = find_root_causes(_judged(tests, RECORDS), _results(tests), CANONICAL)
    assert sorted(c.records[0] for c in causes) == ["R-1", "R-4"]
    assert explained_by == {"R-3": "R-1"}


def test_a_record_named_once_and_leaned_on_once_stays_a_candidate() -> None:
    """One render check names R-1 (no box where one was due); one check of R-2 leans on R-1 and fails
    without naming it. One check against one is no evidence that the helpers watch R-1 on R-2's path:
    R-2's failure stays R-1's, one cause."""
    tests = [
        _outcome("test_box_format", ["R-3"], ["R-1"], True).model_copy(update={"contradicted": ["R-1"]}),
        _outcome("test_revision_is_a_label", ["R-2"], ["R-1"], True, "AssertionError: caption is Revision"),
    ]
    causes, explained_by = find_root_causes(_judged(tests, RECORDS), _results(tests), CANONICAL)
    assert [c.records for c in causes] == [["R-1"]]
    assert explained_by == {"R-2": "R-1", "R-3": "R-1"}


def test_checks_failing_as_a_records_own_checks_fail_are_that_records() -> None:
    """Branch labels changed form (R-2): its own checks and five others leaning on the status shape (R-1)
    fail 'non-string branch label in [...]'; R-1's own check fails otherwise ('branches is [...]'). The
    five are R-2's, not the broad reliance's every check shares (team-board's OBJ-4/a1 against OBJ-4)."""
    said = "non-string branch label in [{'id': 'x%d', 'thoughts': 2}]"
    tests = [
        _outcome("test_status_shape", ["R-1"], [], True, 'branches is [{"id": "x"}], not labels'),
        _outcome("test_labels_verbatim", ["R-2"], ["R-1"], True, said % 1),
        _outcome("test_non_string_labels", ["R-2"], ["R-1"], True, said % 2),
    ] + [_outcome(f"test_other_{r}", [r], ["R-1", "R-2"], True, said % i)
         for i, r in enumerate(["R-3", "R-4", "R-5", "R-6", "R-7"])]
    causes, explained_by = find_root_causes(_judged(tests, RECORDS), _results(tests), CANONICAL)
    leading = causes[0]
    assert leading.records == ["R-2"]
    assert {explained_by[r] for r in ["R-3", "R-4", "R-5", "R-6", "R-7"]} == {leading.id}


@given(st.text(max_size=40), st.sampled_from(["[", "{", "(", "\"", "'", "“"]), st.text(max_size=40))
def test_stem_is_what_a_failure_says_before_a_quoted_value(value: str, quote: str, rest: str) -> None:
    """Two checks failing the same way on different data share a stem; the quoted value never reaches it."""
    head = "non-string branch label in "
    assert stem(head + quote + value + rest) == stem(head + quote + rest) == "non-string branch label in"
    assert stem("assert 1 == 2") == ""


def test_a_flaky_cause_is_said_by_what_happened_not_called_unreliable() -> None:
    """A cause whose example failed once and passed when run again on the shared process (fork-memory-budget's
    LOOP-A, a line every 50th thought) is not headed "unreliable" before any fresh process was tried (issue
    43): its headline says it failed on the shared process and passed when run again there, then how."""
    from conformance.core.failure_text import RUN_AGAIN, UNRELIABLE

    own = "stderr holds “[memory] 50 thoughts retained” beside the box, where the original writes it alone"
    tests = [_outcome("test_stderr", ["R-1"], [], True, f"{UNRELIABLE}: {own}")]
    causes, _ = find_root_causes(_verdicts(tests), _results(tests), CANONICAL)
    assert [c.records for c in causes] == [["R-1"]]
    assert "unreliable" not in causes[0].summary
    said = causes[0].summary
    assert said.startswith(f"R-1 departs — {RUN_AGAIN}: stderr holds “[memory] 50"), said
