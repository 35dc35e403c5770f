"""Branch labels (RTE-6, OBJ-3, OBJ-3/a1, OBJ-4/a1) and silent branch misses (RTE-6/a1)."""

from __future__ import annotations

from hypothesis import assume, example, given
from hypothesis import strategies as st

from conformance.calls.store import StoreState
from conformance.calls.strategies import (
    TRUNK_NAMES,
    Envelope,
    LabelKind,
    branch_labels,
    envelopes,
    falsy_values,
    json_values,
    label_specs,
    thought_texts,
    truthy_values,
)
from conformance.catalog.records import evidences, relies_on
from conformance.core.js import PROTOTYPE_KEYS
from conformance.core.jsontypes import JSON, OMIT, Omitted
from conformance.suite.answers import (
    accepted_if_host_valid,
    answer_status,
    describe,
    expect_alike,
    expect_count,
    expect_one_more,
    store,
)
from conformance.suite.contradiction import Contradiction, brief
from conformance.suite.jsvalues import branch_key, js_string
from conformance.suite.session import LabelServer, ServerSession
from conformance.suite.store_model import LabelSpace, StoreModel, respelled

_branch_ids = st.one_of(st.just(OMIT), falsy_values, branch_labels, json_values)
_branch_froms = st.one_of(st.just(OMIT), falsy_values, truthy_values, st.integers(min_value=1, max_value=9))


@evidences("RTE-6", "OBJ-3")
@relies_on("RTE-3", "RTE-5", "OBJ-4", "OBJ-4/a1")
@given(envelope=envelopes, branch_id=_branch_ids, branch_from=_branch_froms)
@example(envelope=Envelope("t", 1, 1, True), branch_id="alpha", branch_from=1)
@example(envelope=Envelope("t", 1, 1, True), branch_id=7, branch_from=1)
@example(envelope=Envelope("t", 1, 1, True), branch_id={"k": 1}, branch_from="yes")
@example(envelope=Envelope("t", 1, 1, True), branch_id="main", branch_from=1)
@example(envelope=Envelope("t", 1, 1, True), branch_id=" padded ", branch_from=1)
def test_label_recorded_when_both_fields_truthy(
    label_server: LabelServer, envelope: Envelope, branch_id: JSON | Omitted, branch_from: JSON | Omitted
) -> None:
    """A bucket (and so a label, the key's string form) appears exactly when branchFromThought && branchId."""
    assume(branch_key(branch_id, branch_from) not in PROTOTYPE_KEYS)
    arguments = envelope.arguments(branchId=branch_id, branchFromThought=branch_from)
    model = StoreModel.from_state(label_server.probe())
    exchange = label_server.call(arguments)
    if accepted_if_host_valid(exchange, arguments) is None:
        return
    model.after_accepted(exchange, arguments)


_marked_labels = st.builds(str.__add__, st.sampled_from(["#", "@"]), st.text(alphabet="abcxyz-_", min_size=1,
                                                                         max_size=8))
"""Labels a fork could read as markers (a hashtag, a mention) and file without a branch point: the plain
labels drawn never start so, and a fork filing "#" labels alone passed the check (held-out-multi-5)."""


