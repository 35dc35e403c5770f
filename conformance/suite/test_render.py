"""The stderr render (CMP-5, RTE-9, RTE-9/a1, OBJ-6, OBJ-9): one box per accepted thought, on stderr only,
coloured as the start environment says."""

from __future__ import annotations

import contextlib
import json
import os
import time

from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st
from syrupy.assertion import SnapshotAssertion

from conformance.calls.probes import REVISION_STRINGS, RIGHT_TO_LEFT, argued_examples, probe_examples
from conformance.calls.strategies import (
    UNNORMALIZED,
    Envelope,
    adversarial_envelopes,
    envelopes,
    exact_examples,
    falsy_values,
    json_values,
    optional_values,
    raw_arguments,
    secret_texts,
    single_line_strings,
    small_positive_integers,
    terminal_texts,
    thought_texts,
)
from conformance.catalog.corpus import StartEnvironment, start_environments
from conformance.catalog.records import evidences, relies_on
from conformance.core.differences import quoted
from conformance.core.js import js_number_string, js_truthy
from conformance.core.jsontypes import JSON, OMIT, Omitted
from conformance.core.protocol import PROTOCOL_VERSION, TOOL
from conformance.core.served import read_served
from conformance.drivers.ending import END_LIMIT, end_bound
from conformance.drivers.errors import TooSlow
from conformance.drivers.transcript import decode
from conformance.drivers.wire import Exchange, boxes_complete
from conformance.suite.answers import accepted, accepted_if_host_valid, answered_ok, describe
from conformance.suite.contradiction import Contradiction, brief, expect
from conformance.suite.jsvalues import js_string
from conformance.suite.profiles import Profile
from conformance.suite.rawproc import RawPool, RawServer
from conformance.suite.render_box import ANSI, boxes, expect_render, js_length, only_box, redrawn
from conformance.suite.session import ServerSession, Spare
from conformance.suite.snapshots import differs_from_original
from conformance.targets.specs import Target


def _sent(value: JSON | Omitted) -> str:
    """A field's value as sent, or that it was left out."""
    return "left out" if value is OMIT else brief(value)


_small_labels = st.text(alphabet="rst", min_size=1, max_size=3)


@evidences("CMP-5")
@relies_on("RTE-3", "RTE-9", "RTE-6/a1", "RTE-4")
@given(
    envelope=st.one_of(envelopes, adversarial_envelopes),
    flags=st.fixed_dictionaries(
        {
            "isRevision": st.one_of(st.just(OMIT), st.booleans(), falsy_values, st.just("banana")),
            "revisesThought": st.one_of(st.just(OMIT), small_positive_integers, json_values),
            "branchFromThought": st.one_of(st.just(OMIT), small_positive_integers, falsy_values),
            "branchId": st.one_of(st.just(OMIT), _small_labels),
        }
    ),
)
@example(envelope=Envelope("a thought far longer than its header line", 1, 2, True), flags={})
@example(envelope=Envelope("short", 12, 3, True), flags={"isRevision": True, "revisesThought": 2})
@example(envelope=Envelope("😀 astral 𝔘", 1, 1, True), flags={"branchFromThought": 1, "branchId": "rs"})
@example(envelope=Envelope("two\nlines", 1, 1, False), flags={})
# The caption's interpolated fields absent, null or empty: the original writes String() of each ("undefined",
# "null", "") where a fork might drop the part or write it otherwise.
@example(envelope=Envelope("branch, no id", 2, 3, True), flags={"branchFromThought": 1})
@example(envelope=Envelope("branch, null id", 2, 3, True), flags={"branchFromThought": 1, "branchId": None})
@example(envelope=Envelope("branch, empty id", 2, 3, True), flags={"branchFromThought": 1, "branchId": ""})
@example(envelope=Envelope("revision, null target", 2, 3, True),
         flags={"isRevision": True, "revisesThought": None})
@example(envelope=Envelope("revision, no target", 2, 3, True), flags={"isRevision": True})
@probe_examples(flags={})
def test_box_format(server: ServerSession, envelope: Envelope, flags: dict[str, JSON | Omitted]) -> None:
    """Exactly "\\n┌B┐\\n│ H │\\n├B┤\\n│ T │\\n└B┘\\n": header by label rules, border max(|H|, |thought|) + 4
    in UTF-16 units, the thought right-padded to the border less two."""
    arguments = envelope.arguments(**flags)
    exchange = server.call(arguments)
    _rendered_if_accepted(exchange, arguments, server)


