"""A departure's evidence: its smallest example replayed, at report time, on a fresh process of the target
and of the original, and what differs between their answers, field by field.

The leading root causes are replayed first; then each departing record gets its pair, reusing its cause's
when its own sequence is the one already replayed (a sequence is never replayed twice, nor one making the
same calls under other request ids: `same_calls`; each still spends its place in the budget). An example that
shows no difference on fresh processes is not presented as the example: the evidence says it did not
reproduce, and why. The cost is bounded: at most `MAX_REPLAYS` sequences per report (`CAUSE_REPLAYS` of
them for the causes), two short-lived processes per sequence, but one process of the original for a group of
sequences it refuses throughout (`refusal_replays.in_turn`: replayed in turn while it stays as a fresh one,
each beside a fresh process of the target, `_replay_in_turn`); a record past the bound shows its cause's
pair and says why it has none of its own.

The sequences the walk will ask for are replayed ahead, `SIDE_BY_SIDE` at a time (`_Replays.prefetch`): each
is still its own pair (its group's original process), asked side by side, and which sequences count against
the budget, in
which order, is the walk's alone. From the start, what the walk asks for when each cause reproduces on its
first candidate (`_foreseen`); once the causes are known, the departures' sequences within the budget and,
past it, the confirmations of new departures the fixed opening calls do not show: a red run's replays keep the
pool busy instead of waiting on one pair at a time, and a sequence is replayed ahead only when the walk asks
for it (measured on npm:2026.8.31, fork-hardened-store and bartoszkula-ts: none replayed for nothing).
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final, cast

from conformance.calls.advertised import served_properties
from conformance.calls.opening import FRESH_SEQUENCE, LABEL_TAIL, OPENING_CALLS, PLAIN_TAIL
from conformance.catalog.records import default_catalog
from conformance.compare.pair import retested
from conformance.core.differences import (
    GROWN_LIST,
    RESPELLED,
    RUNTIME_ERROR,
    SAME_JSON,
    STDERR_BOX,
    STDERR_OUTSIDE,
    FieldDifference,
    difference_keys,
    explain,
    field_named,
    refusal,
    refusal_words,
    said,
    sdk_owned,
    stderr_part,
    text_difference,
)
from conformance.core.differences import (
    quoted as quoted_line,
)
from conformance.core.drawn_answer import DRAWN, box_draws_answer
from conformance.core.failure_text import (
    ANSWER_READS,
    FILES_WRITTEN,
    RUN_AGAIN,
    after_run_again,
    check_name,
    is_run_again,
    readable,
    run_again,
    spoken,
)
from conformance.core.guards import GUARD_REFUSALS
from conformance.core.jsontypes import JSON
from conformance.core.jsontypes import json_object as _frame
from conformance.core.protocol import PROBE_ARGUMENTS, PROTOCOL_VERSION, TOOL
from conformance.core.retest import refusals_retested
from conformance.core.retest import said as retest_said
from conformance.drivers.errors import DriverError
from conformance.drivers.wire import WireDriver
from conformance.gate.added_keys import keys_added, under_added_keys
from conformance.gate.beside_call import call_arguments, extra_beside
from conformance.gate.cached_answers import answered_from_cache
from conformance.gate.canonical import without_volatile
from conformance.gate.caps import (
    SIGN_DROPPED,
    TRIMMED,
    cap_headline,
    cap_seen,
    fell,
    is_call_limit,
    limit_shown,
    short_of_due,
    sign_dropped,
    sign_headline,
    trimmed_headline,
)
from conformance.gate.check_words import check_messages as _check_messages
from conformance.gate.check_words import failing_checks as _failing_checks
from conformance.gate.count_kinds import led_by_the_kind
from conformance.gate.detour import DETOUR_REPLAYS, departs_past, past_refusals
from conformance.gate.ends_said import with_ends_said
from conformance.gate.numbers_apart import moved_alike, moved_apart, stating_echo
from conformance.gate.one_difference import refused_value, same_transform, transform_seen
from conformance.gate.refusal_form import folded_by_form
from conformance.gate.refusal_replays import in_turn
from conformance.gate.refusals_said import with_refusals_said
from conformance.gate.renamed_messages import renamed_under_their_change
from conformance.gate.rules_asked import RulesAsked, refused_call
from conformance.gate.schema_properties import properties_apart
from conformance.gate.signatures import BANNER_WAIT
from conformance.gate.stated_apart import Reading, stated_apart
from conformance.gate.tools_said import with_tools_said
from conformance.gate.unsequenced import unsequenced_causes
from conformance.report.model import (
    UNASKED,
    Evidence,
    RecordVerdict,
    Report,
    RootCause,
    TestRef,
    beside_it,
    holder_and_key,
)
from conformance.targets.specs import Target, resolve_target

MAX_CAUSES: Final = 3
MAX_CANDIDATES: Final = 3
CAUSE_REPLAYS: Final = 4
"""Sequences replayed for the root causes, first."""
MAX_REPLAYS: Final = 16
"""Sequences replayed per report, causes and departures together: at most twice this many short-lived
processes."""
CONFIRM_REPLAYS: Final = 16
"""Sequences replayed beyond `MAX_REPLAYS` for departures the gate would call new (not in the baseline) whose
own sequence the budget left out: a departure is new only once a fresh process confirmed it (issue 43;
fork-bounded-session's ABS-12 under ci 11 was new on one probe call a fresh process accepts)."""
SIDE_BY_SIDE: Final = 4
"""Sequences replayed at once, each on two fresh processes of its own: a replay mostly waits (on starts,
answers), so replays side by side cost a red run far less wall time than one at a time. A pair watched after
its last frame (`LIFE_WATCH`, a third of a short pair's time) no longer counts among them: up to as many more
are watched meanwhile."""
ORIGINAL_RELEASE: Final = "0.6.2"
"""The original: npm:0.6.2 when the target cache holds it, else `REFERENCE`."""
REFERENCE: Final = "reference"
"""The reference server, needing no node or npm: its answers equal npm:0.6.2's, field for field, on the
corpus of tests/e2e/test_reference_differential.py's whole-answer test."""
ORIGINAL: Final = REFERENCE
"""Kept for callers of the earlier name: the original when npm:0.6.2 is not installed."""


WHOLE_STDERR: Final = "(the process's whole stderr)"
LIFE: Final = "process"
"""The process after the example's last frame: running, or how it ended."""
LIFE_WATCH: Final = 0.3
"""The shortest time both processes are watched after the last frame: a server that ends itself after a call
(the thinking done, say) does so right after answering."""
LIFE_LIMIT: Final = 3.0
"""The longest: the watch is three times the replay's slowest answer after its first (which waited for the
start-up), as a loaded machine slows an exit as it slows an answer; it ends once both processes have ended."""
NO_ANSWER: Final = "no answer"
"""Where the target gave no answer in a replay (it exited, it hung): why, in its answer's place."""


@dataclass(frozen=True)
class _Answer:
    method: str
    response: str
    stderr: str
    own: str = ""
    """The requests and notifications the server sent of its own while this request awaited its response."""
    seconds: float = 0.0
    """How long the request took to be answered."""
    sent: str = ""
    """The request's frame as sent (the same on both sides): the call a difference is said of."""


def _replay_both(original: Target, target: Target, frames: Sequence[str], timeout: float,
                 asking: contextlib.AbstractContextManager[object] | None = None,
                 ) -> tuple[list[_Answer] | str, list[_Answer] | str]:
    """The sequence on a fresh process of each side, both spawned before either is asked anything and asked
    side by side (the original's on a thread of its own), so their start-ups and answers overlap: a pair
    costs its slower side, not both (each process is still asked alone, in the sequence's order). `asking`
    is held while the processes start and answer, not while they are watched after the last frame (a wait
    only: the pool's next pairs start meanwhile)."""
    return _replay_in_turn(original, target, [frames], timeout, asking)[0]


def _replay_in_turn(original: Target, target: Target, sequences: Sequence[Sequence[str]], timeout: float,
                    asking: contextlib.AbstractContextManager[object] | None = None) -> list[_Replayed]:
    """The sequences one after another on one process of the original, each beside a fresh process of the
    target (`_replay_both`'s pair for the first), each pair watched after its last frame: the pairs of the
    leading ones, at least the first. The original keeps nothing of a call its guards refuse (it validates
    before it stores, as the witness signing takes it: `refusals_carry=False`); a target may keep anything
    (a refusal streak's lockout that starts again shows in no call sent again), so its processes are never
    shared. The next sequence is replayed only while the original's process is left as a fresh one
    (`_left_fresh`), and kept only when it answers as one around it (`_as_if_fresh`): the rest are for
    fresh pairs (gate/refusal_replays.py says which sequences go in turn)."""
    replayed: list[_Replayed] = []
    with contextlib.ExitStack() as stack:
        kept: tuple[WireDriver, int] | str | None = None
        for frames in sequences:
            with contextlib.ExitStack() as fresh:
                theirs: list[_Answer] | str
                ours: list[_Answer] | str
                with asking if asking is not None else contextlib.nullcontext():
                    if kept is None:
                        kept = _started(stack, original, timeout)
                    # A later sequence goes between two sendings of the first's first call to the original,
                    # both answered as on the fresh process, or its process is not taken for a fresh one: the
                    # first sending before the target's process is started for it.
                    again = _first_call(sequences[0])[:1 if replayed else 0]
                    before = [] if not again or isinstance(kept, str) else _replay(
                        kept[0], kept[0].stderr_mark(), again, settle=False)
                    if again and (isinstance(before, str) or not _answered_again(replayed[0][0], before[:1])):
                        break
                    mine = _started(fresh, target, timeout)
                    # Since the spawn for the first sequence, since now for a later one.
                    first = kept if isinstance(kept, str) or not replayed else (kept[0],
                                                                                kept[0].stderr_mark())
                    sent = [*frames, *again]
                    with ThreadPoolExecutor(1, thread_name_prefix="evidence-original") as aside:
                        asked = (None if isinstance(first, str)
                                 else aside.submit(_asked, *first, sent, replayed))
                        ours = mine if isinstance(mine, str) else _replay(*mine, frames, ended=True)
                        theirs = asked.result() if asked is not None else str(first)
                        theirs = theirs if isinstance(theirs, str) else [*before[:1], *theirs]
                if replayed:
                    alike = _as_if_fresh(replayed[0][0], theirs)
                    if alike is None:
                        break
                    theirs = alike
                if isinstance(theirs, list) and isinstance(ours, list):
                    # The first answer waited for the start-up too: not a measure of how slow a call is.
                    slowest = max((a.seconds for a in (*theirs[1:], *ours[1:])), default=0.0)
                    _watch([b[0] for b in (kept, mine) if not isinstance(b, str)],
                           min(LIFE_LIMIT, max(LIFE_WATCH, 3 * slowest)))
                    for answers, side_begun in ((theirs, kept), (ours, mine)):
                        if not isinstance(side_begun, str):
                            status = side_begun[0].returncode
                            life = "running" if status is None else f"exited with status {status}"
                            answers.append(_Answer(LIFE, json.dumps({LIFE: life}), ""))
                replayed.append((theirs, ours))
            if not _left_fresh(theirs):
                break
    return replayed


def _started(stack: contextlib.ExitStack, side: Target, timeout: float) -> tuple[WireDriver, int] | str:
    """A fresh process of `side`, held by `stack`, and its stderr's mark at the spawn; or why it failed."""
    try:
        driver = stack.enter_context(side.wire(timeout=timeout))
    except DriverError as exc:
        return str(exc)
    return driver, driver.stderr_mark()


def _first_call(frames: Sequence[str]) -> list[str]:
    """The sequence's first request after its first (after initialize): empty when it has none."""
    requests = [text for text in frames if isinstance((_frame(text) or {}).get("id"), int)]
    return requests[1:2]


def _asked(driver: WireDriver, start: int, frames: Sequence[str], before: Sequence[_Replayed]
           ) -> list[_Answer] | str:
    """The original's `_replay` of a sequence, the first on its process as on a fresh one; a later one's
    process has its banner behind it, none awaited."""
    if before:
        return _replay(driver, start, frames, settle=False)
    return _replay(driver, start, frames)


def _left_fresh(answers: list[_Answer] | str) -> bool:
    """Whether the original's process is as a fresh one after the last sequence: it answered it whole,
    refused every call, wrote nothing to stderr after the banner (the first sequence's first answer), sent
    nothing unasked, and is running."""
    if isinstance(answers, str):
        return False
    for index, answer in enumerate(answers):
        if answer.method == LIFE:
            if json.loads(answer.response) != {LIFE: "running"}:
                return False
            continue
        if answer.own or (answer.stderr and index > 0 and answer.method != WHOLE_STDERR):
            return False
        if answer.method == "tools/call" and refusal(cast(JSON, _frame(answer.response))) is None:
            return False
    whole = next((a.stderr for a in answers if a.method == WHOLE_STDERR), None)
    return whole is not None and whole == answers[0].stderr


def _lasting(response: str) -> JSON:
    """An answer with the moment it was made as placeholders (a time, a date, an id: `without_volatile`): a
    process stamping each answer answers a call again alike."""
    try:
        return without_volatile(cast(JSON, json.loads(response)))
    except ValueError:
        return response


def _answered_again(first: list[_Answer] | str, again: Sequence[_Answer]) -> bool:
    """Whether each answer to the first sequence's first call sent again is the fresh process's answer to it
    (the moment aside), with nothing on stderr or sent unasked."""
    if isinstance(first, str) or len(first) < 2 or not again:
        return False
    return all((a.method, _lasting(a.response), a.stderr, a.own) == (
        first[1].method, _lasting(first[1].response), "", "") for a in again)


def _as_if_fresh(first: list[_Answer] | str, asked: list[_Answer] | str) -> list[_Answer] | None:
    """The original's answers to a later sequence (between two sendings of the first sequence's first call) as
    a fresh process gives them: the banner (the first sequence's first answer's stderr) said again in its
    first answer and in the whole stderr; None, for a fresh pair, unless it answered that call, before and
    after, and the sequence's opening as in the first sequence, with nothing on stderr or sent unasked."""
    if isinstance(first, str) or isinstance(asked, str):
        return None
    if len(first) < 2 or len(asked) < 4 or asked[-1].method != WHOLE_STDERR:
        return None  # broke off: no whole stderr read
    if not _answered_again(first, [asked[0], asked[-2]]):
        return None
    answers = [*asked[1:-2], asked[-1]]
    if answers[0].method != "initialize" or answers[0].stderr or answers[0].own:
        return None
    if _lasting(answers[0].response) != _lasting(first[0].response):
        return None
    banner = first[0].stderr
    return [replace(a, stderr=banner + a.stderr) if i == 0 or a.method == WHOLE_STDERR else a
            for i, a in enumerate(answers)]


def _watch(drivers: Sequence[WireDriver], seconds: float) -> None:
    """Wait `seconds`, or less once every process has ended (polled, not slept through)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(d.returncode is None for d in drivers):
        time.sleep(0.02)


def _replay(
    driver: WireDriver, start: int, frames: Sequence[str], *, ended: bool = False, settle: bool = True
) -> list[_Answer] | str:
    """Each request's answer and the stderr written while answering it (and since `start`, the spawn, over
    the whole sequence), or why the replay broke off. With `ended` (the target's side), a process that
    stops answering after its first answer keeps those answers and says, where the next one was due, why it
    gave none (it exited, it hung): the original's answer there is the difference. `settle`: the banner is
    awaited after the first answer (a later sequence on the same process has it behind it)."""
    answers: list[_Answer] = []
    since = start
    sent = len(driver.unsolicited)
    try:
        for text in frames:
            frame = _frame(text)
            method = str(frame.get("method", "")) if frame is not None else "raw"
            request_id = frame.get("id") if frame is not None else None
            if not isinstance(request_id, int):
                driver.send_raw(text.encode() + b"\n")
                continue
            asked = time.monotonic()
            exchange = driver.request_raw(text.encode() + b"\n", request_id=request_id, method=method)
            seconds = time.monotonic() - asked
            response = {k: v for k, v in exchange.response.items() if k != "id"}
            # Keys sorted: their order is each side's SDK's (EXT-1), and a reader looks for the field.
            compact = json.dumps(response, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
            if not answers and settle:
                # The start-up's stderr (the banner) is no request's, but it reaches the pipe when it will:
                # before the first answer from the original, a few ms after it through a relay, a shell
                # wrapper or `docker run -i`. Read it whole here (as the witnesses' banner is), so it is
                # the first request's on both sides and never lands in a later request's stderr.
                driver.stderr_settled(BANNER_WAIT)
            # Since the previous answer (the first: since the spawn, its banner settled).
            written = driver.stderr_since(since)
            since = driver.stderr_mark()
            own = driver.unsolicited[sent:]
            sent = len(driver.unsolicited)
            answers.append(_Answer(method, compact, written.decode("utf-8", "replace"),
                                   json.dumps(own, ensure_ascii=False, separators=(",", ":")) if own else "",
                                   seconds, text))
        # Everything the process wrote to stderr, the banner before the first request included.
        answers.append(_Answer(WHOLE_STDERR, "{}", driver.stderr_since(start).decode("utf-8", "replace")))
    except DriverError as exc:
        if not (ended and answers):
            return str(exc)
        answers.append(_Answer(method, json.dumps({NO_ANSWER: str(exc)}, ensure_ascii=False), ""))
    return answers


def _compared(
    original: list[_Answer], target: list[_Answer], about: set[str], fall_back: bool = False,
    spec_by_field: bool = False,
) -> tuple[int, list[str]] | None:
    """The first request whose answers differ (1-based) in a way `about` (the cause's records' words) speaks
    of, and what differs there; None when none does. Another cause's difference (a changed serverInfo shows
    in every replay's initialize) is not this cause's evidence. With `fall_back` (a record's own sequence),
    when none speaks of it, its last request that differs: still its own example's difference. With
    `spec_by_field` (the fixed opening calls' tools/list), a tools/list difference speaks only of records
    about the tool spec (`_SPEC_WORDS`), and only by its field (description, inputSchema, a property): a
    re-worded description shares words with many statements ("thinking", "sessions", "thoughtNumber") and is
    no evidence of a record about the store or the status object."""
    last: tuple[int, list[str]] | None = None
    served: tuple[object, object] = (None, None)  # each side's tool properties, once a tools/list answered
    for index, (a, b) in enumerate(zip(original, target, strict=False), start=1):
        theirs, ours = json.loads(a.response), json.loads(b.response)
        # The call's arguments locate a refusal naming no field by the types it says (core/refused_field.py).
        differences = [d for d in explain(theirs, ours, call_arguments(a.sent), served)
                       if not _sdk_owned(d.path, d.original, d.target)]
        if a.method == "tools/list":
            served = (served_properties(theirs.get("result") if isinstance(theirs, dict) else None),
                      served_properties(ours.get("result") if isinstance(ours, dict) else None))
        if a.stderr != b.stderr:
            box = text_difference(a.stderr, b.stderr)
            # A box redrawing the answer's changed label is that change, not one of its own (issue 43).
            drawn = DRAWN if box_draws_answer(a.stderr, b.stderr, theirs, ours) else ""
            differences.append(FieldDifference("stderr", "", "", f"stderr: {drawn}{box}"))
        if a.own != b.own:
            differences.append(FieldDifference(
                "own", "", "", f"{UNASKED}{a.own or 'none'} on the original, "
                f"{b.own or 'none'} here"))
        if a.method == "tools/list" and any(map(_tool_key, differences)):
            # A key added to or dropped from the listed tool (`title`, `annotations`): a record counting the
            # tool's keys ("exactly the keys name, description, inputSchema": CMP-2), whatever key it is
            # (issue 42: CMP-2 was "not reproduced" though every fresh tools/list showed them).
            keyed = [d.said() for d in differences
                     if _tool_key(d) and _counts_keys(about) and about & _SPEC_WORDS]
            differences = [d for d in differences if not _tool_key(d)]
        else:
            keyed = []
        if spec_by_field and a.method == "tools/list":
            found = keyed + [d.said() for d in differences if about & _SPEC_WORDS
                             and _speaks_of(replace(d, sentence=d.path, kind=""), about)]
        elif a.method == "tools/list":
            # A tool spec's texts share words with many statements ("A tool for …" with RTE-1's "the one tool
            # spec"): a difference inside a listed tool speaks of a record by its field alone; the list's
            # membership (a tool added) by its own key.
            found = keyed + [d.said() for d in differences
                             if _speaks_of(d if d.kind == GROWN_LIST else replace(d, sentence=d.path), about)]
        else:
            found = [d.said() for d in differences if _speaks_of(d, about)]
        if found:
            return index, found
        if differences and a.method not in (WHOLE_STDERR, LIFE):
            last = (index, [d.said() for d in differences])
    if last is not None and fall_back:
        # None speaks of the record's words: its own sequence's last differing request is still its own.
        return last
    if len(original) != len(target):
        return min(len(original), len(target)) + 1, [
            f"the original answered {len(original)} request(s), this server {len(target)}"]
    return None


def _told_at(
    original: list[_Answer], target: list[_Answer], about: set[str], rv: RecordVerdict,
    spec_by_field: bool = False,
) -> tuple[int, list[str]] | None:
    """The first request of a replayed sequence whose differences (as `_compared` finds them) include one the
    record's failing checks say they saw: a sequence whose first differing request shows another change of the
    fork (zero-based numbering's raised total before the thought 0 its check sent) still shows the record's
    own difference, further on. None when no request does."""
    said = _check_messages(rv)
    for index, (a, b) in enumerate(zip(original, target, strict=False), start=1):
        # Each request's differences whatever the statement's words: its checks' words choose (a key an answer
        # echoes, `dependsOn`, shares no word with OBJ-13's statement yet is what its check read).
        found = _compared([a], [b], about, fall_back=True, spec_by_field=spec_by_field)
        if (found is not None and any(_told_by_its_checks(rv, d) for d in found[1])
                and not _other_kind_of_call(said, a.response, b.response)):
            return index, found[1]
    return None


_SAW_REFUSAL: Final = re.compile(r'"error"\s*:|\bisError\b|\brefus|\breject')
_SAW_CALL_JUDGED: Final = re.compile(r"\brefus|\breject|\baccept|iserror|invalid")


def _a_listing(evidence: Evidence) -> bool:
    """Whether a pair's two answers are tool listings."""
    results = [a.get("result") if (a := _frame(text)) is not None else None
               for text in (evidence.original, evidence.target)]
    return all(isinstance(result, dict) and "tools" in result for result in results)


def _other_kind_of_call(said: Sequence[str], original: str, target: str) -> bool:
    """Whether every failing check saw a refused call (its words, or the answer it quotes: `"error": …`)
    while the pair is a call both sides accepted: the pair shows the server's other changes on an accepted
    call, not the check's failure (chat-markdown's OBJ-8 saw its errors fenced, and its pair was the fenced
    status of an accepted call); or every one read a tool's answer (`ANSWER_READS`) while the pair is the
    tool listing."""
    answers = [_frame(text) for text in (original, target)]
    results = [a.get("result") if a is not None else None for a in answers]
    if said and all(ANSWER_READS in m or keys_added(m) for m in said) and all(
            isinstance(result, dict) and "tools" in result for result in results):
        # Each check read a tool's answer, or its fields (“the answer has 1 field(s) more than …: tags”);
        # the pair is the tool listing, a property of that name the schema added (held-out-multi-18's
        # tagged-journal: the answer's `tags` key went under the schema's `tags` property).
        return True
    if not said or not all(_SAW_REFUSAL.search(m) for m in said):
        return False
    if any(a is None or not isinstance(a.get("result"), dict) for a in answers):
        return False  # not two tools/call results (a list, the process, stderr): nothing to hold against
    return all(refusal(cast(JSON, a)) is None for a in answers)


_TOOL_KEY: Final = re.compile(r"result\.tools\[\d+\]\.\w+")


def _tool_key(difference: FieldDifference) -> bool:
    """A key of a listed tool present on one side only (`result.tools[0].title: absent on the original`)."""
    return bool(_TOOL_KEY.fullmatch(difference.path)) and "absent" in (difference.original, difference.target)


def _counts_keys(about: set[str]) -> bool:
    """Records whose words count an object's keys ("exactly the keys …", "exactly five fields")."""
    return about >= _COUNTS_KEYS and bool(about & _KEYS)


def _sdk_owned(path: str, original: str, target: str) -> bool:
    """What each side's SDK owns, normalized as `compare` does (compare/observe.py, compare/fresh.py)."""
    return sdk_owned(FieldDifference(path, original, target))


def _keys_of(original: list[_Answer], target: list[_Answer]) -> list[str]:
    """Everything two replays of one sequence differ about, as `difference_keys`: each request's answers,
    its stderr, the requests a side sent of its own; the process after the last frame."""
    keys: set[str] = set()
    for a, b in zip(original, target, strict=False):
        theirs, ours = json.loads(a.response), json.loads(b.response)
        keys |= difference_keys(theirs, ours, call_arguments(a.sent))
        keys |= ({"stderr"} if a.stderr != b.stderr and a.method != WHOLE_STDERR
                 and not box_draws_answer(a.stderr, b.stderr, theirs, ours) else set())
        keys |= {"own requests"} if a.own != b.own else set()
    if len(original) != len(target):
        keys.add("answers")
    return sorted(keys)


def _which(index: int, answers: list[_Answer]) -> str:
    method = answers[index - 1].method if index <= len(answers) else "request"
    if method == WHOLE_STDERR:
        return "in the process's stderr over the whole example"
    if method == LIFE:
        return "after the example's last frame"
    calls = sum(1 for a in answers[:index] if a.method == "tools/call")
    if method == "tools/call":
        return f"on the example's tools/call {calls}"
    return f"on the example's {method} (request {index})"


_SPEC_WORDS: Final = frozenset({"description", "inputschema", "schema"})
"""Words of a record about the tool spec itself (its description, its input schema)."""


def _cheap_compared(
    original: list[_Answer], target: list[_Answer], about: set[str], own: Sequence[str]
) -> tuple[int, list[str]] | None:
    """`_compared` on the requests every fresh process answers alike (initialize, tools/list) that the
    record's own example (`own`, its frames) sends too: a record past the budget is shown the same call's
    difference on a fresh process, never a call its example does not make (CLM-5's answer fields are no
    tools/list) nor a tools/call's difference its own example may not share."""
    methods = {str(f.get("method")) for f in map(_frame, own) if f is not None}
    for index, (a, b) in enumerate(zip(original, target, strict=False), start=1):
        if a.method in ("initialize", "tools/list") and a.method in methods:
            found = _compared([a], [b], about, spec_by_field=True)
            if found is not None:
                return index, found[1]
    return None


def _candidates(cause: RootCause, report: Report) -> list[tuple[str, list[str]]]:
    """The cause's own example, then its records' and the records it explains, then the fixed opening calls
    (`_opening_frames`): a change the search reached only through the shared process's state is still
    replayed on a fresh process before the report calls it not reproduced (issue 43)."""
    found: list[tuple[str, list[str]]] = []
    if cause.example:
        found.append((cause.test or "", list(cause.example)))
    by_id = {rv.id: rv for rv in report.records}
    for record in [*cause.records, *cause.explains]:
        ce = by_id[record].counterexample if record in by_id else None
        if ce is not None and ce.replay and all(ce.replay != f for _, f in found):
            found.append((ce.test, list(ce.replay)))
    behind = [(BEHIND_OPENING_SOURCE, b) for b in [behind_opening(cause.example)] if b]
    return [*found[:MAX_CANDIDATES - 1], (OPENING_SOURCE, _opening_frames()), *behind]


def _probe_frames() -> list[str]:
    compact = (",", ":")
    return [
        json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                               "clientInfo": {"name": "replay", "version": "0"}}}, separators=compact),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}, separators=compact),
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": TOOL, "arguments": dict(PROBE_ARGUMENTS)}}, separators=compact),
    ]


