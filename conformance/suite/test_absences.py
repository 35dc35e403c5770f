"""Evidenced absences, observed: no retrieval (ABS-2), no evaluator (ABS-3, ABS-3/a1), label-only revision
(ABS-6), needsMoreThoughts unused (ABS-7), no filtering (ABS-9), no scheduler (ABS-10), no referential
integrity (ABS-12)."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from typing import Final

from hypothesis import example, given
from hypothesis import strategies as st

from conformance.calls.advertised import advertised_values, served_properties
from conformance.calls.listed import listed_reads
from conformance.calls.probes import (
    DECLARED_ARGUMENT,
    DECLARED_EXTRAS_MAX,
    RANGE_PLACES,
    UNDECLARED_ARGUMENTS,
    argued_examples,
    declared_values,
    probe_examples,
)
from conformance.calls.strategies import (
    OPTIONAL,
    REQUIRED,
    Envelope,
    content_texts,
    envelopes,
    exact_examples,
    json_values,
    optional_values,
    small_positive_integers,
)
from conformance.catalog.corpus import default_corpus
from conformance.catalog.records import evidences, relies_on
from conformance.core.differences import quoted, refusal
from conformance.core.js import js_truthy
from conformance.core.jsontypes import JSON, Omitted
from conformance.drivers.errors import ServerTimeout
from conformance.drivers.transcript import decode
from conformance.suite.answers import (
    STATUS_KEYS,
    accepted,
    accepted_if_host_valid,
    answer_status,
    assert_content_independent,
    describe,
    expect_count,
    expect_one_more,
    fields_unlike,
    reanswered,
    rejected,
    store,
    without_count,
)
from conformance.suite.coercion import total_record
from conformance.suite.contradiction import Contradiction, brief, expect, while_idle
from conformance.suite.render_box import drawn_box, expect_render, expect_rendered_alike, only_box
from conformance.suite.session import LabelServer, ServerSession
from conformance.suite.store_model import StoreModel

READ_BACK: Final[dict[str, JSON]] = {
    "includeHistory": True, "history": True, "returnHistory": True, "includeThoughts": True, "verbose": True,
}


@evidences("ABS-2")
@relies_on("RTE-3", "OBJ-4", "RTE-7", "RTE-1")
@given(envelope=envelopes, later=st.lists(envelopes, min_size=1, max_size=3))
@probe_examples(later=[Envelope("later", 1, 1, True)])
def test_no_route_returns_a_stored_thought(
    server: ServerSession, envelope: Envelope, later: list[Envelope]
) -> None:
    """A retained thought never comes back: not in its own answer, later answers, a call asking for the
    history, tools/list or any other method a client might try."""
    marker = f"{envelope.thought} ⟦{uuid.uuid4().hex}⟧"
    own = server.call(
        Envelope(
            marker, envelope.thought_number, envelope.total_thoughts, envelope.next_thought_needed
        ).arguments()
    )
    accepted(own)
    answers = [own] + [server.call(e.arguments()) for e in later]
    answers.append(server.call({"thought": ""}))
    answers.append(server.call(envelope.arguments(), name="recall"))
    # The opt-in flags a fork adding a read-back would take: none is an argument of the original.
    answers.append(server.call({**envelope.arguments(), **READ_BACK}))
    answers.append(
        server.call(Envelope("t", 1, 1, True).arguments(branchId="__proto__", branchFromThought=1))
    )
    # What the server lists is read before the guessed routes: a failure there is shown by its own request.
    token = marker.rsplit("⟦", 1)[1].rstrip("⟧")  # ASCII: found however a listed read escapes the text
    for read in listed_reads(server.wire):
        assert token not in json.dumps(read.exchange.response), (
            f"{read.said()} quotes the stored thought {brief(marker)}, where the original offers no resource "
            f"or prompt (its capabilities hold tools alone): {brief(read.exchange.response)}")
    answers.append(server.wire.list_tools())
    for method in ("resources/list", "prompts/list", "resources/read", "completion/complete"):
        answers.append(server.wire.request(method, {"uri": "thought://1"}))
    for exchange in answers:
        assert marker not in json.dumps(exchange.response, ensure_ascii=False), (
            f"an answer quotes the stored thought {brief(marker)}, where no route of the original returns "
            "one: "
            f"{describe(exchange)}")


@evidences("ABS-3")
@relies_on("RTE-3", "RTE-5", "OBJ-4", "RTE-7")
@given(envelope=envelopes, first=content_texts, second=content_texts)
@example(
    envelope=Envelope("x", 2, 3, True),
    first="Hypothesis: 2 + 2 = 5.",
    second="Verification: the hypothesis is false.",
)
@example(envelope=Envelope("x", 2, 3, False), first="Is the hypothesis right?", second="It is right.")
@probe_examples(first="Hypothesis: the plan holds.", second="Verification: the plan does not hold.")
def test_answers_do_not_depend_on_content(
    server: ServerSession, envelope: Envelope, first: str, second: str
) -> None:
    """Two calls that differ only in what the thought says get the same answer, bar the count."""
    assert_content_independent(server, envelope, first, second)


@evidences("ABS-3", "CMP-5")
@relies_on("RTE-3", "OBJ-4", "RTE-7", "RTE-9", "RTE-9/a1", "RTE-4")
def test_every_corpus_step_is_content_free(server: ServerSession) -> None:
    """Every step of the reasoning corpus (hypotheses, checks, "wait, let me reconsider", "thus", "final
    answer", "QED", in several languages and casings), sent once: the answer equals a plain control's bar
    the count, the count grows by one, and the box is exactly the one the render rules give. When neither
    the control nor the step draws anything (the render switched off), there is no render to compare: that
    is the render records' departure, on their own checks, not ABS-3's (issue 47)."""
    envelope = Envelope("control", 2, 3, True)
    plain = server.call(envelope.arguments())
    control = without_count(plain)
    silent = drawn_box(plain) is None
    for step in default_corpus().steps:
        arguments = Envelope(step.text, 2, 3, True).arguments()
        exchange = server.call(arguments)
        where = f"{step.chain}[{step.index}] {brief(step.text)}"
        assert without_count(exchange) == control, reanswered(
            control, without_count(exchange), f"for the corpus step {where} in place of “control”")
        drew = drawn_box(exchange) is not None
        assert drew != silent, (
            f"{where} " + ("drew a box where the control drew none" if drew
                           else "drew nothing where the control drew a box")
            + ": the render depends on what the thought says")
        if drew:
            expect_render(exchange, arguments, server)


@evidences("ABS-2/a1")
@relies_on("RTE-3", "RTE-5", "OBJ-4", "RTE-6", "OBJ-3", "ABS-2", "OBJ-4/a1")
@given(
    envelope=envelopes,
    label=st.text(alphabet="uvw", min_size=1, max_size=3),
    repeats=st.integers(min_value=2, max_value=4),
)
def test_reused_label_files_into_one_bucket(
    label_server: LabelServer, envelope: Envelope, label: str, repeats: int
) -> None:
    """Re-using a label keeps one entry for it in branches, counts every thought, and returns no bucket
    content."""
    branch_id = f"reuse-{label}"
    start = label_server.probe().history_length
    for index in range(1, repeats + 1):
        marker = f"⟦bucket {uuid.uuid4().hex}⟧ {envelope.thought}"
        filed = Envelope(
            marker, envelope.thought_number, envelope.total_thoughts, envelope.next_thought_needed
        )
        exchange = label_server.call(filed.arguments(branchId=branch_id, branchFromThought=index))
        state = store(exchange)
        assert state.branches.count(branch_id) == 1, (
            f"branches lists {brief(branch_id)} {state.branches.count(branch_id)} time(s) after {index} "
            "call(s) filed "
            f"under it, where the original keeps one entry per label: {brief(list(state.branches))}")
        expect_count(state.history_length, start + index, (
            f"thoughtHistoryLength is {state.history_length} after {index} calls filed under {branch_id!r} "
            f"from {start}, not {start + index}: {describe(exchange)}"))
        assert marker not in json.dumps(exchange.response, ensure_ascii=False), (
            f"the answer to a call filed under {branch_id!r} quotes its thought {marker!r}: "
            f"{describe(exchange)}")


@evidences("OBJ-13")
@relies_on("RTE-3", "OBJ-4", "RTE-9")
@given(
    envelope=envelopes,
    extra=st.fixed_dictionaries(
        {},
        optional={
            "hypothesis": content_texts,
            "verified": st.booleans(),
            "solutionHypothesis": content_texts,
            "hypothesisVerified": st.booleans(),
            "answer": content_texts,
        },
    ),
)
@argued_examples(UNDECLARED_ARGUMENTS, lambda argued: {"envelope": argued.probe.envelope,
                                                       "extra": dict(argued.extra)})
def test_no_hypothesis_object(server: ServerSession, envelope: Envelope, extra: dict[str, JSON]) -> None:
    """No schema property names a hypothesis; extra hypothesis arguments change neither answer nor render.
    Before its search, each argument forks add (a session, a thought's kind, tags: calls/probes.py's
    UNDECLARED_ARGUMENTS), so a fork reading one departs here under every seed."""
    tools = server.wire.list_tools().result
    assert tools is not None, "tools/list answered no result"
    properties = json.loads(json.dumps(tools.get("tools")))[0]["inputSchema"]["properties"]
    assert not [p for p in properties if "hypothes" in p.lower()], (
        "the inputSchema has a hypothesis property, "
        f"{', '.join(p for p in properties if 'hypothes' in p.lower())}, "
        f"where the original's nine properties name none")
    plain = server.call(envelope.arguments())
    marked = server.call({**envelope.arguments(), **extra})
    assert without_count(plain) == without_count(marked), reanswered(
        without_count(plain), without_count(marked), f"for the same call with {brief(extra)} added")
    expect_rendered_alike(plain, marked, f"for the same call with {brief(extra)} added")


def _declared_extras(server: ServerSession) -> Mapping[str, object]:
    """The served inputSchema's properties the original does not declare (a schema is the server's data:
    anything but an object of objects reads as none), at most DECLARED_EXTRAS_MAX in name order. Under
    --arguments-map the target's names of the original's (`thought-number`) are those nine, not extras."""
    properties = served_properties(server.wire.list_tools().result)
    own = {*REQUIRED, *OPTIONAL, *server.target.renames.values()}
    extras = sorted(name for name in properties if name not in own)
    return {name: properties[name] for name in extras[:DECLARED_EXTRAS_MAX]}


def _values_at(schema: object, place: str) -> list[JSON]:
    """The values sent for an extra property at `place`: its declared range's (declared_values), and at the
    top of its range every value its schema advertises besides (an enum's middle entries, a const, a
    default, a `oneOf` branch: calls/advertised.py)."""
    values = declared_values(schema, place)
    if place == RANGE_PLACES[1]:
        values += [value for value in advertised_values(schema) if value not in values]
    return values


def _declared_argument_changes_nothing(server: ServerSession, place: str) -> None:
    """Each extra property the served schema declares, sent with a value at `place` of its declared range
    beside a call the original accepts: answered (RTE-3 names a refusal, RTE-4/a1 or RTE-4 a total moved:
    `accepted`) and drawn as the same call without it (else OBJ-13, named whichever record the check
    evidences), as the original treats every argument it does not read."""
    envelope = DECLARED_ARGUMENT.envelope
    for name, schema in _declared_extras(server).items():
        for value in _values_at(schema, place):
            extra = {name: value}
            plain = server.call(envelope.arguments())
            marked = server.call({**envelope.arguments(), **extra})
            calls = (f"for the same call with {brief(extra)} added ({name} {place}, as the served schema "
                     f"declares it)")
            one, two = without_count(plain), without_count(marked)
            if one.get("totalThoughts") != two.get("totalThoughts"):  # a total the two numbers do not give
                sent = {**envelope.arguments(), **extra}
                record = total_record(server, sent, two.get("totalThoughts"))
                expect(record, False, reanswered(one, two, calls))
            expect("OBJ-13", one == two, reanswered(one, two, calls))
            try:
                expect_rendered_alike(plain, marked, calls)
            except Contradiction:
                raise
            except AssertionError as redrawn:
                expect("OBJ-13", False, f"drawn otherwise: {redrawn}")


# Each place is its own check, evidencing the record its change is most likely to contradict, so that one
# fork's three changes (held-out-multi-9's confidence-scores: a refusal past the range, a total moved below
# 0.5, the value boxed) depart under three records, not as three failures of OBJ-13 grouped under one.


@evidences("RTE-4/a1")
@relies_on("RTE-3", "RTE-4", "OBJ-4", "OBJ-13", "RTE-9", "LOOP-A")
def test_an_extra_declared_argument_low_in_its_range_changes_nothing(server: ServerSession) -> None:
    """A fork that declares an argument and acts on part of its range (a confidence below 0.5 planning one
    more thought) departs here, whatever the seed: the total is no longer the two numbers' alone."""
    _declared_argument_changes_nothing(server, RANGE_PLACES[0])