def _rendered_if_accepted(
    exchange: Exchange, arguments: dict[str, JSON], server: ServerSession, host_valid: bool = True
) -> None:
    """The render of an accepted call, checked against the records. The box is this check's own subject: when
    acceptance fails only on the answer's shape (OBJ-4: a status key renamed or dropped, the call answered
    all the same), the box is still read and a render departure is named before the shape's (a fork that
    renames a key and stamps the header with the time changes both); a box drawn right leaves the shape's
    failure standing."""
    try:
        status = accepted_if_host_valid(exchange, arguments) if host_valid else accepted(exchange)
    except Contradiction as shape:
        if shape.record != "OBJ-4" or not answered_ok(exchange):
            raise
        expect_render(exchange, arguments, server)
        raise
    if status is not None:
        expect_render(exchange, arguments, server)


@evidences("RTE-9", "OBJ-6")
@relies_on("RTE-3", "CMP-5", "OBJ-8")
@given(arguments=st.one_of(envelopes.map(lambda e: e.arguments()), raw_arguments))
@example(arguments={"thought": "", "nextThoughtNeeded": False, "totalThoughts": 1, "thoughtNumber": 1})
def test_one_box_per_accepted_call_none_per_rejected(
    server: ServerSession, arguments: dict[str, JSON]
) -> None:
    """An accepted call renders exactly one box; a rejected one renders none; no answer carries box text."""
    exchange = server.call(arguments)
    answer = json.dumps(exchange.response, ensure_ascii=False)
    if accepted_if_host_valid(exchange, arguments) is not None:
        box = only_box(exchange)
        assert box.lines[0] not in answer and box.lines[2] not in answer, (
            f"the answer carries the box's border, where the original's answers never quote the render: "
            f"{brief(exchange.response)}")
    else:
        assert boxes(exchange.stderr) == [], (
            f"a refused call drew {len(boxes(exchange.stderr))} box(es), where the original draws none for a "
            f"refusal: {quoted(decode(exchange.stderr))}")
    assert "┌─" not in answer and "─┘" not in answer, (
        f"the answer carries a box border, where the original's answers never quote the render: "
        f"{brief(exchange.response)}")


@evidences("OBJ-6")
@relies_on("RTE-8/a1", "CMP-5", "RTE-6")
@given(key=st.sampled_from(["__proto__", "constructor", "toString", "valueOf"]))
def test_no_box_for_an_error_answer_after_retention(server: ServerSession, key: str) -> None:
    """Calls answered isError after the append render nothing either."""
    exchange = server.call(Envelope("t", 1, 1, True).arguments(branchId=key, branchFromThought=1))
    assert exchange.is_error, (
        f"a call with branchId {brief(key)} was answered {describe(exchange)}, where the original "
        f"fails it after the append and answers isError")
    assert boxes(exchange.stderr) == [], (
        f"the call with branchId {brief(key)} failed after the append and drew {len(boxes(exchange.stderr))} "
        f"box(es), where the original draws none: {quoted(decode(exchange.stderr))}")


@evidences("RTE-9")
@relies_on("RTE-3", "CMP-5", "RTE-6/a1", "RTE-4")
@given(
    envelope=envelopes,
    revision=st.one_of(st.just(OMIT), falsy_values, st.just(True), st.just("banana")),
    branch_from=st.one_of(st.just(OMIT), falsy_values, small_positive_integers),
)
def test_caption_precedence(
    server: ServerSession, envelope: Envelope, revision: JSON | Omitted, branch_from: JSON | Omitted
) -> None:
    """Revision when isRevision is truthy (branch fields or not), else Branch when branchFromThought is
    truthy, else Thought."""
    arguments = envelope.arguments(isRevision=revision, branchFromThought=branch_from, branchId="caption")
    exchange = server.call(arguments)
    if accepted_if_host_valid(exchange, arguments) is None:
        return
    expected = "Revision" if js_truthy(revision) else "Branch" if js_truthy(branch_from) else "Thought"
    box = only_box(exchange)
    flags = f"isRevision {_sent(revision)} and branchFromThought {_sent(branch_from)}"
    assert box.kind == expected, (
        f"the box's caption is {brief(box.kind)} for {flags}, where the original captions it {expected}: "
        f"{quoted(box.header)}")
    icon = {"Revision": "🔄 ", "Branch": "🌿 ", "Thought": "💭 "}[expected]
    assert box.header.startswith(icon), (
        f"the {expected} box's header begins {quoted(box.header[:len(icon)])}, where the original's begins "
        f"{quoted(icon)}: {quoted(box.header)}")