OPENING_SOURCE: Final = "the fixed opening calls on a fresh process"
_OPENING: Final[tuple[dict[str, JSON], ...]] = (*OPENING_CALLS, *PLAIN_TAIL, *LABEL_TAIL)
"""After the probe call: the fixed opening calls (calls/opening.py: the store checks' and compare's too), then
plain calls up to sixteen retained thoughts, past a store capped at a small size, then a branch on each of 48
more labels, past a cap on labels."""


BEHIND_OPENING_SOURCE: Final = "the fixed opening calls, then the example's calls, on a fresh process"


def behind_opening(frames: Sequence[str]) -> list[str]:
    """The fixed opening calls (their tools/list aside), then `frames`' own requests after its handshake, ids
    following on: a rule over the history a check met on the shared process (a thought numbered past the
    last one, a cap) shows on a fresh one only behind a history, which neither the example alone nor the
    opening calls alone give (held-out-multi-13's strict-relations: five departures seen once). Empty when
    `frames` asks nothing after its handshake."""
    opening = _opening_frames()[:-1]
    rest: list[str] = []
    next_id = len(_OPENING) + 2
    for text in frames:
        frame = _frame(text)
        if frame is None:
            rest.append(text)
            continue
        if frame.get("method") in ("initialize", "notifications/initialized"):
            continue
        if isinstance(frame.get("id"), int):
            rest.append(json.dumps({**frame, "id": next_id}, ensure_ascii=False, separators=(",", ":")))
            next_id += 1
        else:
            rest.append(text)
    return [*opening, *rest] if any(isinstance((_frame(t) or {}).get("id"), int) for t in rest) else []


def _opening_frames() -> list[str]:
    """The probe call, then `_OPENING`, each a tools/call of its own, then a tools/list last: a changed tool
    spec (its description, its schema) shows on any fresh process, so it is always replayed (issue 42),
    after the calls so that a call's difference is still the one a cause about calls finds first. Written
    once (every replay asks whether it is this sequence); each caller gets its own list."""
    return list(_opening_frames_once())


@functools.cache
def _opening_frames_once() -> tuple[str, ...]:
    compact = (",", ":")
    return (*_probe_frames(), *(
        json.dumps({"jsonrpc": "2.0", "id": index, "method": "tools/call",
                    "params": {"name": TOOL, "arguments": arguments}}, separators=compact)
        for index, arguments in enumerate(_OPENING, start=2)),
        json.dumps({"jsonrpc": "2.0", "id": len(_OPENING) + 2, "method": "tools/list"}, separators=compact))


_TOKEN: Final = re.compile(r"[A-Za-z]+|\d+(?:\.\d+)*")
_CLAUSE_END: Final = re.compile(r";\s+|\.\s+|\.$|\s[-–—]\s")
_COMMON: Final = frozenset({"the", "a", "an", "of", "on", "in", "to", "is", "and", "or", "its", "it", "as",
                            "here", "original", "absent", "result", "content", "text", "call", "tools"})


def _words(text: str) -> set[str]:
    """Lower-case words, camelCase split too (thoughtHistoryLength → thought, history, length)."""
    out: set[str] = set()
    for token in _TOKEN.findall(text):
        out.add(token.lower())
        out |= {part.lower() for part in re.findall(r"[A-Z]?[a-z]+|\d+", token)}
    return out - _COMMON


def _speaks_of(difference: FieldDifference, about: set[str]) -> bool:
    """Whether the field a difference is at (any key of its path, or `stderr`), or a word the texts change
    (the marked spans of a word difference, the lines added or dropped), is named by the records; an answer
    of another kind (a refusal for an acceptance, none at all, a process ended where the original's runs)
    is any cause's. A list that grew is told by the difference's kind, never by its sentence's words."""
    path = difference.path
    if path in ("result", "error", LIFE, NO_ANSWER):
        return True
    if path == "stderr" and stderr_part(difference.said()) == STDERR_OUTSIDE:
        # The banner (or a log line) outside the box: only a record about the banner; its words ("Sequential
        # Thinking MCP Server") are every record's, the box's records' too (fork-french-messages).
        return bool(_BANNER & about)
    values = difference.said().partition(": ")[2]
    changed = " ".join(re.findall(r"\[([^\]]*)\]", values) or re.findall(r"“([^”]*)”", values))
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", path)}
    words |= {w.lower() for w in re.findall(r"[A-Za-z]{3,}", changed)}
    if difference.kind == GROWN_LIST:  # the list itself grew: its own key counts
        return bool((words - _COMMON | {re.split(r"[.→ ]+", path)[-1].lower()}) & about)
    if ("absent" in (difference.original, difference.target) and "→" in path and about >= _COUNTS_KEYS
            and about & _KEYS):
        # A key added to or dropped from the object an answer's text holds (the status object): a record
        # counting that object's keys ("exactly five fields"); not a capability or a tool spec's key.
        return True
    return bool(words - _COMMON & about)


_BANNER: Final = frozenset({"banner"})
_COUNTS_KEYS: Final = frozenset({"exactly"})
_KEYS: Final = frozenset({"fields", "keys"})


def _about(records: Sequence[str]) -> set[str]:
    """The words of the records' statements and expectations, whole (thoughtHistoryLength stays one)."""
    by_id = {r.id: r for r in default_catalog().records}
    texts = [f"{by_id[r].statement} {by_id[r].expectation or ''}" for r in records if r in by_id]
    return {w.lower() for w in re.findall(r"[A-Za-z]+", " ".join(texts))}


_SAID_WORDS: Final = frozenset({"this", "server", "both", "other", "words", "refuse", "refuses", "accepts",
                                "naming", "iserror", "error", "invalid", "lines", "line", "each", "side",
                                # and English's small words ("cannot" is no shared meaning)
                                "cannot", "not", "no", "be", "with", "was", "were", "so", "are", "for", "by",
                                "at", "from", "that", "which", "when", "only", "has", "have", "than", "then",
                                "any", "all", "yet", "but", "same", "into", "off", "what", "where"})
"""Words the explainer's own sentences use for any difference ("both refuse this call, in other words", "this
server refuses it … (isError)", "6 lines on each side"): no sign of what a statement says (RTE-8/a1's
"… return isError …" is not a refusal's wording)."""


_EVERYWHERE: Final = frozenset({"thought", "thoughts", "stderr", "stdio", "sequential", "thinking", "mcp"})
"""The tool's own nouns, in every box line, the banner and most statements: no sign of what changed."""


def breaks(statement: str, differences: Sequence[str]) -> str:
    """The clause of a record's statement sharing most words with what differs (the field, its values): the
    words the difference contradicts, quoted; empty when no clause shares a word (a record's statement is
    never quoted for a difference that is about something else: issue 42, "advertises version 0.2.0" for a
    box's width). Bare numbers are no shared word (a "0" in "0 to go" is not the "0" of "0.2.0"), and a
    clause counting an object's keys ("exactly five fields") is broken only by a key added or dropped, never
    by a value inside one of them nor by a refusal."""
    # A key added or dropped is said by its name alone: a clause shares it only by naming that key whole (a
    # new `currentBranch` key contradicts no "reasoning can branch into alternative paths", issue 42).
    added = [d for d in differences if _key_added_or_dropped(d)]
    names = {_key_name(d) for d in added} - {""}
    seen = {w for w in _words(" ".join(d.replace(DRAWN, "") for d in differences if d not in added))
            if not w.isdigit()}
    seen -= _SAID_WORDS | _EVERYWHERE
    # What a stderr difference is about, by its part: the box, or the banner outside it. Its words are the
    # box's lines ("💭 Thought 1/1") or the banner's, which share "thought", "server", "stdio" with many
    # statements that the change does not touch (fork-french-messages: RTE-6's "A thought is filed …").
    seen |= {"box" if stderr_part(d) == STDERR_BOX else "banner" for d in differences
             if d.partition(": ")[0] == "stderr"}
    # A key added to or dropped from the object an answer's text holds (as `_speaks_of` reads it).
    keyed = bool(added)
    clauses = [c.strip() for c in _CLAUSE_END.split(statement) if c.strip()]
    scored: list[tuple[int, int, str]] = []
    for i, clause in enumerate(clauses):
        words = _words(clause)
        counts = bool(_COUNTS_KEYS & words and _KEYS & words)
        named = len(names & {w.lower() for w in re.findall(r"[A-Za-z_]\w*", clause)})
        if keyed or not counts:
            scored.append((len(words & seen) + (keyed and counts) + named, -i, clause))
    best = max(scored, default=(0, 0, ""))
    return best[2] if best[0] > 0 else ""


def _key_added_or_dropped(difference: str) -> bool:
    """Whether a difference is a key of the object an answer's text holds present on one side only."""
    where, _, values = difference.partition(": ")
    one_side = values.startswith("absent on the original") or values.endswith(", absent here")
    return " → " in where and one_side


def _key_name(difference: str) -> str:
    """The key a difference is at, lower-cased whole (`… .text → currentBranch`: currentbranch)."""
    names = re.findall(r"[A-Za-z_]\w*", difference.partition(": ")[0].rpartition("→ ")[2])
    return names[-1].lower() if names else ""


def original_target(cache_dir: Path) -> Target:
    """npm:0.6.2 when the target cache holds it intact (found, never installed), else the reference."""
    from conformance.targets.kinds.npm import installed_release

    return installed_release(ORIGINAL_RELEASE, cache_dir) or resolve_target(REFERENCE)


_Replayed = tuple[list[_Answer] | str, list[_Answer] | str]


class _Replays:
    """The report's replays: each sequence replayed once, at most `MAX_REPLAYS` of them asked for.

    `prefetch` starts replays of sequences the walk is about to ask for on a small pool; `get` is the walk's
    one door and alone decides the budget, so a report is the same whether a pair was replayed ahead or
    when asked for."""

    def __init__(self, target: Target, original: Target, timeout: float) -> None:
        self.target, self.original, self.timeout = target, original, timeout
        self.done: dict[tuple[str, ...], _Replayed] = {}
        self.spent = 0
        self.cap = MAX_REPLAYS
        """The most sequences replayed: `MAX_REPLAYS`, raised by `CONFIRM_REPLAYS` for unlisted departures."""
        self._ahead: dict[tuple[str, ...], tuple[Future[list[_Replayed]], int]] = {}
        """Replays started ahead, by `same_calls` of their sequence: the pool's task replaying it (with the
        sequences of its kind before it on one process of the original, `refusal_replays.in_turn`) and its
        place there."""
        self._by_calls: dict[tuple[str, ...], _Replayed] = {}
        """Each pair replayed, by `same_calls` of its sequence: a sequence differing from one replayed only in
        its requests' ids is answered by that pair (a budget slot still spent, as for any sequence)."""
        self._asking = threading.BoundedSemaphore(SIDE_BY_SIDE)
        """Held by a pair while its processes start and answer: `SIDE_BY_SIDE` pairs at once."""
        self.pairs = 0
        """Processes of the original started for replays: the opening calls' and one per sequence of calls,
        or per group of sequences replayed in turn (each beside a fresh process of the target)."""
        self._counting = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self.retests = retested(original, target, timeout)
        """The re-tests of the root causes' lead pairs (`core/retest.py`, as `compare` makes them): their
        calls counted apart from the replays'."""
        self.rules = RulesAsked(original, target, self.retests, timeout)
        """The rule behind each cause's refusal (`gate/rules_asked.py`): each finder asked once a run."""
        self.left_out: set[tuple[str, ...]] = set()
        """Each sequence `get` refused for the budget: a departure's replay behind the opening calls among
        them is asked again within `CONFIRM_REPLAYS` when it decides whether a new departure is confirmed."""
        self.retested: dict[str, str] = {}
        """Each re-tested pair (its call and both answers) → the sentence said for it (empty: re-tested, no
        finding): a record showing the same pair says the same sentence, without a second re-test."""

    def __enter__(self) -> _Replays:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            for future, _ in self._ahead.values():
                future.cancel()
            self._pool.shutdown(wait=True)

    def prefetch(self, sequences: Iterable[Sequence[str]]) -> None:
        """Start replaying these (in order, `SIDE_BY_SIDE` at a time) unless already replayed or started: the
        sequences of one kind in turn on one pair (`refusal_replays.in_turn`), every other on its own."""
        new: dict[tuple[str, ...], tuple[str, ...]] = {}
        for frames in sequences:
            key = tuple(frames)
            calls = same_calls(key)
            if key in self.done or calls in self._by_calls or calls in self._ahead or calls in new:
                continue
            new[calls] = key
        for group in in_turn(list(new.values())):
            if self._pool is None:
                # Twice the pairs asked at once: a pair watched after its last frame holds a thread, not a
                # place among those asked (`_asking`).
                self._pool = ThreadPoolExecutor(2 * SIDE_BY_SIDE, thread_name_prefix="evidence-replay")
            task = self._pool.submit(self._in_turn, group)
            for place, key in enumerate(group):
                self._ahead[same_calls(key)] = (task, place)

    def left(self, limit: int | None = None) -> int:
        """How many more sequences `get` will replay under `limit` (none: `cap`)."""
        return max(0, min(self.cap if limit is None else limit, self.cap) - self.spent)

    def split(self, sequences: Iterable[Sequence[str]]) -> tuple[list[tuple[str, ...]], set[tuple[str, ...]]]:
        """The sequences `get` will replay, asked for in this order, under `cap` (each once, none already
        replayed or the opening's), and those it will not: past the budget."""
        opening = tuple(_opening_frames())
        new = [key for key in dict.fromkeys(map(tuple, sequences)) if key not in self.done and key != opening]
        return new[:self.left()], set(new[self.left():])

    def get(self, frames: Sequence[str], limit: int | None = None) -> _Replayed | None:
        """Both sides' answers to `frames`, replayed unless already; None when the budget is spent. The
        fixed opening calls (initialize, the calls, tools/list: one cheap sequence) are outside the budget:
        they are always replayed, once per report (issue 42)."""
        key = tuple(frames)
        if key not in self.done:
            opening = list(frames) == _opening_frames()
            if not opening and self.spent >= min(self.cap if limit is None else limit, self.cap):
                self.left_out.add(key)
                return None
            self.spent += 0 if opening else 1
            calls = same_calls(key)
            if calls not in self._by_calls:
                ahead = self._ahead.pop(calls, None)
                self._by_calls[calls] = ahead[0].result()[ahead[1]] if ahead is not None else self._pair(key)
            self.done[key] = self._by_calls[calls]
        return self.done[key]

    def _pair(self, frames: tuple[str, ...]) -> _Replayed:
        return self._in_turn([frames])[0]

    def _in_turn(self, group: Sequence[tuple[str, ...]]) -> list[_Replayed]:
        """Each sequence's pair, the group's in turn on as few pairs as stay fresh (`_replay_in_turn`)."""
        replayed: list[_Replayed] = []
        while len(replayed) < len(group):
            with self._counting:
                self.pairs += 1
            rest = group[len(replayed):]
            replayed += ([_replay_both(self.original, self.target, rest[0], self.timeout, self._asking)]
                         if len(rest) == 1 else
                         _replay_in_turn(self.original, self.target, rest, self.timeout, self._asking))
        return replayed


Replays = _Replays
"""A report's replays, as `replays_ahead` starts them for `with_evidence`."""


def same_calls(frames: Sequence[str]) -> tuple[str, ...]:
    """The sequence with each request's id numbered by its first appearance (0, 1, …), where the frame is
    written as the harness writes one (compact JSON, an integer id): two sequences making the same calls in
    the same order under other ids get the same key. An id is the client's token for matching an answer, and
    a replay's answers are compared without it; any other difference (a frame written otherwise, a
    notification naming an id, a string id) keeps the frames apart."""
    ids: dict[int, int] = {}
    out: list[str] = []
    for text in frames:
        frame = _frame(text)
        request_id = frame.get("id") if frame is not None else None
        written = next((ascii_only for ascii_only in (False, True) if frame is not None and json.dumps(
            frame, ensure_ascii=ascii_only, separators=(",", ":")) == text), None)
        if frame is None or type(request_id) is not int or "method" not in frame or written is None:
            out.append(text)
            continue
        numbered = ids.setdefault(request_id, len(ids))
        out.append(json.dumps({**frame, "id": numbered}, ensure_ascii=written, separators=(",", ":")))
    return tuple(out)


def replays_ahead(report: Report, target: Target, original: Target, timeout: float) -> Replays:
    """The pairs `with_evidence` will ask for on `report`, started now (`_foreseen`, side by side) while the
    caller works on (the departures' signatures): hand the result to `with_evidence` as `replays`, and close
    it (a context manager) whether or not it was. A report that differs when evidenced (its gate judged with
    signatures) only changes which pairs the walk asks for, never what a report says: `get` alone decides."""
    replays = _Replays(target, original, timeout)
    replays.prefetch(_foreseen(report, list(report.root_causes), _leading(report)))
    return replays


def _leading(report: Report) -> list[int]:
    """The leading causes the walk evidences: the first `MAX_CAUSES`, but those of specification records."""
    spec = {rv.id for rv in report.records if rv.kind == "spec"}
    return [i for i, cause in enumerate(report.root_causes[:MAX_CAUSES]) if not set(cause.records) <= spec]


def with_evidence(report: Report, target: Target, original: Target, timeout: float,
                  replays: Replays | None = None) -> Report:
    """The report with each leading root cause's example, then each departure's, replayed on fresh processes
    of both sides; `replays`, when given, those started ahead (`replays_ahead`; the caller closes them)."""
    causes = list(report.root_causes)
    given = contextlib.nullcontext(replays) if replays is not None else None
    with given or _Replays(target, original, timeout) as replays:
        leading = _leading(report)
        # Ahead, from the start, what the walk will ask for when each cause reproduces on its first
        # candidate (`_foreseen`): the causes', the departures' and the confirmations' sequences side by side.
        replays.prefetch(_foreseen(report, causes, leading))
        for i in leading:
            causes[i] = _evidenced(causes[i], report, replays)
        records = _records_evidenced(report, causes, replays)
        causes, records = past_refusals(causes, records, _PastRefusals(replays))
        replayed = [causes[i] for i in leading]
        causes, records = grouped(causes, records, poisoning_replayed(replays))
        causes = [_ruled(cause, replays.rules) for cause in causes]
    return report.model_copy(update={"root_causes": causes, "records": records,
                                     "folded_causes": folded_away(replayed, causes)})


class _PastRefusals:
    """gate/detour's judge: a masked departure's example, moved past the refusal, replayed as its own is
    (`_compared`), from its first tools/call on (the opening's differences are every sequence's), within
    `DETOUR_REPLAYS` more sequences than the walk's."""

    def __init__(self, replays: _Replays) -> None:
        self.replays = replays
        self.limit = replays.spent + DETOUR_REPLAYS

    def ahead(self, sequences: Iterable[Sequence[str]]) -> None:
        self.replays.prefetch(sequences)

    def __call__(self, rv: RecordVerdict, frames: Sequence[str]) -> Evidence | None:
        self.replays.cap = max(self.replays.cap, self.limit)
        answered = _answered(self.replays.get(frames, self.limit))
        if answered is None:
            return None
        theirs, ours = answered
        first = next((i for i, a in enumerate(theirs) if a.method == "tools/call"), 0)
        found = _compared(theirs[first:], ours[first:], _about([rv.id]), fall_back=True)
        if found is None:
            return Evidence(reproduced=False, no_difference=True, original_spec=self.replays.original.spec,
                            example=list(frames))
        pair = _pair((found[0] + first, found[1]), theirs, ours, rv.statement, self.replays.original.spec)
        return pair.model_copy(update={"example": list(frames)})


def folded_away(replayed: Sequence[RootCause], causes: Sequence[RootCause]) -> list[RootCause]:
    """The replayed leading causes no cause of the grouping keeps by its id, as they were replayed: a report
    keeps their pairs so that its causes chosen again (`--reattribute`) hold each explanation against the pair
    its run held it against (a cause replayed, then folded into another, had left no pair in report.json)."""
    kept = {c.id for c in causes}
    return [c for c in replayed if c.id not in kept and c.evidence is not None]


def _ruled(cause: RootCause, rules: RulesAsked) -> RootCause:
    """A cause headed by its pair's refusal as a value, said as the rule behind it where one is found, as the
    walk says a leading cause's: a cause the grouping opened on a record's own pair (`_cause_of`) was said
    by the value its example sent (held-out-multi-12's strict-pointers: RTE-6's "cannot both revise and
    branch" for `isRevision` and `branchFromThought` both set)."""
    evidence = cause.evidence
    if evidence is None or not evidence.reproduced or evidence.not_its_failure or not cause.records:
        return cause
    plain = f"{', '.join(cause.records)} departs — {pair_headline(evidence)}"
    if not (cause.summary.startswith(plain) or cause.summary == plain[:400]):
        return cause
    ruled = rules.headline(evidence, refused_call(evidence, evidence.example or cause.example))
    if ruled is None:
        return cause
    said = f"{', '.join(cause.records)} departs — {ruled}{cause.summary[len(plain):]}"
    return cause.model_copy(update={"summary": said[:400]})


Poisoning = Callable[[str, Sequence[RecordVerdict], Sequence[RecordVerdict]], RootCause | None]
"""The cause led by the call that poisons a process, for departures refused in one runtime error's words
(the words, those departures, every record), or None when no call is found (`led_by_the_poisoning`)."""


