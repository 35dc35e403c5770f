"""A failure's text as a maintainer reads it: the check's own words, none of pytest's or Python's wrapping.

The plugin cleans what a test raised before it becomes data (`core/results.py`); the gate cleans again what
an older results file holds. Writers then show the message whole in a block, or `one_line` of it.
"""

from __future__ import annotations

import json
import re
from typing import Final

from hypothesis.errors import Flaky

from conformance.core.words import cut_text, lead_cut

FILES_WRITTEN: Final = "the server wrote files"
"""The opening words of a failure that lists the files a check found its server's processes wrote (ABS-1's
check reads the sandboxed HOME, TMPDIR and XDG folders of every raw process of the run): written by the suite,
read by the gate, which replays requests and compares answers and so never sees a file (`unreplayable`)."""
ANSWER_READS: Final = "the answer reads"
"""The opening words of a failure that read a tool's answer against another call's (`reanswered`, written by
the suite): the gate holds such a failure against a tools/call's answer, never against a tools/list the same
sequence sent before it (fork-thought-dependencies' OBJ-13 was headed by the listing's new property)."""
MESSAGE_CHARS: Final = 4000
"""A failure's message is kept up to this length (a whole answer quoted in it fits)."""

_EXCEPTION_PREFIX: Final = re.compile(
    r"^(?:(?:[A-Za-z_][\w.]*\.)?(?:AssertionError|Contradiction|SpecDeparture|Failed|[A-Z]\w*(?:Error|Exception))"
    r"|conformance\.[\w.]*\.[A-Z]\w*)(?:\(\))?: ?",
)
"""An exception's class before its message: Python's and pytest's, and any of the harness's own."""
_KEY_ERROR: Final = re.compile(r"^(?:builtins\.)?KeyError: (.+)$")
_INDEX_ERROR: Final = re.compile(r"^(?:builtins\.)?IndexError: (.+)$")
"""A check that indexed past the end of what it was served (the fixed lines of a description shorter than
the original's: stopuncle-js' one-line description): Python's words read as the server's (round 14)."""
_NOT_IN_LIST: Final = re.compile(r"^(?:builtins\.)?ValueError: (.+) is not in list$")
_OBJECT_REPR: Final = re.compile(r"<(?:[\w.]+\.)?(\w+) object at 0x[0-9a-fA-F]+>")
_ADDRESS: Final = re.compile(r"\s*at 0x[0-9a-fA-F]+")
_HARNESS_OBJECT: Final = re.compile(
    r"\b(?:ServerSession|Target|Transcript|_RunState|Spare|LabelServer|FreshRunner|RawPool|SdkDriver|"
    r"WireDriver|Evidence|SnapshotAssertion|TargetIndependentSnapshot)\("
)
_SNAPSHOT_ASSERT: Final = re.compile(r"(?:assert )?\[\+ received\] == \[- snapshot\]")
_PYTEST_EXPLANATION: Final = re.compile(r"^assert ")
_PYTEST_WHERE: Final = re.compile(r"^\s*\+\s+where\s+(.+?)\s+=\s+([A-Za-z_][\w.]*\(.*)$")
"""pytest's explanation of a value by the call that made it: `+  where False = isinstance(x, dict)`."""
_BARE_VALUE: Final = re.compile(r"^(?:False|None|0|''|\[\]|\{\}|\(\))$")
"""A bare assert's whole comparison when it compared nothing: the falsy value its condition came to."""
_OLD_FALLBACK: Final = "the check's comparison failed: "
"""How this module said a bare assert before, kept in results files the plugin wrote then."""
_NO_WORDS: Final = "the check's condition did not hold"
_WHERE_CHARS: Final = 300
_HYPOTHESIS_NOTE: Final = re.compile(
    r"^\s*(?:Falsifying (?:explicit )?example|Failing explicit example|Failing test case|Trying example"
    r"|You can reproduce this test|@reproduce_failure|Explanation:|Unreliable test timings|Flaky example"
    r"|Hypothesis |Highest target score"
    r"|Draw \d+|\+ Exception Group|\+-+ \d+ -+)"
)
"""Where hypothesis' (and pytest's) notes begin in a failure's text: the test's name, its fixtures' reprs, a
decorator to paste into the test, the lines only failing cases ran. None of it is the check's words: a user
replays the example from its frames (`replay`), and the node id stays in report.json for `--select`."""
_ARGUMENT_LINE: Final = re.compile(r"^\s{2,}(\w+)=(.*?),?\s*$")