@evidences("RTE-9/a1", "OBJ-9")
@relies_on("RTE-3", "CMP-5", "RTE-9", "RTE-4")
@given(
    thought=st.one_of(single_line_strings, terminal_texts, secret_texts, st.sampled_from(UNNORMALIZED)),
    number=small_positive_integers,
)
@example(thought="x" * 5000, number=1)
@example(thought=" ".join(UNNORMALIZED), number=1)
@example(thought="the key is sk-proj4Xc9Lq2Zt7Vb1Nm8Rw3Ky6", number=1)
@example(thought="\u001b[31mred\u001b[0m and plain", number=2)
@example(thought="😀 astral 𝔘", number=3)
@example(thought=RIGHT_TO_LEFT.envelope.thought, number=2)
def test_single_line_payload_verbatim(server: ServerSession, thought: str, number: int) -> None:
    """padEnd pads and never truncates: the payload row holds the thought whole, then only spaces, and the
    border covers it."""
    exchange = server.call(Envelope(thought, number, number, True).arguments())
    accepted(exchange)
    box = only_box(exchange)
    row = box.lines[3]
    assert row.startswith("│ " + thought), (
        f"the box's payload row is {brief(row)}, where the thought {brief(thought)} was due verbatim after "
        "“│ ”")
    assert row.removeprefix("│ " + thought).removesuffix(" │").strip(" ") == "", (
        f"the box's payload row is {brief(row)}, where only spaces were due after the thought")
    # The widths are CMP-5's rule (lengths in UTF-16 units), not the verbatim payload's.
    expect("CMP-5", js_length(row) == js_length(box.lines[0]),
           lambda: f"the payload row is {js_length(row)} UTF-16 units wide, the border "
                   f"{js_length(box.lines[0])}: {quoted(box.text, 300)}")
    expect("CMP-5", js_length(box.lines[0]) - 2 >= js_length(thought) + 4,
           lambda: f"the box's border is {js_length(box.lines[0]) - 2} wide for a thought of "
                   f"{js_length(thought)} UTF-16 units, not at least {js_length(thought) + 4}")


@evidences("RTE-9/a1")
@relies_on("RTE-3", "CMP-5", "RTE-9", "RTE-4")
@given(lines=st.lists(single_line_strings, min_size=2, max_size=4))
@example(lines=["line one", "line two is longer"])
def test_multi_line_payload_breaks_the_box(server: ServerSession, lines: list[str]) -> None:
    """A thought with line breaks is written with them inside the content row and a border sized to the whole
    string: the rows no longer line up. (The probes' thought of 64 lines is drawn by CMP-5's box check, which
    carries them; a fork refusing it departs there on RTE-3, not here on this record.)"""
    thought = "\n".join(lines)
    exchange = server.call(Envelope(thought, 1, 1, True).arguments())
    accepted(exchange)
    box = only_box(exchange)
    assert box.body.startswith("│ " + thought), (
        f"the box's content rows read {quoted(box.body)}, where the original writes “│ ” and then the "
        "thought "
        f"{quoted(thought)} with its line breaks")
    border = js_length(box.lines[0]) - 2
    expect("CMP-5", border >= js_length(thought) + 4,
           lambda: f"the box's border is {border} wide for a thought of {js_length(thought)} UTF-16 units "
                   f"(its line breaks included), not at least {js_length(thought) + 4}")
    content_rows = box.lines[3:-1]
    assert len(content_rows) == len(lines), (
        f"a thought of {len(lines)} lines drew {len(content_rows)} content rows: {quoted(box.text, 300)}")
    assert {js_length(r) for r in content_rows} != {js_length(box.lines[0])}, (
        f"every content row is {js_length(box.lines[0])} UTF-16 units wide like the border, where the "
        f"original's rows no longer line up for a thought of {len(lines)} lines: {quoted(box.text, 300)}")