def grouped(causes: Sequence[RootCause], records: Sequence[RecordVerdict], poisoning: Poisoning
            ) -> tuple[list[RootCause], list[RecordVerdict]]:
    """The one grouping after the causes' and departures' pairs: a run's (`with_evidence`, the poisoning
    found by replay) and a kept report's chosen again (the poisoning the run found, `poisoning_kept`), so a
    re-attribution scores what a run would say."""
    causes, records = checked_explanations(causes, records)
    causes, records = led_by_the_poisoning(causes, records, poisoning)
    causes = with_ends_said(with_tools_said(with_refusals_said(causes, records), records), records)
    return causes, records


def _foreseen(report: Report, causes: Sequence[RootCause], leading: Sequence[int]) -> list[tuple[str, ...]]:
    """The sequences the walk (`_evidenced`, then `_records_evidenced`) asks for when each leading cause
    reproduces on its first candidate, the fixed opening calls first when a departure is past the budget
    (its cheap fallback asks for them; the longest sequence, so started first): the order it asks in, within
    the same budget. A cause that needs a later candidate makes the walk ask for more, replayed when asked;
    what is foreseen and not asked costs a pair of processes, never a line of the report (`get` alone
    decides the budget)."""
    opening = tuple(_opening_frames())
    asked: dict[tuple[str, ...], None] = {}
    spent = 0
    by_id = {rv.id: rv for rv in report.records}
    foreseen = list(causes)
    for i in leading:
        cause = causes[i]
        if unreplayable(by_id.get(cause.records[0])):
            continue
        _, frames = _candidates(cause, report)[0]
        key = tuple(frames)
        if key != opening and key not in asked:
            spent += 1
        asked[key] = None
        foreseen[i] = cause.model_copy(update={"example": frames, "evidence": Evidence(
            reproduced=True, original_spec="")})
    by_record, ordered = _walk_order(report, foreseen)
    past = False
    for rv in ordered:
        key = _own_frames(rv, by_record.get(rv.id))
        if not key or unreplayable(rv) or key in asked:
            continue
        if spent < MAX_REPLAYS:
            spent += 1
            asked[key] = None
        else:
            past = True
    return [*([opening] if past and opening not in asked else []), *asked]


def checked_explanations(
    causes: Sequence[RootCause], records: Sequence[RecordVerdict]
) -> tuple[list[RootCause], list[RecordVerdict]]:
    """Each "explained by" kept only where the record's own failure is its cause's: one of its failing checks
    names the cause's record as contradicted, or its own pair differs where the cause's does (the same kind
    of call, the same refusal or field). The grouping of root causes proposes; this checks, and places what
    it refuses by the record's own pair (`split_off`). The records are read in the catalog's order, whatever
    order they come in, so a tie (two departures alike, which one leads the cause they open) is broken by one
    stated rule, and the records come back in the order given."""
    given = {rv.id: i for i, rv in enumerate(records)}
    causes, records = _by_own_refusal(causes, sorted(records, key=_catalog_rank))
    by_id = {c.id: c for c in causes}
    by_record = {rv.id: rv for rv in records}
    dropped: dict[str, set[str]] = {}
    out: list[RecordVerdict] = []
    for rv in records:
        cause = by_id.get(rv.explained_by or "")
        same = cause is not None and (_same_change(rv, cause) or _one_watch(rv, cause, by_record))
        if rv.explained_by and (cause is None or not same or _box_not_its_failure(rv, cause, by_record)
                                or departs_past(rv) == rv.explained_by):
            dropped.setdefault(rv.explained_by, set()).add(rv.id)
            rv = rv.model_copy(update={"explained_by": None})
        out.append(rv)
    kept = [c.model_copy(update={"explains": [r for r in c.explains if r not in dropped.get(c.id, set())]})
            for c in causes]
    primary = {r for c in kept for r in c.records}
    strays = {rv.id for rv in out if rv.verdict == "deviates" and rv.kind != "spec"
              and not rv.explained_by and rv.id not in primary}
    causes, records = held_by_caps(*folded_by_their_words(*one_cause_per_change(*under_own_pair(
        *split_off(kept, out, {r for rs in dropped.values() for r in rs}, strays)))))
    causes, records = under_added_keys(*answered_from_cache(*renamed_under_their_change(
        *beside_apart(*under_bounds(*loose_by_own_refusal(*loose_by_rule(causes, records)))))))
    by_record = {rv.id: rv for rv in records}
    causes, records = folded_by_form(causes, records, {c.id: _shown(c, by_record) for c in causes})
    causes, records = unsequenced_causes(*properties_apart(causes, records))
    causes, records = stated_apart(causes, records, Reading(
        tells=functools.partial(_tells, strict=True), key=_difference_key, breaks=breaks,
        rank=_catalog_order()))
    causes, records = led_by_the_kind(causes, records)
    return causes, sorted(records, key=lambda rv: given.get(rv.id, len(given)))


def under_own_pair(causes: Sequence[RootCause], records: Sequence[RecordVerdict]
                   ) -> tuple[list[RootCause], list[RecordVerdict]]:
    """A departure whose own pair, reproduced where its own checks failed, differs as the pair of a cause
    opened from the departures (`split_off`) does and not as its proposed cause's, is that cause's: a check
    of it naming the proposed cause saw that change on its way (a call refused, an answer no longer JSON), but
    its own failure is the other change (held-out-multi-16's host-hints: CMP-2/a2, the description's
    parameter lines gone, stayed under OBJ-4, the prose before the answer's JSON, by the one check of it that
    parses an answer, beside CMP-2's cause of the description; plan-tracker's RTE-5, a final thought at its
    total, under OBJ-14's revision number by a check naming OBJ-14). Where the checks naming the proposed
    cause saw its difference, only a cause one of them names as contradicted takes it (long-sessions' OBJ-3:
    label 7 not filed, RTE-6's, beside the repeat refused)."""
    by_id = {c.id: c for c in causes}
    moved: dict[str, str] = {}
    for rv in records:
        cause, own = by_id.get(rv.explained_by or ""), rv.evidence
        if (cause is None or own is None or not own.reproduced or own.not_its_failure or not own.differences
                or _pairs_alike(rv, cause)):
            continue
        if _difference_key(own.differences[0]) == STDERR_BOX and not _speaks_of_box(rv.reason):
            continue  # the box every call shows, for a record whose own line is another failure
        naming = [t for t in rv.tests
                  if t.status in ("failed", "error") and set(t.contradicted) & set(cause.records)]
        if _said_by_its_naming(rv, naming):
            continue  # every check names the cause and says its pair: the change seen on another call
        named = {r for t, _ in _failing_checks(rv) for r in t.contradicted}
        home = next((c for c in causes if c.id != cause.id and _lead(c) and _pairs_alike(rv, c)
                     and (not _naming_saw(rv, cause) or named & set(c.records))), None)
        if home is not None:
            moved[rv.id] = home.id
    if not moved:
        return list(causes), list(records)
    out = [c.model_copy(update={"explains": [*(r for r in c.explains if r not in moved),
                                             *(r for r, h in moved.items() if h == c.id)]}) for c in causes]
    return out, [rv.model_copy(update={"explained_by": moved[rv.id]}) if rv.id in moved else rv
                 for rv in records]


def _naming_saw(rv: RecordVerdict, cause: RootCause) -> bool:
    """Whether a failing check of the record naming the cause's record as contradicted says, in its own words,
    the cause's leading difference: the checks that put it there saw that change, not merely failed beside
    it on another field."""
    lead = _lead(cause)
    return bool(lead) and any(_tells(lead, m, strict=True) for t, m in _failing_checks(rv)
                              if set(t.contradicted) & set(cause.records))


def _catalog_rank(rv: RecordVerdict) -> tuple[int, str]:
    """Where a record stands in the catalog (a record it does not hold, a specification's, after them all,
    by its ID): the one order the grouping reads records in."""
    rank = _catalog_order()
    return rank.get(rv.id, len(rank)), rv.id


@functools.cache
def _catalog_order() -> dict[str, int]:
    """Each catalog record's position, read once per process."""
    return {record.id: i for i, record in enumerate(default_catalog().records)}


def loose_by_rule(causes: Sequence[RootCause], records: Sequence[RecordVerdict]
                  ) -> tuple[list[RootCause], list[RecordVerdict]]:
    """A departure under no cause whose own pair shows this server refusing in the words of a rule a cause's
    pair shows it adding (`_rule_shown`), where the original crashed on the call, is that rule's: explained by
    it (held-out-multi-9's model-guard: RTE-8/a1, revisesThought {"toString": 1} refused before the append,
    was left loose beside RTE-3's cause of the objects refused in optional fields)."""
    by_id = {rv.id: rv for rv in records}
    rules = {c.id: rule[1] for c in causes if (rule := _rule_shown(c, by_id)) is not None}
    primary = {r for c in causes for r in c.records}
    placed: dict[str, str] = {}
    for rv in records:
        evidence = rv.evidence
        if (not rules or rv.explained_by or rv.id in primary or rv.verdict != "deviates" or evidence is None
                or not evidence.reproduced or evidence.not_its_failure or not evidence.differences):
            continue
        # The original crashing on a call this server refuses first in a rule's words (“Invalid
        # revisesThought: must not be an object or array”).
        here = refused_here(evidence)
        crash_rule = here.rule if here is not None and here.crashed and here.field else None
        home = next((cid for cid, words in rules.items() if crash_rule == words), None)
        if home is not None:
            placed[rv.id] = home
    return _placed_under(causes, records, placed)


def _placed_under(causes: Sequence[RootCause], records: Sequence[RecordVerdict], placed: dict[str, str]
                  ) -> tuple[list[RootCause], list[RecordVerdict]]:
    """Each record of `placed` explained by its cause (record id → cause id), the cause's `explains` grown."""
    if not placed:
        return list(causes), list(records)
    out_causes = [c.model_copy(update={"explains": [*c.explains, *(r for r, h in placed.items()
                                                                   if h == c.id)]}) for c in causes]
    return out_causes, [rv.model_copy(update={"explained_by": placed[rv.id]}) if rv.id in placed else rv
                        for rv in records]


def loose_by_own_refusal(causes: Sequence[RootCause], records: Sequence[RecordVerdict]
                         ) -> tuple[list[RootCause], list[RecordVerdict]]:
    """A departure under no cause whose own failure is a call refused in words the original never writes
    (`_own_refusal`: every failing check of it quotes them, whatever its replay showed first), where one
    cause's pair shows this server adding that refusal, values aside, is that cause's (held-out-multi-18's
    branch-limits: six departures said “Invalid branchId: at most 10 branches” each in a line of its own).
    Two causes showing it place nothing."""
    by_id = {rv.id: rv for rv in records}
    shown = {c.id: _rule_of(words) for c in causes if (words := _added_words(_held(c, by_id).evidence))}
    primary = {r for c in causes for r in c.records}
    placed: dict[str, str] = {}
    for rv in records:
        if (not shown or rv.explained_by or rv.id in primary or rv.verdict != "deviates"
                or rv.kind == "spec"):
            continue
        own = _own_refusal(rv)
        homes = [cid for cid, rule in shown.items() if own and rule == _rule_of(own)]
        if len(homes) == 1:
            placed[rv.id] = homes[0]
    return _placed_under(causes, records, placed)


def under_bounds(causes: Sequence[RootCause], records: Sequence[RecordVerdict]
                 ) -> tuple[list[RootCause], list[RecordVerdict]]:
    """A cause led by a record whose line is no cap, whose own pair's first difference is a bound's refusal
    in the words a bound's cause is headed by, is that bound: its records go under the bound's cause
    (held-out-multi-9's lockout: OBJ-2, its count one short, reproduced as “Too many invalid calls in a
    row”, RTE-5's bound, and was a second cause of the one change); so does a departure under no cause
    whose own pair is refused so (`_loose_under_bounds`)."""
    by_id = {rv.id: rv for rv in records}
    bounds = {c.id: key.partition("“")[2].removesuffix("”") for c in causes if c.records[0] in by_id
              and (key := cap_seen(by_id[c.records[0]].reason)).startswith("refused by the bound “")}
    into: dict[str, str] = {}
    for cause in causes:
        lead, evidence = by_id.get(cause.records[0]), cause.evidence
        if (cause.id in bounds or lead is None or cap_seen(lead.reason) or evidence is None
                or not evidence.reproduced or not evidence.differences):
            continue
        home = next((b for b, words in bounds.items() if words and f"“{words}”" in evidence.differences[0]),
                    None)
        if home is not None:
            into[cause.id] = home
    loose = _loose_under_bounds(causes, records, bounds)
    if not into and not loose:
        return list(causes), list(records)
    held = {r: into[c.id] for c in causes if c.id in into for r in [*c.records, *c.explains]} | loose
    out_causes = [c.model_copy(update={"explains": [*c.explains, *(r for r, home in held.items()
                                                                   if home == c.id and r not in c.explains)]})
                  for c in causes if c.id not in into]
    out = [rv.model_copy(update={"explained_by": held[rv.id]}) if rv.id in held else rv for rv in records]
    return out_causes, out


def _loose_under_bounds(causes: Sequence[RootCause], records: Sequence[RecordVerdict],
                        bounds: Mapping[str, str]) -> dict[str, str]:
    """A departure under no cause whose own pair, replayed, is first refused in a bound's words is that
    bound's (held-out-multi-14's gateway: OBJ-1/a1 and RTE-4, their checks' bursts refused by “Rate limit
    exceeded: at most 40 calls in 5 seconds” and passing when run again, were two loose departures)."""
    primary = {r for c in causes for r in c.records}
    placed: dict[str, str] = {}
    for rv in records:
        evidence = rv.evidence
        if (rv.explained_by or rv.id in primary or rv.verdict != "deviates" or rv.kind == "spec"
                or evidence is None or not evidence.reproduced or not evidence.differences):
            continue
        home = next((b for b, words in bounds.items() if words and f"“{words}”" in evidence.differences[0]),
                    None)
        if home is not None:
            placed[rv.id] = home
    return placed


def beside_apart(causes: Sequence[RootCause], records: Sequence[RecordVerdict]
                 ) -> tuple[list[RootCause], list[RecordVerdict]]:
    """A headline's "; and N more beside it: …" names no key another cause's pair leads with: that key is the
    other cause's change, said there (agiprolabs-ts' CMP-2 named `description` beside `execution`, CMP-2/a2's
    description change)."""
    leads = {hk for c in causes if c.evidence is not None and c.evidence.reproduced and c.evidence.differences
             and (hk := holder_and_key(c.evidence.differences[0])) is not None}
    out: list[RootCause] = []
    for cause in causes:
        evidence = cause.evidence
        shown = evidence.differences if evidence is not None else []
        first = holder_and_key(shown[0]) if shown else None
        apart = {key for holder, key in leads if first is not None and holder == first[0] and key != first[1]}
        said = beside_it(evidence.differences) if evidence is not None and apart else ""
        if evidence is None or not said or said not in cause.summary:
            out.append(cause)
            continue
        summary = cause.summary.replace(said, beside_it(evidence.differences, apart), 1)
        out.append(cause.model_copy(update={"summary": summary}))
    return out, list(records)


def folded_by_their_words(
    causes: Sequence[RootCause], records: Sequence[RecordVerdict]
) -> tuple[list[RootCause], list[RecordVerdict]]:
    """A cause whose pair is not its failure (its sequence shows only the fork's other changes), and whose
    leading record's checks say in their own words another cause's difference, is that cause's: its records
    and departures go under it (issue 42: fork-hashtags' OBJ-3/a1 was a cause of its own, headed by a check
    that saw the answer's added `tags` key, ABS-9's change)."""
    by_id = {rv.id: rv for rv in records}
    paired = {c.id: _held(c, by_id) for c in causes}
    into: dict[str, str] = {}
    for cause in causes:
        evidence, lead = paired[cause.id].evidence, by_id.get(cause.records[0])
        if lead is None or evidence is None or not evidence.reproduced or not evidence.not_its_failure:
            continue
        if cap_seen(lead.reason):
            continue  # a cap, which no short replay reaches: a change of its own (`held_by_caps`)
        home = next((c for c in causes if c.id != cause.id and c.id not in into
                     and not _refused_apart(lead, paired[c.id])
                     and (_saw(lead, paired[c.id]) or _quoted_there(lead, paired[c.id]))), None)
        if home is not None:
            into[cause.id] = home.id
    if not into:
        return list(causes), list(records)
    moved = {c.id: [*c.records, *c.explains] for c in causes if c.id in into}
    held = {r: into[cid] for cid, rs in moved.items() for r in rs}
    out_causes = [c.model_copy(update={"explains": [*c.explains, *(r for r, home in held.items()
                                                                   if home == c.id and r not in c.explains)]})
                  for c in causes if c.id not in into]
    out = [rv.model_copy(update={"explained_by": held[rv.id]}) if rv.id in held
           else rv.model_copy(update={"explained_by": into[rv.explained_by]}) if rv.explained_by in into
           else rv for rv in records]
    return out_causes, out


def held_by_caps(
    causes: Sequence[RootCause], records: Sequence[RecordVerdict]
) -> tuple[list[RootCause], list[RecordVerdict]]:
    """A cap (a count that stops growing at N, a refusal by a bound) is a cause of its own, whose records are
    those whose own line is that cap (`cap_seen`): a cause led by one of them holds them all, else two or
    more open one; a record another cap's cause holds (its pair showing that cap: a long example past both)
    goes to its own cap's. What a cap's cause held that is not the cap goes under the cause its own checks
    name and whose change it is (`_same_change`), else is placed by its own pair as `split_off` places any
    (issue 42, nalyk-ts: the history and branch caps fell under a re-worded refusal, and a record of added
    answer keys under the history cap)."""
    departing = [rv for rv in records if rv.verdict == "deviates" and rv.kind != "spec"]
    groups = _caps_met(departing)
    if not groups:
        return list(causes), list(records)
    cap_of = {rv.id: cap for cap, members in groups.items() for rv in members}
    out_causes = list(causes)
    led = {c.records[0]: i for i, c in enumerate(out_causes)}
    home_of: dict[str, int] = {}
    primary0 = {r for c in causes for r in c.records}
    opened: set[str] = set()
    worded: set[int] = set()  # causes holding a limit their own pair shows in other words: headline kept
    for cap, members in groups.items():
        index = next((led[rv.id] for rv in members
                      if rv.id in led and _pair_is_limit(out_causes[led[rv.id]], cap)), None)
        if _of_the_count(cap):  # the earliest cause it leads: the one that accounts for most
            index = min((led[rv.id] for rv in members if rv.id in led), default=None)
        free = [rv for rv in members if rv.id not in primary0]
        if index is None and is_call_limit(cap):
            index = _showing_limit(out_causes, cap)
            if index is not None:
                worded.add(index)
        if index is None and len(free) >= 2:
            named = _named_counts(records, {rv.id for rv in free})
            lead = min(free, key=lambda rv: tuple(-n for n in named.get(rv.id, (0, 0.0))))
            ce = lead.counterexample
            out_causes.append(RootCause(
                id=lead.id, records=[lead.id], explains=[], summary="",
                example=list(ce.replay) if ce is not None else [], test=ce.test if ce is not None else None,
                minimized=ce.minimized if ce is not None else False,
                evidence=lead.evidence and lead.evidence.model_copy(update={"cause": lead.id})))
            index = len(out_causes) - 1
            opened.add(lead.id)
        if index is not None:
            home_of[cap] = index
    capped = {out_causes[i].id: cap for cap, i in home_of.items()}
    placed: dict[str, str | None] = {}
    for cap, index in home_of.items():
        cause = out_causes[index]
        # Records merged into this cause whose own line is another cap go to that cap's cause.
        kept = [r for r in cause.records if r == cause.records[0] or cap_of.get(r, cap) == cap
                or cap_of[r] not in home_of]
        placed |= {r: out_causes[home_of[cap_of[r]]].id for r in cause.records if r not in kept}
        said = "departs" if len(kept) == 1 else "depart"
        lines = [rv.reason for rv in groups[cap]]
        told = (trimmed_headline(lines) if cap == TRIMMED else sign_headline(lines) if cap == SIGN_DROPPED
                else cap_headline(cap))
        out_causes[index] = cause.model_copy(update={"records": kept} if index in worded else {
            "records": kept, "summary": f"{', '.join(kept)} {said} — {told}"[:400]})
    primary = {r for c in out_causes for r in c.records}
    by_id = {rv.id: rv for rv in records}
    for cap, index in home_of.items():
        cause = out_causes[index]
        placed |= {rv.id: cause.id for rv in groups[cap] if rv.id not in primary
                   and not (cap == SIGN_DROPPED and _kept_by_own_refusal(rv, out_causes, cause, by_id))}
    folded, moved = _limit_causes_folded(out_causes, groups, home_of, cap_of)
    counted, moved_too = _count_causes_folded(out_causes, groups, home_of, cap_of)
    folded |= counted
    placed |= moved | moved_too
    dropped: set[str] = {r for r, cid in moved.items() if cid is None}
    for cause in out_causes:
        if cause.id not in capped:
            continue
        for rid in cause.explains:
            if rid in placed or rid not in by_id:
                continue
            rv = by_id[rid]
            naming = {r for t in rv.tests if t.status in ("failed", "error") for r in t.contradicted}
            home = next((c for c in out_causes if c.id not in capped and set(c.records) & naming
                         and _same_change(rv, c)), None)
            placed[rid] = home.id if home is not None else None
            if home is None:
                dropped.add(rid)
    explains: dict[str, list[str]] = {}
    for rid, cid in placed.items():
        if cid is not None:
            explains.setdefault(cid, []).append(rid)
    out_causes = [c.model_copy(update={"explains": [
        *(r for r in c.explains if r not in placed and r not in opened), *explains.get(c.id, [])]})
        for i, c in enumerate(out_causes) if i not in folded]
    out = [rv.model_copy(update={"explained_by": placed[rv.id]}) if rv.id in placed
           else rv.model_copy(update={"explained_by": None}) if rv.id in opened else rv for rv in records]
    return split_off(out_causes, out, set(), dropped) if dropped else (out_causes, out)


def _limit_causes_folded(
    causes: Sequence[RootCause], groups: Mapping[str, Sequence[RecordVerdict]], home_of: Mapping[str, int],
    cap_of: Mapping[str, str]
) -> tuple[set[int], dict[str, str | None]]:
    """Causes led by another record refused by a limit on calls whose cause already holds it, their pairs
    showing that limit too, are that one change: their indexes (to drop), and where each of their records
    goes: the limit's cause for those whose line is that limit, None (placed by their own pair) for others
    (integer-only numbers: one cause led by the thoughtNumber refusal, one by branchFromThought's)."""
    homes = set(home_of.values())
    folded: set[int] = set()
    moved: dict[str, str | None] = {}
    led = {c.records[0]: i for i, c in enumerate(causes)}
    for cap, index in home_of.items():
        if not is_call_limit(cap):
            continue
        for rv in groups[cap]:
            other = led.get(rv.id)
            if other is None or other in homes or other in folded or not _pair_is_limit(causes[other], cap):
                continue
            folded.add(other)
            home = causes[index].id
            for r in [*causes[other].records, *causes[other].explains]:
                moved[r] = home if r in causes[other].records or cap_of.get(r) == cap else None
    return folded, moved


def _of_the_count(cap: str) -> bool:
    """Whether a key is one change read from every line showing it (the history's count stopped or trimmed,
    numbers answered without their sign): causes led by two of its lines are one cause."""
    return cap in (TRIMMED, SIGN_DROPPED) or cap.startswith("the count stops at")


def _count_causes_folded(
    causes: Sequence[RootCause], groups: Mapping[str, Sequence[RecordVerdict]], home_of: Mapping[str, int],
    cap_of: Mapping[str, str]
) -> tuple[set[int], dict[str, str | None]]:
    """Other causes led by a record whose own line is the same count (held, or fallen) as a count cause's: one
    difference, so one cause (issue 42, fork-memory-budget: ABS-11, OBJ-2 and OBJ-14 each led a cause of the
    one trimmed history). Their indexes (to drop), and where each of their records goes: explained by the
    count's cause when its line is that count, else None (placed by its own pair)."""
    homes = set(home_of.values())
    folded: set[int] = set()
    moved: dict[str, str | None] = {}
    led = {c.records[0]: i for i, c in enumerate(causes)}
    for cap, index in home_of.items():
        if not _of_the_count(cap):
            continue
        for rv in groups[cap]:
            other = led.get(rv.id)
            if other is None or other in homes or other in folded:
                continue
            folded.add(other)
            for r in [*causes[other].records, *causes[other].explains]:
                moved[r] = causes[index].id if r in causes[other].records or cap_of.get(r) == cap else None
    return folded, moved