@evidences("OBJ-13")
@relies_on("RTE-3", "RTE-4", "RTE-4/a1", "OBJ-4", "RTE-9", "LOOP-A")
def test_an_extra_declared_argument_at_the_top_of_its_range_changes_nothing(server: ServerSession) -> None:
    """A fork drawing a declared argument in its box (" · confidence 100%") departs here."""
    _declared_argument_changes_nothing(server, RANGE_PLACES[1])


@evidences("RTE-3")
@relies_on("RTE-4", "RTE-4/a1", "OBJ-4", "OBJ-13", "RTE-9", "LOOP-A")
def test_an_extra_declared_argument_past_its_range_changes_nothing(server: ServerSession) -> None:
    """A fork refusing a value out of the range its schema declares (a confidence of 1.5) departs here: the
    original accepts a call whatever it carries beyond the nine fields (RTE-3)."""
    _declared_argument_changes_nothing(server, RANGE_PLACES[2])


REFUSED_BESIDE: Final[dict[str, JSON]] = {**DECLARED_ARGUMENT.envelope.arguments(), "thought": ""}
"""The refused call an extra declared argument is sent beside: the first guard refuses it on any process."""


@evidences("OBJ-8")
@relies_on("RTE-3", "RTE-3/a1", "OBJ-13", "RTE-8")
def test_an_extra_declared_argument_on_a_refused_call_changes_nothing(server: ServerSession) -> None:
    """Each extra property the served schema declares, sent with every value its schema advertises (or the
    top of its declared range) beside a call the original refuses: refused in the same words and shape as
    the call without it, as the original answers every refusal (OBJ-8's JSON text, isError). A fork that
    answers its failures in markdown for `responseFormat: "markdown"` departs here under every seed, where
    the search sends no refused call carrying it (issue 42, held-out-multi-11's error-markdown-on-request)."""
    for name, schema in _declared_extras(server).items():
        for value in _values_at(schema, RANGE_PLACES[1]):
            extra = {name: value}
            plain = server.call(REFUSED_BESIDE)
            marked = server.call({**REFUSED_BESIDE, **extra})
            words = rejected(plain)
            if not marked.is_error:
                rejected(marked)  # accepted: RTE-3/a1 (the falsy guard); unflagged: OBJ-8; said there
            expect("OBJ-8", marked.result == plain.result and marked.error == plain.error, (
                f"the refusal {quoted(words, 80)} is answered {brief(marked.result)} for the same call with "
                f"{brief(extra)} added ({name}, a value the served schema advertises), where without it "
                f"{brief(plain.result)}: the original answers a refusal alike whatever else the call "
                "carries"))