def readable(text: str) -> str:
    """The message without the exception's class, pytest's assertion rewriting or object reprs."""
    lines = text.strip().splitlines()
    note = next((i for i, line in enumerate(lines) if i and _HYPOTHESIS_NOTE.match(line)), len(lines))
    lines = lines[:note]
    if not lines:
        return ""
    missing = _KEY_ERROR.match(lines[0])
    if missing:
        lines[0] = f"no key {missing.group(1)} where the check read one"
    past = _INDEX_ERROR.match(lines[0])
    if past:
        lines[0] = (f"what the server served is shorter than the check reads, which follows the original's "
                    f"({past.group(1)}: fewer items or lines than the original has)")
    absent = _NOT_IN_LIST.match(lines[0])
    if absent:
        lines[0] = (f"no {absent.group(1)} in what the server served, where the check looked for the "
                    "original's")
    lines[0] = _EXCEPTION_PREFIX.sub("", lines[0])
    # pytest's rewriting follows the message, from its first "assert ..." line on.
    explanation = next((i for i, line in enumerate(lines) if _PYTEST_EXPLANATION.match(line)), len(lines))
    own = lines[:explanation]
    if not "".join(own).strip():
        # A bare `assert` with no message (an older harness's check): pytest's rewriting is all there is.
        own = [_bare_assert(lines[0].strip().removeprefix("assert "), lines[1:])]
    elif len(own) == 1 and own[0].startswith(_OLD_FALLBACK):
        compared = own[0].removeprefix(_OLD_FALLBACK).strip()
        own = [_NO_WORDS if _BARE_VALUE.match(compared) else own[0]]
    out = "\n".join(own).strip()
    out = _SNAPSHOT_ASSERT.sub("the served value differs from the original's snapshot", out)
    out = _OBJECT_REPR.sub(r"<\1>", out)
    out = _ADDRESS.sub("", out)
    return out[:MESSAGE_CHARS]


def _bare_assert(compared: str, explanation: list[str]) -> str:
    """What a bare assert's failure says: the comparison when it compared values; when its condition was a
    bare falsy value, the call pytest says made it, else only that the condition did not hold."""
    if compared and not _BARE_VALUE.match(compared):
        return _OLD_FALLBACK + compared
    for line in explanation:
        where = _PYTEST_WHERE.match(line)
        if where:
            call = where.group(2).strip()
            call = call if len(call) <= _WHERE_CHARS else call[: _WHERE_CHARS - 1] + "…"
            return f"{_NO_WORDS}: {call} is {where.group(1)}"
    return _NO_WORDS


_EXAMPLE_HEAD: Final = re.compile(
    r"^\s*(Falsifying example|Falsifying explicit example|Failing explicit example|Failing test case"
    r"|Trying example)(?:\s*\(#\d+\))?: [\w.]+\((.*)$")
_TOP_ARGUMENT: Final = re.compile(r"^ {4}(\w+)=(.*)$")
_FIXTURES: Final = frozenset({"server", "host", "spare", "label_server", "raw_pool", "fresh_runs", "target",
                              "evidence", "snapshot", "package_dir", "package_json", "original_snapshot",
                              "transcript", "command", "identity", "env", "data"})
"""The suite's fixtures: handed to a check, never generated, so no part of the example."""


def readable_example(text: str) -> str:
    """Hypothesis' falsifying example as the values it generated: no test name, no fixtures handed to the
    check (a server session, its target's identity, however many lines their reprs take), no notes after
    it (the explain phase's lines, the decorator to paste)."""
    kept: list[str] = []
    dropping = False
    for line in text.splitlines():
        if _HYPOTHESIS_NOTE.match(line) and not re.match(r"\s*(?:Falsifying|Failing|Trying)", line):
            break
        head = _EXAMPLE_HEAD.match(line)
        if head:
            explicit = "explicit" in head.group(1)
            kept.append("Explicit example (one the check always tries):" if explicit
                        else "Falsifying example:")
            rest = head.group(2).strip()
            if rest and rest != ")":
                kept.append(f"    {rest}")
            # Until its first argument, lines belong to a fixture's repr whose first line was cut already.
            dropping = not rest
            continue
        if line.strip().startswith("#"):
            continue
        line = re.sub(r",?\s+# or any other generated value$", "", line)
        argument = _TOP_ARGUMENT.match(line)
        if argument:
            value = argument.group(2)
            dropping = (argument.group(1) in _FIXTURES or bool(_HARNESS_OBJECT.search(value))
                        or " object at 0x" in value)
            if not dropping:
                kept.append(line)
            continue
        if line.strip() == ")" and not line.startswith(" "):
            dropping = False
            continue
        if dropping:
            continue
        kept.append(line)
    out = _OBJECT_REPR.sub(r"<\1>", "\n".join(kept).strip())
    return _ADDRESS.sub("", out)