def _showing_limit(causes: Sequence[RootCause], cap: str) -> int | None:
    """The first cause whose reproduced pair shows a limit on calls in its words, though led by no record
    refused by it (multi-1's fork-hardened-store: RTE-3's pair shows thoughtNumber's refusal re-worded to
    “must be a positive integer”, the check that also refuses fractions the original accepts)."""
    return next((i for i, c in enumerate(causes) if c.evidence is not None and c.evidence.reproduced
                 and any(limit_shown(cap, said) for said in c.evidence.differences)), None)


def _pair_is_limit(cause: RootCause, cap: str) -> bool:
    """Whether a cause led by a record whose line is `cap` is that cap's: always for a count cap or a store's
    bound (no short pair reaches them); a limit on calls (`_limit_in`) unless the cause's reproduced pair
    shows another change (nalyk-ts: RTE-3's line is the 10,000-character limit, its pair the branchId
    check)."""
    if not is_call_limit(cap) or cause.evidence is None or not cause.evidence.reproduced:
        return True  # no pair of its own shows another change (held-out-5: a 50,000-character limit)
    return any(limit_shown(cap, said) for said in cause.evidence.differences)


def _kept_by_own_refusal(rv: RecordVerdict, causes: Sequence[RootCause], cap: RootCause,
                         by_id: Mapping[str, RecordVerdict]) -> bool:
    """A record whose line shows numbers answered without their sign, but whose own replayed pair shows the
    refusal of the cause it is under (`_shown`, not the sign cause's), one of its failing checks naming that
    cause's record, stays there: the line is one check's echo, the pair its failure's (held-out-multi-8's
    friendly-errors: RTE-3, a call without arguments refused as invalid params, went from RTE-8's cause to
    the dropped signs' by its line). Only for signs: a count or bound a long run met is not reached by a
    short replay on fresh processes, whose pair then shows whatever else differs (nalyk-ts: the caps' records
    showed the re-worded refusal), and the line is kept."""
    home = next((c for c in causes if c.id == rv.explained_by), None)
    mine = _refusal_shown(rv.evidence, rv)
    if home is None or home.id == cap.id or mine is None or _shown(home, by_id) != mine:
        return False
    naming = {r for t in rv.tests if t.status in ("failed", "error") for r in t.contradicted}
    return bool(naming & set(home.records)) and _shown(cap, by_id) != mine


def _caps_met(departing: Sequence[RecordVerdict]) -> dict[str, list[RecordVerdict]]:
    """Each cap the departures' lines say (`cap_seen`) → the departures that met it: a bound's by its words
    too (“call was rejected: isError “Rate limit exceeded: …”” is the bound's refusal, said plainly). A count
    held at one value is a cap only when every line that says a count held says the same value: counts held
    at 486, 968 and 2863 are a store appending only some calls (a revision replacing its thought), no cap;
    and only when no line shows the count falling: then every count line is one trimmed store (`TRIMMED`)."""
    seen = {rv.id: cap_seen(rv.reason) for rv in departing}
    counts = {cap for cap in seen.values() if cap.startswith("the count stops at")}
    if len(counts) > 1:  # a store appending only some calls
        seen = {rid: "" if cap in counts else cap for rid, cap in seen.items()}
    if any(fell(rv.reason) for rv in departing):
        # The count fell somewhere in the run: a count that stopped rising (at one value) elsewhere is items
        # leaving, no cap, and every line of the count is that one change (issue 42, fork-memory-budget's
        # trimmed history).
        seen = {rv.id: TRIMMED if seen[rv.id] in counts or fell(rv.reason) or short_of_due(rv.reason)
                else seen[rv.id] for rv in departing}
        counts = {TRIMMED}
    seen |= {rv.id: SIGN_DROPPED for rv in departing if not seen[rv.id] and sign_dropped(rv.reason)}
    groups: dict[str, list[RecordVerdict]] = {}
    for rv in departing:
        if seen[rv.id]:
            groups.setdefault(seen[rv.id], []).append(rv)
    for cap in [c for c in groups if c not in counts]:
        words = cap.partition("“")[2].removesuffix("”")
        groups[cap] += [rv for rv in departing if not seen[rv.id] and words and words in readable(rv.reason)]
    return groups


def _held(cause: RootCause, by_id: Mapping[str, RecordVerdict]) -> RootCause:
    """The cause with a pair to hold against: its own reproduced one, else its leading record's."""
    if (cause.evidence is not None and cause.evidence.reproduced) or cause.records[0] not in by_id:
        return cause
    return cause.model_copy(update={"evidence": by_id[cause.records[0]].evidence})


def one_cause_per_change(
    causes: Sequence[RootCause], records: Sequence[RecordVerdict]
) -> tuple[list[RootCause], list[RecordVerdict]]:
    """Causes whose pairs show the same refusal (the same kind of call; one side refusing a field the other
    lets pass, or both refusing alike in the same words, numbers aside) are one change: the later folds into
    the earlier, its records beside the earlier's, its departures under it (issue 42: a fork numbering from
    0 got RTE-3 and RTE-3/a1 as two causes of one guard). A cause without a reproduced pair of its own is held
    by its leading record's (as `split_off` holds it). Only a refusal, or a field's text moved by one named
    transform (`gate/one_difference.py`), is specific enough to be one change: a field's value or a text's
    lines moved otherwise alike can be two changes' (a fence on answers and another on errors; a total
    raised past the last index and a guard letting 0 through)."""
    by_id = {rv.id: rv for rv in records}
    merged: list[RootCause] = []
    members: list[list[RootCause]] = []  # the causes each merged one holds: any of their pairs may match
    into: dict[str, str] = {}
    plain: set[str] = set()

    def fold(home: int, cause: RootCause) -> None:
        nonlocal into
        kept = merged[home]
        if _plainer(cause, kept, by_id):
            # The pair where the original accepts the call says the change plainly: it leads, by its record.
            kept, cause = cause, kept
            plain.add(kept.records[0])
            into = {old: (kept.id if new == cause.id else new) for old, new in into.items()}
        into[cause.id] = kept.id
        merged[home] = kept.model_copy(update={
            "records": [*kept.records, *(r for r in cause.records if r not in kept.records)],
            "explains": [*kept.explains, *(r for r in cause.explains if r not in kept.explains)]})

    for cause in causes:
        homes = [] if _shows_another(cause, by_id) else [
            i for i, held in enumerate(members) if any(_one_change(cause, c, by_id) for c in held)]
        if not homes:
            merged.append(cause)
            members.append([cause])
            continue
        fold(homes[0], cause)
        members[homes[0]].append(cause)
        # A cause one change with two merged ones makes them one (a whitespace-only thought refused, one
        # pair's value, the other's text collapsed as the same transform).
        for other in reversed(homes[1:]):
            fold(homes[0], merged[other])
            members[homes[0]].extend(members[other])
            del merged[other], members[other]
    if not into:
        return list(causes), list(records)
    renamed: dict[str, str] = {}
    led: dict[str, str] = {}
    for i, cause in enumerate(merged):
        if cause.id in into.values():
            merged[i] = _led_by_the_named(cause, causes, records, plain)
            renamed[cause.id] = merged[i].id
            led |= {r: merged[i].id for r in cause.records if r not in merged[i].records}
    into = {old: renamed.get(new, new) for old, new in into.items()} | renamed
    out = [rv.model_copy(update={"explained_by": led[rv.id]}) if rv.id in led
           else rv.model_copy(update={"explained_by": into[rv.explained_by]})
           if rv.explained_by in into else rv for rv in records]
    return merged, out


def _one_change(cause: RootCause, other: RootCause, by_id: Mapping[str, RecordVerdict]) -> bool:
    """Whether two causes' pairs show one change (`one_cause_per_change`): the same refusal, rule, box line,
    added words, refused value or text transform; a pair showing only another change shows none."""
    if _shows_another(other, by_id) or _rules_apart(_added_words(_held(cause, by_id).evidence),
                                                    _added_words(_held(other, by_id).evidence)):
        return False
    mine, rule = _shown(cause, by_id), _rule_shown(cause, by_id)
    box, value = _box_shown(cause, by_id), _refused_value(cause, by_id)
    return ((mine is not None and _shown(other, by_id) == mine)
            or (rule is not None and _rule_shown(other, by_id) == rule)
            or (box is not None and _box_shown(other, by_id) == box)
            or _same_added_words(_words_here(cause, by_id), _words_here(other, by_id))
            or (value is not None and _refused_value(other, by_id) == value)
            or same_transform(_transform_seen(cause, by_id), _transform_seen(other, by_id)))


def _transform_seen(cause: RootCause, by_id: Mapping[str, RecordVerdict]
                    ) -> tuple[str, frozenset[str]] | None:
    """The text transform a cause's pair shows this server applying to a value it was sent
    (`gate/one_difference.transform_seen`), a refusal read by `refused_here`."""
    held = _held(cause, by_id)
    here = refused_here(held.evidence)
    refused = here.words if here is not None and (here.added or here.crashed) else None
    return transform_seen(held.evidence, held.example, refused)


def _shows_another(cause: RootCause, by_id: Mapping[str, RecordVerdict]) -> bool:
    """Whether the pair a cause is held by shows only another change of the server (not where its checks
    failed): what it shows is no sign of the cause's change, so no other cause is one change with it by that
    pair (held-out-multi-15's tidy-plan: RTE-3's unknown argument names and ABS-11's count falling after a
    revision each replayed only the ASCII box, and were folded into one cause by it)."""
    evidence = _held(cause, by_id).evidence
    return evidence is not None and evidence.reproduced and evidence.not_its_failure


def _led_by_the_named(merged: RootCause, causes: Sequence[RootCause], records: Sequence[RecordVerdict],
                      plain: Set[str] = frozenset()) -> RootCause:
    """A cause that causes showing one change folded into: a record none of whose failing checks names any
    record contradicted, beside one its own checks name, is a consequence of that change, explained, and the
    first record left leads (held-out-multi-12's strict-pointers: OBJ-4 and CMP-1, a call refused, led the
    -32000 refusal RTE-8's checks name RTE-8 for), bar the `plain` ones, whose pair leads. Its headline is
    the first cause's."""
    by_id = {rv.id: rv for rv in records}
    named = _named_counts(records, set(merged.records))
    silent = {r for r in merged.records if r in by_id and not any(
        t.contradicted for t in by_id[r].tests if t.status in ("failed", "error"))}
    if not any(named.get(r, (0, 0.0))[0] > 0 for r in merged.records if r not in silent):
        silent = set()
    silent |= _naming_another(merged.records, records) - silent
    silent -= set(plain)  # a record whose pair says the change plainly keeps the headline it leads
    records_ = [r for r in merged.records if r not in silent]
    first = next(c for c in causes if c.id == merged.id)
    lead = f"{', '.join(first.records)} {'departs' if len(first.records) == 1 else 'depart'} — "
    said = first.summary.removeprefix(lead) if first.summary.startswith(lead) else ""
    summary = (f"{', '.join(records_)} {'departs' if len(records_) == 1 else 'depart'} — {said}"[:400]
               if said else merged.summary)
    evidence = merged.evidence and merged.evidence.model_copy(update={"cause": records_[0]})
    return merged.model_copy(update={
        "id": records_[0], "records": records_, "summary": summary, "evidence": evidence,
        "explains": [*(r for r in merged.explains if r not in records_),
                     *(r for r in merged.records if r in silent)]})


def _naming_another(group: Sequence[str], records: Sequence[RecordVerdict]) -> set[str]:
    """The records of one change that no failing check names as contradicted and each of whose failing checks
    names other records, never itself: their failure is those records', said by them (held-out-multi-13's
    client-protocol: OBJ-10, its check naming RTE-8 for the -32602 refusal, led the refusal's cause beside
    RTE-8; strict-relations' ABS-12, its check naming RTE-3, beside RTE-8/a1). A record some check names
    stays; at least one always does."""
    members = set(group)
    named = {r for rv in records for t in rv.tests if t.status in ("failed", "error") for r in t.contradicted}
    out: set[str] = set()
    for rv in records:
        failing = [t for t in rv.tests if t.status in ("failed", "error")]
        if rv.id in members and rv.id not in named and failing and all(
                t.contradicted and rv.id not in t.contradicted for t in failing):
            out.add(rv.id)
    return out if members - out else set()


_BOX_LINES: Final = re.compile(r"“([^”]*)” to “([^”]*)”")
_BORDER: Final = re.compile(r"^[\s\u2500-\u257f]*$")


def _box_shown(cause: RootCause, by_id: Mapping[str, RecordVerdict]) -> tuple[tuple[str, str], ...] | None:
    """The box lines a cause's replayed pair shows changed, borders, widths and numbers aside: two causes
    whose pairs change the header alike (“💭 Thought 5/5” to “✅ Conclusion 5/5”, 1/1 so) show one change
    (held-out-multi-10's emoji-status: RTE-4/a1 and RTE-9/a1 were CMP-5's label again). None when the
    pair's first difference is no box line changed. A cause no pair reproduced is read by its leading
    record's own check, where that speaks of the box: a box seen only after a repeated call
    (held-out-multi-10's retry-cache: CMP-5's " (retry)" header, seen on the shared process, and OBJ-13's,
    reproduced, were two causes)."""
    evidence = _held(cause, by_id).evidence
    lead = by_id.get(cause.records[0])
    if evidence is not None and evidence.reproduced and evidence.differences:
        first = evidence.differences[0]
        if not first.startswith("stderr: "):
            return None
    elif (lead is not None and (evidence is None or not evidence.not_its_failure)
          and _speaks_of_box(lead.reason)):
        first = readable(lead.reason)
    else:
        return None
    changed = tuple((_line_aside(a), _line_aside(b)) for a, b in _BOX_LINES.findall(first)
                    if not (_BORDER.match(a) and _BORDER.match(b)))
    return changed or None


def _line_aside(line: str) -> str:
    """A box line with its side borders, padding and numbers aside."""
    return re.sub(r"\d+", "N", line.strip().strip("│").strip())


_ADDED_WORDS: Final = re.compile(
    r"^the original accepts this call and this server refuses it(?: naming `[^`]*`(?: \([^)]*\))?)? — "
    r"“(?P<words>[^”]+)”")
_WORDS_HERE: Final = re.compile(
    r"^both refuse this call, in other words: “[^”]*” on the original(?: \((?P<mark>[^)]*)\))?, "
    r"“(?P<words>[^”]+)” here")
_RULE_WORDS: Final = re.compile(r"^Invalid (?P<field>\w+): (?P<rule>.+)$", re.DOTALL)
_RETESTED_HERE: Final = re.compile(
    r"^both refuse this call, in other words(?: only after the calls before it)?: this server "
    r"(?:refuses first by a rule between numbered fields \(“(?P<first>[^”]+)”\)|answers “(?P<answers>[^”]+)”)"
    r" where the original answers “(?P<theirs>[^”]*)”")
"""Two refusals re-tested (core/retest.py) where this server's words come first: the refusal it writes."""


@dataclass(frozen=True)
class RefusedHere:
    """The refusal a pair's first replayed difference shows this server writing: whether the original
    accepted the call (a refusal the fork added) or refused it in other words (crashing, or not), and the
    words, with the field a rule's words name (“Invalid isRevision: …”) and the rule, that field aside."""

    added: bool
    crashed: bool
    field: str
    words: str
    rule: str


def refused_here(evidence: Evidence | None) -> RefusedHere | None:
    """The one reader of "the original accepts this call and this server refuses it — “…”", "both refuse
    this call, in other words: “…” on the original, “…” here" and their re-tested form ("… this server refuses
    first by a rule between numbered fields (“…”) …"): the rules grouping causes by the refusal a fork added
    (`_words_here`, `_rule_shown`, `loose_by_rule`) read it here. None when the pair is not reproduced or
    its first difference is none of these sentences."""
    if evidence is None or not evidence.reproduced or not evidence.differences:
        return None
    return _refused_in_first(evidence.differences[0])


def _refused_in_first(first: str) -> RefusedHere | None:
    """`refused_here` of a pair's first difference."""
    added = _ADDED_WORDS.match(first)
    found = added or _WORDS_HERE.match(first)
    retested = _RETESTED_HERE.match(first) if found is None else None
    if retested is not None:
        # The same refusal said after a re-test: this server's words are the change, however it was told.
        words = retested.group("first") or retested.group("answers")
        crash = bool(RUNTIME_ERROR.search(retested.group("theirs")))
    elif found is not None:
        words = found.group("words")
        crash = added is None and found.group("mark") == "a runtime error"
    else:
        return None
    rule = _RULE_WORDS.match(words)
    return RefusedHere(added=added is not None, crashed=crash, field=rule.group("field") if rule else "",
                       words=words, rule=rule.group("rule") if rule else "")


def _words_here(cause: RootCause, by_id: Mapping[str, RecordVerdict]) -> RefusedHere | None:
    """The refusal a cause's replayed pair shows this server writing (`refused_here`), unless in the
    original's own guard words."""
    here = refused_here(_held(cause, by_id).evidence)
    return None if here is None or here.words in GUARD_REFUSALS.values() else here


def _same_added_words(one: RefusedHere | None, other: RefusedHere | None) -> bool:
    """Two pairs refused in the same words of a refusal the fork added, numbers aside: one change, whatever
    call met it first (held-out-multi-10's plan-keeper: RTE-8/a1's `constructor` probe refused with RTE-3's
    “thought N of N cannot be the last”, a refusal the original never writes). Both refusing in the same
    words of the original's errors is not enough: those are the original's, not a change's."""
    return (one is not None and other is not None and (one.added or other.added)
            and _numbers_aside(one.words) == _numbers_aside(other.words))


def _plainer(cause: RootCause, kept: RootCause, by_id: Mapping[str, RecordVerdict]) -> bool:
    """A cause whose pair shows the original accepting the call this server refuses, beside one of the same
    refusal where the original crashed: the first says the change without the crash beside it."""
    mine, theirs = refused_here(_held(cause, by_id).evidence), refused_here(_held(kept, by_id).evidence)
    value = _refused_value(cause, by_id)
    return (mine is not None and theirs is not None and mine.added and theirs.crashed
            and value is not None and value == _refused_value(kept, by_id))


def _refused_value(cause: RootCause, by_id: Mapping[str, RecordVerdict]) -> tuple[str, str, str] | None:
    """(the field, its value, the words numbers aside) of a refusal a cause's pair shows this server adding
    (the original accepting the call, or crashing on it) in words naming that field, even the original's own
    guard words: two pairs refusing the same field's same value so are one change, whatever else their calls
    held (held-out-multi-14's typed-arguments: a thought of three spaces refused alone, RTE-3/a1, and beside
    an object `branchFromThought` the original crashed on, RTE-8/a1)."""
    held = _held(cause, by_id)
    here = refused_here(held.evidence)
    if here is None or not here.field or not (here.added or here.crashed):
        return None
    value = refused_value(held.evidence, cause.example, here.field)
    return None if value is None else (here.field, value, _numbers_aside(here.words))


def _numbers_aside(words: str) -> str:
    """Words with their numbers masked: one refusal met at thought 3 and at thought 5 reads alike."""
    return re.sub(r"\d+", "N", words)


def _rule_shown(cause: RootCause, by_id: Mapping[str, RecordVerdict]) -> tuple[str, str] | None:
    """The rule a cause's pair shows this server adding, its field aside: one rule refusing calls the
    original accepts in two fields is one change (held-out-multi-9's model-guard: RTE-3 and ABS-7, an object
    refused in isRevision and in needsMoreThoughts, were two causes)."""
    held = _held(cause, by_id)
    if _refusal_shown(held.evidence, by_id.get(cause.records[0])) is None or held.evidence is None:
        return None
    here = refused_here(held.evidence)
    if here is None or not here.added or not here.field or here.rule in _GUARD_WORDS:
        return None  # the original's own guard words: a fork's guards moved field by field, each its own
    return _call_class(held.evidence.at), here.rule


_GUARD_WORDS: Final = frozenset(words.partition(": ")[2] for words in GUARD_REFUSALS.values())
"""The original's guard words, field aside (“must be a string”): a fork refusing branchId as a string and a
thought trimmed to nothing in them made two changes (held-out-multi-6's fork-strict-schema)."""


def _by_own_refusal(
    causes: Sequence[RootCause], records: Sequence[RecordVerdict]
) -> tuple[list[RootCause], list[RecordVerdict]]:
    """An explained record whose own pair, replayed, shows the refusal another cause's pair shows (`_shown`:
    the same guard moved, the same words) goes under that cause, whichever cause a check of it named: its
    own failure is that change (issue 42: npm:2026.8.31's OBJ-8/a1, `thought: ""` accepted, was under OBJ-8,
    the refusal of a call without arguments, beside RTE-3/a1, whose pair is its own)."""
    by_id = {rv.id: rv for rv in records}
    shown = {c.id: _shown(c, by_id) for c in causes}
    primary = {r for c in causes for r in c.records}
    moved: dict[str, str] = {}
    for rv in records:
        if not rv.explained_by or rv.id in primary:
            continue
        mine = _refusal_shown(rv.evidence, rv)
        home = next((c.id for c in causes if mine is not None and shown[c.id] == mine), None)
        if home is not None and home != rv.explained_by and shown.get(rv.explained_by) != mine:
            moved[rv.id] = home
    if not moved:
        return list(causes), list(records)
    out_causes = [c.model_copy(update={"explains": [*(r for r in c.explains if r not in moved),
                                                     *(r for r, home in moved.items() if home == c.id)]})
                  for c in causes]
    return out_causes, [rv.model_copy(update={"explained_by": moved[rv.id]}) if rv.id in moved else rv
                        for rv in records]


def _shown(cause: RootCause, by_id: Mapping[str, RecordVerdict]) -> tuple[str, str] | None:
    """The refusal a cause's pair shows where its checks failed: (the kind of call, its leading difference,
    numbers masked); None when its pair (or its leading record's, lacking its own) shows no refusal of it."""
    return _refusal_shown(_held(cause, by_id).evidence, by_id.get(cause.records[0]))


def _refusal_shown(evidence: Evidence | None, lead: RecordVerdict | None) -> tuple[str, str] | None:
    """`_shown` of one pair, held against the checks of the record it is for."""
    if evidence is not None and lead is not None:
        evidence = its_failure(lead, evidence)  # held against its checks' words as they read now
    if evidence is None or not evidence.reproduced or evidence.not_its_failure or not evidence.differences:
        return None
    first = evidence.differences[0]
    refused = _refused_what(first)
    if not refused:
        return None
    if first.startswith(_ONE_REFUSES) and first.endswith(_UNFLAGGED):
        # The original's refusal answered without its flag: the form is the change, whichever guard refused
        # (held-out-multi-11's ide-host: OBJ-8, `thought` refused, and BAP-4, `thoughtNumber`, two causes).
        return _call_class(evidence.at), "the same refusal without isError: true"
    if first.startswith(_ONE_REFUSES) and refused.isidentifier():
        # One side refusing a field the other lets pass: that field's guard moved, whichever value showed
        # it (a fork numbering from 0 accepts 0 and refuses -1: one guard, RTE-3 and RTE-3/a1). A name read
        # in another spelling is no guard moved (fork-small-model-friendly: `Thought` read, a number taken).
        respelled = ", read respelled" if f"({RESPELLED}," in first else ""
        return _call_class(evidence.at), f"the guard of `{refused}`{respelled}"
    edit = _REWORDING.search(first) if _reworded(first) else None
    if edit is not None:
        # One edit of the refusals' words (a prefix put before them all: "Error: "), whichever field the
        # call happened to be refused for: one change (typescript-port's OBJ-8/a1 and OBJ-10).
        return _call_class(evidence.at), f"re-worded: {edit.group(0)}"
    kind = _KIND_CHANGED.match(first)
    if kind is not None:
        # The same words refused another way (an isError result become a JSON-RPC error): the way is the
        # change, whichever refusal a call met (errors-as-protocol-errors: RTE-8 and OBJ-6, two crashes'
        # words, led two causes of one change).
        return _call_class(evidence.at), f"refused as {kind['here']}, as {kind['theirs']} on the original"
    return _call_class(evidence.at), re.sub(r"\d+", "N", first)


_UNFLAGGED: Final = " and this server answers the same refusal without isError: true"
"""The end of a pair whose refusal came back in the original's words without the flag (core/differences)."""
_KIND_CHANGED: Final = re.compile(
    r"^both refuse in the same words, “[^”]*” as (?P<theirs>.+?) on the original, (?P<here>.+?) here$")
"""Two refusals alike in words and of other kinds (core/differences.refusals_compared)."""
_REWORDING: Final = re.compile(
    r"(?:puts|adds|drops) “[^”]*” (?:before|after|from the front of|from the end of)")
"""The edit a re-worded refusal's difference says (`refusals_compared`), its words aside."""


