"""What differs between two answers to one call: the one explainer the run's evidence (gate/evidence.py),
`compare` (compare/explain.py) and the suite's snapshot checks render.

In this order (`explain`): an answer accepted on one side and refused on the other, with the refusal's own
words; two refusals naming different fields (validation order, never a re-wording); the same field refused
in other words (a prefix or suffix added said as such); accepted answers field by field, a text that is
itself a JSON object (a tool result's text block) inside it too; texts of several lines (descriptions,
messages, the stderr box) as the lines added, dropped and changed, a single line as the words that changed.
Values under `WHOLE_CHARS` are shown whole.
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Final, TypeGuard

from conformance.core.invisible import invisible_difference
from conformance.core.js import utf16_length
from conformance.core.jsontypes import JSON
from conformance.core.printable import safe
from conformance.core.refused_field import field_by_type
from conformance.core.served import read_served, trailed
from conformance.core.words import first_and_more

MAX_FIELDS: Final = 6
"""More differing fields than this are counted, not listed."""
_WORD: Final = re.compile(r"\s+|\w+|[^\w\s]")
_WINDOW_CHARS: Final = 400
"""Characters kept either side of the differing span before the texts are split into words."""
_MATCHED_WORDS: Final = 4_000_000
"""The largest product of the two changed middles' word counts matched word by word (a few seconds)."""
_SPLIT_CHARS: Final = 4_000
"""The most characters of a differing span split into words: a longer span is cut to its head and its text's
length said (a 200 KB answer text is 200,000 one-character words, a second of matching each time)."""
"""The largest product of the two changed middles' word counts matched word by word (a few seconds)."""
_AMBER_KEY: Final = re.compile(r"^\s*'([^']*)': (?:dict\(\{|list\(\[|''\')$")
WHOLE_CHARS: Final = 200
"""A value shorter than this is quoted whole, never cut."""
LINES_SHOWN: Final = 3
"""Lines quoted per kind of line change (added, dropped, changed); more are counted."""
_CONTROL: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
"""Controls and the characters no quote shows (zero-width, bidirectional, a byte-order mark): escaped."""


GROWN_LIST: Final = "grown list"
"""A list that only gained or lost items at its end (`_grown_list`)."""


@dataclass(frozen=True)
class FieldDifference:
    """One field whose value differs: where (a dotted path), the original's value, the target's; or, for a
    difference said as a whole (a refusal against an acceptance, lines added), its `sentence`."""

    path: str
    original: str
    target: str
    sentence: str = ""
    kind: str = ""
    """What kind of difference a `sentence` says, for a reader that must tell kinds apart without parsing
    the words (`GROWN_LIST`); empty for a field's two values."""

    def said(self, here: str = "here") -> str:
        if self.sentence:
            return self.sentence.replace("{here}", here)
        return f"{self.path or 'the answer'}: {self.original} on the original, {self.target} {here}"


@dataclass(frozen=True)
class Refusal:
    """A refused call: how (`isError` or a JSON-RPC error and its code), in which words, and the argument its
    words name first (empty when they name none)."""

    kind: str
    words: str
    field: str
    found: str = ""
    """How `field` was found when the words name none (`located`): "the only boolean argument"."""


_FIELD_NAMED: Final = (
    re.compile(r"\bat (\w+)(?:\.\w+)*\s*(?:[;\]\n]|$)"),
    re.compile(r"Invalid (?!input\b|arguments\b)(\w+):"),
    re.compile(r'"path":\s*\[\s*"(\w+)"'),
    re.compile(r"^(\w+)(?: \([^()]{1,40}\))? (?:must|is required|should)\b"),  # “revisesThought (5) must …”
    re.compile(r"expected (object), received|Expected (object)|(arguments) must be an object"),
    re.compile(r"\b(?:Unknown )?[Tt]ool (\S+) not found|Unknown tool: (\S+)"),
)


def refusal_body(parsed: object) -> TypeGuard[dict[str, JSON]]:
    """OBJ-8's {error, status: "failed"}: a refusal's body, flagged or not. The one test of it: the suite
    (`suite/answers.refusal_object`) and the explainer (`unflagged`) read it alike."""
    return isinstance(parsed, dict) and parsed.get("status") == "failed" and "error" in parsed


_JSON_SPACE: Final = " \t\n\r"
"""The whitespace JSON allows around a value (`str.strip()` alone strips more)."""


def _text_object(text: str) -> tuple[JSON, bool]:
    """The JSON value a text holds from its first `{`, parsed once (None when none parses), and whether it is
    the whole text (nothing but JSON's whitespace around it)."""
    start = text.find("{")
    if start < 0:
        return None, False
    try:
        parsed, end = json.JSONDecoder().raw_decode(text[start:])
    except (ValueError, RecursionError):  # a deeply nested text is not a refusal's JSON
        return None, False
    return parsed, not text[:start].strip(_JSON_SPACE) and not text[start + end:].strip(_JSON_SPACE)


def refusal_error(text: str) -> str | None:
    """The `error` string of the JSON object a refusal's text holds (after `isError ` and any words before its
    `{`), or None: the one reading of it (`refusal_words`, compare/limits.rule_of)."""
    parsed, _ = _text_object(text.removeprefix("isError ").strip())
    return str(parsed["error"]) if isinstance(parsed, dict) and isinstance(parsed.get("error"), str) else None


def refusal_words(text: str) -> str:
    """The message a refusal's text carries: the `error` of a JSON answer, the `message`s of a validation
    error's issue list, else the text itself."""
    error = refusal_error(text)
    if error is not None:
        return error
    text = text.removeprefix("isError ").strip()
    messages = re.findall(r'"message":\s*"((?:[^"\\]|\\.)*)"', text)
    if messages and "Invalid arguments" in text:
        head = text[: text.find("[")].rstrip(": ") if "[" in text else ""
        return (head + ": " if head else "") + "; ".join(dict.fromkeys(messages))
    return text


def field_named(words: str) -> str:
    """The argument a refusal's words name first (`Invalid thought: …` → thought); empty when none."""
    for pattern in _FIELD_NAMED:
        found = pattern.search(words)
        if found:
            if pattern is _FIELD_NAMED[-1]:
                return "name"
            named = next(g for g in found.groups() if g)
            return "arguments" if named == "object" else named
    return ""


_ISSUE_PATH: Final = re.compile(r'"path":\s*\[\s*"(\w+)"')
"""The first argument a validation issue list (the SDK's zod list) says it refused, by its `path`."""


def field_refused(text: str, words: str) -> str:
    """The argument a refusal names first: by its words, else by the `path` of the issue list its words were
    read from, whose messages alone name none (npm:2025.11.25's RTE-3: “Invalid input: expected string,
    received boolean” under `"path": ["branchId"]`; its headline named no field, issue 42)."""
    named = field_named(words)
    if named or "Invalid arguments" not in text:
        return named
    path = _ISSUE_PATH.search(text)
    return path.group(1) if path else ""


def located(refused: Refusal | None, arguments: object, properties: object = None) -> Refusal | None:
    """A refusal whose words name no field but say the types (“expected string, received boolean”), with
    the field found from the refused call's arguments (core/refused_field.py); else the refusal as it is."""
    if refused is None or refused.field or arguments is None:
        return refused
    field, how = field_by_type(refused.words, arguments, properties)
    return replace(refused, field=field, found=how) if field else refused


def refusal(answer: JSON | None) -> Refusal | None:
    """The refusal a JSON-RPC response is (a tool result flagged isError, or an error), or None."""
    if not isinstance(answer, dict):
        return None
    error = answer.get("error")
    if isinstance(error, dict):
        words = str(error.get("message", ""))
        return Refusal(f"JSON-RPC error {error.get('code', '?')}", words, field_named(words))
    result = answer.get("result")
    if isinstance(result, dict) and result.get("isError") is True:
        content = result.get("content")
        first = content[0] if isinstance(content, list) and content else None
        text = str(first.get("text", "")) if isinstance(first, dict) else ""
        words = refusal_words(text)
        return Refusal("isError", words, field_refused(text, words))
    return None