_REPR: Final = re.compile(r"^\s*(?:[\[{(]\s*'|\{\s*\}|\[\s*\]|set\(|dict\(|\(\s*\)|[A-Z]\w*\(\w+=)")
_BARE: Final = re.compile(r"^\s*(?:-?\d+(?:\.\d+)?|True|False|None|'[^']*'|\"[^\"]*\")\s*$")
_NODE: Final = re.compile(r"(?:[\w./-]+\.py::)?(test_\w+)(?:\[[^\]]*\])?")


def check_name(nodeid: str) -> str:
    """A check named by what it checks, from its node id (`…::test_shipped_readme[npm:…]` → “shipped
    readme”): the words a reader is given; the node id itself stays in report.json for `--select`."""
    name = nodeid.rsplit("::", 1)[-1]
    base, _, param = name.partition("[")
    words = base.removeprefix("test_").replace("_", " ").strip()
    era = param.rstrip("]").rpartition("-")[2] if "-" in param else ""
    suffix = f" (as the {era} client)" if era in ("auto", "sdk", "raw") or era[:1].isdigit() else ""
    return f"“{words}”{suffix}" if words else "a check"


def unspoken(text: str) -> str:
    """Why a failure's words cannot head a line a person acts on (a Python repr, a bare value, a sentence
    about the check, a test's name), or empty when they can."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    if not first:
        return "no words"
    if _BARE.match(first):
        return "a bare value"
    if _REPR.match(first):
        return "a Python repr"
    if first.startswith(_NO_WORDS) or first.startswith(_OLD_FALLBACK):
        return "a sentence about the check"
    if re.search(r"\btest_\w+\(|::test_|@reproduce_failure|Failing explicit example|Explanation:", first):
        return "a test's name"
    return ""


_RESPONSE: Final = re.compile(r'\{"(?:result|jsonrpc|error|method)"')


NOTIFICATION_CHARS: Final = 160
"""Characters of a server's own message's params a headline keeps (a thought sent as a log message)."""


def _answers_said(text: str) -> str:
    """A JSON-RPC response quoted whole inside a message, said as what it is: its refusal's words, or an
    accepted answer (its escaped text block is no headline); a request or notification of the server's own,
    by its method and params (issue 42: a thought sent as notifications/message read "an accepted
    answer")."""
    from conformance.core.differences import quoted, refusal

    out, at = [], 0
    for found in _RESPONSE.finditer(text):
        if found.start() < at:
            continue
        try:
            value, end = json.JSONDecoder().raw_decode(text, found.start())
        except ValueError:
            continue
        method = value.get("method") if isinstance(value, dict) else None
        refused = refusal(value) if isinstance(value, dict) and method is None else None
        if isinstance(method, str):
            # A request or notification of the server's own is no answer: said by its method and params.
            params = json.dumps(value.get("params"), ensure_ascii=False) if "params" in value else ""
            said = f"{method}{' with params ' + quoted(params, NOTIFICATION_CHARS) if params else ''}"
        else:
            said = (f"a refusal, {quoted(refused.words)} ({refused.kind})" if refused is not None
                    else "an accepted answer")
        out += [text[at:found.start()], said]
        at = end
    return "".join(out) + text[at:]


_STRING: Final = r"'(?:[^'\\\n]|\\.)*'"
_LIST_REPR: Final = re.compile(rf"(?<=[A-Za-z:] )\[({_STRING}(?:, {_STRING})*)(, \.\.\.)?\]")


def _lists_said(text: str) -> str:
    """A Python list of names inside a sentence (“an answer's fields are ['thoughtNumber', …]”) said as the
    names, comma-separated; a list that is the whole message stays, for `unspoken` to catch."""
    def names(found: re.Match[str]) -> str:
        said = ", ".join(s[1:-1] for s in re.findall(_STRING, found.group(1)))
        return said + (", …" if found.group(2) else "")
    return _LIST_REPR.sub(names, text)


_CONTRADICTED: Final = re.compile(r"^[A-Z]+-[A-Z0-9]+[a-z]?(?:/[a-z]\d+)? contradicted: ")
"""A check's failure naming the record it saw broken (suite/contradiction.py): the name is data (a result's
`contradicted`, root causes read it), not words for the line, which says what came instead."""


def spoken(message: str, nodeid: str, limit: int = 240) -> str:
    """A failure on one line in words a person can act on: its own when they are such (a JSON-RPC response
    in it said as a refusal's words, an escaped line break as ⏎), else what its check checks and that it
    fails here, with the value it quoted."""
    own = _CONTRADICTED.sub("", readable(message), count=1)
    whole = one_line(_lists_said(_answers_said(own)).replace("\\n", " ⏎ "))
    said = lead_cut(whole, limit) or one_line(whole, limit)
    if not unspoken(said):
        return said
    value = one_line(readable(message), 120)
    quoted = f" (it saw {value})" if value and unspoken(value) == "a bare value" else ""
    return f"{check_name(nodeid)} does not hold here{quoted}"


def one_line(text: str, limit: int | None = None) -> str:
    """The whole message on one line (its lines joined with ' ⏎ '), cut only at `limit` with '…'."""
    joined = " ⏎ ".join(part.strip() for part in text.strip().splitlines() if part.strip())
    if limit is not None and len(joined) > limit:
        joined = cut_text(joined, limit)
    return joined


UNRELIABLE = "unreliable: an example failed, then passed when run again"
"""How a flaky example's message opened before round 14 (kept reports still say it): read as `RUN_AGAIN`."""
RUN_AGAIN = "its example failed on the shared process, then passed when run again there"
"""A flaky example's message, said, never judged (issue 43: a line written at every 50th thought fails one run
and passes the next on the same process, deterministically); `gate/evidence.py` says "unreliable" only once
fresh processes were tried and showed no difference, and "reproduced" once one did."""


def is_run_again(message: str) -> bool:
    """Whether a message is a flaky example's (`RUN_AGAIN`, or the older `UNRELIABLE`)."""
    return message.startswith((RUN_AGAIN, UNRELIABLE))


def run_again(message: str) -> str:
    """A flaky example's line as `RUN_AGAIN` says it, then what it failed with (an older `UNRELIABLE` line
    re-said); any other message as it is."""
    if message.startswith(UNRELIABLE):
        rest = message[len(UNRELIABLE):].removeprefix(": ")
        return f"{RUN_AGAIN}: {rest}" if rest else RUN_AGAIN
    return message


def after_run_again(message: str) -> str:
    """What a flaky example failed with: its message past `RUN_AGAIN` (or `UNRELIABLE`)."""
    said = run_again(message)
    return said[len(RUN_AGAIN):].removeprefix(": ") if said.startswith(RUN_AGAIN) else said


CHECK_BROKE: Final = "the check could not read this server's answers (a defect of the harness, to report)"
"""Said before the words of a Python error a check raised itself, so that an `int()` of a bullet where the
original numbers its rules reads as the harness's fault, never as the server's words."""

_CHECK_DEFECTS: Final = frozenset({ValueError, TypeError, AttributeError, ZeroDivisionError, UnicodeError,
                                   RecursionError})
"""Not KeyError, IndexError or a line "not in list": those say what the served value lacks (`readable`)."""


def raised_message(exc: BaseException, exconly: str) -> str:
    """What a check raised, in its own words (`readable` of pytest's `exconly`); for an example hypothesis
    saw fail once and pass when run again, what it failed with, never the test's arguments' reprs."""
    if isinstance(exc, Flaky):
        inner = exc.exceptions if isinstance(exc, BaseExceptionGroup) else ()
        first = next((readable(str(e)) for e in inner if readable(str(e))), "")
        return RUN_AGAIN + (f": {first}" if first else "")
    own = readable(exconly)
    broke = type(exc) in _CHECK_DEFECTS and not _NOT_IN_LIST.match(exconly.strip().partition("\n")[0])
    return (f"{CHECK_BROKE}: {own}" if own else CHECK_BROKE) if broke else own