def split_off(
    causes: Sequence[RootCause], records: Sequence[RecordVerdict], loose: set[str],
    strays: Set[str] = frozenset(),
) -> tuple[list[RootCause], list[RecordVerdict]]:
    """The records whose proposed cause the check refused (`loose`), placed by their own reproduced pair:
    under a cause whose pair differs where theirs does, else grouped by what their pair differs about (the
    kind of request, the refusal or field) into causes of their own. A cause whose records differ in several
    ways is several changes (a fork adding an answer key beside resetting the count). Departures no cause
    was proposed for (`strays`) are placed the same way, by their own pair only, and open a cause only
    together, two or more showing the same difference (a fork refusing every call after a final thought:
    fifteen departures, one refusal, no cause)."""
    causes = list(causes)
    by_id = {rv.id: rv for rv in records}
    primary = {r for c in causes for r in c.records}
    placed: dict[str, str] = {}
    groups: dict[tuple[str, str], list[RecordVerdict]] = {}
    unpaired: list[RecordVerdict] = []
    by_quote: dict[str, str] = {}
    # A cause whose own replay did not reproduce is held against its leading record's own pair.
    paired = [_held(c, by_id) for c in causes]
    for rv in records:
        own = rv.evidence
        if rv.id not in loose | strays or rv.explained_by or rv.id in primary:
            continue
        if (own is not None and own.not_its_failure and own.differences
                and _difference_key(own.differences[0]) == STDERR_OUTSIDE):
            continue  # the banner, where the record's check failed on something else: the banner's change
        # A pair of its own that shows its failure is held against each cause's (`_same_change`); without one
        # (none reproduced, or one differing only where its checks did not fail), its checks' own words
        # seeing a cause's difference place it (`_saw`: a call refused by the fork's rate limit).
        usable = (own is not None and own.reproduced and bool(own.differences)
                  and not own.not_its_failure)
        if rv.id not in loose and not usable:
            continue
        past = departs_past(rv)
        fits = [c for c in paired if c.evidence is not None and (past or not _refused_apart(rv, c))
                and past != c.id and (_same_change(rv, c) or (not usable and _saw(rv, c)))
                and (past or not _box_not_its_failure(rv, c, by_id))]
        # Placed by its checks' words alone, a cause they name the difference of comes before one whose pair
        # merely holds a text they quote, also one opened below: one tool list shows the tools a fork added
        # and its description cut (stopuncle-js: CLM-1's lines missing from the description went under
        # RTE-1, the tools added, before OBJ-5, the description's, was opened).
        home = next((c for c in fits if usable or _same_change(rv, c) or _saw_by_words(rv, c)), None)
        if home is None and fits:
            by_quote[rv.id] = fits[0].id
            unpaired.append(rv)
            continue
        if home is not None:
            placed[rv.id] = home.id
            continue
        if own is None or not usable:
            # No pair, or one differing only where its checks did not fail (another change of the fork shows
            # on its sequence): no cause is opened on it; its checks' words may place it under a cause the
            # departures with pairs open below (`_placed_by_their_words`), else it keeps its own line.
            unpaired.append(rv)
            continue
        instead = unboxed_lines(own.differences[0])
        if instead:
            # The box replaced by lines of another kind (a one-line notice): what moved is told by them, one
            # cause for every departure whose box gave way to the same lines, numbers aside.
            groups.setdefault((_pair_class(own), f"the box replaced by {sorted(instead)}"), []).append(rv)
            continue
        cut = _widened(own.differences[0]) == "narrower" and _speaks_of_box(rv.reason)
        if (not cut and rv.id in loose and not _crash(own.differences[0]) and _speaks_of_box(rv.reason)
                and all(_difference_key(d) == STDERR_BOX for d in own.differences)
                and _box_words_changed(own.differences[0])):
            # Only the box differing, for a record whose proposed cause its check refused and whose own words
            # are about the box: no cause's pair differs where its does, so the box's change is a change of
            # its own (held-out-multi-8's box header showing a `kind` argument, a caption reading isRevision
            # "false" as false, each beside a fork's refusal that had been proposed as their cause), when a
            # line changed in more than its numbers (those are the total's or the count's, other records'
            # changes the box shows). One cause per box line changed the same way, numbers aside.
            groups.setdefault((_pair_class(own), _BOX_DIGITS.sub("N", own.differences[0])), []).append(rv)
            continue
        if _crash(own.differences[0]) or (all(_difference_key(d) == STDERR_BOX for d in own.differences)
                                           and not cut):
            # A refusal naming no field (a crash's message quoting the code's own names), or only the box
            # differing (it shows the total, the labels, the thought: any change's): what moved cannot be
            # told from it; the departure keeps its own line, it opens no cause. A box drawn narrower than
            # the original's for a record whose own line is the box is the render cut short: departures
            # showing it together open a cause (fork-compact-terminal's long thought cut at 120).
            continue
        if cut:
            groups.setdefault((_pair_class(own), f"{STDERR_BOX} narrower"), []).append(rv)
            continue
        if _difference_key(own.differences[0]) == STDERR_BOX and not _speaks_of_box(rv.reason):
            continue  # the box leads its pair, but its own line is another failure: no render cause of it
        groups.setdefault((_pair_class(own), _what_differs(own.differences[0])), []).append(rv)
    for members in groups.values():
        if len(members) < 2 and all(rv.id not in loose for rv in members):
            continue
        named = _named_counts(records, {rv.id for rv in members})
        said = members[0].evidence.differences[:1] if members[0].evidence is not None else []
        broken = {rv.id: _refusal_broken(rv.statement, said) for rv in members}
        lead = min(members, key=lambda rv: (-broken[rv.id], -named.get(rv.id, (0, 0.0))[0],
                                            -named.get(rv.id, (0, 0.0))[1], list(by_id).index(rv.id)))
        cause = _cause_of(lead, [rv.id for rv in members if rv is not lead])
        causes.append(cause)
        placed |= {rv.id: cause.id for rv in members if rv is not lead}
    placed |= _placed_by_their_words(unpaired, causes[len(paired):], causes)
    placed |= {r: c for r, c in by_quote.items() if r not in placed}
    left = [rv for rv in unpaired if rv.id not in placed and rv.id in loose]
    for opened in _said_broken(left):
        causes.append(opened)
        placed |= {rv.id: opened.id for rv in left if rv.id not in placed and rv.id != opened.id
                   and _same_change(rv, opened)}
        placed[opened.id] = ""
    placed = {r: c for r, c in placed.items() if c}
    for opened in _moved_together([rv for rv in left if rv.id not in placed]):
        causes.append(opened)
        placed |= {r: opened.id for r in opened.explains}
    alone = _left_alone([rv for rv in left if rv.id not in placed and rv.id not in {c.id for c in causes}])
    if alone is not None:
        causes.append(_cause_of(alone, []))
    explains: dict[str, list[str]] = {}
    for record, cause_id in placed.items():
        explains.setdefault(cause_id, []).append(record)
    out_causes = [c.model_copy(update={"explains": [*c.explains, *(r for r in explains.get(c.id, [])
                                                                  if r not in c.explains)]})
                  for c in causes]
    out = [rv.model_copy(update={"explained_by": placed[rv.id]}) if rv.id in placed else rv for rv in records]
    return out_causes, out


_BOX_DIGITS: Final = re.compile(r"\d+")
_LINE_CHANGED: Final = re.compile(r"changes line \d+ “([^”]*)” to “([^”]*)”")


def _what_differs(difference: str) -> str:
    """What a departure's pair differs about, as departures are grouped into a cause: the field, or for a
    refusal the refusal itself (its field, else its words, numbers aside): "refused here" is every refusal a
    fork added, and two rules' refusals are two changes (held-out-multi-12's strict-pointers: RTE-6, refused
    as a revision that branches, went with CMP-1, refused as a runaway number)."""
    if _refused_what(difference):
        ruled = _RULE_WORDS.match(_added_in(difference))
        rule = f" by “{' '.join(sorted(_rule_of(ruled['rule'])))}”" if ruled else ""
        return _numbers_aside(_family(difference)) + rule
    return _difference_key(difference)


def _box_words_changed(difference: str) -> bool:
    """Whether a box difference changes some line in more than its numbers (“│ 💭 Thought 2/3 │” to
    “│ 💭 Thought 2/3 [hypothesis] │”, not “Revision 1/1” to “Revision 1/2”)."""
    return any(_BOX_DIGITS.sub("N", one) != _BOX_DIGITS.sub("N", two)
               for one, two in _LINE_CHANGED.findall(difference))


def _placed_by_their_words(
    unpaired: Sequence[RecordVerdict], opened: Sequence[RootCause], causes: Sequence[RootCause]
) -> dict[str, str]:
    """Departures without a pair showing their failure (none replayed, for budget) placed under a cause
    `split_off` opened from the departures that have one, where their checks' own words saw its difference
    (`_saw`), as they are placed under a proposed cause (issue 42: timed sessions' ABS-10, BAP-1 and BAP-2
    saw the “Session closed” refusal and stayed loose beside its cause); or under any cause whose headline
    says their check's very words (a banner two records' checks read alike: fork-env-config's RTE-10 and
    CMP-4)."""
    placed: dict[str, str] = {}
    for rv in unpaired:
        home = (next((c for c in opened if _saw_by_words(rv, c)), None)  # its words before a quote (above)
                or next((c for c in opened if _saw(rv, c)), None)
                or next((c for c in causes if _headline_says(c, rv)), None))
        if home is not None:
            placed[rv.id] = home.id
    return placed


def _headline_says(cause: RootCause, rv: RecordVerdict) -> bool:
    """Whether a cause's headline, past its records, is the record's own check's words (their first 80
    characters, a count of failing checks aside)."""
    words = _check_words(rv)[:80]
    return len(words) >= 24 and cause.summary.partition(" — ")[2].startswith(words)


def _moved_together(left: Sequence[RecordVerdict]) -> list[RootCause]:
    """Departures left without a cause whose checks all say one field answered outside every number their
    calls sent, the same way: one change of that field (`gate/numbers_apart.py`), led by the record stating
    that it echoes the request, else the first in the catalog's order (as `left` comes)."""
    groups: dict[tuple[str, int], list[RecordVerdict]] = {}
    for rv in left:
        moved = moved_alike(_check_messages(rv))
        if moved is not None and ((rv.evidence is not None and rv.evidence.example)
                                  or rv.counterexample is not None):
            groups.setdefault(moved, []).append(rv)
    out: list[RootCause] = []
    for (key, _), members in groups.items():
        if len(members) < 2:
            continue
        lead = next((rv for rv in members if stating_echo(rv, key)), members[0])
        out.append(_cause_of(lead, [rv.id for rv in members if rv is not lead]))
    return out


def _said_broken(left: Sequence[RecordVerdict]) -> list[RootCause]:
    """Causes opened by departures left without a cause whose own checks name them contradicted, most named
    first: a check stating the record's own claim broken (ABS-11 "the count never falls", 8 checks) says the
    change in its words, whatever its pair shows (issue 42: fork-timed-sessions under load, the idle expiry
    showing in every check of the shared process, had no cause). A record with a sequence to show only."""
    named = sorted(((sum(rv.id in t.contradicted for t, _ in _failing_checks(rv)), i, rv)
                    for i, rv in enumerate(left)), key=lambda n: (-n[0], n[1]))
    return [_cause_of(rv, []) for count, _, rv in named if count and (
        (rv.evidence is not None and rv.evidence.example) or rv.counterexample is not None)]


def _left_alone(left: Sequence[RecordVerdict]) -> RecordVerdict | None:
    """The one departure whose proposed cause its check refused, no pair of its own showing its failure, no
    cause its checks' words saw, and checks that saw an accepted call or stderr, not a refusal: a change no
    cause says, which opens a cause of its own, headed by its check's words (issue 42: fork-planning-aids'
    ABS-7 "the answer reads totalThoughts 8, not 5", fork-readable-output's LOOP-A, a logged failure). A
    refused call is any refusal's, and several departures left cannot be told from one change every check
    saw its own way (an answer no longer JSON): they keep their own lines, as does one with no sequence to
    show (a cause's example opens with its handshake)."""
    kept = [rv for rv in left if (said := _check_messages(rv)) and not is_run_again(said[0])
            and not any(_SAW_REFUSAL.search(m) for m in said)]
    if len(kept) != 1:
        return None
    shown = (kept[0].evidence is not None and kept[0].evidence.example) or kept[0].counterexample is not None
    return kept[0] if shown else None


_CRASH_WORDS: Final = "both refuse this call, in other words"
_ONE_REFUSES: Final = ("the original refuses this call", "the original accepts this call")


def _refusal_broken(statement: str, differences: Sequence[str]) -> int:
    """How plainly a record's statement is the rule a refused call breaks: the refused field named in a
    clause that speaks of refusing (guarded, rejected, checked), the rule a fork's new guard contradicts;
    0 for a difference that is no refusal, or a statement about something the refused call merely reaches
    (a fresh process remembering nothing, a total raised to the number: the refusal is not about them)."""
    refused = _refused_what(differences[0]) if differences else ""
    if refused.startswith("“") and not _crash(differences[0]):
        # A refusal naming no field, in a stated rule's words (“Session closed: …”): a new rule over calls the
        # original accepts; the rule it breaks is the statement of which calls are refused (RTE-3's "the first
        # failure is rejected"), not a statement the refused call merely reaches (issue 42: timed sessions'
        # refusal was led by CMP-1, whose check saw it most alone).
        return int(bool(_REFUSES_CALLS.search(statement)))
    if not refused.isidentifier():
        return 0
    clauses = [c for c in _CLAUSE_END.split(statement) if c.strip()]
    return max((2 * (refused in clause) + bool(_REFUSING.search(clause)) for clause in clauses
                if refused in clause), default=0)


_REFUSING: Final = re.compile(r"\b(?:guard|reject|refus|check|validat)", re.IGNORECASE)
"""Words of a statement about what is refused."""
_REFUSES_CALLS: Final = re.compile(r"\b(?:reject|refus)", re.IGNORECASE)
"""Words of a statement saying which calls are refused (not merely that a field is checked or validated)."""


def _crash(difference: str) -> bool:
    """Two refusals in other words, or one side refusing in words that name no field: a crash's message (a
    label on Object.prototype, `this.branches[…].push is not a function`), not a rule either side states.
    The unknown-tool refusal in other words is not one: the original's “Unknown tool: <name>” is its own
    answer to a name it does not serve (RTE-2), and a fork rewording or shortening it is a change of its own
    (issue 42: fork-french-messages, fork-hardened-inputs)."""
    if difference.startswith(_CRASH_WORDS):
        return not _unknown_tool(difference)
    quoted = re.search(r"“([^”]*)”", difference)
    return (difference.startswith(_ONE_REFUSES) and quoted is not None and not field_named(quoted.group(1))
            and bool(RUNTIME_ERROR.search(quoted.group(1))))


def _unknown_tool(difference: str) -> bool:
    """Both sides refuse in other words, the original with its unknown-tool refusal (its words name the
    tool's `name`)."""
    quoted = re.search(r"“([^”]*)”", difference)
    return (difference.startswith(_CRASH_WORDS) and quoted is not None
            and field_named(quoted.group(1)) == "name")


def _named_counts(records: Sequence[RecordVerdict], group: set[str]) -> dict[str, tuple[int, float]]:
    """Record → (failing checks naming it as contradicted, the share of its failing checks that name none
    and evidence no departure outside its `group`): its own evidence of having changed; a record whose
    checks failed beside other changes' records is more likely their reader."""
    departing = {rv.id for rv in records if rv.verdict in ("deviates", "error")}
    evidenced: dict[str, set[str]] = {}
    for rv in records:
        for t in rv.tests:
            evidenced.setdefault(t.nodeid, set()).add(rv.id)
    counts: dict[str, tuple[int, float]] = {}
    for rv in records:
        failing = [t for t in rv.tests if t.status in ("failed", "error")]
        blamed = sum(rv.id in t.contradicted for t in failing)
        alone = sum(not t.contradicted and evidenced.get(t.nodeid, set()) & departing <= group
                    for t in failing)
        counts[rv.id] = (blamed, alone / len(failing) if failing else 0.0)
    return counts


def _cause_of(lead: RecordVerdict, explains: list[str]) -> RootCause:
    """A cause opened by a record's own pair: its headline is that pair, or, where the pair differs only
    elsewhere than the lead's checks failed or none reproduced (`_left_alone`), the lead's own check's words
    (a 0.6.2 fork's version bump is not its CMP-3's missing status key: bartoszkula-ts, AUDIT-round9)."""
    evidence = lead.evidence
    ce = lead.counterexample
    shown = evidence is not None and evidence.reproduced and not evidence.not_its_failure
    said = pair_headline(evidence) if shown and evidence is not None else _check_words(lead)
    summary = f"{lead.id} departs — {said}"
    example = list(evidence.example) if evidence is not None else []
    return RootCause(id=lead.id, records=[lead.id], explains=explains, summary=summary[:400],
                     example=example or (list(ce.replay) if ce is not None else []),
                     test=ce.test if ce is not None else None,
                     minimized=ce.minimized if ce is not None else False,
                     evidence=None if evidence is None else evidence.model_copy(update={"cause": lead.id}))


def _check_words(rv: RecordVerdict) -> str:
    """A record's departure in its first failing check's words, as a cause's headline says them."""
    failing = [t for t in rv.tests if t.status in ("failed", "error")]
    if not failing:
        return rv.reason
    said = spoken(failing[0].message or rv.reason, failing[0].nodeid, 240)
    return said + (f" ({len(failing)} checks fail)" if len(failing) > 1 else "")


def _landed(difference: str) -> bool:
    """Whether a difference is read beside whichever request was current when it arrived, not caused by that
    request: a message the server sent of its own, a stderr line (a box written late lands beside the next
    request under load). Its request's class is timing, not the change (issue 43)."""
    return difference.startswith((UNASKED, "stderr: "))


def _what_landed(evidence: Evidence | None) -> str:
    """A reproduced pair's first difference, numbers masked, when it landed beside its request (`_landed`),
    else empty: two pairs showing the same one are one change, beside whichever request each landed."""
    if (evidence is None or not evidence.reproduced or evidence.not_its_failure or not evidence.differences
            or not _landed(evidence.differences[0])):
        return ""
    return re.sub(r"\d+", "N", evidence.differences[0])


def _pair_class(evidence: Evidence) -> str:
    """The class of request a pair's first difference belongs to: the request's (`_call_class`) where what
    differs depends on it (an answer, a refusal, a listed tool); else "unasked" or "stderr" (`_landed`),
    wherever it landed."""
    first = evidence.differences[0] if evidence.differences else ""
    if first and _landed(first):
        return "unasked" if first.startswith(UNASKED) else "stderr"
    return _call_class(evidence.at)


def _classes_apart(own: Evidence, theirs: Evidence) -> bool:
    """Both pairs' first differences depend on their requests, and those requests are of other classes: a
    difference that only landed beside its request (`_landed`) is compared by what differs, never by where."""
    if (own.differences and _landed(own.differences[0])) or (theirs.differences and
                                                             _landed(theirs.differences[0])):
        return False
    return _call_class(own.at) != _call_class(theirs.at)


def _same_change(rv: RecordVerdict, cause: RootCause) -> bool:
    """A check naming the cause's record as contradicted explains the record, unless what it saw refused
    is another field than the cause's refusal names (RTE-3's `branchId` refused is not `thought` refused,
    though both checks say a call was refused), or its own pair, replayed, shows another change first and
    none of its checks saw the cause's difference (`_saw`): the fork changed both; else its own pair must
    differ where the cause's does (the same kind of call, a refusal of the same field, or one re-wording),
    and no check of the record names another record contradicted that the cause does not hold."""
    landed = _what_landed(rv.evidence)
    if landed and landed == _what_landed(cause.evidence):
        return True  # the same unasked message or stderr line, beside whichever request it landed (issue 43)
    past = departs_past(rv)
    if past:  # its checks met that cause's refusal first: its pair past it alone says its change
        return past != cause.id and _pairs_alike(rv, cause)
    if _refused_apart(rv, cause) or _rules_apart(_own_refusal(rv), _added_words(cause.evidence)):
        return False
    apart = _other_class(rv, cause)
    if apart == "tools/list" or (apart and not _saw(rv, cause)):
        return False  # a refusal, unless its checks' own words saw the cause's (fork-api-envelope's OBJ-6)
    naming = [t for t in rv.tests
              if t.status in ("failed", "error") and set(t.contradicted) & set(cause.records)]
    lead = _lead(cause)
    if naming and (_written_apart(rv.evidence, lead) or _box_line_apart(rv, cause, naming)):
        return False
    if naming:
        refused = _refused_what(lead) if lead and not _reworded(lead) else ""
        theirs_field = refused if refused.isidentifier() else ""  # a field, not words naming none
        seen = {refused_in(readable(t.message)) for t in naming} - {""}
        own_field = _own_refused_field(rv)
        if theirs_field and own_field in seen - {theirs_field}:
            return False  # its checks saw two refusals; its own pair, replayed, shows the other one
        if not theirs_field or not seen or theirs_field in seen:
            return not _another_first(rv, cause) or _saw(rv, cause) or _said_by_its_naming(rv, naming)
    return _pairs_alike(rv, cause)


def _pairs_alike(rv: RecordVerdict, cause: RootCause) -> bool:
    """Whether the record's own pair and the cause's, each reproduced where its checks failed, differ alike:
    the same kind of call, a refusal of the same field, or one re-wording, no check of the record naming
    another record contradicted that the cause does not hold."""
    own, theirs = rv.evidence, cause.evidence
    if (own is None or theirs is None or not own.reproduced or not theirs.reproduced or own.not_its_failure
            or theirs.not_its_failure):
        return False
    if own.cause == cause.id:
        return True
    if _classes_apart(own, theirs) or not own.differences or not theirs.differences:
        return False
    if _named_elsewhere(rv, cause) and not departs_past(rv):
        return False
    if {_widened(own.differences[0]), _widened(theirs.differences[0])} == {"wider", "narrower"}:
        return False  # a box made wider is not one cut short (fork-compact-terminal: min width, cut thought)
    if _order_not_members(own.differences[0], theirs.differences):
        return False  # an order changed is no label added (held-out-multi-11's branch-explorer: "from-6")
    if _directions_apart(own.differences[0], theirs.differences[0]):
        return False  # a key dropped here is no key added here (held-out-multi-14's rich-results: the count
        # nested under `session`, and the count added to failures)
    if _edits_apart(own.differences[0], theirs.differences[0]):
        return False
    if _rules_apart(_added_words(own), _added_words(theirs)):
        return False
    first = _family(own.differences[0])
    if first == _family(theirs.differences[0]):
        return True
    beside = theirs.differences[1:]
    if _difference_key(theirs.differences[0]) in (STDERR_BOX, STDERR_OUTSIDE):
        # A pair led by stderr is a cause of what the process writes there: an answer's or the identity's
        # difference beside it is the cause's only when the cause's own words say it. An initialize shows
        # every change of the start-up at once (the banner, serverInfo, capabilities): agiprolabs-ts'
        # serverInfo.name (CMP-3) is not LOOP-A's lines logged beside the box, though its pair showed both.
        # (A tool list led by one key is left alone: one SDK upgrade changes every key of it, npm:2026.8.31.)
        beside = [d for d in beside if _tells(d, cause.summary)]
    return first in ({_family(d) for d in beside} - {STDERR_BOX}) and not _keys_apart(rv, cause, first)


def _own_refusal(rv: RecordVerdict) -> str:
    """The words of a refusal the original never writes (not its guards', not a runtime error's) that the
    record's own failure is: its own pair, replayed, shows the call refused so, or every one of its own
    failing checks (naming it contradicted, or no record; lacking those, every failing check) quotes a call
    refused so. Empty otherwise. A check of another record failing beside them does not make its failure
    that record's change (held-out-multi-15's tidy-plan: RTE-3's “Invalid arguments: unknown field
    sessionId”, the fork refusing argument names the original takes silently, went under RTE-4's totals cut
    to 25 by the one check of RTE-3's that saw a total cut)."""
    own = rv.evidence
    here = refused_here(own) if own is not None and not own.not_its_failure else None
    if here is not None and here.added:
        return here.words if _never_the_originals(here.words) else ""
    failing = _failing_checks(rv)
    mine = [m for t, m in failing if not t.contradicted or rv.id in t.contradicted] or [m for _, m in failing]
    said = [_REFUSED_IN.search(m) for m in mine]
    words = [refusal_words((f.group(1) or f.group(2)).replace("⏎", "\n")) for f in said if f is not None]
    if not mine or len(words) < len(mine) or not all(_never_the_originals(w) for w in words):
        return ""
    return words[0]


