"""The reference server with one change a fork makes, named by the first argument:

- `renamed`: tools/list names the tool `think`; a call to `sequentialthinking` is still answered (a call to
  `think` is an unknown tool's);
- `listed-as:NAME`: tools/list names the tool NAME and both NAME and `sequentialthinking` are answered as the
  tool; `moved-to:NAME`: the same listing, and a call to `sequentialthinking` is an unknown tool's;
- `versions-only:V,W,…`: initialize echoes an offered V or W and refuses any other version (-32602
  "Unsupported protocol version: <offered>"); `version-refused:V`: only V is refused so, others echoed;
- `fenced`: every answer of the tool (accepted or refused) is its JSON inside a markdown code fence,
  "```json\\n" + the original's text + "\\n```";
- `stringified`: a failure's error is the exception stringified whole, `String(error)`: "Error: Invalid
  thought: must be a string", "TypeError: Cannot read properties of undefined (reading 'thought')";
- `typed-guards`: the guards of thought, thoughtNumber and totalThoughts check the type only, so `thought: ""`
  and a number 0 are accepted (what npm:2025.11.25 and later do with their schema's validation);
- `blank-refused`: a thought empty once trimmed (as JavaScript's `trim` reads it: spaces, tabs, line breaks,
  no-break and ideographic spaces, the byte-order mark) is refused first, with "Invalid thought: must not be
  blank", as a fork validating with a schema library does (held-out-multi-6's strict-schema);
- `logged`: every refused call also writes "Error processing thought: " + its error message as one stderr line
  before it is answered (as the held-out readable-output fork does): a call owing no box that writes stderr;
- `ascii-box`: every box is drawn in ASCII (`+---+`, `|`), one per accepted call as before (held-out-multi-7's
  fork-ascii-console): a box in another form is still a box;
- `enveloped`: an accepted call's text is `{"ok": true, "result": <the status object>}` and a refusal's (still
  isError) `{"ok": false, "error": {"code": …, "message": <the message>}}` (held-out-multi-7's
  fork-api-envelope): the five fields sit under `result`, the message under `error`;
- `summary-first`: an accepted call answers two text blocks, "Thought n of m recorded; k to go." and then the
  status JSON unchanged (held-out-multi-4's fork-progress-meter): the status is in the second block;
- `prose-first`: an accepted call's text is one line of prose, "Recorded thought n/m.", then the status JSON
  unchanged on the lines after it (held-out-multi-16's fork-host-hints): no JSON text, on every fresh process;
- `trailed`: every answer of the tool (accepted or refused) is its JSON followed by a section of text,
  "\n\n---\n🔄 NEXT: …" (stopuncle-js' self-reinforcing output): the status is the text's first value;
- `active-branches`: an accepted call's status names its labels `activeBranches`, not `branches`
  (stopuncle-js): the count is there, the labels under another name;
- `any-case`, `any-separator` (SPELLING_CHANGES): a missing one of the nine names is read from an argument
  spelled like it ignoring letter case (held-out-multi-12's fork-small-model-friendly), or ignoring case, `_`
  and `-` (snake_case and kebab-case too); an exact name wins;
- `snake-keys`: an accepted call's status keys in snake_case, `thought_number`, …, `thought_history_length`,
  same values, same order (held-out-multi-11's toolkit-port): the store kept alike under renamed keys;
- `session-checked`: a call carrying a `sessionId` argument is refused, "Invalid sessionId: the current
  session is s1" (held-out-multi-8's fork-session-ids, one id per session): an undeclared argument read;
  `session-scoped`: an accepted call carrying a string `sessionId` answers the count of that session's calls
  alone (held-out-multi-17's fork-scoped-sessions): a count moved by an undeclared argument;
- `kind-in-box`: a `kind` argument of "hypothesis", "verification" or "conclusion" ends the box's header
  with " [kind]", the border sized to it (held-out-multi-8's fork-annotated-thoughts): an undeclared
  argument drawn;
- `merge-branch`: a string `mergeBranch` naming a filed label deletes it after the call's own filing, so
  the answer no longer lists it (held-out-multi-8's fork-branch-workflow): an undeclared argument retiring
  a label;
- `revision-strings`: an isRevision of the string "true" or "false" is kept as the boolean, so "false" is
  boxed as a thought (held-out-multi-8's fork-annotated-thoughts): a string read as the boolean it spells;
- `final-forgets`, `store-per-call` (OTHER_CHANGES): an accepted call ending a chain (nextThoughtNeeded
  false), or every accepted call, empties the history and the branches after its answer (held-out-multi-18's
  finished-chain-forgotten; a server keeping no state between calls); `final-unkept`: an accepted call ending
  a chain is not kept in the history, its answer counting without it (held-out-multi-19's
  fork-backtracking-store);
- `next-needed-strings`: a nextThoughtNeeded of the string "true" or "false" is read as the boolean it spells
  and the call accepted (held-out-multi-14's typed-arguments); other non-booleans refused as before;
- `structured`: every answer of the tool (accepted or refused) also carries `structuredContent`, the object
  its text holds (held-out-multi-9's fork-mcp-modern, MCP 2025-06-18's structured results): a result key the
  original never sends;
- `word-count`, `columns-box`, `long-warning`, `surrogate-refused`, `revise-or-branch`, `runaway-ratio`,
  `short-refused`, `early-final-refused`, `follows-last`, `final-needing-more`, `revises-needs-true`,
  `revises-below`, `branch-not-ahead`, `total-not-below`, `branch-earlier`, `numbers-typed`,
  `numbers-converted`, `pointers-converted`, `furthest-total` (OTHER_CHANGES, joined by "+"): a word count
  ends every box header; the box's border and the thought row's padding count terminal columns (East Asian
  wide and fullwidth characters two, combining marks and format characters none), not UTF-16 units; a "[warn]"
  line follows the box of a thought over 2,000 UTF-16 units; a thought holding an unpaired surrogate is
  refused, "Invalid thought: malformed Unicode (unpaired surrogate)"; a call both revising and branching is
  refused, "Invalid isRevision: a thought cannot both revise and branch"; a thoughtNumber more than ten times
  a positive totalThoughts is refused, "thoughtNumber <n> is more than ten times totalThoughts <m>"; a thought
  shorter than 8 UTF-16 units is refused, "Invalid thought: at least 8 characters"; a nextThoughtNeeded false
  with thoughtNumber below totalThoughts is refused, "Invalid nextThoughtNeeded: a thought before the last
  cannot end the chain"; a plain thought numbered neither 1 nor past the last one taken is refused, "Invalid
  thoughtNumber: must follow thought <last>"; a final thought with needsMoreThoughts true is refused, "Invalid
  needsMoreThoughts: a final thought cannot need more thoughts"; a revisesThought beside an isRevision other
  than true is refused, "Invalid revisesThought: only allowed when isRevision is true"; a number refused by a
  relation to thoughtNumber: a revisesThought not below it, "Invalid revisesThought: must be a thought number
  below thoughtNumber" (held-out-multi-13's strict-relations), a branchFromThought above it, "Invalid
  branchFromThought: cannot branch from a later thought", a totalThoughts below it, "Invalid totalThoughts:
  must be at least thoughtNumber"; a numbered branchFromThought at or past thoughtNumber is refused,
  "branchFromThought must be less than thoughtNumber"; a revisesThought or branchFromThought given as no
  number is refused, "<field>: Expected number, received <type>"; digits given for a numbered field are read
  as the number; a revisesThought or branchFromThought object read as a number while validating throws the
  original's late “Cannot convert object to primitive value” before the thought is kept; a totalThoughts below
  the furthest thoughtNumber the process accepted is raised to it (held-out-multi-16's fork-plan-tracker): an
  answer depending on what earlier calls left;
- `confidence`: the inputSchema declares `confidence` (a number from 0 to 1); a call carrying one out of that
  range is refused, "Invalid confidence: must be a number from 0 to 1", and one below 0.5 with
  nextThoughtNeeded true plans one more thought (held-out-multi-9's fork-confidence-scores);
- `lockout`: after three refused calls of the tool in a row, the next call whatever its arguments is refused
  with "Too many invalid calls in a row: this call was not processed" and the count starts again; a call
  passing validation resets it, so a late throw counts one (held-out-multi-9's fork-model-guard): state kept
  from refused calls;
- `line-limit`: a thought of more than ten lines is refused first, "Invalid thought: at most 10 lines"
  (held-out-multi-8's fork-annotated-thoughts): a long multi-line thought refused;
- `tool-reads`, `tool-empties`, `tool-adds`, `tool-hangs` (EXTRA_TOOLS): tools/list also lists a second
  tool that reads the stored thoughts, empties the store, files a note, or never answers;
- `debug-logged`, `prompts-declared`, `tmp-written`, `thought-as-content` (PROTOCOL_CHANGES, joined by "+"):
  a `logging` capability and thoughts sent as debug log messages once a client asks for them, a `prompts`
  capability, a file in TMPDIR, the required `thought` served and read as `content`; `history-resource`,
  `recap-prompt`, `thought-template`, `raise-warned`, `progress-sent`: a listed resource, prompt or resource
  template holding the stored thoughts, a
  warning notification when a call raises totalThoughts, a progress notification during every call;
- `branch-typed`, `branch-typed-bare`: a branchId that is no string is refused (isError) as npm:2025.11.25
  refuses it, "Invalid input: expected string, received boolean" inside its SDK's issue list naming the path
  `branchId`, or (bare) those words alone, naming no field (issue 42).

- `rtl-isolated`: a thought holding a Hebrew or Arabic character is boxed wrapped in U+2068 FIRST STRONG
  ISOLATE … U+2069 POP DIRECTIONAL ISOLATE, the border two wider (held-out-multi-14's multilingual); the
  answer and other thoughts unchanged;
- `revision-filed`: a call with a truthy isRevision and a truthy branchId is filed under that label without a
  branchFromThought, boxed as a revision still (held-out-multi-14's branch-workspaces);
- `digit-ids`: a request whose id is a string of ASCII digits ("7") is answered with the number (7), as a
  gateway reading ids as numbers (held-out-multi-14's gateway);
- `unknown-tool-plain`: a call to a tool it does not have is answered with the original's words (“Unknown
  tool: NAME”) as a result without isError (a refusal a host reads as a success);
- `debug-stderr`: every accepted call writes a "[DEBUG] processing thought n" line to stderr before its box
  and "[DEBUG] stored thought n" after it (a server in the wild logging around the box): the box itself is the
  original's;
- `unknown-tool-answered`: a call to a tool it does not have is answered “Tool NAME is not available here” as
  a result without isError, words of its own (an answer with content, no refusal a host sees);
- `number-ids`: a tools/call whose id is a number (7) is answered with its digits as a string ("7"), so
  every numbered call is answered under another id than it was sent with;
- `deferred-long`: a relay to the reference holding a call whose thought is over 500 UTF-16 units for 300 ms
  while the lines after it go first, so a call sent right behind it is stored and answered before it
  (held-out-multi-14's background-worker);
- `cancel-honoured`: a relay to the reference holding every tools/call 20 ms (the lines behind it too, so
  calls keep their order) and dropping one the client cancels meanwhile: neither processed, kept nor answered
  (modifications.yaml's cancellation-honoured); either relay followed by `:MODE` relays to the fork in MODE.

- `two-label-rules`: a branchId over 16 UTF-16 units refused (“Invalid branchId: must be at most 16
  characters”), and a branching call under an eleventh label once ten are filed (“Invalid branchId: at most
  10 branches”): two rules a fork adds on one field (held-out-multi-18's branch-limits);
- `count-without-branches`: the answer's thoughtHistoryLength leaves out the thoughts sent as a branch, the
  history kept whole (held-out-multi-18's branch-board);
- `tags-listed-and-answered`: the inputSchema declares `tags`; once a call sent any, every accepted answer
  carries a `tags` key (the tags kept so far): the listing's change and the answer's, one name
  (held-out-multi-18's tagged-journal).

Everything else is the reference's, so every other record must hold on it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any, Final

from reference_server import sdk050, startup
from reference_server.jsvalue import JSError, to_string

JS_WHITESPACE = (" \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                 "\u2028\u2029\u202f\u205f\u3000\ufeff")
"""What JavaScript's String.prototype.trim removes (WhiteSpace and LineTerminator)."""


