"""Reading the thought box a call rendered on stderr (OBJ-6), as far as the records describe it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from conformance.core.differences import quoted, text_difference
from conformance.core.js import utf16_length
from conformance.core.jsontypes import JSON
from conformance.core.protocol import TOOL
from conformance.core.served import read_answer
from conformance.drivers.transcript import decode
from conformance.drivers.wire import Exchange, call_arguments
from conformance.suite.coercion import answered_number, header_total, total_record
from conformance.suite.contradiction import brief, expect
from conformance.suite.jsvalues import expected_box
from conformance.suite.session import ServerSession

ANSI = re.compile(r"\x1b\[[0-9;]*m")
TOP = re.compile(r"(?P<indent>[ \t]*)┌(?P<border>─+)┐")
"""A box's top border, with the blanks a fork may indent a box by (a branch's box set in under its trunk): an
indented box is still one box for its call (LOOP-A, LOOP-B count them); its indent is its form, CMP-5's."""
FRAMED = re.compile(r"^[ \t]*(?:\x1b\[[0-9;]*m)*(?:[\u2500-\u257f]|\+[-=+])", re.M)
"""A line opening like a box's border in any box-drawing characters (CMP-5's single lines, double or heavy
ones) or ASCII ones (`+--`, `+==`), coloured or not: a frame of another style is a render in another form."""
LABEL = re.compile(r"(?P<kind>Thought|Revision|Branch)\b")
CAPTION = re.compile(
    r"(?P<kind>Thought|Revision|Branch) (?P<number>[^/ ]+)/(?P<total>[^ ]+)(?P<context> \(.*\))?$", re.S
)
FRACTION = re.compile(r"(?<!\S)(?P<number>[^/\s]+)/(?P<total>[^/\s]+)(?!\S)")
"""The first "n/m" a header writes, whatever label stands before it."""


js_length = utf16_length


@dataclass(frozen=True)
class Box:
    """One rendered thought: the box's lines from its top border to its bottom border, its indent (the
    blanks before its top border, when a fork sets it in) taken off each line that has it."""

    lines: tuple[str, ...]
    source: tuple[str, ...] = ()
    """The lines as written, indent and all (empty: as `lines`)."""

    @property
    def header(self) -> str:
        """The caption line's text between the side borders, colours removed."""
        line = ANSI.sub("", self.lines[1])
        return line.removeprefix("│ ").removesuffix(" │")

    @property
    def caption(self) -> re.Match[str] | None:
        """The label, numbers and context, read through any padding around them (the padding is CMP-5's
        business: the whole box is compared byte for byte after its parts)."""
        return CAPTION.search(self.header.strip())

    @property
    def kind(self) -> str | None:
        """The label, also from a header whose numbers are not in "n/m" form (that form is CMP-5's)."""
        found = self.caption or LABEL.search(self.header)
        return found.group("kind") if found else None

    @property
    def numbers(self) -> tuple[str, str] | None:
        found = self.caption
        return (found.group("number"), found.group("total")) if found else None

    @property
    def written_numbers(self) -> tuple[str, str] | None:
        """The header's "n/m" read under any label: a label changed ("✅ Conclusion 5/5" for "💭 Thought
        5/5") is not the numbers changed, so a check of the numbers must not see it as one."""
        found = FRACTION.search(self.header)
        return (found.group("number"), found.group("total")) if found else None

    @property
    def body(self) -> str:
        """The payload rows joined back together (a multi-line thought spans several)."""
        return "\n".join(self.lines[3:-1])

    @property
    def text(self) -> str:
        """The box as written on stderr (indented, when it was): what is compared byte for byte and what is
        taken out of the call's stderr to see what was written beside it."""
        return "\n".join(self.source or self.lines)


def redrawn(before: Box, after: Box, calls: str) -> str:
    """The message of a check whose two calls should draw one box: first what the server drew differently
    (so checks seeing the same change fail alike, and root causes group them by it), then the calls."""
    if before.header != after.header:
        drawn = f"the box's header reads {quoted(after.header)}, not {quoted(before.header)}"
    else:
        drawn = f"the box reads {quoted(after.text, 300)}, not {quoted(before.text, 300)}"
    return f"{drawn}\n{calls}"


def boxes(stderr: bytes) -> list[Box]:
    """Every box in a stretch of stderr, in order: a top border up to the bottom border of equal width."""
    lines = decode(stderr).split("\n")
    found: list[Box] = []
    index = 0
    while index < len(lines):
        top = TOP.fullmatch(lines[index])
        if top is None:
            index += 1
            continue
        indent = top.group("indent")
        bottom = f"{indent}└{top.group('border')}┘"
        end = next((j for j in range(index + 1, len(lines)) if lines[j] == bottom), None)
        if end is None:
            break
        source = tuple(lines[index : end + 1])
        found.append(Box(tuple(line.removeprefix(indent) for line in source), source if indent else ()))
        index = end + 1
    return found