@evidences("RTE-9/a1")
@relies_on("RTE-3", "CMP-5", "RTE-9", "RTE-4")
@given(envelope=envelopes, needs_more=st.one_of(falsy_values, optional_values))
@exact_examples("needsMoreThoughts", param="needs_more", envelope=Envelope("t", 5, 3, False))
def test_render_drops_continuation_flags(
    server: ServerSession, envelope: Envelope, needs_more: JSON | Omitted
) -> None:
    """nextThoughtNeeded and needsMoreThoughts leave no trace in the render."""
    one = server.call(envelope.arguments())
    flipped = Envelope(
        envelope.thought, envelope.thought_number, envelope.total_thoughts, not envelope.next_thought_needed
    ).arguments(needsMoreThoughts=needs_more)
    two = server.call(flipped)
    if accepted_if_host_valid(two, flipped) is None:
        return
    first, second = only_box(one), only_box(two)
    expect("RTE-4/a1", first.written_numbers == second.written_numbers,
           f"the same thoughtNumber and totalThoughts drew {quoted(first.header)}, then "
           f"{quoted(second.header)}: the "
           "total depended on more than the two numbers")
    flag = "left out" if isinstance(needs_more, Omitted) else brief(needs_more)
    assert first.text == second.text, redrawn(
        first, second, f"for the same call with nextThoughtNeeded flipped and needsMoreThoughts {flag}")


@evidences("RTE-9/a1")
@relies_on("RTE-3", "CMP-5", "RTE-9", "BAP-4/a1", "RTE-4")
@given(
    envelope=envelopes,
    truthy=st.one_of(st.sampled_from(["banana", "false", "0", "no", "False"]), st.integers(min_value=1),
                     st.just([]), st.just({})),
    revises=st.one_of(st.just(OMIT), small_positive_integers, st.just("x")),
)
@argued_examples(REVISION_STRINGS, lambda argued: {"envelope": argued.probe.envelope,
                                                   "truthy": argued.extra["isRevision"], "revises": OMIT})
@example(envelope=Envelope("t", 1, 1, True), truthy="banana", revises=OMIT)
def test_caption_trusts_unvalidated_is_revision(
    server: ServerSession, envelope: Envelope, truthy: JSON, revises: JSON | Omitted
) -> None:
    """isRevision "banana" (any truthy non-boolean) renders "🔄 Revision n/m (revising thought r)", r reading
    "undefined" when revisesThought is absent. Strings that read false to a person ("false", "0") are truthy
    too: sent before the search (calls/probes.py's REVISION_STRINGS), so a fork converting them departs under
    every seed."""
    exchange = server.call(envelope.arguments(isRevision=truthy, revisesThought=revises))
    accepted(exchange)
    shown = "undefined" if isinstance(revises, Omitted) else js_string(revises)
    number = js_number_string(float(envelope.thought_number))
    total = js_number_string(float(max(envelope.thought_number, envelope.total_thoughts)))
    wanted = f"🔄 Revision {number}/{total} (revising thought {shown})"
    header = only_box(exchange).header
    assert header == wanted, f"the revision's header is {quoted(header)}, not {quoted(wanted)}"


@evidences("OBJ-9")
@relies_on("RTE-3", "OBJ-4", "RTE-9", "RTE-1")
@given(thought=thought_texts, later=st.lists(envelopes, max_size=2))
def test_thought_leaves_only_through_stderr(
    server: ServerSession, thought: str, later: list[Envelope]
) -> None:
    """The payload appears verbatim in its own box and in no answer on the wire, then or later."""
    marked = f"⟦obj9⟧{thought}⟦/obj9⟧"
    exchange = server.call(Envelope(marked, 1, 1, True).arguments())
    accepted(exchange)
    assert marked in decode(exchange.stderr), (
        f"stderr does not show the thought {brief(marked, 80)} verbatim: "
        f"{quoted(decode(exchange.stderr), 300)}")
    answers = [exchange, *(server.call(e.arguments()) for e in later), server.wire.list_tools()]
    for answer in answers:
        assert marked not in json.dumps(answer.response, ensure_ascii=False), (
            f"an answer quotes the thought {brief(marked, 80)}: {describe(answer)}")