def _session_checked(thinking: Any) -> None:
    validate = thinking.validate_thought_data

    def checked(data: Mapping[str, Any] | None) -> Any:
        validated = validate(data)
        if isinstance(data, Mapping) and "sessionId" in data and data["sessionId"] != "s1":
            raise JSError("Invalid sessionId: the current session is s1")
        return validated

    thinking.validate_thought_data = checked


def _session_scoped(thinking: Any) -> None:
    process = thinking.SequentialThinkingServer.process_thought
    counts: dict[str, int] = {}

    def scoped(self: Any, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        text, is_error = process(self, arguments)
        session = arguments.get("sessionId") if isinstance(arguments, Mapping) else None
        if is_error or not isinstance(session, str):
            return text, is_error
        counts[session] = counts.get(session, 0) + 1
        return json.dumps({**json.loads(text), "thoughtHistoryLength": counts[session]}, indent=2), False

    thinking.SequentialThinkingServer.process_thought = scoped


_NINE: Final = ("thought", "nextThoughtNeeded", "thoughtNumber", "totalThoughts", "isRevision",
                "revisesThought", "branchFromThought", "branchId", "needsMoreThoughts")


def _read_also(thinking: Any, key: Callable[[str], str]) -> None:
    """A missing one of the nine names read from an argument whose `key` is the name's (an exact name
    wins), as a fork forgiving a model's spelling reads them."""
    validate = thinking.validate_thought_data

    def forgiving(data: Mapping[str, Any] | None) -> Any:
        if isinstance(data, Mapping):
            found = {name: next((v for k, v in data.items() if key(k) == key(name)), None) for name in _NINE}
            data = {**data, **{k: v for k, v in found.items() if k not in data and v is not None}}
        return validate(data)

    thinking.validate_thought_data = forgiving


def _kind_in_box(thinking: Any) -> None:
    processed = thinking.SequentialThinkingServer.process_thought
    formatted = thinking.SequentialThinkingServer.format_thought
    kinds: list[str] = []

    def remembering(self: Any, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        kind = arguments.get("kind") if isinstance(arguments, Mapping) else None
        kinds[:] = [kind] if kind in ("hypothesis", "verification", "conclusion") else []
        return processed(self, arguments)  # type: ignore[no-any-return]

    def kind_shown(self: Any, data: Any) -> str:
        box = formatted(self, data)
        if not kinds:
            return box  # type: ignore[no-any-return]
        header = box.split("\n")[2].removeprefix("│ ").removesuffix(" │") + f" [{kinds[0]}]"
        width = max(thinking._len16(header), thinking._len16(data.thought)) + 4
        border = "─" * width
        padding = " " * (width - 2 - thinking._len16(data.thought))
        return f"\n┌{border}┐\n│ {header} │\n├{border}┤\n│ {data.thought}{padding} │\n└{border}┘"

    thinking.SequentialThinkingServer.process_thought = remembering
    thinking.SequentialThinkingServer.format_thought = kind_shown


def _merge_branch(thinking: Any) -> None:
    processed = thinking.SequentialThinkingServer.process_thought
    formatted = thinking.SequentialThinkingServer.format_thought
    merging: list[str] = []

    def remembering(self: Any, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        named = arguments.get("mergeBranch") if isinstance(arguments, Mapping) else None
        merging[:] = [named] if isinstance(named, str) else []
        return processed(self, arguments)  # type: ignore[no-any-return]

    def merged(self: Any, data: Any) -> str:
        # After the call's own filing, before its answer: the label leaves the map.
        if merging and isinstance(self.branches.get(merging[0]), list):
            kept = type(self.branches)()
            names = self.branches.keys()
            for key in names:
                if key != merging[0]:
                    kept.set(key, self.branches.get(key))
            self.branches = kept
            self._branches_version = -1
        return formatted(self, data)  # type: ignore[no-any-return]

    thinking.SequentialThinkingServer.process_thought = remembering
    thinking.SequentialThinkingServer.format_thought = merged


def _revision_strings(thinking: Any) -> None:
    validate = thinking.validate_thought_data

    def read(data: Mapping[str, Any] | None) -> Any:
        validated = validate(data)
        if validated.isRevision in ("true", "false"):
            validated.isRevision = validated.isRevision == "true"
        return validated

    thinking.validate_thought_data = read


def _next_needed_strings(thinking: Any) -> None:
    """A nextThoughtNeeded of the string "true" or "false" read as the boolean it spells before the checks
    (held-out-multi-14's typed-arguments); any other non-boolean refused as before."""
    validate = thinking.validate_thought_data

    def read(data: Mapping[str, Any] | None) -> Any:
        if isinstance(data, Mapping) and data.get("nextThoughtNeeded") in ("true", "false"):
            data = {**data, "nextThoughtNeeded": data["nextThoughtNeeded"] == "true"}
        return validate(data)

    thinking.validate_thought_data = read


def _line_limit(thinking: Any) -> None:
    validate = thinking.validate_thought_data

    def limited(data: Mapping[str, Any] | None) -> Any:
        thought = data.get("thought") if isinstance(data, Mapping) else None
        if isinstance(thought, str) and thought and thought.count("\n") > 9:
            raise JSError("Invalid thought: at most 10 lines")
        return validate(data)

    thinking.validate_thought_data = limited


def _word_count(thinking: Any) -> None:
    formatted = thinking.SequentialThinkingServer.format_thought

    def counted(self: Any, data: Any) -> str:
        words = len(data.thought.split())
        header = formatted(self, data).split("\n")[2].removeprefix("│ ").removesuffix(" │").rstrip()
        header += f" · {words} {'word' if words == 1 else 'words'}"
        width = max(thinking._len16(header), thinking._len16(data.thought)) + 4
        border = "─" * width
        padding = " " * (width - 2 - thinking._len16(data.thought))
        return f"\n┌{border}┐\n│ {header} │\n├{border}┤\n│ {data.thought}{padding} │\n└{border}┘"

    thinking.SequentialThinkingServer.format_thought = counted


def _columns_box(thinking: Any) -> None:
    formatted = thinking.SequentialThinkingServer.format_thought

    def columns(text: str) -> int:
        return sum(0 if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf")
                   else 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)

    def boxed(self: Any, data: Any) -> str:
        header = formatted(self, data).split("\n")[2].removeprefix("│ ").removesuffix(" │")
        width = max(columns(header), columns(data.thought)) + 4
        border = "─" * width
        padding = " " * (width - 2 - columns(data.thought))
        return f"\n┌{border}┐\n│ {header} │\n├{border}┤\n│ {data.thought}{padding} │\n└{border}┘"

    thinking.SequentialThinkingServer.format_thought = boxed


def _long_warning(thinking: Any) -> None:
    formatted = thinking.SequentialThinkingServer.format_thought

    def warned(self: Any, data: Any) -> str:
        box = formatted(self, data)
        length = thinking._len16(data.thought)
        if length <= 2000:
            return box  # type: ignore[no-any-return]
        number = thinking.number_to_string(data.thoughtNumber)
        return f"{box}\n[warn] thought {number} is {length} characters long"

    thinking.SequentialThinkingServer.format_thought = warned


BOXES_SHOWN: Final = 5
"""Accepted thoughts a process of `boxes-muted` draws before its boxes stop."""


def _boxes_muted(thinking: Any, mutes: Callable[[int, Mapping[str, Any] | None], bool]) -> None:
    """A call draws no box when `mutes(accepted thoughts so far, its arguments)`."""
    process = thinking.SequentialThinkingServer.process_thought

    def muted(self: Any, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        write, boxed = self._write_stderr, getattr(self, "boxed", 0)
        if mutes(boxed, arguments):
            self._write_stderr = lambda data: None
        try:
            text, is_error = process(self, arguments)
        finally:
            self._write_stderr = write
        self.boxed = boxed + (not is_error)
        return text, is_error

    thinking.SequentialThinkingServer.process_thought = muted


def _split_muted(thinking: Any, delay: float = 0.02) -> None:
    _boxes_muted(thinking, lambda boxed, arguments: boxed >= BOXES_SHOWN)
    process = thinking.SequentialThinkingServer.process_thought

    def split(self: Any, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        write = self._write_stderr

        def halves(data: bytes) -> None:
            write(data[:len(data) // 2])
            if delay:
                threading.Timer(delay, write, (data[len(data) // 2:],)).start()
            else:
                write(data[len(data) // 2:])

        self._write_stderr = halves
        try:
            return process(self, arguments)  # type: ignore[no-any-return]
        finally:
            self._write_stderr = write

    thinking.SequentialThinkingServer.process_thought = split


LARGE_BOX: Final = 1 << 16
"""A box longer than this is written as node writes a large render to a pipe (`large-tail`): most of it before
the answer, its last `LATE_TAIL` bytes after."""
LATE_TAIL: Final = 4096


def _large_tail(thinking: Any, larger_than: int = LARGE_BOX, delay: float = 0.02) -> None:
    process = thinking.SequentialThinkingServer.process_thought

    def tailed(self: Any, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        write = self._write_stderr

        def head_now(data: bytes) -> None:
            if len(data) <= larger_than:
                write(data)
                return
            cut = len(data) - min(LATE_TAIL, len(data) // 4)
            write(data[:cut])
            threading.Timer(delay, write, (data[cut:],)).start()

        self._write_stderr = head_now
        try:
            return process(self, arguments)  # type: ignore[no-any-return]
        finally:
            self._write_stderr = write

    thinking.SequentialThinkingServer.process_thought = tailed


def _surrogate_refused(thinking: Any) -> None:
    validate = thinking.validate_thought_data
    lone = re.compile("[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]")

    def refusing(data: Mapping[str, Any] | None) -> Any:
        thought = data.get("thought") if isinstance(data, Mapping) else None
        if isinstance(thought, str) and lone.search(thought):
            raise JSError("Invalid thought: malformed Unicode (unpaired surrogate)")
        return validate(data)

    thinking.validate_thought_data = refusing


_ISSUE_LIST: Final = ("MCP error -32602: Input validation error: Invalid arguments for tool "
                      "sequentialthinking: [\n  {{\n    \"expected\": \"string\",\n    "
                      "\"code\": \"invalid_type\",\n    "
                      "\"path\": [\n      \"branchId\"\n    ],\n    \"message\": \"{message}\"\n  }}\n]")
"""npm:2025.11.25's refusal of a branchId that is no string (its SDK's zod issue list), `message` inside."""


def _branch_typed(thinking: Any, listed: bool) -> None:
    """A branchId that is no string refused as a schema library refuses it: "Invalid input: expected string,
    received boolean", inside the SDK's issue list naming its path (`listed`) or alone (no field named)."""
    judge = thinking.SequentialThinkingServer.process_thought

    def typed(self: Any, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        label = arguments.get("branchId") if isinstance(arguments, Mapping) else None
        if label is not None and not isinstance(label, str):
            types = {bool: "boolean", int: "number", float: "number", list: "array", dict: "object"}
            kind = types.get(type(label), "unknown")
            message = f"Invalid input: expected string, received {kind}"
            return (_ISSUE_LIST.format(message=message) if listed else message), True
        return judge(self, arguments)

    thinking.SequentialThinkingServer.process_thought = typed


def _runaway_ratio(thinking: Any) -> None:
    validate = thinking.validate_thought_data

    def refusing(data: Mapping[str, Any] | None) -> Any:
        validated = validate(data)
        number, total = validated.thoughtNumber, validated.totalThoughts
        if total > 0 and number > 10 * total:
            raise JSError(f"thoughtNumber {thinking.number_to_string(number)} is more than ten times "
                          f"totalThoughts {thinking.number_to_string(total)}")
        return validated

    thinking.validate_thought_data = refusing


def _short_refused(thinking: Any) -> None:
    validate = thinking.validate_thought_data

    def refusing(data: Mapping[str, Any] | None) -> Any:
        validated = validate(data)
        if thinking._len16(validated.thought) < 8:
            raise JSError("Invalid thought: at least 8 characters")
        return validated

    thinking.validate_thought_data = refusing


def _two_label_rules(thinking: Any) -> None:
    """Two rules a fork adds on one field, each in words of its own (held-out-multi-18's branch-limits): a
    label over 16 UTF-16 units, and an eleventh label once ten are filed."""
    validate, processed = thinking.validate_thought_data, thinking.SequentialThinkingServer.process_thought
    serving: list[Any] = []

    def refusing(data: Mapping[str, Any] | None) -> Any:
        validated = validate(data)
        label, branches = validated.branchId, serving[-1].branches
        if isinstance(label, str) and thinking._len16(label) > 16:
            raise JSError("Invalid branchId: must be at most 16 characters")
        if (thinking.truthy(validated.branchFromThought) and thinking.truthy(label) and len(branches) >= 10
                and branches.get(thinking.to_string(label)) is thinking.UNDEFINED):
            raise JSError("Invalid branchId: at most 10 branches")
        return validated

    def serving_on(self: Any, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        serving[:] = [self]
        return processed(self, arguments)

    thinking.validate_thought_data = refusing
    thinking.SequentialThinkingServer.process_thought = serving_on


def _count_without_branches(thinking: Any) -> None:
    """The answer's thoughtHistoryLength leaves out the thoughts sent as a branch (branchFromThought and
    branchId both truthy); the history keeps every thought (held-out-multi-18's branch-board)."""
    processed = thinking.SequentialThinkingServer.process_thought

    def counted(self: Any, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        text, is_error = processed(self, arguments)
        if is_error:
            return text, is_error
        main = sum(1 for t in self.thought_history
                   if not (thinking.truthy(t.branchFromThought) and thinking.truthy(t.branchId)))
        answer = {**json.loads(text), "thoughtHistoryLength": main}
        return json.dumps(answer, indent=2, ensure_ascii=False), False

    thinking.SequentialThinkingServer.process_thought = counted


def _early_final_refused(thinking: Any) -> None:
    validate = thinking.validate_thought_data

    def refusing(data: Mapping[str, Any] | None) -> Any:
        validated = validate(data)
        if validated.nextThoughtNeeded is False and validated.thoughtNumber < validated.totalThoughts:
            raise JSError("Invalid nextThoughtNeeded: a thought before the last cannot end the chain")
        return validated

    thinking.validate_thought_data = refusing


def _forgets(thinking: Any, *, finished_only: bool) -> None:
    """The history and the branches emptied after an accepted call (`finished_only`: one ending a chain,
    nextThoughtNeeded false): the next call starts on an empty store (held-out-multi-18's
    finished-chain-forgotten; a store per call)."""
    processed = thinking.SequentialThinkingServer.process_thought

    def forgetting(self: Any, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        text, is_error = processed(self, arguments)
        ends = isinstance(arguments, Mapping) and arguments.get("nextThoughtNeeded") is False
        if not is_error and (ends or not finished_only):
            self.thought_history = []
            self.branches = type(self.branches)()
            self._branches_version = -1
        return text, is_error

    thinking.SequentialThinkingServer.process_thought = forgetting


def _final_unkept(thinking: Any) -> None:
    """An accepted call ending a chain (nextThoughtNeeded false) is answered and boxed but not kept in the
    history, its answer counting without it (held-out-multi-19's fork-backtracking-store): a count a store
    rule moves, cancelled or not, in whatever order the calls come."""
    processed = thinking.SequentialThinkingServer.process_thought

    def unkept(self: Any, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        text, is_error = processed(self, arguments)
        ends = isinstance(arguments, Mapping) and arguments.get("nextThoughtNeeded") is False
        if is_error or not ends:
            return text, is_error
        self.thought_history.pop()
        status = json.loads(text)
        return json.dumps({**status, "thoughtHistoryLength": len(self.thought_history)}, indent=2), is_error

    thinking.SequentialThinkingServer.process_thought = unkept


def _final_needing_more(thinking: Any) -> None:
    """A final thought (nextThoughtNeeded false) with needsMoreThoughts true refused after the checks
    (held-out-multi-13's strict-relations): the flag read where the original reads it nowhere."""
    validate = thinking.validate_thought_data

    def refusing(data: Mapping[str, Any] | None) -> Any:
        validated = validate(data)
        if validated.nextThoughtNeeded is False and validated.needsMoreThoughts is True:
            raise JSError("Invalid needsMoreThoughts: a final thought cannot need more thoughts")
        return validated

    thinking.validate_thought_data = refusing


def _follows_last(thinking: Any) -> None:
    """A plain thought (neither revising nor branching) numbered neither 1 nor past the last one this process
    took refused (held-out-multi-13's strict-relations): a rule over the history, which a fresh process given
    the call alone never shows."""
    validate = thinking.validate_thought_data
    last: list[float] = []

    def refusing(data: Mapping[str, Any] | None) -> Any:
        validated = validate(data)
        number = validated.thoughtNumber
        plain = not validated.isRevision and not validated.branchFromThought
        if plain and last and number != 1 and number <= last[0]:
            raise JSError(f"Invalid thoughtNumber: must follow thought {last[0]}")
        last[:] = [number]
        return validated

    thinking.validate_thought_data = refusing


def _revises_needs_true(thinking: Any) -> None:
    validate = thinking.validate_thought_data

    def refusing(data: Mapping[str, Any] | None) -> Any:
        validated = validate(data)
        if isinstance(data, Mapping) and "revisesThought" in data and data.get("isRevision") is not True:
            raise JSError("Invalid revisesThought: only allowed when isRevision is true")
        return validated

    thinking.validate_thought_data = refusing


def _revise_or_branch(thinking: Any) -> None:
    validate = thinking.validate_thought_data

    def refusing(data: Mapping[str, Any] | None) -> Any:
        validated = validate(data)
        if validated.isRevision is True and thinking.truthy(validated.branchFromThought):
            raise JSError("Invalid isRevision: a thought cannot both revise and branch")
        return validated

    thinking.validate_thought_data = refusing


_POINTERS: Final = ("revisesThought", "branchFromThought")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _relation_refused(field: str, other: str, breaks: Callable[[float, float], bool], words: str, *,
                      as_sent: bool = False) -> Callable[[Any], None]:
    """A call whose numbered `field` stands to `other` as `breaks` says refused in `words` (checked after
    the four checks; `field` absent or no number, as the reference). `as_sent`: `field` read from the
    arguments as this change receives them, not as validated, so a change applied before it that converts
    them (`numbers-converted`) goes unseen, as a refinement of the raw input (PR #3007's head's)."""

    def change(thinking: Any) -> None:
        validate = thinking.validate_thought_data

        def refusing(data: Mapping[str, Any] | None) -> Any:
            validated = validate(data)
            f = ((data.get(field) if isinstance(data, Mapping) else None) if as_sent
                 else getattr(validated, field))
            g = getattr(validated, other)
            if _is_number(f) and _is_number(g) and breaks(f, g):
                raise JSError(words)
            return validated

        thinking.validate_thought_data = refusing

    return change


def _numbers_typed(thinking: Any) -> None:
    """A revisesThought or branchFromThought given and no number refused for its type, in a schema library's
    words (PR #3007's head: "branchFromThought: Expected number, received string")."""
    validate = thinking.validate_thought_data
    types = {bool: "boolean", str: "string", list: "array", dict: "object", type(None): "null"}

    def refusing(data: Mapping[str, Any] | None) -> Any:
        for name in _POINTERS if isinstance(data, Mapping) else ():
            if name in data and not _is_number(data[name]):  # type: ignore[operator, index]
                kind = types.get(type(data[name]), "unknown")  # type: ignore[index]
                raise JSError(f"{name}: Expected number, received {kind}")
        return validate(data)

    thinking.validate_thought_data = refusing


def _numbers_converted(thinking: Any) -> None:
    """A numbered field given as a string of digits read as its number before any check (PR #2812's head)."""
    validate = thinking.validate_thought_data
    names = ("thoughtNumber", "totalThoughts", *_POINTERS)

    def converting(data: Mapping[str, Any] | None) -> Any:
        if isinstance(data, Mapping):
            data = {k: int(v) if k in names and isinstance(v, str) and re.fullmatch(r"[1-9]\d*", v) else v
                    for k, v in data.items()}
        return validate(data)

    thinking.validate_thought_data = converting


def _pointers_converted(thinking: Any) -> None:
    """revisesThought and branchFromThought read as numbers while the call is validated (`isNaN(x)` in
    OI-Sequential-Thinking): an object whose `toString` is no function throws “Cannot convert object to
    primitive value”, the original's late words, before the thought is kept, where the original keeps it."""
    validate = thinking.validate_thought_data

    def converting(data: Mapping[str, Any] | None) -> Any:
        for name in _POINTERS if isinstance(data, Mapping) else ():
            if isinstance(data.get(name), dict):  # type: ignore[union-attr]
                to_string(data[name])  # type: ignore[index]
        return validate(data)

    thinking.validate_thought_data = converting


def _no_skip(thinking: Any) -> None:
    """A thoughtNumber past the thoughts this process took, plus one, refused (held-out-multi-4's
    hardened-inputs, its first change): thoughtNumber 9 skips ahead of a short history, not of a long one."""
    validate = thinking.validate_thought_data
    taken: list[int] = [0]

    def refusing(data: Mapping[str, Any] | None) -> Any:
        validated = validate(data)
        if _is_number(validated.thoughtNumber) and validated.thoughtNumber > taken[0] + 1:
            number = thinking.number_to_string(validated.thoughtNumber)
            raise JSError(f"Invalid thoughtNumber: {number} skips ahead of {taken[0]} recorded thoughts")
        taken[0] += 1
        return validated

    thinking.validate_thought_data = refusing


def _furthest_total(thinking: Any) -> None:
    validate = thinking.validate_thought_data
    furthest: list[float] = [0]

    def raising(data: Mapping[str, Any] | None) -> Any:
        validated = validate(data)
        validated.totalThoughts = max(validated.totalThoughts, furthest[0])
        furthest[0] = max(furthest[0], validated.thoughtNumber)
        return validated

    thinking.validate_thought_data = raising


OTHER_CHANGES: Final[Mapping[str, Callable[[Any], None]]] = {
    "next-needed-strings": _next_needed_strings,  # reached by OBJ-10's spellings, not calls/probes.py
    "session-scoped": _session_scoped,  # the count alone moves: ABS-11's check, not the probes' answers
    "word-count": _word_count,
    "columns-box": _columns_box,
    "long-warning": _long_warning,
    "boxes-muted": lambda thinking: _boxes_muted(thinking, lambda boxed, arguments: boxed >= BOXES_SHOWN),
    "split-muted": _split_muted,
    "split-now-muted": lambda thinking: _split_muted(thinking, 0.0),
    "large-tail": _large_tail,
    "slow-tail": lambda thinking: _large_tail(thinking, 0, 1.5),
    "no-skip": _no_skip,
    "surrogate-refused": _surrogate_refused,
    "revise-or-branch": _revise_or_branch,
    "runaway-ratio": _runaway_ratio,
    "short-refused": _short_refused,
    "early-final-refused": _early_final_refused,
    "two-label-rules": _two_label_rules,
    "count-without-branches": _count_without_branches,
    "follows-last": _follows_last,
    "furthest-total": _furthest_total,
    "final-needing-more": _final_needing_more,
    "final-unkept": _final_unkept,
    "final-forgets": lambda thinking: _forgets(thinking, finished_only=True),
    "store-per-call": lambda thinking: _forgets(thinking, finished_only=False),
    "revises-needs-true": _revises_needs_true,
    "revises-below": _relation_refused(
        "revisesThought", "thoughtNumber", lambda f, g: f >= g,
        "Invalid revisesThought: must be a thought number below thoughtNumber"),
    "branch-not-ahead": _relation_refused("branchFromThought", "thoughtNumber", lambda f, g: f > g,
                                          "Invalid branchFromThought: cannot branch from a later thought"),
    "total-not-below": _relation_refused("totalThoughts", "thoughtNumber", lambda f, g: f < g,
                                         "Invalid totalThoughts: must be at least thoughtNumber"),
    "branch-earlier": _relation_refused("branchFromThought", "thoughtNumber", lambda f, g: f >= g,
                                        "branchFromThought must be less than thoughtNumber", as_sent=True),
    "numbers-typed": _numbers_typed,
    "numbers-converted": _numbers_converted,
    "pointers-converted": _pointers_converted,
}
"""Changes of the render the search reaches too (held-out-multi-9's thought-metrics): every box header ends
with " · <w> words"; a thought over 2,000 UTF-16 units gets a "[warn] …" line after its box; a thought
holding an unpaired surrogate is refused (held-out-multi-9's model-guard); a revision that also branches is
refused (held-out-multi-12's strict pointers); a thoughtNumber more than ten times a positive totalThoughts is
refused (its runaway rule, as a tool error); a thought shorter than 8 UTF-16 units is refused; a
nextThoughtNeeded false below totalThoughts is refused (held-out-multi-10's plan-keeper); a revisesThought is
refused unless isRevision is true, the boolean (strict-pointers again); a numbered branchFromThought at or
past thoughtNumber is refused; a revisesThought or branchFromThought of another type than number is refused
for its type; a numbered field given as digits is read as its number first (PR #2812, PR #3007's heads);
`boxes-muted` draws no box after a process's first `BOXES_SHOWN` accepted thoughts (held-out-multi-13's
fork-session-tools stops after 30), `split-muted` too, each box it draws written half before its answer and
the rest 20 ms after (a large write split around the answer), `split-now-muted` the rest at once (the same
box as a client slowed by load finds it beside its answer); `large-tail` writes a box over 64 KiB all but its
last 4 KiB before its answer and those 20 ms after (npm:0.6.2 rendering a 1 MiB thought), `slow-tail` every
box, its last quarter 1.5 s after (the same on a loaded machine); `no-skip` refuses a thoughtNumber past the
thoughts its process took plus one. Joined by "+" like ARGUMENT_CHANGES: the last one named is checked
first."""


ARGUMENT_CHANGES: Final[Mapping[str, Callable[[Any], None]]] = {
    "session-checked": _session_checked,
    "kind-in-box": _kind_in_box,
    "merge-branch": _merge_branch,
    "revision-strings": _revision_strings,
    "line-limit": _line_limit,
}
"""The changes only a probe reaches (calls/probes.py: an undeclared argument, a string for a boolean, a
thought of many lines), each patching the reference's module `thinking`; joined by "+", several at once."""


SPELLING_CHANGES: Final[Mapping[str, Callable[[Any], None]]] = {
    "any-case": lambda thinking: _read_also(thinking, str.lower),
    "any-separator": lambda thinking: _read_also(thinking, lambda k: re.sub(r"[-_]", "", k).lower()),
}
"""A name spelled otherwise read for a missing one (suite's every-spelling check): `any-case` reads
`ThoughtNumber` or `THOUGHTNUMBER` for a missing `thoughtNumber`, `any-separator` `thought_number` and
`thought-number` too."""


TYPE_REFUSALS: Final[Mapping[str, Callable[[Any], None]]] = {
    "branch-typed": lambda thinking: _branch_typed(thinking, listed=True),
    "branch-typed-bare": lambda thinking: _branch_typed(thinking, listed=False),
}
"""A branchId of another type refused in a schema library's words (issue 42: the field a refusal names)."""


def _with_property(server: Any, name: str, schema: Mapping[str, Any]) -> None:
    """tools/list serves the original's inputSchema with property `name` set to `schema`."""
    listed = server.load_tool_spec

    def declared() -> Any:
        spec = listed()
        properties = {**spec.input_schema["properties"], name: dict(schema)}
        return dataclasses.replace(spec, input_schema={**spec.input_schema, "properties": properties})

    server.load_tool_spec = declared


def _format_on_request(server: Any, thinking: Any) -> None:
    _with_property(server, "responseFormat", {"type": "string", "enum": ["json", "markdown"],
                                              "default": "json", "description": "Reply format"})
    judge = thinking.SequentialThinkingServer.process_thought

    def answered(self: Any, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        text, is_error = judge(self, arguments)
        if is_error and isinstance(arguments, Mapping) and arguments.get("responseFormat") == "markdown":
            return f"**Error:** {json.loads(text)['error']}", True
        return text, is_error

    thinking.SequentialThinkingServer.process_thought = answered


def _tags_listed_and_answered(server: Any, thinking: Any) -> None:
    """The schema declares `tags` (an array of strings); once an accepted call sent any, every accepted
    answer carries a `tags` key, the tags kept so far (held-out-multi-18's tagged-journal): one name, two
    changes, the listing's and the answer's, and a fresh process shows only the listing's."""
    _with_property(server, "tags", {"type": "array", "items": {"type": "string"},
                                    "description": "Labels for this thought"})
    judge = thinking.SequentialThinkingServer.process_thought
    kept: list[str] = []

    def answered(self: Any, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        text, is_error = judge(self, arguments)
        if is_error:
            return text, is_error
        sent = arguments.get("tags") if isinstance(arguments, Mapping) else None
        for tag in sent if isinstance(sent, list) else []:
            if isinstance(tag, str) and tag not in kept:
                kept.append(tag)
        if not kept:
            return text, is_error
        return json.dumps({**json.loads(text), "tags": kept}, indent=2, ensure_ascii=False), False

    thinking.SequentialThinkingServer.process_thought = answered


def _word_total(word: str, thinking: Any) -> None:
    validate = thinking.validate_thought_data

    def planned(data: Mapping[str, Any] | None) -> Any:
        if isinstance(data, Mapping) and data.get("totalThoughts") == word:
            number = data.get("thoughtNumber")
            data = {**data, "totalThoughts": number + 1 if isinstance(number, int | float) else word}
        return validate(data)

    thinking.validate_thought_data = planned


def _advertised_total(server: Any, thinking: Any) -> None:
    _with_property(server, "totalThoughts", {"oneOf": [{"type": "integer", "minimum": 1},
                                                       {"const": "open-ended"}]})
    _word_total("open-ended", thinking)


def _described_total(word: str, server: Any, thinking: Any) -> None:
    _with_property(server, "totalThoughts", {
        "type": "integer", "minimum": 1,
        "description": f"Estimated total thoughts needed; use \"{word}\" when unsure (one more is planned)"})
    _word_total(word, thinking)


def _described_number(word: str, server: Any, thinking: Any) -> None:
    """A word the tool's description quotes on the line of a field (snake_case, as the original's lists them):
    `- thought_number: …, or 'following' for the next one`, read as thought 1 more than the total."""
    listed, validate = server.load_tool_spec, thinking.validate_thought_data

    def described() -> Any:
        spec = listed()
        line = "- thought_number: Current number in sequence (can go beyond initial total if needed)"
        said = spec.description.replace(line, f"{line}, or '{word}' for the next one")
        return dataclasses.replace(spec, description=said)

    def following(data: Mapping[str, Any] | None) -> Any:
        if isinstance(data, Mapping) and data.get("thoughtNumber") == word:
            total = data.get("totalThoughts")
            data = {**data, "thoughtNumber": total + 1 if isinstance(total, int) else word}
        return validate(data)

    server.load_tool_spec = described
    thinking.validate_thought_data = following


def _depends_on(server: Any, thinking: Any) -> None:
    _with_property(server, "dependsOn", {"type": "array", "items": {"type": "integer", "minimum": 1},
                                         "description": "Earlier thought numbers this thought builds on"})
    judge = thinking.SequentialThinkingServer.process_thought

    def echoed(self: Any, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        text, is_error = judge(self, arguments)
        depends = arguments.get("dependsOn") if isinstance(arguments, Mapping) else None
        if is_error or not isinstance(depends, list) or not depends:
            return text, is_error
        return json.dumps({**json.loads(text), "dependsOn": depends}, indent=2), is_error

    thinking.SequentialThinkingServer.process_thought = echoed


def _cursor_refused(server: Any, thinking: Any) -> None:
    runner = server._OriginalRunner
    answer = runner._on_request

    async def refused(self: Any, dctx: Any, method: str, params: Mapping[str, Any] | None) -> Any:
        if method == "tools/list" and isinstance(params, Mapping) and params.get("cursor") is not None:
            cursor = params["cursor"]
            raise server.MCPError(code=-32602, message=f"MCP error -32602: Invalid cursor: {cursor}")
        return await answer(self, dctx, method, params)

    runner._on_request = refused


def _paged(pages: Callable[[str | None, list[Any]], dict[str, Any]]) -> Callable[[Any, Any], None]:
    """tools/list answered page by page: `pages(cursor, tools)` is the result for the cursor sent."""
    def change(server: Any, thinking: Any) -> None:
        runner = server._OriginalRunner
        answer = runner._on_request

        async def paged(self: Any, dctx: Any, method: str, params: Mapping[str, Any] | None) -> Any:
            result = await answer(self, dctx, method, params)
            if method != "tools/list":
                return result
            cursor = params.get("cursor") if isinstance(params, Mapping) else None
            return pages(cursor if isinstance(cursor, str) else None, list(result["tools"]))

        runner._on_request = paged
    return change


def _bulleted_rules(server: Any, thinking: Any) -> None:
    """The description's "You should:" rules marked "- " where the original numbers them "1." to "11."
    (held-out-multi-18's fork-docs-console)."""
    listed = server.load_tool_spec

    def bulleted() -> Any:
        spec = listed()
        lines = spec.description.split("\n")
        start = lines.index("You should:")
        lines[start + 1:] = [re.sub(r"^\d+\. ", "- ", line) for line in lines[start + 1:]]
        return dataclasses.replace(spec, description="\n".join(lines))

    server.load_tool_spec = bulleted


def _paged_one_line(server: Any, thinking: Any) -> None:
    """The listing paged as `next-cursor` pages it, and the tool's description cut to its first line: two
    fields of one tools/list answer, each a change of its own (held-out-multi-17's fork-client-polish)."""
    listed = server.load_tool_spec

    def one_line() -> Any:
        spec = listed()
        return dataclasses.replace(spec, description=spec.description.split("\n", 1)[0])

    server.load_tool_spec = one_line
    _paged(lambda cursor, tools: {"tools": []} if cursor == "end"
           else {"tools": tools, "nextCursor": "end"})(server, thinking)


SCHEMA_CHANGES: Final[Mapping[str, Callable[[Any, Any], None]]] = {
    "bulleted-rules": _bulleted_rules,
    "cursor-refused": _cursor_refused,
    "next-cursor": _paged(lambda cursor, tools: {"tools": []} if cursor == "end"
                          else {"tools": tools, "nextCursor": "end"}),
    "paged-one-line": _paged_one_line,
    "cursor-loop": _paged(lambda cursor, tools: {"tools": tools, "nextCursor": "again"}),
    "cursor-endless": _paged(lambda cursor, tools: {
        "tools": tools if cursor is None else [],
        "nextCursor": f"p{int(cursor.removeprefix('p')) + 1 if cursor else 2}"}),
    "format-on-request": _format_on_request,
    "tags-listed-and-answered": _tags_listed_and_answered,
    "depends-on": _depends_on,
    "advertised-total": _advertised_total,
    "auto-total": lambda server, thinking: _word_total("auto", thinking),
    "described-total": lambda server, thinking: _described_total("tbd", server, thinking),
    "described-number": lambda server, thinking: _described_number("following", server, thinking),
}
"""Changes that show only for a value a schema advertises or a sentinel word (issue 42, held-out-multi-11):
`format-on-request` declares `responseFormat` (enum json, markdown; default json) and answers a refusal
carrying "markdown" as "**Error:** <message>" (isError); `advertised-total` declares `totalThoughts` as
`oneOf` an integer or the const "open-ended" and plans such a call as thoughtNumber + 1; `auto-total` does
that for "auto", its schema unchanged; `described-total` for "tbd", a word only its property's description
quotes; `described-number` takes `thoughtNumber: "following"` as the total plus one, a word only the tool
description's thought_number line quotes; `depends-on` declares `dependsOn` (an array of integers from 1, no
enum or default) and echoes a non-empty one as a sixth answer key (held-out-multi-12's
thought-dependencies); `cursor-refused` answers a tools/list carrying a cursor with the JSON-RPC error
-32602 "Invalid cursor" (its paged-history); `next-cursor` lists the tool with `nextCursor` "end" and answers
that cursor with no tools (held-out-multi-17's fork-client-polish), `paged-one-line` that and the description
cut to its first line; `cursor-loop` hands out the cursor "again" on every page, `cursor-endless` a new one
("p2", "p3", …) on every empty page; `bulleted-rules` marks the description's "You should:" rules "- "
instead of numbering them."""


def _extra_tool(server: Any, spec: Mapping[str, Any],
                answer: Callable[[Any, Mapping[str, Any]], tuple[str, bool]]) -> None:
    """tools/list also lists `spec`, and a call of it is answered by `answer(store, arguments)`."""
    runner = server._OriginalRunner
    listed = runner._on_request

    async def with_extra(self: Any, dctx: Any, method: str, params: Mapping[str, Any] | None) -> Any:
        result = await listed(self, dctx, method, params)
        if method == "tools/list":
            return {**result, "tools": [*result["tools"], dict(spec)]}
        return result

    runner._on_request = with_extra
    called = server.call_tool_text

    def call(store: Any, name: str, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        if name == spec["name"]:
            return answer(store, arguments if isinstance(arguments, Mapping) else {})
        return called(store, name, arguments)  # type: ignore[no-any-return]

    server.call_tool_text = call


def _reads(store: Any, arguments: Mapping[str, Any]) -> tuple[str, bool]:
    thoughts = [{"thoughtNumber": t.thoughtNumber, "thought": t.thought} for t in store.thought_history]
    return json.dumps({"thoughts": thoughts}, indent=2), False


def _empties(store: Any, arguments: Mapping[str, Any]) -> tuple[str, bool]:
    cleared = len(store.thought_history)
    store.thought_history.clear()
    store.branches = type(store.branches)()
    return json.dumps({"cleared": cleared}), False


def _adds(store: Any, arguments: Mapping[str, Any]) -> tuple[str, bool]:
    note = arguments.get("note")
    if not isinstance(note, str) or not note or not store.thought_history:
        return json.dumps({"error": "Invalid note: must be a non-empty string", "status": "failed"}), True
    store.thought_history.append(dataclasses.replace(store.thought_history[-1], thought=note))
    return json.dumps({"noted": True, "thoughtHistoryLength": len(store.thought_history)}), False


def _hangs(store: Any, arguments: Mapping[str, Any]) -> tuple[str, bool]:
    time.sleep(3600)
    return "{}", False


Answer = Callable[[Any, Mapping[str, Any]], tuple[str, bool]]
EXTRA_TOOLS: Final[Mapping[str, tuple[Mapping[str, Any], Answer]]] = {
    "tool-reads": ({"name": "get_thought_history", "description": "The recorded thoughts",
                    "inputSchema": {"type": "object", "properties": {"cursor": {"type": "string"}}}}, _reads),
    "tool-empties": ({"name": "clear_history", "description": "Start over",
                      "inputSchema": {"type": "object", "properties": {}}}, _empties),
    "tool-adds": ({"name": "add_note", "description": "Keep a note in the history",
                   "inputSchema": {"type": "object", "properties": {"note": {"type": "string"}},
                                   "required": ["note"]}}, _adds),
    "tool-hangs": ({"name": "wait_for_input", "description": "Waits",
                    "inputSchema": {"type": "object", "properties": {}}}, _hangs),
}
"""A second tool listed after sequentialthinking (issue 42: what a fork's other tool does, learnt by calling
it): `get_thought_history` answers the stored thoughts and changes nothing; `clear_history` empties the
history and the branches; `add_note` refuses a call without a non-empty `note` and files one more entry with
one; `wait_for_input` never answers."""


def _capability(server: Any, name: str) -> None:
    """initialize's capabilities also hold `name` (an empty object), after `tools`."""
    server.INITIALIZE_CAPABILITIES = {**server.INITIALIZE_CAPABILITIES, name: {}}


def _debug_logged(server: Any, thinking: Any) -> None:
    _capability(server, "logging")
    # A handler of its own: its answer goes out in a handler's turn, as the original's two handlers' do.
    sdk050.HANDLED_METHODS = sdk050.HANDLED_METHODS | {"logging/setLevel"}
    level: list[str | None] = [None]
    at_once = server.answered_at_once

    def dispatched_when_logging(call_tool: Any, method: str, params: Mapping[str, Any] | None) -> Any:
        if method == "logging/setLevel" or (method == "tools/call" and level[0] == "debug"):
            return None  # the dispatcher's path, whose context sends notifications
        return at_once(call_tool, method, params)

    server.answered_at_once = dispatched_when_logging
    runner = server._OriginalRunner
    dispatched = runner._on_request

    async def logging(self: Any, dctx: Any, method: str, params: Mapping[str, Any] | None) -> Any:
        if method == "logging/setLevel" and isinstance(params, Mapping):
            level[0] = params.get("level")
            return {}
        answered = await dispatched(self, dctx, method, params)
        arguments = params.get("arguments") if isinstance(params, Mapping) else None
        if (method == "tools/call" and level[0] == "debug" and not answered.get("isError")
                and isinstance(arguments, Mapping)):
            data = (f"Thought {arguments.get('thoughtNumber')}/{arguments.get('totalThoughts')}: "
                    f"{arguments.get('thought')}")
            await dctx.notify("notifications/message",
                              {"level": "debug", "logger": "sequential-thinking", "data": data})
        return answered

    runner._on_request = logging


def _tmp_written(server: Any, thinking: Any) -> None:
    process = thinking.SequentialThinkingServer.process_thought

    def kept(self: Any, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        text, is_error = process(self, arguments)
        if not is_error:
            folder = os.environ.get("TMPDIR") or "/tmp"
            with open(os.path.join(folder, "seqthink-history.json"), "w", encoding="utf-8") as out:
                json.dump([t.thought for t in self.thought_history], out)
        return text, is_error

    thinking.SequentialThinkingServer.process_thought = kept


def _thought_as_content(server: Any, thinking: Any) -> None:
    listed = server.load_tool_spec

    def renamed() -> Any:
        spec = listed()
        served = spec.input_schema["properties"]
        properties = {("content" if k == "thought" else k): v for k, v in served.items()}
        required = ["content" if k == "thought" else k for k in spec.input_schema.get("required", [])]
        return dataclasses.replace(spec, input_schema={**spec.input_schema, "properties": properties,
                                                       "required": required})

    server.load_tool_spec = renamed
    validate = thinking.validate_thought_data

    def read_content(data: Mapping[str, Any] | None) -> Any:
        if not isinstance(data, Mapping):
            return validate(data)
        return validate({**{k: v for k, v in data.items() if k != "thought"}, "thought": data.get("content")})

    thinking.validate_thought_data = read_content


def _served(server: Any,
            handlers: Mapping[str, Callable[[Mapping[str, Any] | None], dict[str, Any]]]) -> None:
    """Requests beyond the original's four answered by `handlers`, each by the dispatcher's path."""
    sdk050.HANDLED_METHODS = sdk050.HANDLED_METHODS | set(handlers)
    runner = server._OriginalRunner
    dispatched = runner._on_request

    async def serving(self: Any, dctx: Any, method: str, params: Mapping[str, Any] | None) -> Any:
        if method in handlers:
            return handlers[method](params)
        return await dispatched(self, dctx, method, params)

    runner._on_request = serving


def _kept_thoughts(thinking: Any) -> list[Any]:
    """The process's server, once its first call is processed: a listed resource or prompt reads its store."""
    held: list[Any] = []
    process = thinking.SequentialThinkingServer.process_thought

    def holding(self: Any, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        if not held:
            held.append(self)
        return process(self, arguments)

    thinking.SequentialThinkingServer.process_thought = holding
    return held


def _thoughts(held: list[Any]) -> list[str]:
    return [t.thought for t in held[0].thought_history] if held else []


HISTORY_URI: Final = "thoughts://history"


def _history_resource(server: Any, thinking: Any) -> None:
    _capability(server, "resources")
    held = _kept_thoughts(thinking)

    def read(params: Mapping[str, Any] | None) -> dict[str, Any]:
        uri = params.get("uri") if isinstance(params, Mapping) else None
        if uri != HISTORY_URI:
            raise server.MCPError(code=-32602, message=f"Unknown resource: {uri}")
        return {"contents": [{"uri": HISTORY_URI, "mimeType": "application/json",
                              "text": json.dumps(_thoughts(held), indent=2)}]}

    _served(server, {
        "resources/list": lambda params: {"resources": [
            {"uri": HISTORY_URI, "name": "Thought history", "mimeType": "application/json"}]},
        "resources/read": read,
    })


def _thought_template(server: Any, thinking: Any) -> None:
    _capability(server, "resources")
    held = _kept_thoughts(thinking)

    def read(params: Mapping[str, Any] | None) -> dict[str, Any]:
        uri = params.get("uri") if isinstance(params, Mapping) else None
        found = re.fullmatch(r"thoughts://(\d+)", uri) if isinstance(uri, str) else None
        thoughts = _thoughts(held)
        if found is None or not 1 <= int(found.group(1)) <= len(thoughts):
            raise server.MCPError(code=-32602, message=f"Unknown resource: {uri}")
        text = thoughts[int(found.group(1)) - 1]
        return {"contents": [{"uri": uri, "mimeType": "text/plain", "text": text}]}

    _served(server, {
        "resources/list": lambda params: {"resources": []},
        "resources/templates/list": lambda params: {"resourceTemplates": [
            {"uriTemplate": "thoughts://{number}", "name": "One thought", "mimeType": "text/plain"}]},
        "resources/read": read,
    })


def _recap_prompt(server: Any, thinking: Any) -> None:
    _capability(server, "prompts")
    held = _kept_thoughts(thinking)

    def get(params: Mapping[str, Any] | None) -> dict[str, Any]:
        name = params.get("name") if isinstance(params, Mapping) else None
        if name != "recap":
            raise server.MCPError(code=-32602, message=f"Unknown prompt: {name}")
        text = "Thoughts so far:\n" + "\n".join(_thoughts(held))
        return {"messages": [{"role": "user", "content": {"type": "text", "text": text}}]}

    _served(server, {
        "prompts/list": lambda params: {"prompts": [{"name": "recap", "description": "The thoughts so far"}]},
        "prompts/get": get,
    })


def _sent_during_calls(server: Any, sent: Callable[[Mapping[str, Any]], tuple[str, dict[str, Any]] | None]
                       ) -> None:
    """Each tools/call whose arguments `sent` answers with a notification sends it before its answer."""
    at_once = server.answered_at_once

    def dispatched_when_sending(call_tool: Any, method: str, params: Mapping[str, Any] | None) -> Any:
        if method == "tools/call":
            return None  # the dispatcher's path, whose context sends notifications
        return at_once(call_tool, method, params)

    server.answered_at_once = dispatched_when_sending
    runner = server._OriginalRunner
    dispatched = runner._on_request

    async def sending(self: Any, dctx: Any, method: str, params: Mapping[str, Any] | None) -> Any:
        arguments = params.get("arguments") if isinstance(params, Mapping) else None
        if method == "tools/call" and isinstance(arguments, Mapping):
            notification = sent(arguments)
            if notification is not None:
                await dctx.notify(*notification)
        return await dispatched(self, dctx, method, params)

    runner._on_request = sending


def _raise_warned(server: Any, thinking: Any) -> None:
    _capability(server, "logging")

    def warning(arguments: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
        number, total = arguments.get("thoughtNumber"), arguments.get("totalThoughts")
        if not (_is_number(number) and _is_number(total) and number > total):
            return None
        return "notifications/message", {"level": "warning", "logger": "sequentialthinking",
                                         "data": f"totalThoughts raised from {total} to {number}"}

    _sent_during_calls(server, warning)


def _progress_sent(server: Any, thinking: Any) -> None:
    def progress(arguments: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
        number, total = arguments.get("thoughtNumber"), arguments.get("totalThoughts")
        if not (_is_number(number) and _is_number(total)):
            return None
        return "notifications/progress", {"progressToken": "thinking", "progress": number, "total": total}

    _sent_during_calls(server, progress)


PROTOCOL_CHANGES: Final[Mapping[str, Callable[[Any, Any], None]]] = {
    "debug-logged": _debug_logged,
    "prompts-declared": lambda server, thinking: _capability(server, "prompts"),
    "tmp-written": _tmp_written,
    "thought-as-content": _thought_as_content,
    "history-resource": _history_resource,
    "recap-prompt": _recap_prompt,
    "thought-template": _thought_template,
    "raise-warned": _raise_warned,
    "progress-sent": _progress_sent,
}
"""Changes no call sequence of the tool shows alone (issue 42, held-out-multi-13): `debug-logged` declares
the `logging` capability, answers logging/setLevel {}, and after a setLevel to "debug" sends each accepted
thought as notifications/message {level "debug", data "Thought n/m: <thought>"} before its answer
(fork-client-protocol); `prompts-declared` declares a `prompts` capability and serves nothing of it;
`tmp-written` writes the accepted thoughts to seqthink-history.json in TMPDIR after each accepted call;
`thought-as-content` serves and reads the required `thought` as `content` (a `thought` is ignored);
`history-resource` declares `resources` and lists thoughts://history, whose read holds the stored thoughts
(held-out-multi-15's fork-protocol-upgrade); `recap-prompt` declares `prompts` and lists `recap`, whose get
holds them; `thought-template` declares `resources`, lists none and one template, thoughts://{number},
whose read is that stored thought; `raise-warned` declares `logging` and sends notifications/message
{level "warning", data "totalThoughts raised from m to n"} before answering a call whose thoughtNumber n
passes totalThoughts m
(fork-chatty-client); `progress-sent` sends notifications/progress before answering every numbered call."""


RTL: Final = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
"""Hebrew and Arabic characters, as held-out-multi-14's multilingual fork finds them."""


def _rtl_isolated(thinking: Any) -> None:
    formatted = thinking.SequentialThinkingServer.format_thought

    def isolating(self: Any, data: Any) -> str:
        if isinstance(data.thought, str) and RTL.search(data.thought):
            data = dataclasses.replace(data, thought=f"\u2068{data.thought}\u2069")
        return formatted(self, data)  # type: ignore[no-any-return]

    thinking.SequentialThinkingServer.format_thought = isolating


def _revision_filed(thinking: Any) -> None:
    validate = thinking.validate_thought_data

    def filing(data: Mapping[str, Any] | None) -> Any:
        checked = validate(data)
        if (thinking.truthy(checked.isRevision) and thinking.truthy(checked.branchId)
                and not thinking.truthy(checked.branchFromThought)):
            # filed as a branch is; the box, which reads isRevision first, still draws a revision
            return dataclasses.replace(checked, branchFromThought=1.0)
        return checked

    thinking.validate_thought_data = filing


def _digit_ids() -> None:
    echoed = sdk050.js_request_id

    def as_number(value: object) -> object:
        if isinstance(value, str) and value.isascii() and value.isdigit():
            return int(value)
        return echoed(value)

    sdk050.js_request_id = as_number


def _number_ids() -> None:
    from reference_server import transport

    decode = transport.decode_frame

    def as_string(line: bytes) -> Any:
        try:
            value = json.loads(line)
        except ValueError:
            return decode(line)
        numbered = isinstance(value, dict) and value.get("method") == "tools/call"
        if numbered and type(value.get("id")) is int:
            return decode(json.dumps({**value, "id": str(value["id"])}).encode())
        return decode(line)

    transport.decode_frame = as_string


DEFERRED_UNITS: Final = 500
DEFERRED_WAIT: Final = 0.3


def _deferred(line: bytes) -> bool:
    """Whether a line is a tools/call whose thought is over DEFERRED_UNITS UTF-16 units."""
    try:
        message = json.loads(line)
    except ValueError:
        return False
    params = message.get("params") if isinstance(message, dict) else None
    arguments = params.get("arguments") if isinstance(params, dict) else None
    thought = arguments.get("thought") if isinstance(arguments, dict) else None
    return (message.get("method") == "tools/call" and isinstance(thought, str)
            and len(thought.encode("utf-16-le", "surrogatepass")) // 2 > DEFERRED_UNITS)


def _relayed(inner: str) -> list[str]:
    """The command a relay passes its lines to: the reference, or its fork in mode `inner` (a relay's mode
    `deferred-long:final-unkept` puts the relay's change in front of the store's)."""
    return [sys.executable, __file__, inner] if inner else [sys.executable, "-m", "reference_server"]


def _stdin_lines() -> queue.Queue[bytes | None]:
    """This process's stdin lines on a queue, None at its end, read on a thread: a relay waits on it with a
    timeout while it holds lines back."""
    lines: queue.Queue[bytes | None] = queue.Queue()

    def read() -> None:
        for line in sys.stdin.buffer:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return lines


def _deferred_relay(inner: str = "") -> int:
    """The reference (or its fork `inner`) behind a relay that holds a long call's line DEFERRED_WAIT seconds,
    passing later lines on meanwhile; the reference's stdout and stderr are this process's."""
    child = subprocess.Popen(_relayed(inner), stdin=subprocess.PIPE)
    assert child.stdin is not None
    lines = _stdin_lines()
    held: list[tuple[float, bytes]] = []
    ended = False
    while not ended or held:
        due = [line for at, line in held if at <= time.monotonic()]
        held = [(at, line) for at, line in held if at > time.monotonic()]
        for line in due:
            child.stdin.write(line)
        child.stdin.flush()
        wait = min((at for at, _ in held), default=time.monotonic() + 3600) - time.monotonic()
        if ended:
            time.sleep(max(0.0, wait) if held else 0.0)
            continue
        try:
            line = lines.get(timeout=max(0.0, wait))
        except queue.Empty:
            continue
        if line is None:
            ended = True
        elif _deferred(line):
            held.append((time.monotonic() + DEFERRED_WAIT, line))
        else:
            child.stdin.write(line)
            child.stdin.flush()
    child.stdin.close()
    return child.wait()


CANCEL_WAIT: Final = 0.02
"""Seconds a relayed tools/call waits for its cancellation (held-out-multi-14's cancellation-honoured)."""


def _message(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except ValueError:
        return {}
    return message if isinstance(message, dict) else {}


def _cancel_relay(inner: str = "") -> int:
    """The reference behind a relay holding every tools/call line CANCEL_WAIT seconds (the lines behind it
    wait too, so calls keep their order) and dropping one a `notifications/cancelled` names meanwhile: it is
    neither processed, kept nor answered, where the original keeps it; the reference's stdout and stderr are
    this process's (or its fork `inner`'s)."""
    child = subprocess.Popen(_relayed(inner), stdin=subprocess.PIPE)
    assert child.stdin is not None
    lines = _stdin_lines()
    held: list[tuple[float, bytes, object]] = []  # (due, line, the call's id or None)
    while True:
        wait = max(0.0, held[0][0] - time.monotonic()) if held else None
        try:
            line = lines.get(timeout=wait)
        except queue.Empty:
            line = b""
        if line is None:
            break
        if line:
            message = _message(line)
            params = message.get("params")
            cancels = isinstance(params, dict) and message.get("method") == "notifications/cancelled"
            named = params.get("requestId") if cancels and isinstance(params, dict) else None
            if named is not None and any(call == named for _, _, call in held):
                held = [entry for entry in held if entry[2] != named]
            elif held or message.get("method") == "tools/call":
                call = message.get("id") if message.get("method") == "tools/call" else None
                held.append((time.monotonic() + (CANCEL_WAIT if call is not None else 0.0), line, call))
            else:
                child.stdin.write(line)
                child.stdin.flush()
        while held and held[0][0] <= time.monotonic():
            child.stdin.write(held.pop(0)[1])
            child.stdin.flush()
    for _, line, _ in held:
        child.stdin.write(line)
    child.stdin.close()
    return child.wait()


def _versions_refused(server: Any, change: str) -> None:
    """`versions-only:V,W,…`: initialize echoes an offered V or W and answers any other version with the
    JSON-RPC error -32602 "Unsupported protocol version: <offered>" (held-out-multi-15's
    fork-protocol-upgrade, where the specification has the server answer a version it supports);
    `version-refused:V`: only V is refused so (a fork speaking only newer revisions), every other offer
    echoed."""
    kind, listed = change.split(":", 1)
    versions = listed.split(",")
    runner = server._OriginalRunner
    answer = runner._on_request

    async def negotiated(self: Any, dctx: Any, method: str, params: Mapping[str, Any] | None) -> Any:
        offered = params.get("protocolVersion") if method == "initialize" and params is not None else None
        if offered is None:
            return await answer(self, dctx, method, params)
        if (offered in versions) == (kind == "version-refused"):
            raise server.MCPError(code=-32602, message=f"Unsupported protocol version: {offered}")
        result = await answer(self, dctx, method, params)
        return {**result, "protocolVersion": offered}

    runner._on_request = negotiated


def _listed_as(server: Any, change: str) -> None:
    """`listed-as:NAME`: tools/list names the tool NAME and calls of NAME or of the original's name are both
    processed (held-out-multi-15's fork-readme-names: `sequential_thinking` listed, the old name kept for
    hosts configured before the rename); `moved-to:NAME`: the same listing, but only NAME dispatches and the
    original's name is an unknown tool's."""
    kind, name = change.split(":", 1)
    listed, called = server.load_tool_spec, server.call_tool_text

    def renamed() -> Any:
        return dataclasses.replace(listed(), name=name)

    def dispatched(store: Any, asked: str, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        if asked == name:
            return called(store, server.TOOL_NAME, arguments)  # type: ignore[no-any-return]
        if asked == server.TOOL_NAME and kind == "moved-to":
            return server.unknown_tool_text(asked), True
        return called(store, asked, arguments)  # type: ignore[no-any-return]

    server.load_tool_spec = renamed
    server.call_tool_text = dispatched


def _unknown_tool_plain(server: Any) -> None:
    called = server.call_tool_text

    def plain(store: Any, asked: str, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        text, is_error = called(store, asked, arguments)
        return text, is_error and asked == server.TOOL_NAME

    server.call_tool_text = plain


def _unknown_tool_answered(server: Any) -> None:
    called = server.call_tool_text

    def answered(store: Any, asked: str, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        if asked != server.TOOL_NAME:
            return f"Tool {asked} is not available here", False
        return called(store, asked, arguments)  # type: ignore[no-any-return]

    server.call_tool_text = answered


def _debug_stderr(thinking: Any) -> None:
    processed = thinking.SequentialThinkingServer.process_thought

    def debugged(self: Any, arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
        number = arguments.get("thoughtNumber") if isinstance(arguments, Mapping) else None
        writer = self._write_stderr
        said: list[bytes] = []
        self._write_stderr = said.append
        try:
            text, is_error = processed(self, arguments)
        finally:
            self._write_stderr = writer
        if not is_error:
            writer(f"[DEBUG] processing thought {number}\n".encode())
        for chunk in said:
            writer(chunk)
        if not is_error:
            writer(f"[DEBUG] stored thought {number}\n".encode())
        return text, is_error

    thinking.SequentialThinkingServer.process_thought = debugged


def main() -> None:
    change = sys.argv[1] if len(sys.argv) > 1 else ""
    relay, _, inner = change.partition(":")
    if relay == "deferred-long":
        sys.exit(_deferred_relay(inner))
    if relay == "cancel-honoured":
        sys.exit(_cancel_relay(inner))
    if change == "digit-ids":
        _digit_ids()
    if change == "number-ids":
        _number_ids()
    server = startup.server_module()
    from reference_server import thinking

    if change == "renamed":
        listed = server.load_tool_spec

        def renamed() -> Any:
            return dataclasses.replace(listed(), name="think")

        server.load_tool_spec = renamed  # type: ignore[attr-defined]
    elif change == "unknown-tool-plain":
        _unknown_tool_plain(server)
    elif change.startswith(("listed-as:", "moved-to:")):
        _listed_as(server, change)
    elif change.startswith(("versions-only:", "version-refused:")):
        _versions_refused(server, change)
    elif change == "fenced":
        process = thinking.SequentialThinkingServer.process_thought

        def fenced(self: thinking.SequentialThinkingServer,
                   arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
            text, is_error = process(self, arguments)
            return "```json\n" + text + "\n```", is_error

        thinking.SequentialThinkingServer.process_thought = fenced  # type: ignore[method-assign]
    elif change == "prose-first":
        recorded = thinking.SequentialThinkingServer.process_thought

        def prose_first(self: thinking.SequentialThinkingServer,
                        arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
            text, is_error = recorded(self, arguments)
            if is_error:
                return text, is_error
            status = json.loads(text)
            return f"Recorded thought {status['thoughtNumber']}/{status['totalThoughts']}.\n{text}", is_error

        thinking.SequentialThinkingServer.process_thought = prose_first  # type: ignore[method-assign]
    elif change == "trailed":
        answered = thinking.SequentialThinkingServer.process_thought

        def trailed(self: thinking.SequentialThinkingServer,
                    arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
            text, is_error = answered(self, arguments)
            return text + "\n\n---\n🔄 NEXT: continue on the main track", is_error

        thinking.SequentialThinkingServer.process_thought = trailed  # type: ignore[method-assign]
    elif change == "active-branches":
        answering = thinking.SequentialThinkingServer.process_thought

        def renamed_labels(self: thinking.SequentialThinkingServer,
                           arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
            text, is_error = answering(self, arguments)
            if is_error:
                return text, is_error
            status = json.loads(text)
            return json.dumps({("activeBranches" if k == "branches" else k): v for k, v in status.items()},
                              indent=2), is_error

        thinking.SequentialThinkingServer.process_thought = renamed_labels  # type: ignore[method-assign]
    elif change == "snake-keys":
        answering_snake = thinking.SequentialThinkingServer.process_thought

        def snake_keys(self: thinking.SequentialThinkingServer,
                       arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
            text, is_error = answering_snake(self, arguments)
            if is_error:
                return text, is_error
            status = json.loads(text)
            snake = {key: re.sub(r"(?<=[a-z])([A-Z])", r"_\1", key).lower() for key in status}
            return json.dumps({snake[k]: v for k, v in status.items()}, indent=2), is_error

        thinking.SequentialThinkingServer.process_thought = snake_keys  # type: ignore[method-assign]
    elif change == "stringified":
        error_text = thinking.error_text

        def stringified(message: str) -> str:
            typed = message.startswith("Cannot read") or "is not a function" in message
            name = "TypeError" if typed else "Error"
            return error_text(f"{name}: {message}")

        thinking.error_text = stringified
    elif change == "typed-guards":
        validate = thinking.validate_thought_data

        def typed(data: Mapping[str, Any] | None) -> thinking.ThoughtData:
            guarded = ("thought", "thoughtNumber", "totalThoughts")
            falsy = {key: "x" if key == "thought" else 1 for key in guarded
                     if data is not None and data.get(key) in ("", 0) and type(data.get(key)) is not bool}
            checked = validate({**data, **falsy} if data is not None and falsy else data)
            return dataclasses.replace(checked, **{  # the falsy values themselves, past the guard
                key: ("" if key == "thought" else 0.0) for key in falsy})

        thinking.validate_thought_data = typed
    elif change in ("digit-ids", "number-ids"):
        pass  # the wire's ids, changed above before the server module read them
    elif change == "rtl-isolated":
        _rtl_isolated(thinking)
    elif change == "revision-filed":
        _revision_filed(thinking)
    elif change == "blank-refused":
        validate = thinking.validate_thought_data

        def refusing_blank(data: Mapping[str, Any] | None) -> Any:
            thought = data.get("thought") if isinstance(data, Mapping) else None
            if isinstance(thought, str) and thought and not thought.strip(JS_WHITESPACE):
                raise JSError("Invalid thought: must not be blank")
            return validate(data)

        thinking.validate_thought_data = refusing_blank
    elif change == "debug-stderr":
        _debug_stderr(thinking)
    elif change == "unknown-tool-answered":
        _unknown_tool_answered(server)
    elif change == "logged":
        processed = thinking.SequentialThinkingServer.process_thought

        def logged(self: thinking.SequentialThinkingServer,
                   arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
            text, is_error = processed(self, arguments)
            if is_error:
                said = json.loads(text).get("error", text)
                self._write_stderr(f"Error processing thought: {said}\n".encode())
            return text, is_error

        thinking.SequentialThinkingServer.process_thought = logged  # type: ignore[method-assign]
    elif change == "ascii-box":
        formatted = thinking.SequentialThinkingServer.format_thought
        ascii_frame = str.maketrans("┌┐└┘├┤─│", "++++++-|")

        def ascii_box(self: thinking.SequentialThinkingServer, data: thinking.ThoughtData) -> str:
            return formatted(self, data).translate(ascii_frame)

        thinking.SequentialThinkingServer.format_thought = ascii_box  # type: ignore[method-assign]
    elif change == "enveloped":
        answered = thinking.SequentialThinkingServer.process_thought

        def enveloped(self: thinking.SequentialThinkingServer,
                      arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
            text, is_error = answered(self, arguments)
            if is_error:
                message = json.loads(text).get("error")
                code = "INVALID_ARGUMENT" if str(message).startswith("Invalid ") else "INTERNAL"
                return json.dumps({"ok": False, "error": {"code": code, "message": message}}, indent=2), True
            return json.dumps({"ok": True, "result": json.loads(text)}, indent=2), False

        thinking.SequentialThinkingServer.process_thought = enveloped  # type: ignore[method-assign]
    elif change == "summary-first":
        answer = server.call_tool_answer

        def summary_first(state: thinking.SequentialThinkingServer, params: Mapping[str, Any]) -> Any:
            answered = answer(state, params)
            blocks = answered["content"]
            if not answered.get("isError") and len(blocks) == 1:
                status = json.loads(blocks[0]["text"])
                n, m = status["thoughtNumber"], status["totalThoughts"]
                numbers = isinstance(n, int | float) and isinstance(m, int | float)
                said = f"Thought {n} of {m} recorded; {m - n} to go." if numbers else "Thought recorded."
                answered["content"] = [{"type": "text", "text": said}, *blocks]
            return answered

        server.call_tool_answer = summary_first  # type: ignore[attr-defined]
    elif change == "structured":
        answering = server.call_tool_answer

        def structured(state: thinking.SequentialThinkingServer, params: Mapping[str, Any]) -> Any:
            answered = answering(state, params)
            blocks = answered["content"]
            if params.get("name") == "sequentialthinking" and len(blocks) == 1:
                answered["structuredContent"] = json.loads(blocks[0]["text"])
            return answered

        server.call_tool_answer = structured  # type: ignore[attr-defined]
    elif change == "confidence":
        listed, validate = server.load_tool_spec, thinking.validate_thought_data

        def declared() -> Any:
            spec = listed()
            schema = {**spec.input_schema, "properties": {**spec.input_schema["properties"], "confidence": {
                "type": "number", "description": "How sure you are of this thought, from 0 to 1",
                "minimum": 0, "maximum": 1}}}
            return dataclasses.replace(spec, input_schema=schema)

        def graded(data: Mapping[str, Any] | None) -> Any:
            checked = validate(data)
            sure = data.get("confidence") if isinstance(data, Mapping) else None
            number = isinstance(sure, int | float) and not isinstance(sure, bool)
            if sure is not None and not (number and 0 <= sure <= 1):
                raise JSError("Invalid confidence: must be a number from 0 to 1")
            if number and sure < 0.5 and checked.nextThoughtNeeded is True:
                checked.totalThoughts = max(checked.thoughtNumber, checked.totalThoughts) + 1
            return checked

        server.load_tool_spec = declared  # type: ignore[attr-defined]
        thinking.validate_thought_data = graded
    elif change == "lockout":
        judge = thinking.SequentialThinkingServer.process_thought
        streak = [0]

        def locked(self: thinking.SequentialThinkingServer,
                   arguments: Mapping[str, Any] | None) -> tuple[str, bool]:
            if streak[0] >= 3:
                streak[0] = 0
                said = "Too many invalid calls in a row: this call was not processed"
                return thinking.error_text(said), True
            text, is_error = judge(self, arguments)
            streak[0] += is_error
            return text, is_error

        def passed(data: Mapping[str, Any] | None) -> Any:
            checked = validate(data)
            streak[0] = 0  # as the fork: reset once validation passed, so a late throw counts one alone
            return checked

        validate = thinking.validate_thought_data
        thinking.validate_thought_data = passed
        thinking.SequentialThinkingServer.process_thought = locked  # type: ignore[method-assign]
    elif change in SCHEMA_CHANGES:
        SCHEMA_CHANGES[change](server, thinking)
    elif change and all(part in PROTOCOL_CHANGES for part in change.split("+")):
        for part in change.split("+"):  # several at once, as a fork of many changes
            PROTOCOL_CHANGES[part](server, thinking)
    elif change in EXTRA_TOOLS:
        _extra_tool(server, *EXTRA_TOOLS[change])
    elif change in TYPE_REFUSALS:
        TYPE_REFUSALS[change](thinking)
    elif change in SPELLING_CHANGES:
        SPELLING_CHANGES[change](thinking)
    elif change and all(part in {**ARGUMENT_CHANGES, **OTHER_CHANGES} for part in change.split("+")):
        for part in change.split("+"):  # several at once, as a fork of many changes
            {**ARGUMENT_CHANGES, **OTHER_CHANGES}[part](thinking)
    else:
        sys.exit("usage: reference_fork.py renamed|fenced|stringified|typed-guards|blank-refused|logged|"
                 "ascii-box|enveloped|summary-first|prose-first|trailed|active-branches|snake-keys|structured|"
                 "confidence|lockout|"
                 f"{'|'.join([*SCHEMA_CHANGES, *PROTOCOL_CHANGES, *EXTRA_TOOLS])}|"
                 f"{'|'.join([*ARGUMENT_CHANGES, *OTHER_CHANGES])}|"
                 f"{'|'.join([*TYPE_REFUSALS, *SPELLING_CHANGES])}, not {change!r}")
    sys.exit(server.run())


if __name__ == "__main__":
    main()