def _added_words(evidence: Evidence | None) -> str:
    """The words of a refusal a pair shows this server adding (the original accepting the call, or refusing
    it otherwise) that the original never writes; empty for any other pair."""
    return _added_in(evidence.differences[0]) if evidence is not None and evidence.reproduced and \
        evidence.differences else ""


def _added_in(difference: str) -> str:
    """`_added_words` of one difference."""
    here = _refused_in_first(difference)
    return here.words if here is not None and _never_the_originals(here.words) else ""


def _rule_of(words: str) -> frozenset[str]:
    """A refusal's words with its values (numbers, quoted strings) masked, as a set of words."""
    return frozenset(_VALUE.sub("V", words).replace(":", " ").split())


def _rules_apart(own: str, theirs: str) -> bool:
    """Two refusals a fork added in the original's form (“Invalid <field>: <rule>”), whose rules, the field
    aside, differ by more than one word once their values are masked: two rules, so two changes, whatever
    field each names (held-out-multi-18's branch-limits: “Invalid branchId: at most 10 branches”, the
    eleventh label, went under the cause of “Invalid branchId: must be at most 16 characters”). One word
    apart is one rule naming what it met (“unknown field sessionId”); a schema library's messages (“MCP
    error -32602: Input validation error: …”, npm:2026.8.31) are one validator's, whatever they list."""
    mine, other = _RULE_WORDS.match(own), _RULE_WORDS.match(theirs)
    if mine is None or other is None:
        return False
    ours, yours = _rule_of(mine["rule"]), _rule_of(other["rule"])
    return len(ours - yours) + len(yours - ours) > 2


def _refused_apart(rv: RecordVerdict, cause: RootCause) -> bool:
    """Whether the record's own failure is a call refused in words the original never writes
    (`_own_refusal`) and the cause's pair another field's value on a call both sides accepted
    (`_accepted_value`): whatever a check of the record saw of the cause beside it, another change."""
    return bool(_own_refusal(rv)) and _accepted_value(cause)


def _never_the_originals(words: str) -> bool:
    """Refusal words the original never writes: none of its four guards', no runtime error's, no unknown
    tool's."""
    return (bool(words) and words not in GUARD_REFUSALS.values() and not RUNTIME_ERROR.search(words)
            and not words.startswith("Unknown tool"))


def _accepted_value(cause: RootCause) -> bool:
    """Whether a cause's pair, where its checks failed, is a call both sides accepted whose answers differ
    first in one field's value (`totalThoughts: 40 on the original, 25 here`): no refusal's change."""
    lead, evidence = _lead(cause), cause.evidence
    if not lead or evidence is None:
        return False
    answers = [_frame(text) for text in (evidence.original, evidence.target)]
    if any(a is None or not isinstance(a.get("result"), dict) or refusal(cast(JSON, a)) is not None
           for a in answers):
        return False
    key = _difference_key(lead)
    return key.isidentifier() and key != STDERR_BOX and not _refused_what(lead)


def _own_refused_field(rv: RecordVerdict) -> str:
    """The field a record's own reproduced pair shows refused, where that pair is its checks' failure; empty
    otherwise. A record whose checks saw two rules refuse (held-out-multi-13's strict-relations: BAP-4/a1 saw
    “Invalid revisesThought: …” and “Invalid thoughtNumber: must follow …”) is the change its own pair
    shows, not whichever cause a check of it named."""
    own = rv.evidence
    if own is None or not own.reproduced or own.not_its_failure or not own.differences:
        return ""
    refused = _refused_what(own.differences[0])
    return refused if refused.isidentifier() else ""


def _one_watch(rv: RecordVerdict, cause: RootCause, by_id: Mapping[str, RecordVerdict]) -> bool:
    """A record whose checks kept no call to replay (they watch the process or read its files) and one of
    whose failing checks is a failing check of the cause's leading record, in the same words, naming no record
    outside the cause: one watch of the process saw both, so there is no pair to hold them apart by and the
    check's own words are the one change (held-out-multi-11's toolkit-port: BAP-5 and RTE-10, both failed by
    the check that ends stdin and sees the process still running, stood apart)."""
    own, lead = rv.evidence, by_id.get(cause.records[0])
    if own is None or lead is None or own.reproduced or not own.own_failure:
        return False
    failing = {(t.nodeid, t.message) for t in lead.tests if t.status in ("failed", "error")}
    return any((t.nodeid, t.message) in failing and set(t.contradicted) <= set(cause.records)
               for t in rv.tests if t.status in ("failed", "error"))


_ITEM_AT: Final = re.compile(
    r"^(?:.* → )?(?P<list>[\w.]+)\[\d+\]: (?P<was>.+) on the original, (?P<now>.+) here$")
"""One item of a list differing at one index ("… → branches[0]: “zeta” on the original, “alpha” here")."""

_COUNT_OF: Final = re.compile(
    r"^(?:.* → )?(?P<list>[\w.]+): (?P<was>\d+) item\(s\) on the original, (?P<now>\d+) here")
"""A list holding more or fewer items ("… → branches: 0 item(s) on the original, 1 here: “from-6” added")."""


def _order_not_members(own: str, theirs: Sequence[str]) -> bool:
    """The record's difference is a list holding another number of items, where the cause's pair shows that
    list's items only moved (at least two indices, the same values on both sides, its count alike): an order
    changed adds no item (held-out-multi-11's branch-explorer: the made-up label "from-6" went under the
    cause of labels listed most recent first)."""
    count = _COUNT_OF.match(own)
    if count is None or count["was"] == count["now"]:
        return False
    name = count["list"]
    if any((c := _COUNT_OF.match(d)) is not None and c["list"] == name for d in theirs):
        return False
    items = [m for d in theirs if (m := _ITEM_AT.match(d)) is not None and m["list"] == name]
    return len(items) >= 2 and sorted(m["was"] for m in items) == sorted(m["now"] for m in items)


def _keys_apart(rv: RecordVerdict, cause: RootCause, first: str) -> bool:
    """The record's own difference is a key the cause's pair shows only beside its lead, and neither says the
    other's key (the record's line not the lead's, the cause's line not the record's): the pair shows two
    changes at once, the record's being the other (held-out-multi-10's revision-ledger: OBJ-4/a2's count,
    left out for revisions, under OBJ-4's `revisionsOfThought` a revision's answer showed beside it)."""
    theirs = cause.evidence
    if theirs is None or not theirs.differences or _call_class(theirs.at) != "tools/call":
        return False  # a listing's keys change together (one SDK upgrade rewrites every key of it)
    lead = _difference_key(theirs.differences[0])
    if not (lead.isidentifier() and first.isidentifier()) or lead == first:
        return False
    moved = re.search(rf"\(it is at `(\w+)\.{re.escape(first)}`\)", readable(rv.reason))
    added = f"result.content[0].text → {moved.group(1)}{_ADDED_HERE}" if moved is not None else ""
    if added and any(d.startswith(added) for d in theirs.differences):
        return False  # its key moved under the key the cause's pair adds: the one move of both keys
    # The headline's "; and N more beside it: …" lists the pair's other keys: no word of the cause's own.
    said = _BESIDE_LIST.sub("", cause.summary)
    return re.search(rf"\b{lead}\b", rv.reason) is None and re.search(rf"\b{first}\b", said) is None


_BESIDE_LIST: Final = re.compile(r"; and \d+ more beside it: [^(]*")
"""The siblings a headline lists after its first difference (`report.model.beside_it`)."""


_WIDENED: Final = re.compile(r"^stderr: [^;]*?the box is \d+ columns wide here, \d+ (wider|narrower) than")


def _box_line_apart(rv: RecordVerdict, cause: RootCause, naming: Sequence[TestRef]) -> bool:
    """The record's line is a check's that names no cause record, its own pair is a box whose changed lines
    hold none of the words the cause's pair (no box of its own) changed: its own failure is another change
    drawn in the box, whatever another check of it names (held-out-multi-10's dashboard: RTE-4's header
    digits grouped, under the slug cause because its store check also saw a slugged label)."""
    own, theirs = rv.evidence, cause.evidence
    if (own is None or theirs is None or not own.reproduced or not theirs.reproduced or own.not_its_failure
            or not own.differences or not theirs.differences or own.cause == cause.id
            or rv.reason in {t.message for t in naming}):
        return False
    if _family(own.differences[0]) != STDERR_BOX or STDERR_BOX in {_family(d) for d in theirs.differences}:
        return False
    words = {w for d in theirs.differences for w in re.findall(r"“([^”]{3,})”", d)}
    return bool(words) and not any(w.rstrip("… ") in own.differences[0] for w in words)


def _widened(difference: str) -> str:
    """Which way a box difference moved the box's width ("wider", "narrower"), empty for any other."""
    found = _WIDENED.match(difference)
    return found.group(1) if found else ""



def _other_class(rv: RecordVerdict, cause: RootCause) -> str:
    """Both pairs reproduced, the record's showing its own failure, and of another class than the cause's: a
    call refused where the cause's pair is a call both sides accepted (an answer's shape explains no
    refusal), or the tool list where the cause's pair is a call (the description is not the answer's
    change): chinng-py's RTE-4/a1, ABS-6, ABS-7 (pydantic refusals) and CMP-2/a2 (the description) under
    OBJ-4, the answer no longer JSON (issue 42). Which class the record's pair is ("tools/list", "refusal"),
    or empty when the classes agree."""
    own, theirs = rv.evidence, cause.evidence
    if (own is None or theirs is None or not own.reproduced or not theirs.reproduced or own.not_its_failure
            or theirs.not_its_failure or not own.differences or not theirs.differences
            or own.cause == cause.id):
        return ""
    if _landed(own.differences[0]) or _landed(theirs.differences[0]):
        return ""  # what one pair shows only landed beside its request: no class to hold apart by
    own_class, their_class = _call_class(own.at), _call_class(theirs.at)
    if own_class == "tools/list" and their_class == "tools/call":
        return "tools/list"
    if own_class != "tools/call" or their_class != "tools/call" or not _refused_what(own.differences[0]):
        return ""
    if _refused_what(theirs.differences[0]):
        return ""
    answers = [_frame(text) for text in (theirs.original, theirs.target)]
    accepted = all(a is not None and isinstance(a.get("result"), dict) and refusal(cast(JSON, a)) is None
                   for a in answers)
    return "refusal" if accepted else ""


_UNBOXED_PARTS: Final = re.compile(r"(?:^|; )(changes|adds) (.*?)(?=; (?:adds|drops|changes|re-indents) |$)")
_TO_LINE: Final = re.compile(r" to “([^”]*)”")
_QUOTED_LINE: Final = re.compile(r"“([^”]*)”")
_FRAMED: Final = re.compile(r"[─│┌┐└┘├┤┼+|]")


def unboxed_lines(difference: str) -> frozenset[str]:
    """The lines a stderr difference says this server wrote where the original drew its box, numbers masked,
    when the original's box is gone and nothing framed was written instead (“(same thought repeated)”,
    “[thought 1/1: 5000 characters, not shown]”); empty for any other difference (a box drawn otherwise, in
    ASCII or relabelled, is read by its own checks). Read from `text_difference`'s words (“changes line N “a”
    to “b””, “adds “a”, “b””), pinned by tests/fast/test_grouping_by_own_checks.py."""
    return frozenset(re.sub(r"\d+", "N", line) for line in written_instead(difference))


def written_instead(difference: str) -> list[str]:
    """`unboxed_lines` as written, numbers kept: what a headline quotes."""
    if not difference.startswith("stderr: ") or _difference_key(difference) != STDERR_BOX:
        return []
    written: list[str] = []
    for verb, items in _UNBOXED_PARTS.findall(difference.removeprefix("stderr: ")):
        written += _TO_LINE.findall(items) if verb == "changes" else _QUOTED_LINE.findall(items)
    lines = [line.rstrip("… ") for line in written if line.strip()]
    if not lines or "drops" not in difference or any(_FRAMED.search(line) for line in lines):
        return []
    return list(dict.fromkeys(lines))


def pair_headline(evidence: Evidence) -> str:
    """A cause's pair in one line (`Evidence.headline`), except a box replaced by other lines, said as the
    lines written in its place: the drawn lines it drops fill a headline before those would show (issue 42,
    fork-async-logger: RTE-9's headline ended at "changes line 1…")."""
    said = evidence.headline()
    instead = written_instead(evidence.differences[0]) if said else []
    if not instead:
        return said
    _, mark, where = said.rpartition(" (reproduced ")
    lines = ", ".join(quoted_line(line) for line in instead[:2])
    return f"stderr: the box is not drawn; {lines} is written in its place{mark}{where if mark else ''}"


def _written_apart(own: Evidence | None, lead: str) -> bool:
    """The record's own pair, reproduced where its checks failed, and the cause's show the box replaced by
    different lines (`unboxed_lines`): two changes of what is written instead of the box (a repeat collapsed
    to one line, a huge thought not shown), though one record's checks name both (issue 42, fork-async-logger:
    the huge thoughts' OBJ-9, RTE-9/a1 and CMP-5 went under RTE-9, the repeated box's cause)."""
    if own is None or not own.reproduced or own.not_its_failure or not own.differences or not lead:
        return False
    mine, theirs = unboxed_lines(own.differences[0]), unboxed_lines(lead)
    return bool(mine) and bool(theirs) and not mine & theirs


def _box_not_its_failure(rv: RecordVerdict, cause: RootCause, by_id: Mapping[str, RecordVerdict]) -> bool:
    """A render cause (its leading record states what the box or stderr holds, and its headline or pair shows
    the box) and a record whose own line does not speak of them: a fork writing something else on stderr, or
    answering with keys more, shows that on every call's pair, so a pair alike does not make the box the
    record's failure (issue 42, bartoszkula-ts: CMP-5, the missing box, "explained" eight records of added
    answer keys and one of a poisoned process). A cause about a number the box also shows (a total raised,
    RTE-4, its headline the box's header) is no render cause: its statement is about the number."""
    lead = by_id.get(cause.records[0])
    if lead is None or not _RENDER_STATED.search(lead.statement):
        return False
    held = _lead(_held(cause, by_id))
    render = (_speaks_of_box(cause.summary.partition(" — ")[2])
              or (bool(held) and _difference_key(held) == STDERR_BOX))
    return render and not _speaks_of_box(rv.reason)


_RENDER_STATED: Final = re.compile(r"\bbox(?:es)?\b|\bstderr\b")
"""A record's statement about what the box or stderr holds (CMP-5's five-line box, RTE-9's stderr)."""


def _speaks_of_box(line: str) -> bool:
    """Whether a record's line, in its own words (before any answer it quotes), is about the box or stderr."""
    low = _own_words(readable(line)).lower()
    return bool(_BOX_WORDS.search(low)) or "stderr" in low


def _said_by_its_naming(rv: RecordVerdict, naming: Sequence[TestRef]) -> bool:
    """Every failing check of the record names the cause's record, and one of them quotes the words its own
    pair's first difference quotes (the refusal itself, not merely its field): its pair shows the cause's
    change on another call than the cause's own example (typescript-port: the refusals' “Error: ” prefix is
    OBJ-8's whole-exception error, whose pair shows it on a crash), not another change."""
    own = rv.evidence
    failing = [t for t in rv.tests if t.status in ("failed", "error")]
    if own is None or not own.differences or len(naming) != len(failing):
        return False
    quoted = [w.rstrip("… ") for w in re.findall(r"“([^”]{8,})”", own.differences[0])]
    return any(len(w) >= 8 and w in readable(t.message) for t in naming for w in quoted)


def _lead(cause: RootCause) -> str:
    """The difference a cause's pair leads with, when its pair reproduced where its checks failed; else
    empty (a pair showing only another change says nothing of the cause)."""
    theirs = cause.evidence
    if theirs is None or not theirs.reproduced or theirs.not_its_failure or not theirs.differences:
        return ""
    return theirs.differences[0]


def _saw(rv: RecordVerdict, cause: RootCause) -> bool:
    """Whether one of the record's failing checks, in its own words, saw the cause's difference: the one
    question both the check of an "explained by" (`_same_change`) and the placing of a record whose cause was
    refused (`split_off`) ask (issue 42)."""
    lead = _lead(cause)
    if not lead or cause.evidence is None:
        return False
    if _other_kind_of_call(_check_messages(rv), cause.evidence.original, cause.evidence.target):
        return False  # its checks saw refused calls; the cause's pair is a call both sides accepted
    about = [m for m in _messages_about(rv, cause) if not _lacks_what_was_added(lead, m)]
    if moved_apart(about, lead):
        return False  # its checks saw the field move the other way: another rule of that field
    return (any(_tells(lead, m, strict=True) for m in about)
            or any(_quotes_what_differs(m, cause.evidence) for m in about)
            or any(_lacks_what_was_dropped(d, m) for d in cause.evidence.differences for m in about))


def _directions_apart(own: str, theirs: str) -> bool:
    """Two pairs' first differences on one key, one dropping it here and the other adding it here."""
    return ((own.endswith(_DROPPED_HERE) and _ADDED_HERE in theirs)
            or (theirs.endswith(_DROPPED_HERE) and _ADDED_HERE in own))


def _lacks_what_was_dropped(difference: str, message: str) -> bool:
    """A check saying this server's answer lacks a key saw a pair (any of its differences) where the
    original's answer has that key and this server's does not: the key moved or dropped, that cause's."""
    missing = _NO_KEY.search(message)
    return (missing is not None and difference.endswith(_DROPPED_HERE)
            and (missing.group("key") or missing.group("top")) == _difference_key(difference))


def _lacks_what_was_added(difference: str, message: str) -> bool:
    """A check saying this server's answer lacks a key (“no key 'thoughtHistoryLength' where the check read
    one”) did not see a pair where this server's answer has that key and the original's does not
    (held-out-multi-14's rich-results: the count nested under `session`, in 17 checks, was put under the
    cause of failures gaining the count)."""
    missing = _NO_KEY.search(message)
    return missing is not None and (missing.group("key") or missing.group("top")) == _difference_key(
        difference) and _ADDED_HERE in difference


def _saw_by_words(rv: RecordVerdict, cause: RootCause) -> bool:
    """`_saw` by a check's words naming the cause's leading difference, not by a text it quotes that the
    cause's pair happens to hold on one side only."""
    lead, about = _lead(cause), _messages_about(rv, cause)
    return bool(lead) and not moved_apart(about, lead) and any(_tells(lead, m, strict=True) for m in about)


_QUOTE: Final = re.compile(r"“([^”]{12,200})”|'([^'\n]{12,200})'")


def _quotes_what_differs(message: str, evidence: Evidence) -> bool:
    """Whether a check, in its own words (not an answer it quotes whole), quotes a text one side of the pair
    answered and the other did not: it saw that difference, even where the difference's line names it only
    as "and 1 more" (issue 42, fork-compact-terminal: BAP-6's "lack '- Provides a correct answer'", the
    fourth line CMP-2's description drops, led a cause of its own)."""
    if not (evidence.reproduced and evidence.original and evidence.target):
        return False
    spans = [a or b for a, b in _QUOTE.findall(_own_words(message))]
    return any((span in evidence.original) != (span in evidence.target) for span in spans)


def _quoted_there(rv: RecordVerdict, cause: RootCause) -> bool:
    """Whether the record's check quotes, in its own words, a text the answer it quotes holds under a key the
    cause's reproduced pair shows added: it saw that key, on its own call (issue 42, fork-annotated-thoughts:
    ABS-2 "quotes the stored thought "…"", the answer's `preview`, OBJ-4's added key, led a second cause of
    the one change; its own replay drew another thought)."""
    theirs = cause.evidence
    if theirs is None or not theirs.reproduced or theirs.not_its_failure:
        return False
    added = {_key_name(d) for d in theirs.differences if _key_added_or_dropped(d)} - {""}
    for message in _check_messages(rv):
        own = _own_words(message)
        quoted = message[len(own):].lower()
        for span in re.findall(r'"([^"\n]{12,200})"', own):
            if any(f'"{key}": "{span[:24].lower()}' in quoted for key in added):
                return True
    return False


def _messages_about(rv: RecordVerdict, cause: RootCause) -> list[str]:
    """The record's failing checks' messages that may speak of its own change or the cause's: a check naming
    as contradicted only records that are neither the record, nor the cause's, nor ones it explains saw that
    other record's change (its structured `contradicted`, not its words), so its words place nothing here
    (issue 42, fork-tidy-store: RTE-3's refused branch labels folded into the count cause OBJ-2 by the
    words of checks naming ABS-11, the compaction)."""
    held = {rv.id, *cause.records, *cause.explains}
    return [m for t, m in _failing_checks(rv) if not t.contradicted or set(t.contradicted) & held]


def _told_by_its_checks(rv: RecordVerdict, difference: str, *, strict: bool = False) -> bool:
    """Whether a failing check of the record says, in its own words (not an answer it quotes whole, which
    shows every change of the server), what `difference` is; `strict`, by its words alone (`_tells`)."""
    return any(_tells(difference, m, strict=strict) for m in _check_messages(rv))


def _another_first(rv: RecordVerdict, cause: RootCause) -> bool:
    """Both pairs reproduced where their checks failed, and the record's leads with a difference of another
    family than any of the cause's: its own example shows another change of the server first."""
    own, lead = rv.evidence, _lead(cause)
    if own is None or not lead or not own.reproduced or own.not_its_failure or not own.differences:
        return False
    if own.cause == cause.id or cause.evidence is None:
        return False
    first = _family(own.differences[0])
    return first != STDERR_BOX and first not in {_family(d) for d in cause.evidence.differences}


_EDIT: Final = re.compile(r"is re-worded: .*? (?P<how>puts|adds|drops) “(?P<words>.*?)” "
                          r"(?P<where>before|after|from the front of|from the end of) ")
"""A re-wording said as one edit of the original's words (`core/differences.refusals_compared`)."""
_VALUE: Final = re.compile(r"\"[^\"]*\"|'[^']*'|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?"
                           r"|\b(?:null|true|false|undefined|NaN|Infinity)\b")
"""A value a refusal quotes: a string, a number (negative, a fraction, an exponent) or a JavaScript word."""


def _edits_apart(own: str, theirs: str) -> bool:
    """Two refusals re-worded each by one edit of the original's words, the edits other words (values
    aside) or put elsewhere: two changes, though a fork re-wording its messages one way is one whatever field
    a call met (held-out-multi-15's chatty-client: RTE-2's unknown tool adding “. Available tools: …” went
    under RTE-3's refusals adding “ (got "")”, the value refused)."""
    mine, other = _EDIT.search(own), _EDIT.search(theirs)
    if mine is None or other is None:
        return False
    return ((mine["how"], mine["where"], _VALUE.sub("V", mine["words"]))
            != (other["how"], other["where"], _VALUE.sub("V", other["words"])))


def _reworded(difference: str) -> bool:
    """A refusal of one field in other words: one change (a fork re-wording its messages) whichever field
    the call happened to be refused for."""
    return _difference_key(difference).startswith("re-worded")


def _refused_what(difference: str) -> str:
    """What a refusal difference refuses: the field it names (`naming `X``, or the first field its quoted
    words name, “Invalid isRevision: …” → isRevision: a short refusal's difference says no `naming`), else
    its quoted words (a cap's "Maximum number of branches (50) exceeded", a crash's message); empty for a
    difference that is no refusal. A refusal of isRevision is not the change behind a refusal of branchId
    (nalyk-ts, reports/third-party/AUDIT-round9.md)."""
    key = _difference_key(difference)
    if key not in _REFUSAL_KEYS and not key.startswith(("re-worded", "both refuse")):
        return ""
    named = refused_field(difference) or (key.split(" ", 1)[1] if key.startswith("re-worded ") else "")
    words = re.search(r"“([^”]*)”", difference)
    if named or words is None:
        return named or "a refusal"
    return field_named(words.group(1)) or f"“{words.group(1)}”"


def _named_elsewhere(rv: RecordVerdict, cause: RootCause) -> bool:
    """Every failing check of the record names a record contradicted, none of them the cause's or one it
    explains, and none says in its own words (before any answer it quotes whole) what the cause's pair
    differs in: the record's failure is those records' change, not this cause's, whatever else its pair
    shows (nalyk-ts: the 50-branch cap, paired with an added answer key, "explained" four checks that saw
    the count pinned at 1000, OBJ-2's; a re-worded refusal a check files under RTE-3 stays the
    re-wording's)."""
    failing = [t for t in rv.tests if t.status in ("failed", "error")]
    held = {*cause.records, *cause.explains}
    if not failing or not all(t.contradicted and not set(t.contradicted) & held for t in failing):
        return False
    theirs = cause.evidence
    first = theirs.differences[0] if theirs is not None and theirs.differences else ""
    return not (first and _told_by_its_checks(rv, first))