@evidences("RTE-6/a1")
@relies_on("RTE-3", "RTE-5", "OBJ-4", "RTE-6", "OBJ-4/a1")
@given(
    envelope=envelopes,
    case=st.one_of(
        st.tuples(st.one_of(branch_labels, _marked_labels), st.one_of(st.just(OMIT), falsy_values)),
        st.tuples(st.one_of(st.just(OMIT), falsy_values), st.integers(min_value=1, max_value=9)),
    ),
    revising=st.booleans(),
)
@example(envelope=Envelope("t", 2, 3, True), case=("never-recorded", 0), revising=False)
@example(envelope=Envelope("t", 2, 3, True), case=("never-recorded", OMIT), revising=False)
@example(envelope=Envelope("t", 2, 3, True), case=("#never-recorded", OMIT), revising=False)
@example(envelope=Envelope("t", 2, 3, True), case=("@never-recorded", 0), revising=False)
@example(envelope=Envelope("t", 2, 3, True), case=("never-recorded", OMIT), revising=True)
def test_silent_branch_miss(
    server: ServerSession, envelope: Envelope, case: tuple[JSON | Omitted, JSON | Omitted], revising: bool
) -> None:
    """A branchId without a truthy branchFromThought (or the reverse) is retained as a plain thought: no
    label, no error, and an answer indistinguishable from a call that never mentioned a branch. A revision
    carrying a label is missed alike: the original files only where branchFromThought is truthy, where a
    fork filing revisions under their label (held-out-multi-14's branch-workspaces) was never sent one."""
    branch_id, branch_from = case
    revision: dict[str, JSON] = {}
    if revising:
        earlier = envelope.thought_number - 1
        revision = {"isRevision": True, **({"revisesThought": earlier}
                                           if isinstance(earlier, int) and earlier >= 1 else {})}
    before = store(server.call(envelope.arguments()))
    missed = server.call(envelope.arguments(branchId=branch_id, branchFromThought=branch_from, **revision))
    after = store(missed)
    assert after.branches == before.branches, (
        f"label appeared: branches {brief(list(after.branches))}, not {brief(list(before.branches))}"
        + (f", after a revision (isRevision true) carrying branchId {brief(branch_id)} and no "
           f"branchFromThought, which the original never files" if revising else ""))
    expect_one_more(before.history_length, after.history_length, describe(missed), call=missed)
    plain, miss = answer_status(server.call(envelope.arguments())), answer_status(missed)
    plain.pop("thoughtHistoryLength")
    miss.pop("thoughtHistoryLength")
    expect_alike(miss, plain, "for the same call without a label", lambda: (
        f"the miss was signalled: {brief(miss)}, where the same call without a label answers {brief(plain)}"))


@evidences("OBJ-3/a1")
@relies_on("RTE-3", "RTE-5", "OBJ-4", "RTE-6", "RTE-7", "OBJ-3", "OBJ-4/a1")
@given(envelope=envelopes, label=branch_labels, more=st.lists(thought_texts, min_size=1, max_size=4))
def test_bucket_contents_never_returned(
    label_server: LabelServer, envelope: Envelope, label: str, more: list[str]
) -> None:
    """Thoughts added to an existing bucket change nothing in the answer but the count: the key set is
    consumed, the bucket's elements never are."""
    first_exchange = label_server.call(envelope.arguments(branchId=label, branchFromThought=1))
    first, count = answer_status(first_exchange), store(first_exchange).history_length
    for index, text in enumerate(more, start=1):
        again = Envelope(text, envelope.thought_number, envelope.total_thoughts, envelope.next_thought_needed)
        exchange = label_server.call(again.arguments(branchId=label, branchFromThought=1))
        got = store(exchange).history_length
        expect_count(got, count + index, (
            f"thoughtHistoryLength is {got} after {index} more thought(s) filed under {brief(label)}, not "
            f"{count + index}: {describe(exchange)}"))
        status = answer_status(exchange)
        status.pop("thoughtHistoryLength")
        expected = dict(first)
        expected.pop("thoughtHistoryLength")
        expect_alike(status, expected, "in the label's first answer",
                     f"answer changed with bucket contents: {brief(status)}, not {brief(expected)}")