def unflagged(answer: JSON | None) -> str | None:
    """The words of a refusal's body ({"error": …, "status": "failed"}, OBJ-8's) answered as a result without
    isError: true, or None. Its text is parsed once, and must be that JSON object alone."""
    result = answer.get("result") if isinstance(answer, dict) else None
    flagged = isinstance(result, dict) and result.get("isError") is True
    content = result.get("content") if isinstance(result, dict) and not flagged else None
    first = content[0] if isinstance(content, list) and content else None
    text = first.get("text") if isinstance(first, dict) else None
    if not isinstance(text, str) or len(text) > 100_000:
        return None
    parsed, whole = _text_object(text)
    if whole and refusal_body(parsed) and isinstance(parsed["error"], str):
        return parsed["error"]
    return None


ANSWERED_CHARS: Final = 120
"""Characters of an unknown tool's answer a sentence quotes."""


def answered_content(answer: JSON | None) -> str | None:
    """The text a result without isError: true carries in its first content block, or None (a refusal, no
    result, no text): what an answer says when there is no tool call it could accept."""
    result = answer.get("result") if isinstance(answer, dict) else None
    if not isinstance(result, dict) or result.get("isError") is True:
        return None
    content = result.get("content")
    first = content[0] if isinstance(content, list) and content else None
    text = first.get("text") if isinstance(first, dict) else None
    return text if isinstance(text, str) else None


def other_fields(a: str | None, b: str | None) -> bool:
    """Two refusals name other fields: both name one, and not the same field spelled two ways
    (`thoughtNumber`, `thought_number`: a port's names, or a mapped compare's B, round 13)."""
    return bool(a and b and a.replace("_", "").lower() != b.replace("_", "").lower())


def spelled_alike(key: str, keys: Iterable[str]) -> str | None:
    """`key` itself when `keys` holds it, else the one key of `keys` that is `key` spelled otherwise
    (`thought_history_length` for `thoughtHistoryLength`: a port's renamed answer key, whose value is still
    the one the original's key holds); None when there is none or more than one."""
    keys = list(keys)
    if key in keys:
        return key
    alike = [k for k in keys if not other_fields(key, k)]
    return alike[0] if len(alike) == 1 else None


def refusal_in_text(answer: str) -> Refusal:
    """A refusal as `compare` keeps it (its text, `isError ` before a flagged tool result)."""
    kind = "isError" if answer.startswith("isError ") else "error"
    words = refusal_words(answer)
    return Refusal(kind, words, field_refused(answer, words))


def quoted(text: str, limit: int = WHOLE_CHARS) -> str:
    """A text in quotes on one line: control and invisible characters escaped (a carriage return before a
    line break too: “\\r ⏎”), line breaks as ⏎, cut only past `limit`."""
    escaped = _CONTROL.sub(lambda m: json.dumps(m.group())[1:-1], text)
    shown = escaped.replace("\n", " ⏎ ")
    return f"“{shown if len(shown) <= limit else shown[: limit - 1] + '…'}”"


def refusals_compared(a: Refusal | None, b: Refusal | None, here: str = "{here}",
                      original: str = "the original") -> str:
    """Refused against accepted, or two refusals: which field each names, else how the words changed;
    empty when both accept, or both refuse alike. Two refusals naming other fields say only that another
    field was refused first: the fork may have added a rule; which rule came first only a re-test tells
    (core/retest.py)."""
    if a is not None and b is None:
        return (f"{original} refuses this call{_naming(a)} — {quoted(a.words)} ({a.kind}) — and "
                f"{_side(here)} accepts it")
    if a is None and b is not None:
        return (f"{original} accepts this call and {_side(here)} refuses it{_naming(b)} — {quoted(b.words)} "
                f"({b.kind})")
    if a is None or b is None or (a.words, a.kind) == (b.words, b.kind):
        return ""
    if other_fields(a.field, b.field):
        return (f"both refuse, naming other fields first: {original} `{a.field}` ({quoted(a.words)}), "
                f"{_side(here)} `{b.field}` ({quoted(b.words)}): another field refused first, not a "
                "re-wording")
    kind = "" if a.kind == b.kind else f" as {a.kind} on {original}, {b.kind} {here}"
    if a.words == b.words:
        return f"both refuse in the same words, {quoted(a.words)}{kind}"
    if a.field != b.field or not a.field:
        # A field named on one side only (a crash's message names none): no re-wording can be claimed. A
        # refusal of another kind (a JSON-RPC error for an isError result) is said before the words, which
        # a line cuts first (bartoszkula-ts, round 9: "-32603" never reached report.md).
        other = "" if a.kind == b.kind else f" (and as {a.kind} on {original}, {b.kind} {here})"
        read = crash_order(a.words, b.words)
        order = f": {crash_order_said(read, original, here)}" if read else ""
        # One side crashing where the other states a rule is no re-wording: said beside the crash's words
        # (issue 42: npm:2026.8.31's OBJ-8, a call without arguments, read as two wordings of one refusal).
        crash_a, crash_b = crashed(a.words), crashed(b.words)
        mark_a = " (a runtime error)" if crash_a and not crash_b else ""
        mark_b = " (a runtime error)" if crash_b and not crash_a else ""
        return (f"both refuse this call, in other words{other}: {quoted(a.words)} on {original}{mark_a}, "
                f"{quoted(b.words)} {here}{mark_b}{order}")
    subject = f"the refusal of `{a.field}`"
    side, theirs = f"{subject} is re-worded: {_side(here)}", f"{original}'s {quoted(a.words)}{kind}"
    if b.words.endswith(a.words):
        return f"{side} puts {quoted(b.words[: -len(a.words)])} before {theirs}"
    if b.words.startswith(a.words):
        return f"{side} adds {quoted(b.words[len(a.words):])} after {theirs}"
    if a.words.endswith(b.words):
        return f"{side} drops {quoted(a.words[: -len(b.words)])} from the front of {theirs}"
    if a.words.startswith(b.words):
        return f"{side} drops {quoted(a.words[len(b.words):])} from the end of {theirs}"
    return f"{subject} is re-worded: {quoted(a.words)} on {original}, {quoted(b.words)} {here}{kind}"


_READING: Final = re.compile(r"Cannot read propert(?:y|ies) of (?:undefined|null) \(reading '([^']{1,60})'\)")
"""A crash reading a property of a value that is not there (the arguments, when a call has none)."""


def crash_order(a: str, b: str) -> tuple[str, str] | None:
    """The properties two crashes read first when both fail reading one of a missing value, each another one
    (PR #2812: base reads `thought`, head `thoughtNumber`); else None."""
    ma, mb = _READING.search(a), _READING.search(b)
    if ma is None or mb is None or ma.group(1) == mb.group(1):
        return None
    return ma.group(1), mb.group(1)


_CRASHED: Final = re.compile(
    r"^(?:[A-Z]\w*Error: )?(?:Cannot (?:read|set|convert|destructure)\b|\S+ is not (?:a function|iterable|a "
    r"constructor)\b|\S+ is not defined\b|Maximum call stack)")
"""A refusal's words that are a JavaScript runtime error's message from the start (a crash), not a rule's."""


def crashed(words: str) -> bool:
    """Whether a refusal's words are a crash's (“Cannot read properties of undefined …”), not a stated rule's
    (“Invalid input: expected object, received undefined” names `undefined` and is no crash)."""
    return bool(_CRASHED.match(words))


def crash_reading(words: str) -> str:
    """The property a crash read of a missing value (“Cannot read properties of undefined (reading 'x')”),
    or empty when the words are no such crash."""
    found = _READING.search(words)
    return found.group(1) if found else ""


def crash_order_said(read: tuple[str, str], original: str, here: str) -> str:
    """Two crashes reading another property first: the same failure in another order, not a re-wording."""
    return (f"both crash reading a property of a missing value, {original} reading `{read[0]}` first, "
            f"{_side(here)} `{read[1]}`: the same failure reached in another order, not a re-wording")