def _own_words(message: str) -> str:
    """A check's message up to the first answer it quotes whole (`the answer { "…`, `isError { "…`): the
    answer shows every change of the server, the words before it the check's own failure."""
    start = _sent_first(message)
    found = re.search(r"\{\s*\"", message[start:])
    return message[: start + found.start()] if found else message


def _sent_first(message: str) -> int:
    """Where a check's words begin after the request it quotes first (`{"thought": …}, a call the
    description's rules advise against, was refused …`): the request it sent is no answer showing the
    server's changes (issue 42: timed sessions' BAP-1 said the “Session closed” refusal after it); 0 when
    the message does not open with a JSON object followed by words."""
    if not message.startswith("{"):
        return 0
    try:
        _, end = json.JSONDecoder().raw_decode(message)
    except ValueError:
        return 0
    return end if message[end:].strip() else 0


def _family(difference: str) -> str:
    """A difference's key, every refusal of one field (or in one set of words, when it names none) one
    family (refused on either side, another field named first, other words): which one a change shows
    depends on the call, not on the change; which field is refused does not."""
    if _reworded(difference):
        return "refusal re-worded"
    key = _difference_key(difference)
    if key.startswith(("refused", _ANOTHER_FIRST, "both refuse")):
        respelled = ", read respelled" if f"({RESPELLED}," in difference else ""
        return f"refusal of {_refused_what(difference) or 'a call'}{respelled}"
    return key


def _call_class(at: str) -> str:
    """The kind of request a pair differs on (`tools/call`, `tools/list`, `initialize`, the process)."""
    found = re.search(r"(tools/call|tools/list|initialize|stderr|last frame)", at)
    return found.group(1) if found else at


def _difference_key(difference: str) -> str:
    """What a difference is about: which side refuses, the field both refusals name, or the field that
    differs (its last key)."""
    if difference.startswith("the original refuses this call"):
        return "refused by the original"
    if difference.startswith("the original accepts this call"):
        return "refused here"
    if difference.startswith("both refuse, naming"):
        return _ANOTHER_FIRST
    if difference.startswith((UNASKED, "both refuse in the same words")):
        return difference  # the message, or the refusal, itself: its words are no field's path
    reworded = re.match(r"the refusal(?: of `(\w+)`)? is re-worded", difference)
    if reworded:
        return f"re-worded {reworded.group(1) or ''}".strip()
    if _unknown_tool(difference):  # the unknown-tool refusal in other words: the refusal of a `name`
        return "re-worded name"
    path = difference.partition(": ")[0]
    if path == "stderr":  # the box, or outside it (the banner): two changes, never one key
        return stderr_part(difference)
    last = path.rsplit(" → ", 1)[-1].rsplit(".", 1)[-1]
    return re.sub(r"\[\d+\]", "", last)


def refused_field(difference: str) -> str:
    """The field a refusal difference names (`naming `X``, `the refusal of `X``), empty for any other."""
    found = re.search(r"(?:naming|refusal of|both refuse, naming) `(\w+)`", difference)
    return found.group(1) if found else ""


def refused_in(message: str) -> str:
    """The field a check's failure saw refused: the refusal in the answer it quotes (read as `explain` reads
    it), "the original refuses this call (F)", else the first field its words name."""
    own = re.search(r"the original refuses this call \((\w+)\)", message)
    if own:
        return own.group(1)
    quoted = re.search(r'\{"(?:result|jsonrpc|error)"', message)
    if quoted:
        try:
            value, _ = json.JSONDecoder().raw_decode(message, quoted.start())
        except ValueError:
            value = None
        refused = refusal(value) if isinstance(value, dict) else None
        if refused is not None and refused.field:
            return refused.field
    return field_named(message)


_ANOTHER_FIRST: Final = "another field refused first"
"""Two refusals naming other fields: a rule added or checks reordered, which one pair cannot tell."""
_REFUSAL_KEYS: Final = ("refused by the original", "refused here", _ANOTHER_FIRST)
_BOX_WORDS: Final = re.compile(r"\b(?:box|boxes|render\w*|rows?|drawn|border|header|caption)\b")
"""A check speaking of the box. Not "line" ("Expecting value: line 1 column 1", a JSON error's words)."""
_BANNER_WORDS: Final = re.compile(r"\bbanner\b|before any request")
_BOX_DRAWN: Final = re.compile(r"[─│┌┐└┘├┤]")
"""The box's drawing characters: a check quoting a line of the box quotes one of them."""


def _about_stderr(message: str) -> bool:
    """Whether a check's words, outside what it quotes, say it saw stderr (`stderr holds more than the banner
    and one box per accepted call: “… Error processing thought: Invalid thought: …”`): the refusal it quotes
    is a line a fork logs, its own change, not the answer's (issue 42: fork-readable-output's LOOP-A went
    under the re-worded refusal's cause)."""
    return bool(re.search(r"\bstderr\b", re.sub(r"“[^”]*”?", "", message), re.IGNORECASE))


_UNASKED_SEEN: Final = re.compile(r"\b(?:request|notification|message)s? of its own\b", re.IGNORECASE)
"""The suite's words for a message the server sent unasked (suite/contradiction.py, LOOP-A's checks)."""


def _about_unasked(message: str) -> bool:
    """Whether a check's own words (outside what it quotes) say it saw the server send a request or a
    notification of its own: what it saw landed beside a request, not in an answer, so a refusal the same
    sequence met first is another change (held-out-multi-13's client-protocol: LOOP-A's progress
    notification went under the -32602 refusal its replay met at an earlier call)."""
    return bool(_UNASKED_SEEN.search(re.sub(r"“[^”]*”?", "", _own_words(message))))


def _protocol_refusals(key: str) -> bool:
    """Two refusals in other words, both JSON-RPC errors (`… (and as JSON-RPC error -32601 on the original,
    JSON-RPC error -32602 here)`): a request the protocol refused on each side, no tool call's words."""
    return key.startswith("both refuse this call, in other words (and as JSON-RPC error") and bool(
        re.search(r"JSON-RPC error -?\d+ here", key))


def _tells(difference: str, message: str, *, strict: bool = False) -> bool:
    """Whether a pair's difference is what a record's failing check said it saw: the same refused field
    (or a refusal at all, when the check names none), the same field, the box for a box. An answer of another
    kind, a process ended, or a count of answers is any check's, unless `strict` (a record placed under a
    cause by its check's words alone: its words must say the difference, not merely fail beside it)."""
    named = refused_in(message)
    message = _own_words(message)  # the check's own words, not an answer it quotes whole (`{ "…` too)
    low = message.lower()
    key = _difference_key(difference)
    if key not in (STDERR_BOX, STDERR_OUTSIDE) and _about_stderr(message):
        return False  # what it quotes is what stderr held: a refusal logged there is not the answer's
    if not difference.startswith(UNASKED) and _about_unasked(message):
        return False  # a message it saw sent unasked is no answer's difference, a refusal's among them
    # Words the difference quotes (a refusal's, a changed line's, its marks dropped) that the check quotes
    # too are the surest sign it saw this difference (OBJ-12 quotes the description lines it read).
    quoted = (re.sub(r"[\[\]]", "", words).rstrip("… ") for words in re.findall(r"“([^”]{8,})", difference))
    if any(len(words) >= 8 and words[:24] in message for words in quoted):
        return True
    if _value_quoted(difference, message):
        return True
    # Two JSON-RPC errors in other words (a request refused by the protocol, not the tool's words) are a
    # refusal's difference too: only a check speaking of a refusal saw it, not one that failed beside it on
    # another request (ABS-2's read of a listed resource quoting the stored thought was paired with the
    # guessed `thought://1` refused in other words, “Method not found” / “Unknown resource: thought://1”).
    if key in _REFUSAL_KEYS or key.startswith("re-worded") or _protocol_refusals(key):
        field = refused_field(difference) or (key.split(" ", 1)[1] if key.startswith("re-worded ") else "")
        words = re.search(r"“([^”]+)", difference)
        field = field or (field_named(words.group(1)) if words else "")  # “Invalid thoughtNumber: …”
        if field and named:
            return field == named
        if field:
            # Strict: a field's name is no sign the check saw a call refused or accepted (“Chain of Thought”
            # in a description check is not `thought` refused: chinng-py's CLM-1, BAP-1 under RTE-3/a1).
            return field.lower() in low and (not strict or bool(_SAW_CALL_JUDGED.search(low)))
        # A refusal naming no field (a cap's "Maximum number of branches (50) exceeded"): only a check that
        # speaks of a refusal; not "accepted", nor "rejected call changed the store", which are a count's.
        return bool(re.search(r"\brefus|iserror|not found|no handler|-32601", low))
    if SAME_JSON in difference:  # equal JSON laid out otherwise: a check speaking of its order or layout
        return bool(_LAYOUT_WORDS.search(low))
    if key == STDERR_OUTSIDE:  # the banner, a log line: a check about the banner, not the box's
        return bool(_BANNER_WORDS.search(low))
    if key == STDERR_BOX:
        if _BANNER_WORDS.search(low) and not _BOX_DRAWN.search(message):
            return False  # more than the banner and the boxes (a logged line it quotes): outside the box
        return bool(_BOX_WORDS.search(low) or ("stderr" in low and not _BANNER_WORDS.search(low)))
    path = difference.partition(": ")[0]
    if path in ("result", "error", LIFE, NO_ANSWER) or " " in path.replace(" → ", ""):
        return not strict  # an answer of another kind, a process ended, a count of answers: any check's
    if _lacks_what_was_added(difference, message):
        return False
    holder = _key_added_under(difference)
    if holder and re.search(rf"\b\d+ {re.escape(holder.lower())}\b", low):
        return True  # a check counting the keys of the object one was added to or dropped from
    # A field is named by the check's words, not by a text it quotes (“💭 Thought 30/30 ✔ verified”, what
    # stderr held, names no `verified` property: fork-verified-notebook's OBJ-13 was headed by the schema's),
    # in curly quotes or straight ones around words (stopuncle-js' BAP-1 quoting its description "… the
    # ability to create branches …" did not see OBJ-4's `branches` dropped from the answer).
    return bool(key) and key.lower() in _QUOTED_TEXT.sub("", low)


_NO_KEY: Final = re.compile(
    r"\bno (?:key '(?P<key>[^']+)' where the check read one|(?P<top>\w+) at the top level)")
"""A check's words for a key the answer lacks (calls/store.py, core/key_paths.py): held apart from a key
added."""
_ADDED_HERE: Final = ": absent on the original, "
_DROPPED_HERE: Final = " on the original, absent here"
"""A pair's words for a key this server's answer has and the original's lacks (core/differences)."""
_QUOTED_TEXT: Final = re.compile(r"“[^”]*”?|(?<![^\s(])\"[^\"\n]*\s[^\"\n]*(?:\"|$)")
"""A text a check quotes: anything in curly quotes, or words (a space among them) in straight ones opened
after a space or a parenthesis (not the gap between two JSON strings, `": [ "`, which a quoted answer's keys
surround); a quoted name alone (`"branches"`) is the check's own word for a field."""


def _key_added_under(difference: str) -> str:
    """The object a key was added to or dropped from (`….inputSchema.properties.verified: absent on the
    original, {…} here` → properties), empty for any other difference: a check counting that object's keys
    (“the inputSchema has 10 properties, not 9”) saw this very difference (issue 42, fork-verified-notebook:
    CLM-7 opened a cause of its own beside CMP-2, the property it counted)."""
    path, _, said = difference.partition(": ")
    if not (said.startswith("absent on the original, ") or said.endswith(" on the original, absent here")):
        return ""
    parts = re.sub(r"\[\d+\]", "", path.rsplit(" → ", 1)[-1]).split(".")
    return parts[-2] if len(parts) >= 2 else ""


_LAYOUT_WORDS: Final = re.compile(r"\border\b|\bindent|\blayout|whitespace|\bspacing|\bwritten\b|\bformat")
"""A check's words about how an answer is laid out, not what it holds (fork-readable-output: keys sorted)."""
_HERE_VALUE: Final = re.compile(r" on the original, (?P<value>.+) here$")


def _value_quoted(difference: str, message: str) -> bool:
    """Whether a check's own words quote the value this server gave where a field differs (an object where
    the original lists a string: `{"id": "zeta", "thoughts": 1}`, which a check prints as Python does,
    `{'id': 'zeta', 'thoughts': 1}`): it saw that very value, whatever it calls the field ("non-string
    branch label" for `branches`)."""
    found = _HERE_VALUE.search(difference)
    value = found.group("value").strip("“”") if found else ""
    if len(value) < 8:
        return False
    return value.replace('"', "'")[:60] in message.replace('"', "'")


def its_failure(rv: RecordVerdict, evidence: Evidence) -> Evidence:
    """The pair as the record's line only where it differs where the record's checks failed: a sequence
    replayed on fresh processes shows the server's other changes too (an added answer key, a rewritten
    description), and a record whose check saw its history pinned at a cap is not shown an added key
    (reports/third-party/AUDIT.md). The first difference that tells the failure leads; none does, the pair
    is kept, marked `not_its_failure`, and the record's line is its check's own words."""
    if not evidence.reproduced or not evidence.differences:
        return evidence
    if departs_past(rv.model_copy(update={"evidence": evidence})):
        # Its checks met another change's refusal first; its pair past that refusal is its own failure.
        return evidence.model_copy(update={"not_its_failure": False})
    checks = _failing_checks(rv)
    if not checks:  # the check's words say nothing to hold the pair against: the pair is all there is (its
        # statement quoted only where a clause shares a word with what differs: `breaks`)
        return evidence
    said = [m for _, m in checks]
    # A check reading a tool's answer, or counting its fields, tells nothing of a tool listing's pair,
    # whatever property name both hold (held-out-multi-18's tagged-journal: “the answer reads tags …”).
    telling = [m for m in said if not (_a_listing(evidence) and (ANSWER_READS in m or keys_added(m)))]
    told = [d for d in evidence.differences if any(_tells(d, m) for m in telling)]
    if _other_kind_of_call(said, evidence.original, evidence.target):
        told = []
    if not told:
        return evidence.model_copy(update={"not_its_failure": True, "breaks": ""})
    refused = next((d for d in evidence.differences if d.startswith(_ONE_REFUSES)), None)
    if refused is not None and told[0] != refused and _difference_key(told[0]) == STDERR_BOX:
        # One side refused the call, the other drew its box: the box missing (or drawn) is the refusal's
        # consequence, and the refusal is the difference (issue 42: CMP-5 "0 lines here where the original
        # has 6" headed a cause for a call the fork refused).
        told = [refused, *(d for d in told if d != refused)]
    # The record's statement is quoted only for the very difference its own check failed on, and only when
    # that check does not put the failure on another record (a refusal seen by the status object's check is
    # RTE-3's contradiction, not "exactly five fields": issue 42).
    tellers = [t for t, m in checks if _tells(told[0], m)]
    elsewhere = all(t.contradicted and rv.id not in t.contradicted for t in tellers)
    quote = "" if elsewhere or not rv.statement else breaks(rv.statement, [told[0]])
    rest = [d for d in evidence.differences if d != told[0]]
    return evidence.model_copy(update={"differences": [told[0], *rest], "breaks": quote,
                                       "not_its_failure": False})


_SIGNAL: Final = re.compile(r"\bSIG[A-Z]{2,5}\b")
_STDIN_END: Final = re.compile(
    r"\b(?:after|once|when) (?:its )?stdin (?:ended|closed|was closed)|\bend of stdin\b"
    r"|\bstdin ended before any initialize\b")
"""The words of a failure read after its check ended the process's stdin: read only for a report from an older
harness, whose tests carry no `ends_a_process` (`_ended_by`)."""
WATCHED: Final = ("its checks watch the process or read the installed files and kept no call sequence to "
                  "replay: what they found is said in their own words")


def _ended_by(test: TestRef) -> str:
    """How a failing check had ended the process when its failure was read: `stdin`, the signal it sent
    (`SIGTERM`), or empty. The suite marks it (`ends_a_process`, suite/contradiction.after_the_end); a report
    from an older harness has no mark, and its failure's words are read instead (a signal's name, or the
    words of a stdin ended: `_STDIN_END`)."""
    if test.ends_a_process is not None:
        return test.ends_a_process
    message = readable(test.message)
    signal = _SIGNAL.search(message)
    return signal.group(0) if signal else "stdin" if _STDIN_END.search(message) else ""


def unreplayable(rv: RecordVerdict | None) -> str:
    """Why no replay of requests can reproduce a record's failure, empty when one can: every failing check
    of it signals the process (SIGTERM, SIGHUP), ends its stdin or closes its stdout and reads what follows,
    which a replay (requests on stdin, the process watched while they stay open, then stopped) never does.
    Saying "not reproduced" after replaying it would be false (issue 42: fork-disk-journal's RTE-10,
    held-out-multi-3's fork-readable-logs; held-out-11's stdout-errors-ignored, whose unconfirmed departure
    passed the gate). Read by the kind each failure carries (`_ended_by`), not its words."""
    if rv is None:
        return ""
    failing = [t for t in rv.tests if t.status in ("failed", "error") and t.message]
    if failing and all(readable(t.message).startswith(FILES_WRITTEN) for t in failing):
        # A replay compares answers and stderr on processes it stops: the files a check found written (a
        # log of long thoughts) are no difference it can show, so "not reproduced" would be false (issue 42).
        return ("not replayed: its check reads the files the server's processes wrote, which a replay of "
                "requests does not watch")
    unasked = _answered_no_request([readable(t.message) for t in failing])
    if unasked:
        return unasked
    if failing and all(t.left_idle is not None for t in failing):
        return ("not replayed: its check leaves the process idle and watches what it does meanwhile, which a "
                "replay of requests never does; the idle witness holds fresh processes idle instead")
    ended = [_ended_by(t) for t in failing]
    if not ended:
        return ""
    if all(how.startswith("SIG") for how in ended):
        return (f"not replayed: its check sends {', '.join(dict.fromkeys(ended))} to the process, which a "
                "replay of requests never does")
    if all(how == "stdout" for how in ended):
        return ("not replayed: its check closes the process's stdout and watches what follows, which a "
                "replay of requests never does")
    if all(ended):
        return ("not replayed: its check ends the process's stdin and reads what follows, which a replay of "
                "requests never does")
    return ""


_NULL_ANSWERED: Final = re.compile(r"^responses to the ids (?:[^\n]*?, )?null(?:, null)*, where each of ")
_PARSE_ERROR: Final = re.compile(r'"id":\s*null,\s*"error":\s*\{\s*"code":\s*-32700\b')


def _answered_no_request(messages: Sequence[str]) -> str:
    """Why no replay shows an answer under the id null (LOOP-A's check also writes a line that is not JSON and
    JSON that is no request, which only such an answer answers): a replay sends requests only. Empty unless
    every failing check saw such an answer."""
    if not messages or not all(_NULL_ANSWERED.search(m) for m in messages):
        return ""
    if all(_PARSE_ERROR.search(m) for m in messages):
        return ("not replayable: no replay sends a line that is not JSON, which is what the parse error "
                "(-32700) answers")
    return ("not replayable: the answer under the id null answers a line that is no request, which no replay "
            "sends")


def _evidenced(cause: RootCause, report: Report, replays: _Replays) -> RootCause:
    tried: list[str] = []
    spent: list[str] = []
    differed = False
    elsewhere: tuple[list[str], str, Evidence] | None = None
    about = _about(cause.records)
    signalled = unreplayable(next((rv for rv in report.records if rv.id == cause.records[0]), None))
    if signalled:
        evidence = Evidence(reproduced=False, original_spec=replays.original.spec, own_failure=True,
                            why=f"{signalled}: what it found is said in its own words")
        return cause.model_copy(update={"example": [], "evidence": evidence})
    candidates = _candidates(cause, report)
    primary = next((rv for rv in report.records if rv.id == cause.records[0]), None)
    for test, frames in candidates:
        replayed = replays.get(frames, CAUSE_REPLAYS)
        if replayed is None:  # past the budget: a sequence an earlier cause replayed is still weighed
            # Named by what it checks: a node id stays in report.json (issue 42).
            spent.append(check_name(test) if "::" in test else (test or "the example"))
            continue
        theirs, ours = replayed
        if isinstance(theirs, str):
            tried.append(f"the original could not replay it ({theirs})")
            continue
        if isinstance(ours, str):
            tried.append(f"this server broke off ({ours})")
            continue
        found = _compared(theirs, ours, about, spec_by_field=test == OPENING_SOURCE)
        if found is None and primary is not None:
            # A difference its failing checks say they saw, in words its statement does not use (prose
            # before the JSON: "text", "object"), is this cause's all the same (held-out-multi-16's
            # host-hints: OBJ-4 "not reproduced" though every fresh accepted call showed it).
            found = _told_at(theirs, ours, about, primary, test == OPENING_SOURCE)
        if found is None:
            source = check_name(test) if test else "the example"
            if primary is not None and _compared(theirs, ours, about, fall_back=True,
                                                 spec_by_field=test == OPENING_SOURCE) is not None:
                tried.append(f"{len(frames)} frames from {source}: they differ, but in nothing its records "
                             "or its checks' words name")
                differed = True
            else:
                tried.append(f"{len(frames)} frames from {source}: no difference of this cause's")
            continue
        own = test == (cause.test or "") and frames == list(cause.example)
        lead = ("the failing test's own sequence did not reproduce on fresh processes" if cause.example
                else "the failing test kept no sequence to replay")
        why = "" if own else f"{lead}; this one does ({check_name(test) if '::' in test else test})"
        evidence = _pair(found, theirs, ours, primary.statement if primary else "", replays.original.spec)
        evidence = evidence.model_copy(update={"why": why})
        at = found[0]
        if primary is not None:
            # The cause's headline is its pair only where the pair differs where its checks failed: a
            # fork's 50-branch cap is not its 1000-item history cap (nalyk-ts, AUDIT.md).
            evidence = its_failure(primary, evidence)
            told = (_told_at(theirs, ours, about, primary, test == OPENING_SOURCE)
                    if evidence.not_its_failure else None)
            if told is not None:  # a later request of the same sequence shows what its checks saw
                at = told[0]
                evidence = its_failure(primary, _pair(told, theirs, ours, primary.statement,
                                                      replays.original.spec)).model_copy(update={"why": why})
        if evidence.not_its_failure:
            differs = (f"no sequence showed its checks' failure on fresh processes; "
                       f"{check_name(test) if '::' in test else test or 'its example'} differ only elsewhere")
            elsewhere = elsewhere or (frames, test, evidence.model_copy(update={"why": differs}))
            source = check_name(test) if "::" in test else test or "the example"
            tried.append(f"{len(frames)} frames from {source}: another change of this server's shows there, "
                         "not this cause's")
            continue
        evidence = _retested(evidence, frames, found[0], replays, fresh=True)
        pair = pair_headline(evidence)
        ruled = replays.rules.headline(evidence, call_arguments(theirs[at - 1].sent))
        if ruled is not None:  # a rule between two fields, said as the rule (`compare` finds it alike)
            pair = ruled
        elif pair:  # the one argument the differing call adds to a call refused alike: what changed it
            pair = extra_beside([a.sent for a in theirs], [(a.response, b.response) for a, b in zip(
                theirs, ours, strict=False)], at) + pair
        summary = f"{', '.join(cause.records)} departs — {pair}" if pair else cause.summary
        return cause.model_copy(update={"example": frames, "test": test or cause.test, "evidence": evidence,
                                         "summary": summary[:400]})
    if elsewhere is not None:  # replayed, differing, but never where its checks failed: its own words lead
        frames, test, evidence = elsewhere
        return cause.model_copy(update={"example": frames, "test": test or cause.test, "evidence": evidence})
    budget = (f"not replayed, the report's replay budget spent on earlier causes: {', '.join(spent)}"
              if spent else "")
    if not tried:  # nothing was replayed for it: not a finding about state or timing (issue 43)
        evidence = Evidence(reproduced=False, original_spec=replays.original.spec, why=budget,
                            not_replayed=budget)
        return cause.model_copy(update={"example": [], "evidence": evidence})
    if not spent and all(test == OPENING_SOURCE for test, _ in candidates):
        # Only the fixed opening calls could be replayed: its checks kept no sequence (they watch the
        # process, read files). Those calls not showing it is no finding about state or timing (issue 42).
        evidence = Evidence(reproduced=False, original_spec=replays.original.spec, own_failure=True,
                            why=f"{WATCHED}; the fixed opening calls on a fresh process show no difference "
                            "of this cause's")
        return cause.model_copy(update={"example": [], "evidence": evidence})
    evidence = Evidence(
        reproduced=False, original_spec=replays.original.spec, not_replayed=budget,
        why="no sequence reproduced it on fresh processes ("
        + "; ".join([*tried, *([budget] if spent else [])])
        + ("): other changes of this server's show there, so what its checks saw may be behind them, or need "
           "state the shared process built up, or timing" if differed
           else "): it needs state the shared process built up, or timing"),
    )
    return cause.model_copy(update={"example": [], "evidence": evidence})