@evidences("OBJ-4/a1")
@relies_on("RTE-3", "RTE-5", "OBJ-4", "RTE-6")
@given(labels=st.lists(branch_labels, min_size=1, max_size=8, unique=True))
@example(labels=["😀 astral", " ", "tab\there", "line\nbreak", "\u0000nul", "é"])
@example(labels=["long-" + "x" * 300, "y" * 5000])
@example(labels=list(TRUNK_NAMES))
def test_labels_return_verbatim_and_accumulate(label_server: LabelServer, labels: list[str]) -> None:
    """Each label comes back as the exact caller string; the set never shrinks, with no cap or discard."""
    previous: set[str] = set(label_server.probe().branches)
    for label in labels:
        branches = store(
            label_server.call(Envelope("t", 1, 1, True).arguments(branchId=label, branchFromThought=1))
        )
        current = set(branches.branches)
        other = respelled(label, branches.branches)
        assert label in current, (
            f"branchId {brief(label)} is listed respelled, as {brief(other[0])}, where the original lists "
            "the caller's string as sent" if other else
            f"branchId {brief(label)} is not among the labels answered verbatim, where the original files "
            "the "
            f"caller's string as sent: branches reads {brief(list(branches.branches), 400)}")
        assert previous <= current, (
            f"labels answered before are gone: {brief(sorted(previous - current))}, where the original never "
            f"drops one")
        assert len(branches.branches) == len(current), "a label is listed twice"
        previous = current


@evidences("OBJ-3", "OBJ-4/a1")
@relies_on("RTE-3", "RTE-5", "OBJ-4", "RTE-6")
@given(specs=st.lists(label_specs.filter(lambda spec: spec[0] != "empty"), min_size=2, max_size=6))
@example(
    specs=[("text", "zeta"), ("index", 10), ("index", 2), ("beyond-index", 0), ("index", 0), ("text", "01")]
)
def test_labels_in_object_keys_order(
    label_server: LabelServer, specs: list[tuple[LabelKind, str | int]]
) -> None:
    """Labels are the map's keys as Object.keys lists them: integer-like keys ascending, then insertion
    order."""
    space = LabelSpace()
    model = StoreModel.from_state(label_server.probe())
    for spec in specs:
        arguments = Envelope("t", 1, 1, True).arguments(branchId=space.name(spec), branchFromThought=1)
        exchange = label_server.call(arguments)
        model.accept(arguments)
        found = store(exchange)
        if found.branches != model.labels:  # a label respelled or reordered, OBJ-4/a1; one lost, OBJ-3
            raise Contradiction(model.labels_record(found.branches), (
                f"{model.unlike(StoreState(model.count, found.branches), 'the answer')}, where the original "
                "lists labels as Object.keys does (integer-like keys ascending, then insertion order): "
                f"{describe(exchange)}"))


_non_string_ids: st.SearchStrategy[JSON] = st.one_of(
    st.integers(min_value=-(10**6), max_value=10**6).filter(bool),
    st.floats(allow_nan=False, allow_infinity=False).filter(bool),
    st.just(True),
    st.lists(st.integers(min_value=0, max_value=99), min_size=1, max_size=3),
    st.just({}),
)


@evidences("OBJ-4/a1")
@relies_on("RTE-3", "RTE-5", "OBJ-4", "RTE-6", "BAP-4/a1")
@given(branch_id=_non_string_ids)
@example(branch_id=7)
@example(branch_id=[1, 2])
def test_non_string_labels_return_as_property_keys(label_server: LabelServer, branch_id: JSON) -> None:
    """OBJ-4/a1 calls the returned tokens the exact strings the caller supplied; a branchId of another JSON
    type (unvalidated, BAP-4/a1) comes back as its property key, String(value), and the string spelling of
    that key names the same label: the label set does not grow."""
    key = js_string(branch_id)
    labelled = Envelope("t", 1, 1, True).arguments(branchId=branch_id, branchFromThought=1)
    exchange = label_server.call(labelled)
    labels = store(exchange).branches
    assert key in labels, (
        f"branchId {brief(branch_id)} was not filed under its property key {brief(key)}, as the original "
        "files "
        f"it: branches reads {brief(list(labels))}")
    again = store(label_server.call(Envelope("t", 1, 1, True).arguments(branchId=key, branchFromThought=1)))
    assert again.branches == labels, (
        f"branchId {brief(key)} as a string made another label: branches reads {brief(list(again.branches))} "
        f"after {brief(list(labels))}, where the original files it under the same key")