def _naming(refused: Refusal) -> str:
    """The field a long refusal names, said before its words (a headline cut inside them still says it); no
    comma before it: a terminal headline past 160 characters is cut at its first comma, which left "… this
    server refuses it, …" without the field (issue 42, npm:2026.8.31's RTE-3)."""
    if refused.found:  # found from the call, not the words: said however short the words
        return f" naming `{refused.field}` ({refused.found})"
    return f" naming `{refused.field}`" if refused.field and len(refused.words) > 60 else ""


def _side(here: str) -> str:
    return "this server" if here in ("here", "{here}") else here.removeprefix("on ")


def explain(original: JSON | None, target: JSON | None, arguments: object = None,
            properties: tuple[object, object] = (None, None)) -> list[FieldDifference]:
    """What differs between two JSON-RPC responses to one call, most telling first: refused against accepted
    (the refusal's words), two refusals (the field each names, then the words), then field by field. With
    the call's `arguments` (and each side's served `properties`), a refusal naming no field is located by
    the types its words say (`located`)."""
    a = located(refusal(original), arguments, properties[0])
    b = located(refusal(target), arguments, properties[1])
    said = refusals_compared(a, b)  # one pair, nothing re-tested: no order is claimed
    body = unflagged(target) if a is not None and b is None else None
    if a is not None and body is not None:
        # A refusal's body answered without the flag is no acceptance (held-out-multi-11's ide-host: "and
        # this server accepts it" was FALSE): still begun as the original's refusal, so it groups as one.
        same = "the same refusal" if body == a.words else f"a refusal, {quoted(body)},"
        said = (f"the original refuses this call{_naming(a)} — {quoted(a.words)} ({a.kind}) — and this "
                f"server answers {same} without isError: true")
    content = answered_content(target) if a is not None and b is None and body is None else None
    if a is not None and content is not None and a.field == "name":
        # No tool to accept: an unknown tool's call answered without the flag is an answer with content, not
        # an acceptance ("and this server accepts it" was said of “Unknown tool: …” without isError).
        same = ("answers the same refusal without isError: true" if content == a.words else
                f"answers it with content and no isError, {quoted(content, ANSWERED_CHARS)}")
        said = (f"the original refuses this call{_naming(a)} — {quoted(a.words)} ({a.kind}) — and this "
                f"server {same}")
    elif said and a is not None and b is None and body is None:
        said += respelled_read(a.field, arguments) or typed_read(a.field, arguments, target)
    if said and (a is None or b is None):
        return [FieldDifference("result", "", "", said)]
    found = [d for d in json_differences(original, target) if not (a and b and _refusal_text(d.path))]
    return ([FieldDifference("result", "", "", said)] if said else []) + found


def respelled_read(field: str | None, arguments: object) -> str:
    """The clause after "… and this server accepts it" when the call lacks the field the original's refusal
    names and carries it spelled otherwise (`ThoughtNumber`, `thought_number`: core/spellings.py): the server
    reads that name, which the original does not (held-out-multi-12's names matched ignoring case were said
    only as an accepted call). Empty otherwise."""
    if not field or not isinstance(arguments, dict) or field in arguments:
        return ""
    folded = _folded(field)
    key = next((k for k in arguments if isinstance(k, str) and k != field and _folded(k) == folded), None)
    if key is None:
        return ""
    return f", reading `{safe(key, 64)}` for `{field}` ({RESPELLED}, which the original does not read)"


def typed_read(field: str | None, arguments: object, accepted: JSON | None) -> str:
    """The clause after "… and this server accepts it" when the call carries the field the original's refusal
    names as another JSON type than the accepted answer echoes it with (the string "true" answered as true,
    "5" as 5): the server read the value as the type it spells, where the original refuses it for its type
    (held-out-multi-14's typed-arguments: "… accepts it" never said which value). Empty otherwise."""
    if not field or not isinstance(arguments, dict) or field not in arguments:
        return ""
    result = accepted.get("result") if isinstance(accepted, dict) else None
    content = result.get("content") if isinstance(result, dict) else None
    first = content[0] if isinstance(content, list) and content else None
    text = first.get("text") if isinstance(first, dict) else None
    parsed, _ = _text_object(text) if isinstance(text, str) else (None, False)
    echoed = parsed.get(field) if isinstance(parsed, dict) else None
    sent = arguments[field]
    if not isinstance(echoed, bool | int | float) or not spells(sent, echoed):
        return ""
    # Short: the headline keeps 150 characters, and the refusal before it names the field already.
    return f", reading {safe(json.dumps(sent, ensure_ascii=False), 40)} as {json.dumps(echoed)}"


def spells(sent: JSON, echoed: JSON) -> bool:
    """Whether `sent`, of another JSON type than `echoed`, spells it: "true"/"false" (any case, padded) or 1/0
    for a boolean, a numeric string or a boolean for a number. An echo of another value came from elsewhere
    (a respelled name read, a default), which is no reading of the value sent."""
    if isinstance(echoed, bool):
        if isinstance(sent, str):
            return sent.strip().lower() in (str(echoed).lower(), str(int(echoed)))
        return isinstance(sent, int | float) and not isinstance(sent, bool) and sent == int(echoed)
    if isinstance(echoed, int | float):
        if isinstance(sent, bool):
            return int(sent) == echoed
        if isinstance(sent, str):
            try:
                return float(sent.strip()) == echoed
            except ValueError:
                return False
    return False


RESPELLED: Final = "another spelling of the name"
"""The words of `respelled_read`'s clause that the gate's grouping reads: a name read respelled is another
change than a value let through under the same field."""


def _folded(name: str) -> str:
    return re.sub(r"[-_]", "", name).lower()


def _refusal_text(path: str) -> bool:
    """The refusal's own words (already said as words): its text, the `error` of its JSON, or the error's
    message. Any other key of a refusal's JSON (its `status`, a `timestamp`) is a difference of its own,
    also when both sides refuse in the same words."""
    return path in ("result.content[0].text", "result.content[0].text → error", "error.message")


@dataclass(frozen=True)
class _Box:
    width: int
    rows: int
    header_pad: tuple[int, int]
    loose: int = 0
    """Body lines drawn without both side borders (a thought's line break inside one row)."""
    row_pads: tuple[int, ...] = ()
    """The spaces after each bordered body row's text, before its right border."""
    header_short: int = 0
    """The terminal columns the header row falls short of the top border (negative: past it)."""


def box_lines(text: str) -> list[str] | None:
    """The lines of the first box-drawn frame in a text, top border to bottom border, as written (a line's
    carriage return kept); None when the text draws none."""
    lines = text.split("\n")
    span = box_span(lines)
    return None if span is None else lines[span[0]:span[1] + 1]


def _box(text: str) -> _Box | None:
    """The first box-drawn frame in a text (the stderr box): its width in characters, its body rows, the
    spaces padding its header row's text and the body lines missing a side border; None when the text draws
    none."""
    lines = text.split("\n")
    top = next((i for i, line in enumerate(lines) if line.startswith("┌")), None)
    if top is None:
        return None
    bottom = next((i for i in range(top + 1, len(lines)) if lines[i].startswith("└")), None)
    if bottom is None:
        return None
    body = lines[top + 1:bottom]
    middle = next((i for i, line in enumerate(body) if line.startswith("├")), None)
    header = body[0] if body and middle else ""
    inner = header[1:-1] if len(header) >= 2 else ""
    pad = (len(inner) - len(inner.lstrip(" ")), len(inner) - len(inner.rstrip(" ")))
    rows = body[middle + 1:] if middle is not None else body
    bordered = [row[1:-1] for row in rows if row.startswith("│") and row.endswith("│")]
    loose = sum(1 for row in rows if not (row.startswith("│") and row.rstrip().endswith("│")))
    short = terminal_columns(lines[top]) - terminal_columns(header) if header else 0
    return _Box(len(lines[top]), len(rows), pad, loose, tuple(len(r) - len(r.rstrip(" ")) for r in bordered),
                short)


_BOX_DRAWN: Final = frozenset("┌└├│")
STDERR_BOX: Final = "stderr"
"""The key of a stderr difference in the drawn box (its frame, header, rows)."""
STDERR_OUTSIDE: Final = "stderr outside the box"
"""The key of a stderr difference that draws no box on either side: the start-up banner, a log line."""