@evidences("ABS-3/a1")
@relies_on("RTE-3", "OBJ-4", "OBJ-7", "ABS-3")
@given(
    envelope=envelopes,
    marker=st.fixed_dictionaries(
        {},
        optional={
            "hypothesis": st.one_of(content_texts, json_values),
            "isHypothesis": st.booleans(),
            "verifiesHypothesis": small_positive_integers,
            "verification": st.one_of(content_texts, st.booleans()),
            "isVerification": st.booleans(),
            "conclusion": content_texts,
        },
    ),
)
def test_no_representable_hypothesis(
    server: ServerSession, envelope: Envelope, marker: dict[str, JSON]
) -> None:
    """The schema has no hypothesis or verification field, and sending one changes nothing."""
    tools = server.wire.list_tools().result
    assert tools is not None, "tools/list answered no result"
    schema_text = json.dumps(tools.get("tools"))
    properties = json.loads(schema_text)[0]["inputSchema"]["properties"]
    named = [p for p in properties if re.search(r"hypothes|verif|conclu", p, re.I)]
    assert not named, (
        f"the inputSchema has {', '.join(named)}, a hypothesis, verification or conclusion property, where "
        "the "
        f"original's nine properties name none")
    plain = server.call(envelope.arguments())
    marked = server.call({**envelope.arguments(), **marker})
    assert without_count(plain) == without_count(marked), reanswered(
        without_count(plain), without_count(marked), f"for the same call with {brief(marker)} added")