def boxes_said(stderr: bytes, *, show: bool = True) -> str:
    """How many boxes a stretch of stderr holds, in words true whatever the boxes look like: `boxes` reads
    only CMP-5's form, so a frame of another style (ASCII `+---+`) is said as such, with the stderr, not
    counted as no box at all ("an accepted call drew 0 box(es)" where an ASCII box was drawn, issue 42).
    `show` False leaves the stderr to the caller's own quote."""
    found = boxes(stderr)
    text = decode(stderr)
    leftover = text
    for box in found:
        leftover = leftover.replace(box.text, "", 1)
    if FRAMED.search(leftover) is None:
        return f"{len(found)} box(es)"
    held = f"{len(found)} box(es)" if found else "no box"
    return f"{held} in the original's form" + (f" (stderr: {quoted(text, 200)})" if show else "")


def only_box(source: Exchange | bytes) -> Box:
    """The one box a call rendered, read from its exchange (or from stderr bytes alone). A frame drawn but not
    in CMP-5's form contradicts CMP-5, and so does the thought of a call answered as accepted shown in no
    box (a log line instead: rendered and written, in another form); two boxes for one call contradict RTE-9
    (one box per accepted call), and so does nothing written for a call answered as accepted ("each
    accepted thought is rendered and written to stderr"), whichever render check was reading. No frame
    after a refusal, or on bytes alone, names no record: that the call should have been accepted is
    another check's business."""
    stderr = source if isinstance(source, bytes) else source.stderr
    found = boxes(stderr)
    text = decode(stderr)
    drawn = bool(found) or not FRAMED.search(text)
    expect("CMP-5", drawn, lambda: f"stderr holds a frame, but no box in CMP-5's form: {quoted(text, 800)}")
    expect("RTE-9", len(found) <= 1,
           lambda: f"stderr holds {len(found)} boxes for one call, where the original draws one: "
                   f"{quoted(text, 800)}")
    if isinstance(source, Exchange) and _answered_status(source):
        expect("CMP-5", bool(found) or not _shows_thought(source, text),
               lambda: f"stderr shows the thought, but in no box of CMP-5's form: {quoted(text, 800)}")
        expect("RTE-9", bool(found) or not drawn,
               lambda: f"the call was answered as accepted but no box was written to stderr: "
                       f"{quoted(text, 800)}")
        if len(found) == 1:
            _expect_own_box(source, found[0])
    assert len(found) == 1, (
        f"stderr holds {len(found)} boxes for one call, where one was due: {quoted(text, 800)}")
    return found[0]


def drawn(stderr: bytes) -> bool:
    """Whether a stretch of stderr holds anything drawn: a box, or a frame opening like one."""
    return bool(boxes(stderr)) or FRAMED.search(decode(stderr)) is not None


def not_rendered(exchange: Exchange) -> bool:
    """A call answered as accepted that drew nothing at all: the render is switched off
    (DISABLE_THOUGHT_LOGGING), so a check whose witness is a render failure has none (RTE-9 says the box is
    missing on its own checks)."""
    return _answered_status(exchange) and not drawn(exchange.stderr)


def _shows_thought(exchange: Exchange, text: str) -> bool:
    """Whether a call's stderr, holding no box, still shows its thought (as sent, or escaped as JSON writes
    it): the thought was written to stderr in another form, which departs CMP-5's box, not RTE-9's
    "rendered and written to stderr". A thought too short not to turn up by chance counts only quoted as
    JSON quotes it (`"t"`), or alone on a line."""
    thought = call_arguments(exchange.request, TOOL).get("thought")
    if not isinstance(thought, str) or not thought.strip():
        return False
    quoted = {json.dumps(thought, ensure_ascii=False), json.dumps(thought)}
    if any(q in text for q in quoted) or thought.strip() in (line.strip() for line in text.splitlines()):
        return True
    first = thought.strip().splitlines()[0][:60]
    return len(first) >= 8 and (first in text or any(
        json.dumps(first, ensure_ascii=a)[1:-1] in text for a in (False, True)))


def drawn_box(exchange: Exchange) -> Box | None:
    """The call's box for a check of another record than the render's: None when its stderr holds nothing
    drawn at all (no box, no frame), so that a render switched off (DISABLE_THOUGHT_LOGGING) departs the
    render records on their own checks (RTE-9, CMP-5), not the store's, the absences' or the claims'
    (issue 47; CLM-2 and CLM-6 judge what is retained and answered). Anything drawn is read as `only_box`
    reads it."""
    if not drawn(exchange.stderr):
        return None
    return only_box(exchange)