def stderr_part(difference: str) -> str:
    """Which part of stderr a stderr difference (as said) is about: `STDERR_BOX` when either side's text it
    quotes draws the box, else `STDERR_OUTSIDE` (the banner a process writes at its start, a log line). A
    reworded banner is one change, a relabelled box another: neither is the other's evidence (issue 42)."""
    return STDERR_BOX if _BOX_DRAWN & set(difference) or "the box" in difference else STDERR_OUTSIDE


def box_difference(original: str, target: str, here: str = "{here}", theirs: str = "the original") -> str:
    """Two stderr boxes' change in words: invisible characters first (a carriage return ending each line is
    no wider box), then width, the header row's padding, rows in the body (a thought's lines drawn a row each,
    or one row broken by the line break), then the lines written around the box. Empty when either text
    draws no box or the boxes and what surrounds them agree on all of these."""
    hidden = invisible_difference(original, target, here, theirs, of=" of the box", framed=box_lines)
    geometry = _box_geometry(hidden.original, hidden.target, here, theirs)
    if geometry is None:
        return ""
    same = [f"width, padding and rows as {theirs}'s"] if hidden.trailing and not geometry else []
    around = around_box(hidden.original, hidden.target, here)
    return "; ".join(part for part in (hidden.trailing, *same, *geometry, hidden.inside, around) if part)


AROUND_LINES: Final = 2
"""Lines written around a box that a sentence quotes, the others counted."""


def around_box(original: str, target: str, here: str = "{here}") -> str:
    """The lines one side writes before and after its stderr box that the other does not ("adds “[DEBUG]
    processing thought 1” before the box and “[DEBUG] stored thought 1” after it on head"): a server logging
    around an unchanged box was said as a box that "differs at its blank" (issue 46). Empty when neither
    draws a box or the same lines surround both."""
    said = [f"{verb} {' and '.join(places)}" for verb, places in _around(original, target, "the box")]
    return f"{' and '.join(said)} {here}" if said else ""


def around_unchanged_box(original: str, target: str, side: str, what: str) -> str:
    """An unchanged box with lines written around it on `side`, the lines as values after the claim ("head
    adds lines around an unchanged stderr box of an accepted call: “[DEBUG] …” before it and “[DEBUG] …”
    after it"); empty when the boxes differ or nothing around them does."""
    found = _around(original, target, "it") if box_unchanged(original, target) else []
    if not found:
        return ""
    verbs = " and ".join(verb for verb, _ in found)
    places = " and ".join(place for _, group in found for place in group)
    return f"{side} {verbs} lines around an unchanged stderr box of {what}: {places}"


def _around(original: str, target: str, box: str) -> list[tuple[str, list[str]]]:
    """What `target` writes around its box that `original` does not and the reverse: ("adds", [“…” before
    {box}, “…” after {box}]), ("drops", […]), each present only when it has lines."""
    a, b = original.split("\n"), target.split("\n")
    span_a, span_b = box_span(a), box_span(b)
    if span_a is None or span_b is None:
        return []
    before = _lines_changed(a[: span_a[0]], b[: span_b[0]])
    after = _lines_changed(a[span_a[1] + 1:], b[span_b[1] + 1:])
    found: list[tuple[str, list[str]]] = []
    for verb, k in (("adds", 0), ("drops", 1)):
        places = [f"{first_and_more([quoted(line, 80) for line in lines], AROUND_LINES)} {where} {box}"
                  for lines, where in ((before[k], "before"), (after[k], "after")) if lines]
        if places:
            found.append((verb, places))
    return found


def box_unchanged(original: str, target: str) -> bool:
    """Whether both texts draw the same box, line for line, whatever is written around it."""
    a, b = box_lines(original), box_lines(target)
    return a is not None and a == b


def box_span(lines: list[str]) -> tuple[int, int] | None:
    """The indices of a box's top and bottom border among `lines`, or None."""
    top = next((i for i, line in enumerate(lines) if line.startswith("┌")), None)
    bottom = None if top is None else next(
        (i for i in range(top + 1, len(lines)) if lines[i].startswith("└")), None)
    return None if top is None or bottom is None else (top, bottom)


def _lines_changed(was: list[str], now: list[str]) -> tuple[list[str], list[str]]:
    """The lines `now` adds to `was` and those it drops, blank ones left out, in order."""
    added: list[str] = []
    dropped: list[str] = []
    for tag_, i1, i2, j1, j2 in difflib.SequenceMatcher(a=was, b=now, autojunk=False).get_opcodes():
        if tag_ != "equal":
            dropped += [line for line in was[i1:i2] if line.strip()]
            added += [line for line in now[j1:j2] if line.strip()]
    return added, dropped


def _box_geometry(original: str, target: str, here: str, theirs: str) -> list[str] | None:
    """Width, the header row's padding and body rows that differ, in words; None when either draws no box."""
    a, b = _box(original), _box(target)
    if a is None or b is None:
        return None
    said: list[str] = []
    rule = _width_rule(a, b, _first_row(original), here, theirs)
    if a.width != b.width:
        way = "narrower" if b.width < a.width else "wider"
        said.append(f"the box is {b.width} columns wide {here}, {abs(a.width - b.width)} {way} than "
                    f"{theirs}'s {a.width}")
        cut = _cut_row(original, target) if way == "narrower" else 0
        if cut:
            said.append(f"its row is the thought cut at {cut} characters, “…” last")
        elif rule:
            said.append(rule)
    if (a.header_short == 0) != (b.header_short == 0):  # one aligned: a width alone moves an unaligned one
        said.append(f"its header row {_reach(b.header_short)} {here}, {_reach(a.header_short)} on {theirs}'s")
    if a.header_pad != b.header_pad:
        said.append(f"its header row is padded with {b.header_pad[0]} space(s) before and {b.header_pad[1]} "
                    f"after its text {here}, {a.header_pad[0]} and {a.header_pad[1]} on {theirs}")
    if (a.rows, a.loose) != (b.rows, b.loose):
        said.append(f"its body draws {_rows(b)} {here} where {theirs}'s draws {_rows(a)}")
    elif a.row_pads != b.row_pads and len(a.row_pads) == len(b.row_pads):
        # The same rows, padded otherwise: the thought measured in other units (columns, code points).
        row = next(i for i, (x, y) in enumerate(zip(a.row_pads, b.row_pads, strict=True)) if x != y)
        text = _first_row(target) if row == 0 else ""
        of = f" for “{text}”" if text and len(text) <= 60 else ""
        same = ", the border as wide" if a.width == b.width else ""
        why = rule if rule and a.width == b.width else _row_pad_why(a, b, row)
        said.append(f"its thought row{of} is padded with {b.row_pads[row]} space(s) before its right border "
                    f"{here}, {a.row_pads[row]} on {theirs}'s{same}: {why}")
    return said


def _reach(short: int) -> str:
    """Where a header row's right border sits against the box's ("ends 2 columns short of the box's right
    edge"): #4005's base drew a header row two columns narrower than its border, said only by its padding."""
    if short == 0:
        return "ends flush with the box's right edge"
    way = "short of" if short > 0 else "past"
    return f"ends {abs(short)} column{'s' if abs(short) != 1 else ''} {way} the box's right edge"


def _row_pad_why(a: _Box, b: _Box, row: int) -> str:
    """Why one row is padded otherwise: its text measured otherwise, or, when both boxes leave it the same
    width, only a box sized otherwise around it (#4005: a border two columns narrower read as "the thought's
    width counted otherwise", though both measured “a” as one)."""
    measured = a.width - 3 - a.row_pads[row]
    if a.width == b.width or b.width - 3 - b.row_pads[row] != measured:
        return "the thought's width counted otherwise"
    way = "narrower" if b.width < a.width else "wider"
    return f"the thought measured alike on both ({measured}), padded to the {way} box"