_RETESTABLE: Final = (
    "both refuse, naming other fields first", "the refusal of", "both refuse this call, in other words"
)
"""The sentences of two differing refusals the re-test may change: another field named first, other words."""


def _retested(
    evidence: Evidence, frames: Sequence[str], index: int, replays: _Replays, *, fresh: bool
) -> Evidence:
    """The pair's refusals re-tested before they are explained (`core/retest.py`, the re-test `compare`
    makes): "validation order" only when each side refuses the other's field, a field one side lets pass said
    so, a rule between numbered fields found at thought 3 of 3. With `fresh`, a root cause's lead pair (one
    re-test per cause); else only a pair already re-tested is said again (a record's line says its cause's
    sentence)."""
    at = next((i for i, d in enumerate(evidence.differences) if d.startswith(_RETESTABLE)), None)
    requests = [f for f in map(_frame, frames) if f is not None and isinstance(f.get("id"), int)]
    if at is None or index > len(requests) or requests[index - 1].get("method") != "tools/call":
        return evidence
    params = requests[index - 1].get("params")
    call = params.get("arguments") if isinstance(params, dict) else None
    try:
        ra, rb = refusal(json.loads(evidence.original)), refusal(json.loads(evidence.target))
    except ValueError:
        return evidence
    if ra is None or rb is None or not isinstance(call, dict):
        return evidence
    key = json.dumps([call, evidence.original, evidence.target], sort_keys=True)
    if key not in replays.retested:
        if not fresh:
            return evidence
        found = refusals_retested(call, ra, rb, replays.retests, "the original", "this server")
        replays.retested[key] = retest_said(found, ra, rb, "the original", "this server") if found else ""
    sentence = replays.retested[key]
    if not sentence:
        return evidence
    differences = [*evidence.differences[:at], sentence, *evidence.differences[at + 1:]]
    return evidence.model_copy(update={"differences": differences})


def _pair(found: tuple[int, list[str]], theirs: list[_Answer], ours: list[_Answer], statement: str,
          original: str) -> Evidence:
    """The reproduced pair: both answers to the first request that differs, and what differs there."""
    index, differences = found
    return Evidence(
        reproduced=True,
        breaks=breaks(statement, differences) if statement else "",
        at=_which(index, ours),
        differences=differences,
        original=theirs[index - 1].response if index <= len(theirs) else "",
        target=ours[index - 1].response if index <= len(ours) else "",
        original_spec=original,
    )


def _walk_order(report: Report, causes: Sequence[RootCause]
                ) -> tuple[dict[str, RootCause], list[RecordVerdict]]:
    """Each record's evidenced cause, and the departures in the order the walk evidences them: one order for
    the walk and for what `_foreseen` replays ahead of it. Those no reproduced cause speaks for come first,
    a departure the baseline accepts last."""
    by_record: dict[str, RootCause] = {}
    for cause in causes:
        if cause.evidence is not None:
            for record in [*cause.records, *cause.explains]:
                by_record.setdefault(record, cause)
    accepted = {e.record for e in report.gate.expected}

    def covered(rv: RecordVerdict) -> bool:
        cause = by_record.get(rv.id)
        return cause is not None and cause.evidence is not None and cause.evidence.reproduced

    # A specification record is judged against its revision's text, not the original: its departure's
    # message says what the requirement is and what came back, and the original's answer is no evidence.
    departing = [rv for rv in report.records if rv.verdict in ("deviates", "error") and rv.kind != "spec"]
    return by_record, sorted(departing, key=lambda rv: (rv.id in accepted, covered(rv)))


def _records_evidenced(report: Report, causes: Sequence[RootCause], replays: _Replays) -> list[RecordVerdict]:
    """Each departing record with its pair. Those whose own sequence is not yet replayed come first for the
    budget when no reproduced cause speaks for them, and a departure the baseline accepts comes last."""
    by_record, ordered = _walk_order(report, causes)
    own = {rv.id: frames for rv in ordered if (frames := _own_frames(rv, by_record.get(rv.id)))
           and not unreplayable(rv)}
    # Ahead: the sequences the walk asks for, in its order, within the budget; past it, a departure asks for
    # the fixed opening calls and, when new and they do not show it, its own sequence after all.
    within, past = replays.split(own.values())
    replays.prefetch(within)
    unlisted = {e.record for e in report.gate.unexpected}
    new = [(rv, frames) for rv in ordered if rv.id in unlisted and (frames := own.get(rv.id, ())) in past]
    if new:
        shown = _answered(replays.get(_opening_frames()))
        replays.prefetch(list(dict.fromkeys(
            frames for rv, frames in new
            if shown is None or _cheap_compared(*shown, _about([rv.id]), frames) is None))[:CONFIRM_REPLAYS])
    evidenced: dict[str, Evidence] = {}
    for rv in ordered:
        found = _record_evidence(rv, by_record.get(rv.id), replays)
        if found is not None:
            evidenced[rv.id] = its_failure(rv, found)
    # The gate's new departures whose own sequence the budget left out get it replayed after all, within
    # `CONFIRM_REPLAYS` more: "new" only once a fresh process confirms it; past that, still "not replayed".
    # So does one whose own sequence showed nothing and whose replay behind the opening calls, the one that
    # would confirm it, was left out: it decides the verdict where cheaper replays ran (CLM-4 seen once).
    unconfirmed = [rv for rv in ordered if rv.id in unlisted and rv.id in evidenced
                   and not evidenced[rv.id].reproduced
                   and (evidenced[rv.id].not_replayed or _behind(rv) in replays.left_out)]
    if unconfirmed:
        replays.cap = MAX_REPLAYS + CONFIRM_REPLAYS
        replays.prefetch(list(dict.fromkeys(
            frames for rv in unconfirmed
            if (frames := _own_frames(rv, by_record.get(rv.id)) if evidenced[rv.id].not_replayed
                else _behind(rv))))[:replays.left()])
        for rv in unconfirmed:
            found = _record_evidence(rv, by_record.get(rv.id), replays)
            if found is not None:
                evidenced[rv.id] = its_failure(rv, found)
    return [rv.model_copy(update={"evidence": evidenced[rv.id],
                                  "reason": _reliable(rv.reason, evidenced[rv.id])})
            if rv.id in evidenced else rv for rv in report.records]


def _behind(rv: RecordVerdict) -> tuple[str, ...]:
    """A departure's own example behind the fixed opening calls (`behind_opening`), as its evidence asks."""
    ce = rv.counterexample
    return tuple(behind_opening(list(ce.replay))) if ce is not None and ce.replay else ()


def _answered(replayed: _Replayed | None) -> tuple[list[_Answer], list[_Answer]] | None:
    """Both sides' answers, when both sides replayed the sequence."""
    if replayed is None or isinstance(replayed[0], str) or isinstance(replayed[1], str):
        return None
    return replayed[0], replayed[1]


def _own_frames(rv: RecordVerdict, cause: RootCause | None) -> tuple[str, ...]:
    """The sequence `_record_evidence` replays for `rv`: its own example unless it is its cause's (shared)."""
    ce = rv.counterexample
    frames = tuple(ce.replay) if ce is not None and ce.replay else ()
    if cause is not None and cause.evidence is not None and list(frames) == list(cause.example):
        return ()
    return frames


def _reliable(reason: str, evidence: Evidence) -> str:
    """A flaky example's reason (`RUN_AGAIN`) once its record's replay is known: "unreliable" only after
    fresh processes were tried and showed no difference at all (issue 43); "reproduced" once one showed its
    own failure (the shared process's state made the second run pass); short of either, what happened."""
    if not is_run_again(reason):
        return reason
    rest = after_run_again(reason)
    if evidence.no_difference and not evidence.reproduced:
        said = f"unreliable: {RUN_AGAIN}, and fresh processes of both sides showed no difference"
        return f"{said}: {rest}" if rest else said
    if not evidence.reproduced or evidence.not_its_failure:  # its own failure was not shown again
        return run_again(reason)
    said = "reproduced on fresh processes (its example on the shared process passed when run again)"
    return f"{rest} ({said})" if rest else said


def _shared(rv: RecordVerdict, cause: RootCause, note: Mapping[str, str]) -> Evidence | None:
    """The cause's pair, reused for one of its records (not replayed again), `note` saying why (`why`, and
    `not_replayed` past the budget): why-this-record only for the cause's own records, whose statement the
    difference contradicts."""
    if cause.evidence is None:
        return None
    statement_breaks = ""
    if cause.evidence.reproduced and rv.id in cause.records:
        statement_breaks = breaks(rv.statement, cause.evidence.differences)
    return cause.evidence.model_copy(update={
        "cause": cause.id, "example": list(cause.example), "breaks": statement_breaks, **note})


def _record_evidence(rv: RecordVerdict, cause: RootCause | None, replays: _Replays) -> Evidence | None:
    """The record's own pair, from its own example only: a record is never shown another record's pair.
    Without a call sequence of its own (its checks read the installed files, or watch the process), its
    own failure is its evidence; past the budget, it says so; its cause's replay is reused only when its
    example is that very sequence."""
    ce = rv.counterexample
    frames = list(ce.replay) if ce is not None and ce.replay else []
    if not frames:
        return Evidence(reproduced=False, original_spec=replays.original.spec, own_failure=True,
                        why="its checks read the installed files or watch the process and kept no call "
                        "sequence to replay: what they found is said in their own words below")
    signalled = unreplayable(rv)
    if signalled:
        return Evidence(reproduced=False, original_spec=replays.original.spec, own_failure=True,
                        why=f"{signalled}: what it found is said in its own words below", example=frames)
    if cause is not None and cause.evidence is not None and frames == list(cause.example):
        why = "its smallest example is this same sequence, replayed once for both"
        return _shared(rv, cause, {"why": why if cause.evidence.reproduced else cause.evidence.why})
    source = check_name(ce.test) if ce is not None else "its check"
    replayed = replays.get(frames)
    if replayed is None:
        spent = (f"its own sequence was not replayed: the report replays at most {MAX_REPLAYS} sequences "
                 "and they went to the root causes and earlier departures")
        again = replays.get(_opening_frames())  # cheap, outside the budget: a changed tool spec shows there
        if again is not None and isinstance(again[0], list) and isinstance(again[1], list):
            found = _cheap_compared(again[0], again[1], _about([rv.id]), frames)
            if found is not None:
                pair = _pair(found, again[0], again[1], rv.statement, replays.original.spec)
                return pair.model_copy(update={"example": _opening_frames(),
                                               "why": f"{spent}; {OPENING_SOURCE} reproduce it"})
        return Evidence(reproduced=False, original_spec=replays.original.spec, not_replayed=spent, why=spent,
                        example=frames)
    theirs, ours = replayed
    about = _about([rv.id])
    if isinstance(theirs, str):
        miss = f"the original could not replay it ({theirs})"
    elif isinstance(ours, str):
        miss = f"this server broke off ({ours})"
    else:
        found = _compared(theirs, ours, about, fall_back=True)
        if found is not None:
            pair = _pair(found, theirs, ours, rv.statement, replays.original.spec)
            if its_failure(rv, pair).not_its_failure:  # a later request may show what its checks saw
                told = _told_at(theirs, ours, about, rv)
                if told is not None:
                    found = told
                    pair = _pair(told, theirs, ours, rv.statement, replays.original.spec)
            pair = _retested(pair, frames, found[0], replays, fresh=False)
            return pair.model_copy(update={"example": frames})
        miss = f"{len(frames)} frames from {source}: no difference of this record's on fresh processes"
        opening = _opening_frames()
        again = (theirs, ours) if frames == opening else replays.get(opening)
        if again is not None and isinstance(again[0], list) and isinstance(again[1], list):
            found = (_compared(again[0], again[1], about, spec_by_field=True)
                     or _told_at(again[0], again[1], about, rv, True))
            if found is not None and frames != opening:
                pair = _pair(found, again[0], again[1], rv.statement, replays.original.spec)
                why = f"its own sequence did not reproduce ({miss}); {OPENING_SOURCE} do"
                return pair.model_copy(update={"example": opening, "why": why})
            miss += f"; nor {OPENING_SOURCE}"
            behind = behind_opening(frames)
            later = replays.get(behind) if behind else None
            if later is not None and isinstance(later[0], list) and isinstance(later[1], list):
                found = _compared(later[0], later[1], about) or _told_at(later[0], later[1], about, rv)
                if found is not None:
                    pair = _pair(found, later[0], later[1], rv.statement, replays.original.spec)
                    why = f"its own sequence did not reproduce ({miss}); {BEHIND_OPENING_SOURCE} do"
                    return pair.model_copy(update={"example": behind, "why": why})
                miss += f"; nor {BEHIND_OPENING_SOURCE}"
            left = bool(behind) and later is None  # not tried: no finding that fresh processes show nothing
            if left:
                miss += f"; {BEHIND_OPENING_SOURCE} not replayed, the report's replay budget spent"
            # Its own frames showed no difference at all (`fall_back`); the opening calls may still show the
            # fork's other changes, which the gate weighs as this departure's (gate/pinned.py).
            elsewhere = _keys_of(again[0], again[1])
            return Evidence(reproduced=False, original_spec=replays.original.spec, example=frames,
                            no_difference=not left and not elsewhere and not _keys_of(theirs, ours),
                            elsewhere=elsewhere,
                            why=f"{miss}: it needs state the shared process built up, or timing")
    return Evidence(reproduced=False, original_spec=replays.original.spec, example=frames,
                    why=f"{miss}: it needs state the shared process built up, or timing")


def headline(evidence: Evidence) -> str:
    """One line: what differs, where, and whether it reproduced."""
    if not evidence.reproduced:
        return "not reproduced on fresh processes"
    return f"{said_first(evidence)} ({evidence.at}; reproduced on fresh processes)"


def said_first(evidence: Evidence) -> str:
    return evidence.differences[0] if evidence.differences else ""



POISON_CALLS: Final = 40
"""The most calls tried, each followed by the probe call, on one pair of fresh processes, when departures
refused in a runtime error's words ask which earlier call poisoned the process (`led_by_the_poisoning`); one
pair more confirms the call found. At most `POISON_GROUPS` such groups a report: outside `MAX_REPLAYS`, whose
budget a red run has spent on its departures by then."""
POISON_GROUPS: Final = 2
_REFUSED_IN: Final = re.compile(r'isError “([^”]{4,300})”|"error":\s*"((?:[^"\\]|\\.){4,300})"')
"""A record line's refusal words: `isError “…”`, or the `"error"` of the answer it quotes."""


def _crash_refusal(line: str) -> str:
    """The words a record's line says its call was refused in, when they are a runtime error's (a crash's
    message, not a rule a server states), numbers masked; empty for any other line."""
    found = _REFUSED_IN.search(readable(line))
    words = refusal_words((found.group(1) or found.group(2)).replace("⏎", "\n")) if found else ""
    return re.sub(r"\d+", "N", words) if words and RUNTIME_ERROR.search(words) else ""


def _calls_tried(records: Sequence[RecordVerdict]) -> list[JSON]:
    """The tool calls the run's departing records replay (each once, in report order), then the fresh-process
    sequence's: the calls a check sent before others failed, among which the one that poisoned the process."""
    seen: dict[str, JSON] = {}
    frames = [f for rv in records if rv.verdict == "deviates" and rv.counterexample is not None
              for f in rv.counterexample.replay]
    for text in frames:
        frame = _frame(text)
        params = frame.get("params") if frame is not None and frame.get("method") == "tools/call" else None
        named = isinstance(params, dict) and params.get("name") == TOOL
        arguments = params.get("arguments") if named and isinstance(params, dict) else None
        if isinstance(arguments, dict):
            seen.setdefault(json.dumps(arguments, sort_keys=True), cast(JSON, arguments))
    for method, listed in FRESH_SEQUENCE:
        if method == "tools/call":
            seen.setdefault(json.dumps(listed, sort_keys=True), listed)
    return list(seen.values())[:POISON_CALLS]


def _each_then_probe(calls: Sequence[JSON]) -> list[str]:
    """initialize, then each call followed by the probe call, numbered in order."""
    compact = (",", ":")
    frames = _probe_frames()[:2]
    for i, arguments in enumerate(calls):
        for j, sent in enumerate((arguments, dict(PROBE_ARGUMENTS))):
            frames.append(json.dumps({"jsonrpc": "2.0", "id": 2 * i + j + 1, "method": "tools/call",
                                      "params": {"name": TOOL, "arguments": sent}}, separators=compact))
    return frames


def _poisoned_probe(theirs: list[_Answer], ours: list[_Answer], index: int, words: str) -> bool:
    """Whether the probe at `index` (0-based among the answers) is refused here in `words` (numbers masked)
    and accepted by the original."""
    if index >= len(theirs) or index >= len(ours):
        return False
    mine, original = _frame(ours[index].response), _frame(theirs[index].response)
    refused = refusal(cast(JSON, mine)) if mine is not None else None
    return (refused is not None and words in re.sub(r"\d+", "N", refused.words)
            and original is not None and refusal(cast(JSON, original)) is None)


def _poisoning_call(words: str, records: Sequence[RecordVerdict],
                    replays: _Replays) -> tuple[list[str], list[_Answer], list[_Answer]] | None:
    """The shortest sequence found that poisons a fresh process: one call, then the probe call refused in
    `words` where the original accepts it. Every call the run's departures replay is tried, each followed by
    the probe, on one pair of fresh processes; the call before the first probe so refused is confirmed alone
    on a second pair. None when no probe is refused so, or the call alone does not poison."""
    calls = _calls_tried(records)
    if not calls:
        return None
    theirs, ours = _replay_both(replays.original, replays.target, _each_then_probe(calls), replays.timeout)
    if isinstance(theirs, str) or isinstance(ours, str):
        return None
    # Answers: initialize, then call i at 1 + 2i and its probe at 2 + 2i.
    first = next((i for i in range(len(calls)) if _poisoned_probe(theirs, ours, 2 + 2 * i, words)), None)
    if first is None:
        return None
    frames = _each_then_probe([calls[first]])
    theirs, ours = _replay_both(replays.original, replays.target, frames, replays.timeout)
    if isinstance(theirs, str) or isinstance(ours, str) or not _poisoned_probe(theirs, ours, 2, words):
        return None
    return frames, theirs, ours


def led_by_the_poisoning(
    causes: Sequence[RootCause], records: Sequence[RecordVerdict], poisoning: Poisoning
) -> tuple[list[RootCause], list[RecordVerdict]]:
    """Departures refused in one runtime error's words, two or more, where the original accepts the call: a
    process one earlier call poisoned (every later call refused so). Their own examples fail only on a process
    that call reached first, so no pair of theirs shows it; the call is found by `poisoning`, and its sequence
    leads one cause that holds them all (issue 42, bartoszkula-ts: a branchId naming an Object.prototype
    member made every later call “branches[thought.branchId].push is not a function”, and its records were no
    cause, or other causes')."""
    departing = [rv for rv in records if rv.verdict == "deviates" and rv.kind != "spec"]
    groups: dict[str, list[RecordVerdict]] = {}
    for rv in departing:
        words = _crash_refusal(rv.reason)
        if words:
            groups.setdefault(words, []).append(rv)
    led = {c.records[0]: c for c in causes}
    out_causes, out = list(causes), list(records)
    tried = 0
    for words, members in groups.items():
        members = [rv for rv in members if rv.id not in led
                   or (led[rv.id].records == [rv.id] and not led[rv.id].explains)]
        if len(members) < 2 or tried >= POISON_GROUPS:
            continue
        tried += 1
        cause = poisoning(words, members, records)
        if cause is None:
            continue
        ids = {rv.id for rv in members}
        # A member leading a cause of its own alone (nothing else in it) is now this cause's.
        out_causes = [_without(c, ids) for c in out_causes
                      if not (c.records[0] in ids and c.records == [c.records[0]] and not c.explains)]
        out_causes.append(cause)
        moved = {r: cause.id for r in cause.explains}
        out = [rv.model_copy(update={"explained_by": moved.get(rv.id)}) if rv.id in moved or rv.id == cause.id
               else rv.model_copy(update={"explained_by": None}) if rv.explained_by in ids
               else rv for rv in out]
    return out_causes, out


def poisoning_replayed(replays: _Replays) -> Poisoning:
    """The poisoning call found by replay (`_poisoning_call`), its pair the cause's evidence, led by the
    member the most checks name."""
    def found(words: str, members: Sequence[RecordVerdict], records: Sequence[RecordVerdict]
              ) -> RootCause | None:
        call = _poisoning_call(words, records, replays)
        if call is None:
            return None
        frames, theirs, ours = call
        compared = _compared(theirs[2:3], ours[2:3], set(), fall_back=True)
        named = _named_counts(records, {rv.id for rv in members})
        lead = min(members, key=lambda rv: tuple(-n for n in named.get(rv.id, (0, 0.0))))
        sent = json.loads(frames[2])["params"]["arguments"]
        said_first = _poisoning_answered(refusal_words_of(theirs[1]), refusal_words_of(ours[1]))
        evidence = Evidence(
            reproduced=True, at="on the example's tools/call 2", example=frames, cause=lead.id,
            differences=compared[1] if compared is not None else [],
            original=theirs[2].response, target=ours[2].response, original_spec=replays.original.spec,
            why=f"the call {json.dumps(sent, ensure_ascii=False)[:200]} ({said_first}) {POISONS}")
        later = refusal_words_of(ours[2])
        summary = (f"{lead.id} departs — after one call with {_beyond_plain(sent)} ({said_first}), this "
                   f"server refuses every later call with “{later}”, where the original accepts them: that "
                   f"call {POISONS}")
        return RootCause(id=lead.id, records=[lead.id], summary=summary[:400], example=frames,
                         explains=[rv.id for rv in members if rv is not lead], evidence=evidence)
    return found


def poisoning_kept(kept: Sequence[RootCause]) -> Poisoning:
    """The poisoning cause a run found (its evidence's `why` ends in `POISONS`), for its report's causes
    chosen again without replaying: led by the same member, holding the members found now."""
    poisoned = [c for c in kept if c.evidence is not None and c.evidence.why.endswith(POISONS)]

    def found(words: str, members: Sequence[RecordVerdict], records: Sequence[RecordVerdict]
              ) -> RootCause | None:
        ids = [rv.id for rv in members]
        cause = next((c for c in poisoned if c.id in ids), None)
        return None if cause is None else cause.model_copy(
            update={"records": [cause.id], "explains": [r for r in ids if r != cause.id]})
    return found


POISONS: Final = "poisons the process"
"""How a poisoning cause's evidence ends its `why`: the mark a kept report's poisoning is found again by."""


def _without(cause: RootCause, ids: Set[str]) -> RootCause:
    """The cause without these records among those it explains or holds beside its leading one (its headline's
    list of records said again: "RTE-3, RTE-8 depart — …" becomes "RTE-3 departs — …")."""
    records = [r for r in cause.records if r == cause.records[0] or r not in ids]
    summary = cause.summary
    if records != cause.records:
        said = f"{', '.join(cause.records)} depart — "
        if summary.startswith(said):
            summary = (f"{', '.join(records)} {'departs' if len(records) == 1 else 'depart'} — "
                       f"{summary.removeprefix(said)}")
    return cause.model_copy(update={"records": records, "summary": summary,
                                    "explains": [r for r in cause.explains if r not in ids]})


def _beyond_plain(arguments: JSON) -> str:
    """A call's arguments past the four every call sends (`branchId "__proto__"`), else the whole call."""
    if not isinstance(arguments, dict):
        return json.dumps(arguments, ensure_ascii=False)[:160]
    plain = {"thought", "thoughtNumber", "totalThoughts", "nextThoughtNeeded"}
    extra = [f"{key} {json.dumps(value, ensure_ascii=False)[:80]}" for key, value in arguments.items()
             if key not in plain]
    return ", ".join(extra) if extra else json.dumps(arguments, ensure_ascii=False)[:160]


def _poisoning_answered(original: str, here: str) -> str:
    """How the poisoning call itself was answered, each side's refusal words (empty: accepted)."""
    if here and here == original:
        return f"which the original refuses alike, “{here}”"
    if here:
        return f"refused “{here}”" + (f", the original's words “{original}”" if original else
                                       ", where the original accepts it")
    return "accepted"


def refusal_words_of(answer: _Answer) -> str:
    """A refused answer's words (empty for an accepted one)."""
    refused = refusal(cast(JSON, _frame(answer.response)))
    return refused.words if refused is not None else ""

__all__ = ["ORIGINAL", "headline", "original_target", "said", "with_evidence"]