_KEPT_VARIABLES = ("PATH", "HOME", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "COVERAGE_PROCESS_START")
"""What a server needs to start (and to be measured); every other variable of ours is left out, so a CI
or TERM of the machine running the suite cannot decide the row."""

COLOUR_ROWS: dict[Profile, int] = {"dev": 2, "ci": 3, "thorough": 0}
"""Start environments checked per run (0: all of them): one process each, so a run draws a coloured and a
plain one and, in ci, one more; the seed decides which, and the thorough profile checks every row."""


_ANSWERED_WITHIN = 60
"""Seconds a colour row's process has to start and answer its call (start-ups overlap)."""


def _colour_run(raw: RawServer) -> tuple[bytes, bytes]:
    """Initialize, one call, in one write, on a process no one has written to; its stdout lines up to the
    call's answer, and its stderr from its start until that call's box is complete. The process goes on
    running: a check that ends a process ends it (`RawPool.donate`)."""
    frames = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "colour", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": TOOL, "arguments": Envelope("coloured", 1, 1, False).arguments()},
        },
    ]
    raw.write(b"".join(json.dumps(frame).encode() + b"\n" for frame in frames))
    lines: list[bytes] = []
    deadline = time.monotonic() + _ANSWERED_WITHIN
    while (wait := deadline - time.monotonic()) > 0 and (line := raw.read_line(timeout=wait)) is not None:
        lines.append(line)
        with contextlib.suppress(ValueError):
            answer = read_served(line, "stdout line")
            if isinstance(answer, dict) and answer.get("id") == 1 and "result" in answer:
                raw.initialized_as(answer)
            if isinstance(answer, dict) and answer.get("id") == 2:
                raw.settle_boxes("tools/call", answer)
                break
    raw.stderr_now()
    return b"\n".join(lines), bytes(raw.seen)


def _drawn_rows(profile: Profile, data: st.DataObject) -> list[StartEnvironment]:
    rows = list(start_environments())
    wanted = COLOUR_ROWS[profile]
    if wanted == 0 or wanted >= len(rows):
        return rows
    coloured = [r for r in rows if r.coloured]
    plain = [r for r in rows if not r.coloured]
    drawn = [data.draw(st.sampled_from(coloured), "coloured row"),
             data.draw(st.sampled_from(plain), "plain row")]
    rest = st.sampled_from([r for r in rows if r not in drawn])
    drawn += data.draw(st.lists(rest, min_size=wanted - 2, max_size=wanted - 2, unique_by=id), "further rows")
    return drawn


@evidences("CMP-5", "OBJ-6")
@relies_on("RTE-3", "RTE-9", "RTE-4")
@settings(max_examples=1, phases=(Phase.explicit, Phase.generate))
@given(data=st.data())
def test_caption_colour_follows_the_start_environment(
    target: Target, profile: Profile, raw_pool: RawPool, data: st.DataObject
) -> None:
    """The caption is coloured exactly when chalk's supports-color gives a piped stderr a level above 0:
    FORCE_COLOR's spellings, then CI, TeamCity, COLORTERM, TERM_PROGRAM and TERM (any case) in that order.
    A coloured label's codes count in the border, and the payload itself is never coloured. Not shrunk:
    the failing row is named in the failure, and every shrink step would start processes again. Each row's
    process, started with exactly its environment (plus what it needs to start), all at once, goes on to
    a check that ends a process once its row passed."""
    cases = _drawn_rows(profile, data)
    kept = {k: v for k in _KEPT_VARIABLES if (v := os.environ.get(k)) is not None}
    started = [raw_pool.start_exact(target, kept | case.env) for case in cases]
    try:
        for case, raw in zip(cases, started, strict=True):
            _colour_row(case, *_colour_run(raw))
        for raw in started:
            raw_pool.donate(raw)
        started = []
    finally:
        for raw in started:
            raw.close()