def terminal_columns(text: str) -> int:
    """The columns a terminal gives `text`: East Asian wide and fullwidth characters (CJK, kana, Hangul,
    most emoji) two, combining marks and format characters (zero-width, isolates) none, others one."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def _width_rule(a: _Box, b: _Box, thought: str, here: str, theirs: str) -> str:
    """The unit each side's box measures the thought in, read from its thought row's padding (the original
    pads the thought to the border with `padEnd`, in UTF-16 units): "the thought is padded to its terminal
    columns (9) on head, to its UTF-16 units (8) on the original's". A fork sizing its box for a terminal
    was said only as "the thought's width counted otherwise" (issue 42). Empty when the units agree, cannot
    be told apart, or the rows were not each one bordered row."""
    if not thought or not a.row_pads or not b.row_pads or a.rows != 1 or b.rows != 1:
        return ""
    units = {"UTF-16 units": utf16_length(thought), "code points": len(thought),
             "terminal columns": terminal_columns(thought)}

    def unit(box: _Box) -> str:
        measured = box.width - 3 - box.row_pads[0]
        named = [name for name, n in units.items() if n == measured]
        return f"its {named[0]} ({measured})" if len(named) == 1 else ""

    ua, ub = unit(a), unit(b)
    if not ua or not ub or ua == ub:
        return ""
    quoted = f" “{thought}”" if len(thought) <= 60 else ""
    return f"the thought{quoted} is padded to {ub} {here}, to {ua} on {theirs}'s"


def _first_row(text: str) -> str:
    """The text of the first body row under a box's header (its side borders and padding stripped)."""
    lines = text.split("\n")
    middle = next((i for i, line in enumerate(lines) if line.startswith("├")), None)
    row = lines[middle + 1] if middle is not None and middle + 1 < len(lines) else ""
    return row.strip().removeprefix("│").removesuffix("│").strip() if row.startswith("│") else ""


def _cut_row(original: str, target: str) -> int:
    """The characters of a row cut short with “…”, where the other side's row goes on with the same text; 0
    when the row is not so cut (issue 42, fork-compact-terminal: "126 columns wide" never said a thought cut
    at 120)."""
    mine, theirs = _first_row(target), _first_row(original)
    if not mine.endswith("…") or len(mine) < 2 or len(theirs) <= len(mine) - 1:
        return 0
    return len(mine) if theirs.startswith(mine[:-1]) else 0


def _rows(box: _Box) -> str:
    """ "2 rows, one row per line of the thought" / "the thought's 2 lines as one row broken at its line
    break (2 of them missing a side border)"."""
    if box.loose:
        return (f"the thought's {box.rows} lines as one row broken at its line break ({box.loose} of them "
                "missing a side border)")
    per_line = ", one row per line of the thought" if box.rows > 1 else ""
    return f"{box.rows} row{'s' if box.rows != 1 else ''}{per_line}"


def text_difference(original: str, target: str) -> str:
    """Two texts of several lines as the lines one adds, drops and changes (`N lines where the original has
    M; adds “…” before “…”`); a change inside one line as its words; characters no quote shows (a carriage
    return ending each line, a trailing space, a zero-width character) said first, by what they are. Empty
    when equal."""
    if original == target:
        return ""
    hidden = invisible_difference(original, target, framed=box_lines)
    if hidden.trailing or hidden.inside:
        rest = _text_difference(hidden.original, hidden.target)
        geometry = _box_geometry(hidden.original, hidden.target, "{here}", "the original")
        if geometry is None:  # what a reader sees first, then what no quote shows
            return "; ".join(part for part in (rest, hidden.trailing, hidden.inside) if part)
        first = hidden.trailing.replace("each line ends", "each line of the box ends", 1)
        same = "width, padding and rows as the original's" if first and not geometry else ""
        return "; ".join(part for part in (first, same, rest, hidden.inside) if part)
    return _text_difference(original, target)


def _text_difference(original: str, target: str) -> str:
    """`text_difference` once the characters no quote shows are said."""
    if original == target:
        return ""
    a, b = original.splitlines(), target.splitlines()
    if len(a) <= 1 and len(b) <= 1:
        was, now = _line_words(original, target)
        return f"{was} on the original, {now} {{here}}"
    added: list[str] = []
    dropped: list[str] = []
    changed: list[str] = []
    reindented: list[int] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag_, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag_ == "equal":
            continue
        pairs = min(i2 - i1, j2 - j1) if tag_ == "replace" else 0
        for k in range(pairs):
            if a[i1 + k].strip() == b[j1 + k].strip():
                reindented.append(i1 + k)
                continue
            was, now = _changed_words(a[i1 + k], b[j1 + k])
            changed.append(f"line {i1 + k + 1} {was} to {now}")
        dropped += [quoted(line) for line in a[i1 + pairs:i2]]
        added += [quoted(line) + _placed(a, i2) for line in b[j1 + pairs:j2]]
    parts = [f"{len(b)} line{'s' if len(b) != 1 else ''} {{here}} where the original has {len(a)}"
             if len(a) != len(b) else f"{len(a)} lines on each side"]
    box = "; ".join(_box_geometry(original, target, "{here}", "the original") or [])
    if box:
        parts.insert(0, box)
    shape = _shape_difference(original, target)
    if shape:
        parts.insert(0, shape)
    if reindented:
        parts.append(f"re-indents lines {_spans(reindented)} ({_indent_words(a, b, reindented)})")
    for verb, items in (("adds", added), ("drops", dropped), ("changes", changed)):
        if items:
            parts.append(f"{verb} {first_and_more(items, LINES_SHOWN)}")
    if added and not dropped and not changed and not reindented:
        parts.append(f"the original's {len(a)} lines are all still there, in their order")
    if len(a) == len(b) and (changed or reindented):
        # "6 lines on each side" says nothing a line's change does not: a headline cut kept it alone
        # ("stderr: 6 lines on each side; and 1 more", npm:2026.8.31's RTE-9/a1)
        parts.remove(f"{len(a)} lines on each side")
    return "; ".join(parts)


def _placed(original: list[str], before: int) -> str:
    """Where an added line sits among the original's: “ before “…”” (the original's next non-blank line),
    or “ at the end”; an insertion moves what follows, it replaces nothing."""
    following = next((line for line in original[before:] if line.strip()), None)
    return f" before {quoted(following, 80)}" if following is not None else " at the end"


def _json_kind(text: str) -> str:
    """ "a JSON object" / "a JSON array" when the whole text parses as one (bounded: a long text is read
    only when it looks like JSON at both ends), else empty: plain text."""
    stripped = text.strip()
    if not stripped or (stripped[0], stripped[-1]) not in (("{", "}"), ("[", "]")) or len(stripped) > 200_000:
        return ""
    try:
        value = read_served(stripped, "a text")  # bounded depth: a 100,000-deep text is plain text, no crash
    except ValueError:
        return ""
    return "a JSON object" if isinstance(value, dict) else "a JSON array" if isinstance(value, list) else ""


def _shape_difference(original: str, target: str) -> str:
    """The change that says the rest when one text is JSON and the other not (issue 42, wild13's chinng-py:
    OBJ-4's headline counted lines where the truth was "the answer is text, not JSON")."""
    was, now = _json_kind(original), _json_kind(target)
    if was and not now:
        trail = trailed(target)
        if trail is not None and was == "a JSON object":
            # stopuncle-js: its status, then a "---" section; not "plain text".
            lines = trail[1].count("\n") + 1
            return (f"a JSON object followed by {lines} more line(s) of text {{here}} where the original has "
                    f"{was}")
        return f"plain text {{here}} where the original has {was}"
    if now and not was:
        return f"{now} {{here}} where the original has plain text"
    return ""


def _spans(indices: list[int]) -> str:
    """Line numbers (1-based) as runs: 27–33, 40."""
    runs: list[list[int]] = []
    for i in indices:
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return ", ".join(f"{r[0] + 1}–{r[-1] + 1}" if len(r) > 1 else str(r[0] + 1) for r in runs)