def _expect_own_box(exchange: Exchange, box: Box) -> None:
    """The box a call's stderr holds shows that call's thought, not the one sent before it: a box written
    after its call was answered lands among the next call's bytes, RTE-9's ("rendered and written to
    stderr ... apart from the protocol response"), not a render record's, whichever check was reading."""
    thought = call_arguments(exchange.request, TOOL).get("thought")
    before = call_arguments(exchange.previous_call, TOOL).get("thought")
    if not isinstance(thought, str) or not isinstance(before, str):
        return
    late = written_late(thought, before, box.body)
    expect("RTE-9", not late,
           lambda: f"the call's stderr holds the box of the call sent before it ({brief(before)}), not its "
                   f"own ({brief(thought)}): a box written after its call was answered; the original writes "
                   f"each box before answering")


_PADDING_ZEROS = re.compile(r"(?<![0-9])0+(?=[0-9])")
_CUT = "…."


def _kept(text: str) -> str:
    """What of a text every render of it keeps: colours, blanks (tabs expanded, rows wrapped or padded to a
    width, line ends), side borders and a number's leading zeros are a render's to change, so none counts."""
    plain = ANSI.sub("", text).replace("│", "")
    return _PADDING_ZEROS.sub("", "".join(plain.split()))


def _shows(body: str, thought: str) -> bool:
    """Whether a box's rows can be a render of `thought`: all of it kept, or its start cut at a width."""
    shown, sent = _kept(body), _kept(thought)
    cut = shown.rstrip(_CUT)
    return sent in shown or (bool(cut) and sent.startswith(cut))


def written_late(thought: str, before: str, body: str) -> bool:
    """Whether a box's rows are the previous call's thought and cannot be this call's, through any transform
    a render may apply to a thought (a tab shown as spaces is no other call's box): only a box that shows
    `before` and not `thought`, two thoughts a render cannot make alike, was written after its call."""
    if not _kept(before) or _kept(before) in _kept(thought):
        return False
    return _shows(body, before) and not _shows(body, thought)


def _answered_status(exchange: Exchange) -> bool:
    """Whether a call was answered with a status object (OBJ-4's count in it, no isError): accepted."""
    if exchange.error is not None or exchange.is_error or exchange.text is None:
        return False
    try:
        status = read_answer(exchange.text, "answer text")
    except ValueError:
        return False
    return isinstance(status, dict) and "thoughtHistoryLength" in status and "error" not in status


def expect_rendered_alike(plain: Exchange, marked: Exchange, added: str) -> None:
    """The same call with something `added` draws the same box (the message says how it differs) and
    writes nothing more beside it: text beside a box is LOOP-A's ("stderr only the banner and thought
    boxes"). Two calls that draw nothing at all are rendered alike: whether a box was due is the render
    records' to say on their own checks, not the caller's record (issue 47)."""
    if drawn_box(plain) is None and drawn_box(marked) is None:
        return
    one, two = only_box(plain), only_box(marked)
    assert one.text == two.text, redrawn(one, two, added)
    _expect_box_alone(two, decode(marked.stderr), f" {added}", also=_beside(one, decode(plain.stderr)))


def _beside(box: Box, stderr: str) -> str:
    """What a call's stderr holds besides its box."""
    return stderr.replace(box.text, "", 1).strip()


def _expect_box_alone(box: Box, stderr: str, added: str = "", also: str = "") -> None:
    """Nothing beside a call's box on stderr but what `also` says was there for the same call plainly: text
    beside a box is LOOP-A's ("stderr only the banner and thought boxes")."""
    beside = _beside(box, stderr)
    expect("LOOP-A", beside == also,
           lambda: f"stderr holds {quoted(beside, 300)} beside the box{added}, where the original writes the "
                   f"box alone (stderr carries only the banner and thought boxes)")


def _expect_no_line_beside(box: Box, stderr: str, thought: str) -> None:
    """A box drawn otherwise (CMP-5's, said below) leaves LOOP-A's "stderr only the banner and thought boxes"
    to read on the lines beside it that are no part of any box: no frame glyph, none of the thought's text
    (a row the box reader did not take). A warning line a fork writes after a long thought's box
    (held-out-multi-9's thought-metrics, whose box header also changed) is such a line."""
    parts = {line.strip() for line in thought.splitlines() if line.strip()}
    loose = [line for line in _beside(box, stderr).splitlines()
             if line.strip() and FRAMED.search(line) is None
             and not any((len(part) >= 8 and part in line) or line.strip() in part for part in parts)]
    expect("LOOP-A", not loose,
           lambda: f"stderr holds {quoted(chr(10).join(loose), 300)} beside the box, where the original "
                   f"writes the box alone (stderr carries only the banner and thought boxes)")