def _colour_row(case: StartEnvironment, stdout: bytes, stderr: bytes) -> None:
    """One row's answer and box against what the original draws under its environment."""
    answers = [read_served(line, "stdout line") for line in stdout.splitlines() if line.strip()]
    assert any(isinstance(a, dict) and a.get("id") == 2 and "result" in a for a in answers), (
        f"{case.rule}: no result answered the thought (id 2); stdout ended "
        f"{brief(stdout[-2000:].decode(errors='replace'), 300)}")
    box = only_box(stderr)
    # The box is there (OBJ-6's); its header's colour and its widths are CMP-5's form.
    expect("CMP-5", bool(ANSI.search(box.lines[1])) is case.coloured,
           f"{case.rule}: the header {quoted(box.lines[1])} is {'' if case.coloured else 'not '}coloured by "
           f"the original under {case.env}")
    expect("CMP-5", ANSI.search(box.body) is None,
           f"{case.rule}: the thought is coloured in the box {quoted(box.text, 300)}; the original never "
           f"colours it")
    header_with_codes = box.lines[1].removeprefix("│ ").removesuffix(" │")
    expect("CMP-5", js_length(box.lines[0]) - 2 == js_length(header_with_codes) + 4,
           f"{case.rule}: the border is {js_length(box.lines[0]) - 2} wide for a header of "
           f"{js_length(header_with_codes)} code units, colour codes included; the original draws "
           f"{js_length(header_with_codes) + 4}: {quoted(box.text, 300)}")


_REPRESENTATIVE: dict[str, dict[str, JSON]] = {
    "plain": Envelope("A plain thought.", 1, 3, True).arguments(),
    "coerced": Envelope("Number beyond the total.", 5, 3, True).arguments(),
    "revision": Envelope("Revising an earlier step.", 2, 3, True).arguments(
        isRevision=True, revisesThought=1
    ),
    "branch": Envelope("Exploring an alternative.", 2, 3, True).arguments(
        branchFromThought=1, branchId="alt"
    ),
    "multiline": Envelope("first line\nsecond, longer line", 1, 1, False).arguments(),
    "astral": Envelope("😀 𝔘 中文", 1, 1, False).arguments(),
}


@evidences("CMP-5", "RTE-9")
@relies_on("RTE-3", "RTE-4")
def test_representative_renders(server: ServerSession, original_snapshot: SnapshotAssertion) -> None:
    """Byte-for-byte renders of representative schema-valid thoughts, as the original (npm:0.6.2) draws
    them."""
    rendered = {}
    for name, arguments in _REPRESENTATIVE.items():
        exchange = server.call(arguments)
        _rendered_if_accepted(exchange, arguments, server, host_valid=False)
        rendered[name] = decode(exchange.stderr)
    difference = differs_from_original(original_snapshot, rendered)
    assert difference is None, f"the representative renders differ from the original's: {difference}"


@evidences("RTE-9/a1", "OBJ-9")
@relies_on("RTE-3", "CMP-5", "RTE-9")
def test_huge_thought_rendered_whole(spare: Spare) -> None:
    """A 1 MiB thought is accepted and rendered whole - padded, never truncated. (A fresh process: a render
    this size is written partly after the answer, so its stderr is read once it settles.)"""
    thought = ("0123456789abcdef" * 65536)[:-1] + "Z"
    with spare() as driver:
        mark = driver.stderr_mark()
        exchange = driver.call_tool(TOOL, Envelope(thought, 1, 1, True).arguments())
        accepted(exchange)
        # Read while the render keeps coming: a silence as long as the call's pace allows ends it (what came
        # is all there is), `END_LIMIT` call timeouts at most.
        bound = END_LIMIT * driver.timeout
        stderr, cut = driver.stderr_until(mark, lambda data: boxes_complete(data, 1),
                                          end_bound(driver.timeout, exchange.elapsed), bound)
        if cut:
            raise TooSlow(f"a 1 MiB thought's render was still arriving {bound:g} s after its answer "
                          f"({len(stderr):,} bytes so far): too slow to tell a whole render from a cut one "
                          f"(slow, not a departure)")
        box = only_box(stderr)
    assert box.lines[3] == f"│ {thought}   │", (
        f"the payload row of a 1 MiB thought is {js_length(box.lines[3])} UTF-16 units and ends "
        f"{quoted(box.lines[3][-40:])}, where the original draws the thought whole, {len(thought) + 6} units "
        f"ending {quoted(f'{thought[-30:]}   │')}")