def _indent_words(a: list[str], b: list[str], indices: list[int]) -> str:
    """How the indentation changed, when every line changed it alike: “indented by 2 more spaces”."""
    shifts = {(len(b[i]) - len(b[i].lstrip())) - (len(a[i]) - len(a[i].lstrip())) for i in indices}
    if len(shifts) == 1:
        (shift,) = shifts
        plural = "s" if abs(shift) != 1 else ""
        return f"{abs(shift)} {'more' if shift > 0 else 'fewer'} leading space{plural}"
    return "by different amounts"


def _changed_words(original: str, target: str) -> tuple[str, str]:
    """A changed line of a longer text: whole when short, else its changed words with two either side."""
    if max(len(original), len(target)) <= 80:
        return quoted(original), quoted(target)
    was, now = word_difference(original, target, context=2)
    return was.replace('\\"', '"'), now.replace('\\"', '"')


def _line_words(original: str, target: str) -> tuple[str, str]:
    """One line against another: whole when both are short, else the words that differ with a few around."""
    if len(original) < WHOLE_CHARS and len(target) < WHOLE_CHARS:
        return quoted(original), quoted(target)
    was, now = word_difference(original, target)
    return was.replace("\\n", " ⏎ ").replace('\\"', '"'), now.replace("\\n", " ⏎ ").replace('\\"', '"')


def _shown(value: JSON | None, missing: bool) -> str:
    if missing:
        return "absent"
    return json.dumps(_bounded(value), ensure_ascii=False)


LONG_STRING: Final = 160
"""Characters of a string inside a shown value past which its middle is cut, its length said."""


def _bounded(value: JSON | None, depth: int = 0) -> JSON | None:
    """`value` with every long string cut in its middle, its length said ("data:image/svg+xml;base64,PHN2…
    (1,024 characters) …IC8+"): an added field's data URL (levalicious-ts's serverInfo.icons) was shown whole,
    a thousand characters of base64 in every evidence bullet."""
    if isinstance(value, str):
        if len(value) <= LONG_STRING:
            return value
        return f"{value[:60]} … ({len(value):,} characters) … {value[-20:]}"
    if depth > 32:
        return value
    if isinstance(value, list):
        return [_bounded(item, depth + 1) for item in value]
    if isinstance(value, dict):
        return {key: _bounded(item, depth + 1) for key, item in value.items()}
    return value


def _object_text(value: JSON | None) -> JSON | None:
    """A string holding a JSON object or array (a tool result's text), parsed; anything else, None. An object
    with text after it (`served.trailed`: stopuncle-js' status, then a "---" section) is that object: its
    fields are compared as fields, the trail apart (`_trail_difference`); read as one text, no status field's
    change was found in it (issue 42: OBJ-4 "not reproduced … no difference of this cause's")."""
    if not isinstance(value, str) or not value.lstrip().startswith(("{", "[")):
        return None
    trail = trailed(value)
    after = value.strip()[len(trail[0]):] if trail is not None else ""
    if "\n" not in after[:len(after) - len(after.lstrip())]:
        trail = None  # text on the object's own line (`{}x`) is no section after a status: a plain string
    try:
        parsed: JSON = read_served(trail[0] if trail is not None else value, "text")
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict | list) else None


def _trail_difference(original: JSON | None, target: JSON | None, path: str) -> FieldDifference | None:
    """The text after a JSON object (`served.trailed`) that differs between two answers whose objects are
    compared field by field: added, dropped or changed, as lines; None when both trail alike."""
    if not isinstance(original, str) or not isinstance(target, str):
        return None
    a, b = trailed(original), trailed(target)
    after_a, after_b = (a[1] if a is not None else ""), (b[1] if b is not None else "")
    if after_a == after_b:
        return None
    where = path or "the text"
    if not after_a:
        said = (f"a JSON object followed by {after_b.count(chr(10)) + 1} more line(s) of text {{here}} where "
                "the original has a JSON object")
    elif not after_b:
        said = (f"a JSON object {{here}} where the original has a JSON object followed by "
                f"{after_a.count(chr(10)) + 1} more line(s) of text")
    else:
        said = f"the text after the JSON object: {text_difference(after_a, after_b)}"
    return FieldDifference(path, "", "", f"{where}: {said}")


def _grown_list(original: list[JSON], target: list[JSON], path: str) -> FieldDifference | None:
    """A list that only gained or lost items, at its end or anywhere, the others kept in their order, said by
    those items (a tool a fork lists beside the original's, by its name; an item inserted in the middle
    before the one it now precedes), not as two dumps of the whole list nor as every later item changed."""
    short, long = (original, target) if len(original) < len(target) else (target, original)
    if len(long) > 2_000:
        return None
    keys_short = [json.dumps(item, sort_keys=True) for item in short]
    keys_long = [json.dumps(item, sort_keys=True) for item in long]
    blocks = difflib.SequenceMatcher(a=keys_short, b=keys_long, autojunk=False).get_opcodes()
    if any(tag not in ("equal", "insert") for tag, *_ in blocks):
        return None
    extra = [long[j] for tag, _i1, _i2, j1, j2 in blocks if tag == "insert" for j in range(j1, j2)]
    names = [item.get("name") for item in extra if isinstance(item, dict)]
    items = (", ".join(f"`{brief_name}`" for brief_name in (str(n)[:80] for n in names))
             if len(names) == len(extra) and all(isinstance(n, str) for n in names)
             else "; ".join(_shown(item, False)[:WHOLE_CHARS] for item in extra[:3]))
    verb = "added" if long is target else "dropped"
    inside = [i1 for tag, i1, *_ in blocks if tag == "insert" and i1 < len(short)]
    where = ""
    if inside:  # not at the end: where it sits, and that the others are all still there
        follower = short[inside[0]]
        name = follower.get("name") if isinstance(follower, dict) else None
        before = f"`{name[:80]}`" if isinstance(name, str) else _shown(follower, False)[:80]
        where = (f" before {before}; the other {len(short)} item(s) are all still there, in their order"
                 if verb == "added" else f" (it stood before {before}); the other {len(short)} item(s) are "
                 "all still there, in their order")
    return FieldDifference(path, "", "", f"{path or 'the list'}: {len(original)} item(s) on the original, "
                                         f"{len(target)} {{here}}: {items} {verb}{where}", GROWN_LIST)


def _item_names(items: list[JSON]) -> list[str] | None:
    """The `name` of each item of a list of named objects (a tool list), None unless every item has a distinct
    one."""
    names = [item.get("name") for item in items if isinstance(item, dict)]
    if len(names) != len(items) or not all(isinstance(n, str) for n in names):
        return None
    if len(set(names)) != len(names):
        return None
    return [str(n) for n in names]


def _named_items(original: list[JSON], target: list[JSON], path: str) -> list[FieldDifference] | None:
    """Two lists of named objects (tools) that differ in which names they hold: each object both sides name
    compared field by field (at its index on the original), then the names one side adds or drops, said by
    name. A fork adding a tool and rewording the original tool's description shows both changes, not one dump
    of the whole list (issue 42: each departure judged by its own difference)."""
    ours, theirs = _item_names(original), _item_names(target)
    if ours is None or theirs is None or set(ours) == set(theirs) or not set(ours) & set(theirs):
        return None
    out: list[FieldDifference] = []
    for index, name in enumerate(ours):
        if name in theirs:
            out += json_differences(original[index], target[theirs.index(name)], f"{path}[{index}]")
    added = [n for n in theirs if n not in ours]
    dropped = [n for n in ours if n not in theirs]
    for names, verb in ((added, "added"), (dropped, "dropped")):
        if names:
            items = ", ".join(f"`{n[:80]}`" for n in names)
            out.append(FieldDifference(path, "", "", f"{path or 'the list'}: {len(original)} item(s) on the "
                                                     f"original, {len(target)} {{here}}: {items} {verb}",
                                       GROWN_LIST))
    return out