@evidences("ABS-6")
@relies_on("RTE-3", "RTE-5", "OBJ-4", "RTE-9")
@given(
    envelope=envelopes,
    is_revision=st.one_of(st.just(True), optional_values),
    revises=st.one_of(small_positive_integers, optional_values),
)
# The revisions sent with isRevision true (the boolean) first: what every fork's revision handling sees, so a
# key such a revision alone is answered with is read before a truthy lookalike fails on another change.
@exact_examples("revisesThought", param="revises", envelope=Envelope("t", 5, 3, True), is_revision=True)
@exact_examples("isRevision", param="is_revision", envelope=Envelope("t", 5, 3, False), revises=1)
def test_revision_is_a_label_only(
    server: ServerSession, envelope: Envelope, is_revision: JSON | Omitted, revises: JSON | Omitted
) -> None:
    """A revision supersedes nothing, whatever isRevision and revisesThought hold: the count still grows by
    one, the answer equals a plain call's, and only the render's caption changes (to Revision when
    isRevision is truthy). A server may refuse schema-invalid values (RTE-3's business, not this record's)."""
    plain = server.call(envelope.arguments())
    arguments = envelope.arguments(isRevision=is_revision, revisesThought=revises)
    revision = server.call(arguments)
    answered = accepted_if_host_valid(revision, arguments)
    if answered is None:
        return
    # Read before the count: a key only a revision's answer carries is OBJ-4's change, which a count the same
    # fork also changed would hide (held-out-multi-10's revision-ledger: `revisionsOfThought` was read by no
    # check, this one failing first on the count).
    plain_keys = set(accepted(plain))
    extra = [key for key in answered if key not in STATUS_KEYS and key not in plain_keys]
    expect("OBJ-4", not extra, lambda: (
        f"a revision's answer carries {', '.join(extra)} beside the five keys, which the same call without "
        f"isRevision is not answered with; the original answers a revision with the five: "
        f"{describe(revision)}"))
    expect_one_more(store(plain).history_length, store(revision).history_length, describe(revision),
                    call=revision)
    assert without_count(plain) == without_count(revision), reanswered(
        without_count(plain), without_count(revision),
        f"for the same call with isRevision {brief(is_revision)} and revisesThought {brief(revises)}")
    if drawn_box(plain) is None and drawn_box(revision) is None:
        return  # nothing drawn at all (DISABLE_THOUGHT_LOGGING): the render records' to judge, not this one
    assert only_box(plain).kind != "Revision", (
        f"a plain call drew a Revision box: {quoted(only_box(plain).header)}")
    shows_revision = "🔄 Revision " in decode(revision.stderr)  # revisesThought may break the caption's line
    assert shows_revision is js_truthy(is_revision), (
        f"the box's caption {'is' if shows_revision else 'is not'} “🔄 Revision” for isRevision "
        f"{brief(is_revision)}, where it is exactly when isRevision is truthy")