def expect_render(exchange: Exchange, arguments: dict[str, JSON], server: ServerSession) -> None:
    """An accepted call's render against the one the records give, part by part, each part naming its
    record: one box in CMP-5's form (`only_box`), the label RTE-9 chooses, the numbers after RTE-4 (a total
    the two numbers alone do not give names RTE-4/a1, `total_record`; the right numbers written otherwise
    are CMP-5's), the thought verbatim (RTE-9/a1), nothing written beside a box drawn right (LOOP-A), then
    every byte as CMP-5 draws it; a line beside a box drawn otherwise is LOOP-A's before the box's own
    difference is said."""
    stderr = exchange.stderr
    box = only_box(exchange)
    wanted = expected_box(arguments)
    want = boxes(wanted.encode())[0]
    if box.text != want.text:  # before the box's own differences, which are CMP-5's and RTE-9's
        _expect_no_line_beside(box, decode(stderr), str(arguments.get("thought")))
    # RTE-9 chooses which of the three labels a call gets; a label that is none of them (another word, another
    # emoji) is the header's wording, CMP-5's "<label> n/m <caption>" (a fork's "🔀 Fork" for a branch).
    expect("RTE-9" if box.kind is not None else "CMP-5", box.kind == want.kind,
           lambda: f"the box is labelled {box.kind or 'with none of the original labels'}, where the "
                   f"original's reads {want.kind}: {quoted(box.header)}")
    if box.numbers != want.numbers:
        record = "RTE-4" if box.numbers is not None else "CMP-5"  # no "n/m" to read: the header's form
        if box.numbers is not None and want.numbers is not None:
            if _written_otherwise(box.numbers, want.numbers, _answered_numbers(exchange)):
                record = "CMP-5"
            elif box.numbers[0] == want.numbers[0]:
                record = total_record(server, arguments, header_total(box.numbers[1]))
        expect(record, False,
               f"the header reads {quoted(box.header)}; the original's reads {quoted(want.header)}")
    thought = arguments["thought"]
    assert isinstance(thought, str), (
        f"the harness checked the render of a call whose thought is not a string: {thought!r}")
    expect("RTE-9/a1", thought in box.body,
           lambda: f"the box does not show the thought verbatim: {quoted(box.text, 400)}")
    found = decode(stderr)
    if box.text == want.text:
        _expect_box_alone(box, found)
    expect("CMP-5", found == wanted, lambda: (
        "stderr is not the box the original draws: "
        f"{text_difference(wanted, found).replace('{here}', 'here')}"))


_DIGIT_GROUP = re.compile(r"(?<=\d)[,_'\u00a0\u202f ](?=\d)")


def shown_value(text: str) -> float | None:
    """The number a header writes, read through digit-group separators ("1,000" is 1000); None when the
    server wrote no number there (what a server wrote is data: reading it never raises)."""
    try:
        return float(_DIGIT_GROUP.sub("", text))
    except ValueError:
        return None


def expect_header_in_order(exchange: Exchange) -> None:
    """The header of the box a call drew never reads n/m with n > m. A header with no number to read there
    (none drawn, or words where the original draws n/m) is how the box writes its header, CMP-5's, never a
    harness error under the record that asked: what a server wrote is data."""
    box = drawn_box(exchange)  # nothing drawn (DISABLE_THOUGHT_LOGGING) is the render records' to judge
    if box is None:
        return
    numbers = box.numbers
    shown = None if numbers is None else (shown_value(numbers[0]), shown_value(numbers[1]))
    if shown is None or shown[0] is None or shown[1] is None:
        expect("CMP-5", False,
               f"the box's header reads {quoted(box.header)} where the original draws n/m: no number to read")
        return
    assert shown[0] <= shown[1], f"header reads {box.header}"


def _answered_numbers(exchange: Exchange) -> tuple[float, float] | None:
    """thoughtNumber and totalThoughts as the call's answer holds them, when it holds both as numbers."""
    number, total = (answered_number(exchange, key) for key in ("thoughtNumber", "totalThoughts"))
    return None if number is None or total is None else (number, total)


def _written_otherwise(
    shown: tuple[str, str], want: tuple[str, str], answered: tuple[float, float] | None
) -> bool:
    """Whether the header writes the numbers the original writes in another form: the same values with digit
    groups, or, where the answer holds the original's values, those values rounded to the decimals shown.
    That is how the box writes a number (CMP-5), not which number it is (RTE-4)."""
    values = [shown_value(text) for text in shown]
    wanted = [shown_value(text) for text in want]
    if values == wanted and None not in values:
        return True
    if answered is None or list(answered) != wanted:
        return False
    for text, value, original in zip(shown, values, answered, strict=True):
        decimals = len(text.rpartition(".")[2]) if "." in text else 0
        if value is None or round(original, decimals) != value:
            return False
    return True