def _items_added_at_the_end(original: list[JSON], target: list[JSON], path: str
                            ) -> list[FieldDifference] | None:
    """A list this server answers longer, its first items the original's changed and items of another kind
    after them: each of those first items compared field by field, then the items added, said by their
    `type` when they have one (held-out-multi-14's rich-results: a final thought answered with a second,
    `resource`, content item beside its changed text was one dump of both lists, said nowhere else)."""
    if not original or len(target) <= len(original) or len(target) > 2_000:
        return None
    extra = target[len(original):]
    kinds = {item.get("type") for item in original if isinstance(item, dict)}
    types = [item.get("type") for item in extra if isinstance(item, dict)]
    if len(types) != len(extra) or not all(isinstance(t, str) and t not in kinds for t in types):
        return None
    out = [d for i, (a, b) in enumerate(zip(original, target, strict=False))
           for d in json_differences(a, b, f"{path}[{i}]")]
    items = "; ".join(_shown(item, False)[:WHOLE_CHARS] for item in extra[:3])
    named = ", ".join(f"`{t}`" for t in dict.fromkeys(map(str, types)))
    said = (f"{path or 'the list'}: {len(original)} item(s) on the original, {len(target)} {{here}}: "
            f"{len(extra)} item(s) of type {named} added at the end: {items}")
    out.append(FieldDifference(path, "", "", said, GROWN_LIST))
    return out


def json_differences(original: JSON | None, target: JSON | None, path: str = "") -> list[FieldDifference]:
    """Every leaf where the two values differ, JSON texts inside strings compared as JSON."""
    if original == target:
        return []
    if isinstance(original, dict) and isinstance(target, dict):
        out: list[FieldDifference] = []
        for key in [*original, *(k for k in target if k not in original)]:
            sub = f"{path}.{key}" if path else key
            if key not in target:
                out.append(FieldDifference(sub, _shown(original[key], False), "absent"))
            elif key not in original:
                out.append(FieldDifference(sub, "absent", _shown(target[key], False)))
            else:
                out += json_differences(original[key], target[key], sub)
        if not out and list(original) != list(target):
            out.append(FieldDifference(path, "keys " + ", ".join(original), "keys " + ", ".join(target)))
        return out
    if isinstance(original, list) and isinstance(target, list) and len(original) == len(target):
        return [d for i, (a, b) in enumerate(zip(original, target, strict=True))
                for d in json_differences(a, b, f"{path}[{i}]")]
    if isinstance(original, list) and isinstance(target, list):
        grown = _grown_list(original, target, path)
        if grown is not None:
            return [grown]
        named = _named_items(original, target, path)
        if named is not None:
            return named
        tail = _items_added_at_the_end(original, target, path)
        if tail is not None:
            return tail
    inner_a, inner_b = _object_text(original), _object_text(target)
    if inner_a is not None and inner_b is not None:
        found = json_differences(inner_a, inner_b, f"{path} →" if path else "")
        trail = _trail_difference(original, target, path)
        found += [trail] if trail is not None else []
        if found:
            # The path read inside the text, said as such; a difference said as a sentence keeps it (and
            # its kind), with the same path in it.
            return [replace(d, path=d.path.replace("→.", "→ "), sentence=d.sentence.replace("→.", "→ "))
                    for d in found]
        return [FieldDifference(path, SAME_JSON, "written another way")]
    if isinstance(original, str) and isinstance(target, str):
        if "\n" in original or "\n" in target:
            lines = text_difference(original, target)
            return [FieldDifference(path, "", "", f"{path or 'the text'}: {lines}")]
        return [FieldDifference(path, *_line_words(original, target))]
    return [FieldDifference(path, _shown(original, False), _shown(target, False))]


def word_difference(original: str, target: str, context: int = 3) -> tuple[str, str]:
    """The two texts cut to the words that differ, with a few words around: `… a [b] c …` each side. Only a
    window around the characters that differ is split into words (a 1 MiB box costs what a short one does)."""
    if original == target:
        return json.dumps(original, ensure_ascii=False), json.dumps(target, ensure_ascii=False)
    head = _common_length(original, target)
    tail = _common_length(original[head:][::-1], target[head:][::-1])
    start = max(head - _WINDOW_CHARS, 0)
    whole = (len(original) - max(tail - _WINDOW_CHARS, 0), len(target) - max(tail - _WINDOW_CHARS, 0))
    ends = (_split_end(head, whole[0]), _split_end(head, whole[1]))
    a, b = _WORD.findall(original[start:ends[0]]), _WORD.findall(target[start:ends[1]])
    changed = _changed_blocks(a, b)
    first, last = changed[0], changed[-1]

    def cut(words: list[str], begin: int, end: int, more_after: bool) -> str:
        lo, hi = max(begin - context, 0), min(end + context, len(words))
        text = "".join(words[lo:begin]) + "[" + "".join(words[begin:end]) + "]" + "".join(words[end:hi])
        inner = json.dumps(text, ensure_ascii=False)[1:-1]
        return ("…" if lo or start else "") + inner + ("…" if hi < len(words) or more_after else "")

    was = cut(a, first[1], last[2], ends[0] < len(original))
    now = cut(b, first[3], last[4], ends[1] < len(target))
    return (f"“{was}”{_length_said(original, ends[0] < whole[0])}",
            f"“{now}”{_length_said(target, ends[1] < whole[1])}")


TWO_QUOTES: Final = re.compile(r"“([^”]{1,2000})”([^“”]{1,80}?)“([^”]{1,2000})”")
"""Two quotes one sentence sets side by side ("“A” on the original, “B” here")."""


def pair_fitted(text: str, limit: int) -> str | None:
    """`text` with its first two quotes side by side said by the words that differ (`word_difference`), with
    as many words around as fit in `limit` (6, 4, then 2 each side), when that is shorter; else None. A cut at
    the end kept the first side's words and dropped the other's (a crash's words V8 quotes from each side's
    own source)."""
    found = TWO_QUOTES.search(text)
    if found is None or found.group(1) == found.group(3):
        return None
    fitted = text
    for context in (6, 4, 2):
        was, now = (side.replace('\\"', '"')
                    for side in word_difference(found.group(1), found.group(3), context=context))
        fitted = f"{text[: found.start()]}{was}{found.group(2)}{now}{text[found.end():]}"
        if len(fitted) <= limit:
            break
    return fitted if len(fitted) < len(text) else None


_LONG_QUOTE: Final = re.compile(r"“([^”]{40,})”")
QUOTE_LEAST: Final = 30
"""The fewest characters a quote cut in its middle keeps: where its words begin and where they end."""


_FIT_TRIES: Final = 24
"""Times the room taken from the quotes grows by what a cut at words kept over it."""