@evidences("ABS-7")
@relies_on("RTE-3", "OBJ-4", "RTE-9", "CMP-5")
@given(envelope=envelopes, needs_more=optional_values)
@exact_examples("needsMoreThoughts", param="needs_more", envelope=Envelope("t", 5, 3, False))
@example(envelope=Envelope("t", 1, 1, False), needs_more=True)
@probe_examples(needs_more=True)
def test_needs_more_thoughts_changes_nothing(
    server: ServerSession, envelope: Envelope, needs_more: JSON | Omitted
) -> None:
    """needsMoreThoughts, of any value or type, leaves the answer and the render unchanged. A call refused
    without it is no pair to compare; one refused only with it, the same call accepted again right after
    without it, is refused for the flag (a final thought needing more refused: held-out-multi-13's
    strict-relations), not for a rule over the calls before it (a thought numbered past the last one)."""
    plain = server.call(envelope.arguments())
    if plain.error is not None or plain.is_error:
        return  # the call's own refusal is the guards' checks' to judge, not the flag's
    flagged = server.call(envelope.arguments(needsMoreThoughts=needs_more))
    flag = "left out" if isinstance(needs_more, Omitted) else brief(needs_more)
    refused = refusal(flagged.response)
    if refused is not None:
        again = server.call(envelope.arguments())
        if again.error is not None or again.is_error:
            return  # refused again without the flag: the calls before it decided, not the flag
        expect("ABS-7", False, f"the call with needsMoreThoughts {flag} is refused, {quoted(refused.words)} "
               f"({refused.kind}), where the same call without it is accepted before and after: "
               "needsMoreThoughts is read, where the original reads it nowhere and accepts both alike")
    assert without_count(plain) == without_count(flagged), reanswered(
        without_count(plain), without_count(flagged), f"for the same call with needsMoreThoughts {flag}")
    expect_rendered_alike(plain, flagged, f"for the same call with needsMoreThoughts {flag}")