def quotes_fitted(text: str, limit: int) -> str | None:
    """`text` with each long quote cut in its middle (“MCP error -32602: … received undefined”), the room over
    `limit` taken from each in proportion to its length, never below `QUOTE_LEAST`: two refusals side by side
    kept both sides' words where a cut at the end kept only the first (npm:2026.8.31's OBJ-8: “Cannot read
    properties …” on the original, “MCP error…” here). None when no long quote is there or nothing is cut."""
    found = list(_LONG_QUOTE.finditer(text))
    total = sum(len(m.group(1)) for m in found)
    if not found or len(text) <= limit:
        return None
    fitted, over = text, len(text) - limit
    for _ in range(_FIT_TRIES):  # a cut at words may keep a few characters more than its share
        out: list[str] = []
        at = 0
        for m in found:
            words = m.group(1)
            room = max(len(words) - -(-over * len(words) // total), QUOTE_LEAST)
            out += [text[at:m.start()], f"“{middle_cut(words, room)}”"]
            at = m.end()
        fitted = "".join(out) + text[at:]
        if len(fitted) <= limit:
            break
        over += len(fitted) - limit
    return fitted if len(fitted) < len(text) else None


def middle_cut(words: str, room: int) -> str:
    """`words` in about `room` characters, their start and end kept at word boundaries, " … " between."""
    if len(words) <= room:
        return words
    head = words[: max(room // 2 - 2, 1)]
    head = head.rsplit(" ", 1)[0] if " " in head.strip() else head
    tail = words[len(words) - max(room - len(head) - 3, 1):]
    tail = tail.split(" ", 1)[1] if " " in tail.strip() and not tail.startswith(" ") else tail.lstrip()
    return f"{head} … {tail}" if tail else f"{head} …"


def _split_end(head: int, end: int) -> int:
    """Where a text's window split into words ends: at most `_SPLIT_CHARS` past the shared head, so a huge
    differing text costs what a few KB does (texts whose differing span is shorter are split whole)."""
    return min(end, head + _WINDOW_CHARS + _SPLIT_CHARS)


def _length_said(text: str, was_cut: bool) -> str:
    """` (of 200,000 characters)` after a text whose differing span was cut (`_split_end`), else nothing."""
    return f" (of {len(text):,} characters)" if was_cut else ""


def _common_length(a: str, b: str) -> int:
    """How many leading characters the two strings share, by halving (each comparison runs in C)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _changed_blocks(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib's changed opcodes, past the common head and tail; a middle too long to match (a 1 MiB
    thought's border is a million one-character words, quadratic for the matcher) is one changed block."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    end_a, end_b = len(a) - tail, len(b) - tail
    if head == end_a and head == end_b:
        return []
    if (end_a - head) * (end_b - head) > _MATCHED_WORDS:
        return [("replace", head, end_a, head, end_b)]
    blocks = difflib.SequenceMatcher(a=a[head:end_a], b=b[head:end_b], autojunk=False).get_opcodes()
    return [(tag, i1 + head, i2 + head, j1 + head, j2 + head) for tag, i1, i2, j1, j2 in blocks
            if tag != "equal"]


def said(differences: list[FieldDifference], here: str = "here") -> str:
    """The differing fields in one sentence, the first few named."""
    return first_and_more([d.said(here) for d in differences], MAX_FIELDS, sep="; ",
                          more="; and {} more field(s)")


def serialized_difference(original: str, target: str) -> str:
    """Two serialized snapshots (syrupy's amber text), said as the lines that differ under their keys."""
    a, b = original.splitlines(), target.splitlines()
    parts: list[str] = []
    for tag_, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag_ == "equal":
            continue
        where = _amber_path(a, i1) if i1 < len(a) else _amber_path(b, j1)
        old = " ⏎ ".join(_amber_words(line) for line in a[i1:i2])
        new = " ⏎ ".join(_amber_words(line) for line in b[j1:j2])
        # Lines only one side has are said as added or dropped: "nothing on the original, …" read as if the
        # original had no description at all (nalyk/sequentialthinking, reports/third-party/AUDIT.md).
        if not old:
            said = f"{_lines(j2 - j1)} added here, which the original does not have: {new}"
        elif not new:
            said = f"{_lines(i2 - i1)} of the original dropped here: {old}"
        else:
            said = f"{old} on the original, {new} here"
        parts.append(f"{where + ': ' if where else ''}{said}")
    more = f"\nand {len(parts) - MAX_FIELDS} more" if len(parts) > MAX_FIELDS else ""
    return "\n".join(parts[:MAX_FIELDS]) + more


def _lines(count: int) -> str:
    return f"{count} line{'s' if count != 1 else ''}"


_AMBER_VALUE: Final = re.compile(r"'((?:[^'\\]|\\.)*)'")
_AMBER_WORDS: Final = {"True": "true", "False": "false", "None": "null"}


def _amber_words(line: str) -> str:
    """One line of syrupy's serialization in JSON's words: `'key': dict({` as `key: {`, `'text'` as “text”,
    False as false; none of Python's spelling reaches the reader."""
    text = line.strip().rstrip(",")
    text = re.sub(r"\b(?:dict|list|set|tuple)\(([\[{(])", r"\1", text)
    text = re.sub(r"([\]})])\)$", r"\1", text)
    text = re.sub(r"^'((?:[^'\\]|\\.)*)': ", r"\1: ", text)
    text = _AMBER_VALUE.sub(lambda m: f"“{m.group(1)}”", text)
    return re.sub(r"\b(True|False|None)\b", lambda m: _AMBER_WORDS[m.group(1)], text)


def _amber_path(lines: list[str], index: int) -> str:
    """The keys enclosing line `index` of an amber text (by indentation)."""
    keys: list[str] = []
    depth = len(lines[index]) - len(lines[index].lstrip())
    for line in reversed(lines[:index]):
        indent = len(line) - len(line.lstrip())
        found = _AMBER_KEY.match(line)
        if indent < depth and found:
            keys.append(found.group(1))
            depth = indent
    return ".".join(reversed(keys))


RUNTIME_ERROR: Final = re.compile(
    r"Cannot (?:read|set|convert|destructure)|is not (?:a function|iterable|defined|an object|a constructor)"
    r"|\b(?:undefined|null)\b|Maximum call stack|Unexpected token|\b(?:Type|Range|Reference|Syntax)Error\b")
"""Words of a JavaScript runtime error, not of a rule a server states: a refusal naming no field in other
words ("Session closed: …", "Maximum number of branches (50) exceeded") is a fork's rule, one change."""
SAME_JSON: Final = "the same JSON, written one way"
"""An answer's text whose JSON is equal but laid out otherwise (key order, indentation)."""


def _refused(value: JSON | None) -> tuple[str, str] | None:
    """A refusal's field (empty when its words name none) and words, or None for an answer that is no
    refusal; read from a JSON-RPC response or from a witness's canonical answer (`{"error": "protocol
    error"}`, a flagged result whose content item holds the parsed `json`)."""
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("error"), str):
        return "", str(value["error"])
    found = refusal(value)
    result = value.get("result")
    content = result.get("content") if isinstance(result, dict) else None
    first = content[0] if isinstance(content, list) and content else None
    parsed = first.get("json") if isinstance(first, dict) else None
    if isinstance(parsed, dict) and isinstance(result, dict) and result.get("isError") is True:
        words = parsed.get("error")
        text = words if isinstance(words, str) else json.dumps(parsed, sort_keys=True)
        return field_named(text), text
    if found is not None:
        return found.field, found.words
    return None


def _last_key(path: str) -> str:
    """The field a difference's path ends on, list indexes dropped (`result.content[0].text → branches[1]`
    and a witness's `result.content[0].json.branches[1]` are both `branches`)."""
    parts = [p for p in re.split(r"\s*→\s*|\.", re.sub(r"\[\d+\]", "", path)) if p.strip()]
    return parts[-1].strip() if parts else "answer"


def difference_keys(original: JSON | None, target: JSON | None, arguments: object = None) -> frozenset[str]:
    """What two answers to one call differ about, as keys two differences can be matched on: which side
    refuses and the field its refusal names (and, with the call's `arguments`, whether the call carried that
    field spelled otherwise: `respelled_read`); two refusals' fields, else their words; else the fields whose
    values differ (their last key) and the JSON text's layout. Reads JSON-RPC responses (a run's evidence)
    and a baseline's canonical witness answers alike, so a departure's own difference can be held against an
    entry's pinned one (gate/pinned.py)."""
    if original == target:
        return frozenset()
    a, b = _refused(original), _refused(target)
    if (a is None) != (b is None):
        side, named = ("this server", b[0]) if b is not None else ("the original", a[0] if a else "")
        # A name read in another spelling is another change than a value let through under the same field
        # (held-out-multi-12: `Thought` read for `thought` beside a numeric thought taken as its string).
        respelled = ", read respelled" if a is not None and respelled_read(a[0], arguments) else ""
        return frozenset({f"refused by {side}: {named or 'no field named'}{respelled}"})
    if a is not None and b is not None:
        if a[0] != b[0]:
            return frozenset({f"validation order: {a[0] or '?'} then {b[0] or '?'}"})
        return frozenset({f"refusal words: {a[0] or 'no field named'}"} if a[1] != b[1] else set())
    return frozenset("layout" if d.original == SAME_JSON or d.path.endswith("layout") else _last_key(d.path)
                     for d in json_differences(original, target) if not sdk_owned(d))


SDK_OWNED: Final = ("capabilities.tools.listChanged", "result.isError")
"""What each side's SDK owns (EXT-1, docs/reference-server.md): `false` spelled out by one SDK and left out
by another says the same."""


def sdk_owned(difference: FieldDifference) -> bool:
    """A difference only in how each side's SDK spells a default (`isError: false` against none)."""
    return (difference.path.endswith(SDK_OWNED)
            and {difference.original, difference.target} == {"false", "absent"})