@evidences("ABS-9")
@relies_on("RTE-3", "RTE-5", "OBJ-4", "RTE-6", "RTE-7")
@given(
    texts=st.lists(
        st.one_of(
            content_texts,
            st.sampled_from(
                [
                    "Irrelevant: the weather is nice today.",
                    "lorem ipsum " * 200,
                    "(noise - please filter this out)",
                    "duplicate",
                ]
            ),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_nothing_is_filtered_or_condensed(server: ServerSession, texts: list[str]) -> None:
    """Whatever the thoughts say - irrelevant, repeated, long - every answer keeps the five fields, every
    thought is counted, and tools/list is unchanged by the history."""
    before = server.wire.list_tools().result
    model = StoreModel.from_state(server.probe())
    for text in texts:
        arguments = Envelope(text, 1, 1, True).arguments()
        exchange = server.call(arguments)
        model.accept(arguments)
        assert list(accepted(exchange)) == [
            "thoughtNumber",
            "totalThoughts",
            "nextThoughtNeeded",
            "branches",
            "thoughtHistoryLength",
        ], (
            f"for the call with thought {brief(text, 80)}, "
            f"{fields_unlike(list(accepted(exchange)), STATUS_KEYS)}: {describe(exchange)}")
        found = store(exchange)
        model.expect_state(found, f"the call with thought {brief(text, 80)}")
    after = server.wire.list_tools().result
    assert after == before, (f"tools/list answered {brief(after)} after {len(texts)} accepted calls, "
                             f"not {brief(before)} as before them")


@evidences("ABS-10")
@relies_on("RTE-3", "OBJ-4")
@given(envelope=envelopes)
@probe_examples()
def test_no_scheduler(server: ServerSession, envelope: Envelope) -> None:
    """nextThoughtNeeded is echoed unchanged, the server sends nothing unprompted, and a call after
    nextThoughtNeeded: false is accepted like any other."""
    status = accepted(server.call(envelope.arguments()))
    assert status.get("nextThoughtNeeded") is envelope.next_thought_needed, (
        f"nextThoughtNeeded is {brief(status.get('nextThoughtNeeded'))} for "
        f"{brief(envelope.next_thought_needed)} sent")
    ended = accepted(server.call(Envelope("done", 1, 1, False).arguments()))
    assert ended.get("nextThoughtNeeded") is False, (
        f"nextThoughtNeeded is {brief(ended.get('nextThoughtNeeded'))} for false sent")
    accepted(server.call(Envelope("after the end", 2, 1, True).arguments()))


IDLE: Final = 1.5
"""How long the server is watched between calls: longer than a once-a-second timer's period."""


@evidences("ABS-10")
@relies_on("RTE-3", "OBJ-4")
def test_nothing_arrives_between_calls(server: ServerSession) -> None:
    """Idle for a while after a call that asks for more thoughts: no timer, no continuation, no message on
    stdout and nothing on stderr (a heartbeat, a status line)."""
    accepted(server.call(Envelope("more needed", 1, 5, True).arguments(needsMoreThoughts=True)))
    wire = server.wire
    mark = wire.stderr_mark()
    try:
        unsolicited: dict[str, JSON] | None = wire.read_message(timeout=IDLE)
    except ServerTimeout:
        unsolicited = None
    with while_idle(IDLE):
        assert unsolicited is None, (
            f"the server sent {brief(unsolicited)} unprompted, where the original sends nothing between "
            f"calls")
        written = decode(wire.stderr_since(mark))
        expect("ABS-10", not written.strip(),
               lambda: f"idle {IDLE} s after a call, the server wrote {quoted(written, 300)} to stderr, "
                       f"where the original writes nothing between calls")


@evidences("ABS-12")
@relies_on("RTE-3", "RTE-5", "OBJ-4", "OBJ-8", "RTE-6", "OBJ-4/a1")
@given(
    envelope=envelopes,
    offset=st.integers(min_value=1, max_value=10**9),
    label=st.text(alphabet="pqr", min_size=1, max_size=3),
)
@example(envelope=Envelope("t", 1, 1, True), offset=10**9, label="p")
def test_pointers_are_never_checked(
    label_server: LabelServer, envelope: Envelope, offset: int, label: str
) -> None:
    """revisesThought and branchFromThought may point past every retained thought: accepted, and the branch
    label is recorded all the same."""
    model = StoreModel.from_state(label_server.probe())
    beyond = model.count + offset
    revision = envelope.arguments(isRevision=True, revisesThought=beyond)
    _check(label_server, model, revision)
    branch = envelope.arguments(branchFromThought=beyond, branchId=f"dangling-{label}")
    _check(label_server, model, branch)
    assert f"dangling-{label}" in model.labels, (
        f"the harness's model did not file branchId 'dangling-{label}': its labels are "
        f"{brief(list(model.labels))}")
    revised = label_server.call(envelope.arguments(isRevision=True, revisesThought=beyond))
    status = answer_status(revised)
    assert "error" not in status, (
        f"revisesThought={beyond} past every retained thought was refused: {describe(revised)}")


def _check(server: ServerSession | LabelServer, model: StoreModel, arguments: dict[str, JSON]) -> None:
    model.after_accepted(server.call(arguments), arguments)
