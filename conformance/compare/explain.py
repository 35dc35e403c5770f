"""A comparison's root cause explained from the differences it groups: its headline and its table.

Nothing is picked from canned sentences. Each clause of a headline says what its differences show — which
side accepts or refuses what, for which fields and classes of value, how the answers read — and a claim
beyond that (a direction, "coerced", a count, an upstream change) is made only when
every difference it covers supports it; where they disagree, the clause says the evidence is mixed.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from conformance.calls.pages import DETAIL_PAGED, ONE_PAGE
from conformance.compare import after_calls
from conformance.compare.bounds import BOUND_CLASS, RETESTED
from conformance.compare.known_changes import KnownChanges
from conformance.compare.listing import describe_text, describe_tool, object_changes, quote
from conformance.compare.new_tools import DETAIL as DETAIL_CALLED
from conformance.compare.new_tools import clauses as called_clauses
from conformance.compare.new_tools import gists as called_gists
from conformance.compare.observe import AFTER_THE_BOX, MULTI_LINE_BOX, UNKNOWN_TOOL, type_class
from conformance.compare.probes import NO_STATE
from conformance.compare.programs import calls_in, valid
from conformance.compare.relations import RELATION_CLASS, RETEST_CLASS, UNCHECKED_CLASS
from conformance.compare.text_kinds import KIND_CLASS
from conformance.compare.two_fields import refusing_side
from conformance.compare.wording import (
    Edit,
    IssueChange,
    answer_object,
    describe_wording,
    issue_changes,
    issues,
    message,
    short,
    short_pair,
    text_issues,
    validation_order,
    wording_change,
)
from conformance.core.differences import (
    around_unchanged_box,
    box_difference,
    crash_order,
    crash_order_said,
    crash_reading,
    crashed,
    other_fields,
    quoted,
    refusal_in_text,
)
from conformance.core.jsontypes import JSON, Omitted
from conformance.core.protocol import PROBE_ARGUMENTS, TOOL
from conformance.core.retest import Retested
from conformance.core.retest import said as retest_said
from conformance.core.served import read_served
from conformance.core.words import WORDED_OTHERWISE, first_and_more
from conformance.report.model import CauseRow, Difference

MAX_LISTED: Final = 6
"""Fields named in one clause before the rest are counted."""
REQUIRED_DEFAULTS: Final[dict[str, JSON]] = {
    "thought": "a", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False,
}
"""The valid call every program starts from (`compare/programs.py`): an example shows what departs from it."""

CALL_ASPECTS: Final = frozenset({"is_error", "error_class", "answer", "store", "stderr"})


@dataclass(frozen=True)
class Explanation:
    headline: str
    rows: list[CauseRow]
    upstream: list[str]
    not_shrunk: str


def explain(members: Sequence[Difference], la: str, lb: str, known: KnownChanges) -> Explanation:
    """The headline, table, upstream matches and shrink note of one root cause's differences."""
    clauses = [c for c in _clauses(members, la, lb) if c]
    matches = known.matches(members)
    for change, fields in matches:
        total = len(change.signature.fields)
        clauses.append(f"behaves like upstream {change.id} ({len(fields)} of its {total} fields observed)")
    n = len(members)
    headline = "; ".join(clauses) + f" ({n} difference{'s' if n != 1 else ''})"
    if not headline.startswith((la, lb)):
        headline = headline[:1].upper() + headline[1:]
    rows = table(members, la, lb)
    return Explanation(headline, rows, [c.id for c, _ in matches], _not_shrunk(rows, members))


def shown_by(members: Sequence[Difference]) -> Difference:
    """The difference a cause's example replays: the smallest of those its headline speaks of first (the
    first kind of difference said), preferring a call that sends arguments carrying the field it names,
    so the example shows what the cause names (issue 47: "Mixed" once showed a call with no arguments)."""
    by: dict[str, list[Difference]] = {}
    for d in members:
        by.setdefault(_kind(d), []).append(d)
    first = next((by[kind] for kind, _ in _SAYERS if kind in by), list(members))

    def shows_field(d: Difference) -> bool:
        last = d.program[-1] if d.program else ""
        return '"arguments"' in last and (not d.field or f'"{d.field}"' in last)

    pool = [d for d in first if shows_field(d)] or first
    return min(pool, key=lambda d: (len(d.program), sum(map(len, d.program))))


# -- what each kind of difference says ---------------------------------------------------------------


def _clauses(members: Sequence[Difference], la: str, lb: str) -> list[str]:
    reset = _reset(members, la, lb) or after_calls.said(members, la, lb)
    if reset:
        return [reset]
    by: dict[str, list[Difference]] = {}
    for d in members:
        by.setdefault(_kind(d), []).append(d)
    out: list[str] = []
    for kind, say in _SAYERS:
        if kind in by:
            for group in _by_given(by.pop(kind)) if kind in _GIVEN_KINDS else [by.pop(kind)]:
                out.append(say(group, la, lb) or "; ".join(d.summary for d in group if d.summary))
    rest = [d for group in by.values() for d in group]
    if rest:
        out.append("; ".join(d.summary for d in rest))
    earlier = _earlier_calls(members)
    if earlier and out:  # the calls that built the state lead: the later call alone shows nothing
        out[0] = f"after {earlier} on the same process, {out[0]}"
    return out


_GIVEN_KINDS: Final = frozenset({"status", "store", "stderr"})
"""Kinds whose clause names the class of value sent (`_given`) and shows an example beside it."""


def _by_given(ds: list[Difference]) -> list[list[Difference]]:
    """Differences whose call sent a value of a named class apart from those whose call sent none: a clause
    naming the class showed an example taken from a call of no class (held-out-multi-16's plan-tracker:
    "with negative numbers for `thoughtNumber` … (e.g. `thoughtNumber` 1 on 0.6.2, 2 on …)", from a call
    sending 1), so each clause speaks of its own calls and shows one of them."""
    bent = [d for d in ds if d.suspect]
    plain = [d for d in ds if not d.suspect]
    return [bent, plain] if bent and plain else [ds]


EARLIER_NOTE: Final = "earlier call(s) on the same process, replayed before it"
"""The words a difference's summary carries when a fresh process shows it only after earlier calls."""
PROBE: Final[JSON] = dict(PROBE_ARGUMENTS)


def _earlier_calls(members: Sequence[Difference]) -> str:
    """The earlier calls every member needs before its own (each member's program carries them, each
    program of them led by the search's probe call), said as the first one's arguments; empty when none
    needs any."""
    if not members or not all(EARLIER_NOTE in d.summary for d in members):
        return ""
    calls = [a for a in map(_call_arguments, shown_by(members).program) if a is not None]
    probes = [i for i, a in enumerate(calls) if a == PROBE]
    if len(probes) < 2:
        return ""
    earlier = [a for a in calls[: probes[-1]] if a != PROBE]
    if not earlier:
        return ""
    last = earlier[-1]
    if isinstance(last, dict):  # the fields beyond a valid call's are what the call did
        own = {k: v for k, v in last.items() if k not in valid()}
        last = own or last
    more = f" and {len(earlier) - 1} more" if len(earlier) > 1 else ""
    return f"the call with {short(json.dumps(last, ensure_ascii=False), 90)}{more}"


def _call_arguments(frame: str) -> JSON | None:
    """A tools/call frame's arguments, else None."""
    value = _frame(frame)
    params = value.get("params")
    if value.get("method") != "tools/call" or not isinstance(params, dict):
        return None
    return params.get("arguments")


def _kind(d: Difference) -> str:
    if d.aspect == "answer":
        if d.detail == "error text":
            return "wording"
        if d.detail in ("added", "removed", "changed"):
            return "extra"
        return "status"
    if d.aspect in ("server_info", "capabilities", "protocol_version"):
        return "identity"
    if d.aspect in ("banner", "exit_status"):
        return "lifecycle"
    if d.aspect == "store" and d.detail == "long probe":
        return "probe"
    return d.aspect


def _acceptance(ds: list[Difference], la: str, lb: str) -> str:
    related = [d for d in ds
               if d.value_class.startswith((RELATION_CLASS + ":", BOUND_CLASS + ":", KIND_CLASS + ":"))]
    said = [_relation(group, la, lb) for group in _by_class(related)]
    unchecked = [d for d in ds if d.value_class == UNCHECKED_CLASS]
    said += [_unchecked(group, la, lb) for group in _by_class(unchecked)]
    rest = [d for d in ds if d not in related and d not in unchecked]
    if rest:
        said.append(_by_value(rest, la, lb))
    return "; ".join(s for s in said if s)


def _by_class(ds: Sequence[Difference]) -> list[list[Difference]]:
    groups: dict[tuple[str, str], list[Difference]] = {}
    for d in ds:
        groups.setdefault((d.value_class, d.detail), []).append(d)
    return list(groups.values())


def _relation(ds: list[Difference], la: str, lb: str) -> str:
    """A rule found by re-testing: a relation ("head refuses `revisesThought` ≥ `thoughtNumber` (…); base
    accepts it") or a bound on the field's own value, with the values re-tested ("head refuses
    `totalThoughts` below 1 (…), re-tested on fresh calls: 0.96875 refused, 1 and 1.5 accepted; …")."""
    rule, _, evidence = ds[0].value_class.partition(RETESTED)
    for prefix in (RELATION_CLASS, BOUND_CLASS, KIND_CLASS):
        rule = rule.removeprefix(prefix + ": ")
    retested = f", re-tested on fresh calls: {evidence}" if evidence else ""
    side = refusing_side(ds[0])
    refusing, accepting = (la, lb) if side == "a" else (lb, la)
    how = ""
    if ds[0].aspect == "error_class":
        kind = ds[0].detail.partition(" vs ")[2 if side == "b" else 0]
        how = f" with a {kind}"
    return f"{refusing} refuses {rule}{how}{_refusals(ds, side)}{retested}; {accepting} accepts it"


def _unchecked(ds: list[Difference], la: str, lb: str) -> str:
    """Fields one side never checks, found by sending `{}` for each (`core/retest.unchecked_retested`)."""
    refusing, accepting = (la, lb) if ds[0].detail == "refused by a" else (lb, la)
    fields = _field_list(sorted({d.field for d in ds}, key=_field_order))
    each = "each" if len({d.field for d in ds}) > 1 else "it"
    return (f"{accepting} does not check {fields} (re-tested on fresh calls: it accepts {{}} for {each}, "
            f"{refusing} refuses it)")


def _by_value(ds: list[Difference], la: str, lb: str) -> str:
    unflagged = [d for d in ds if _unflagged(d)]
    by_b = [d for d in ds if d.detail == "refused by a" and d not in unflagged]
    by_a = [d for d in ds if d.detail == "refused by b" and d not in unflagged]
    parts = [_unflagged_said(group, la, lb) for group in _by_class(unflagged)]
    if by_b:
        parts.append(f"{lb} accepts {_things(by_b)} that {la} refuses"
                     f"{_refusals(by_b, 'a')}{_echo(by_b, 'b')}")
    if by_a:
        parts.append(f"{la} accepts {_things(by_a)} that {lb} refuses"
                     f"{_refusals(by_a, 'b')}{_echo(by_a, 'a')}")
    if len(parts) > 1:
        return "mixed: " + ", while ".join(parts)
    return parts[0] if parts else ""


def _unflagged(d: Difference) -> str:
    """The refusal words an answer without isError carries, where the other side refuses the call with
    isError: the other side's own words, or a JSON `error`. Empty for an answer that accepts the call: "head
    accepts calls to another tool name" was said of head's “Unknown tool: …” without isError."""
    if d.aspect != "is_error" or d.detail not in ("refused by a", "refused by b"):
        return ""
    refused, answered = (d.a, d.b) if d.detail == "refused by a" else (d.b, d.a)
    words = message(answered)
    parsed = answer_object(answered)
    erring = parsed is not None and isinstance(parsed.get("error"), str)
    # A call to another tool name has no tool to accept: whatever content answers it is no acceptance.
    return words if words and (erring or words == message(refused) or _unknown_tool_call(d)) else ""


def _unknown_tool_call(d: Difference) -> bool:
    """Whether `d`'s call names a tool neither side lists (`observe.py`'s field `name`)."""
    return d.field == "name" and d.value_class == UNKNOWN_TOOL


def _unflagged_said(ds: list[Difference], la: str, lb: str) -> str:
    """Refusals one side answers without isError, said as such ("head answers calls to another tool name
    with “Unknown tool: x” as base does, but without isError: a host reads it as a result")."""
    refusing, answering = (la, lb) if ds[0].detail == "refused by a" else (lb, la)
    words = short(_unflagged(ds[0]), 70)
    same = all(message(d.a) == message(d.b) for d in ds)
    side = ds[0].detail.removeprefix("refused by ")
    if not same and all(_unknown_tool_call(d) for d in ds):
        return (f"{answering} answers {_things(ds)} with content and no isError, “{words}”, where {refusing} "
                f"refuses with isError{_refusals(ds, side)}: a host reads it as a result")
    told = f"as {refusing} does" if same else f"where {refusing} refuses with isError{_refusals(ds, side)}"
    return (f"{answering} answers {_things(ds)} with “{words}” {told}, but without isError: a host reads it "
            "as a result")


def _kinds(ds: list[Difference], la: str, lb: str) -> str:
    related = [d for d in ds if d.value_class.startswith(RELATION_CLASS + ":")]
    if related:  # a refusal in another form that a rule between two fields explains: said as the rule
        rest = [d for d in ds if d not in related]
        return "; ".join([*(_relation(group, la, lb) for group in _by_class(related)),
                          *([_kinds(rest, la, lb)] if rest else [])])
    pairs: dict[tuple[str, str], list[Difference]] = {}
    for d in ds:
        ka, _, kb = d.detail.partition(" vs ")
        pairs.setdefault((ka, kb), []).append(d)
    said = [f"{_things(group)}: {la} answers with a {ka}, {lb} with a {kb}"
            for (ka, kb), group in pairs.items()]
    return ("mixed: " if len(said) > 1 else "") + "; ".join(said)


def _wording(ds: list[Difference], la: str, lb: str) -> str:
    retested = [d for d in ds if d.value_class.startswith(RETEST_CLASS + ": ")]
    if retested:
        rest = [d for d in ds if d not in retested]
        return "; ".join([*(_retested(group, la, lb) for group in _by_class(retested)),
                          *([_wording(rest, la, lb)] if rest else [])])
    return _unretested(ds, la, lb)


def _retested(ds: list[Difference], la: str, lb: str) -> str:
    """Refusals whose re-test on fresh calls said what they are (`core/retest.py`: the same conclusion `run`'s
    evidence says): which field each side names first, then the conclusion."""
    kind, _, conclusion = ds[0].value_class.removeprefix(RETEST_CLASS + ": ").partition(": ")
    smallest = min(ds, key=_size)
    ra, rb = refusal_in_text(smallest.a), refusal_in_text(smallest.b)
    return _rule_before_crash(kind, conclusion) or retest_said(Retested(kind, conclusion, 0), ra, rb, la, lb)


_RULE_FIRST: Final = re.compile(
    r"^(?P<first>.+?) refuses first by a rule between numbered fields \((?P<rule>“[^”]*”)\) "
    r"where (?P<then>.+?) answers “(?P<crash>[^”]*)”; "
    r"(?P<settled>.+?) (?P=first) answers as (?P=then) does \((?P<how>[^)]*)\)$")


def _rule_before_crash(kind: str, conclusion: str) -> str:
    """A rule re-test whose other side crashed, said as a crash: "both refuse this call, in other words" read
    a runtime error as a refusal re-worded (#3007: a `branchId` naming a prototype key crashes base's store
    where head's new rule refuses the call first, and head crashes alike once the rule holds). Else empty."""
    found = _RULE_FIRST.match(conclusion) if kind == "rule" else None
    if found is None or not crashed(found["crash"]):
        return ""
    first, then = found["first"], found["then"]
    return (f"{first} refuses first by a rule between numbered fields ({found['rule']}) where {then} crashes "
            f"({quoted(found['crash'])}): no refusal re-worded; {found['settled']} {first} crashes as {then} "
            f"does ({found['how']})")


def _crash_order(ds: Sequence[Difference], la: str, lb: str) -> str:
    """Both sides crash reading a property of a missing value, each another one first: the same failure
    reached in another order, not a re-wording (PR #2812: base reads `thought`, head `thoughtNumber`)."""
    bare = all(last_call_arguments(d.program) is None for d in ds)  # the call sent no arguments (or null)
    subject = "calls without arguments" if bare else _things(ds)
    read = [crash_order(d.a, d.b) for d in ds]
    first = read[0]
    if first is not None and all(r is not None for r in read):
        return f"{subject}: {crash_order_said(first, la, lb)}"
    if bare and len(ds) == 1:
        # One side crashes reading a field of the missing arguments, the other refuses the call in words of
        # its own (PR #3007's zod: “Required”): said as such, not as a re-wording of one refusal.
        d = ds[0]
        wa, wb = message(d.a), message(d.b)
        for crashed, refused, crash_words, words in ((la, lb, wa, wb), (lb, la, wb, wa)):
            field = crash_reading(crash_words)
            if field and not crash_reading(words):
                return (f"{subject}: {crashed} crashes reading `{field}` of them ({quoted(crash_words)}) "
                        f"where {refused} refuses them ({quoted(words)})")
    return ""


def _crash_against_rule(d: Difference) -> str:
    """"a" or "b" when only that side's refusal of a call that sent arguments is a JavaScript runtime error's
    words and the other's a rule's; else empty."""
    if last_call_arguments(d.program) is None:
        return ""  # a call without arguments: `_crash_order` says it
    ca, cb = crashed(message(d.a)), crashed(message(d.b))
    return "a" if ca and not cb else "b" if cb and not ca else ""


def _bare_crash(d: Difference) -> bool:
    """A call without arguments that one side crashes on, reading a field of them, where the other refuses it
    in words of its own."""
    if last_call_arguments(d.program) is not None:
        return False
    ra, rb = crash_reading(message(d.a)), crash_reading(message(d.b))
    return bool(ra) != bool(rb)


def _crashes(ds: list[Difference], la: str, lb: str) -> str:
    """One side crashing on a value the other refuses in words that are no crash: no refusal re-worded (PRs
    #3001, #3002, #3007: base converts a `revisesThought` object to a primitive while drawing the box, head
    refuses it by its type). Which check the other side made is not claimed: its words may be its SDK's
    (PR #3084: an output-schema error replacing a refusal that lost `isError`)."""
    said: list[str] = []
    for side in ("a", "b"):
        group = [d for d in ds if _crash_against_rule(d) == side]
        if not group:
            continue
        crashing, refusing = (la, lb) if side == "a" else (lb, la)
        smallest = min(group, key=_size)
        crash = message(smallest.a if side == "a" else smallest.b)
        rule = message(smallest.b if side == "a" else smallest.a)
        by_field: dict[str, set[str]] = {}
        for d in group:
            by_field.setdefault(d.field or "a field", set()).add(d.value_class or "some value")
        given = _groups([f"`{name}` given as {_or([_article(c) for c in sorted(classes)])}"
                         for name, classes in sorted(by_field.items(), key=lambda kv: _field_order(kv[0]))])
        if OUTPUT_SCHEMA_REFUSAL.search(rule):
            said.append(f"{given}: {crashing} crashes ({quoted(crash)}) where {refusing}'s own answer never "
                        f"reaches the caller: it carried neither `isError` nor `structuredContent`, so "
                        f"{refusing}'s SDK refused it against its tool's outputSchema ({quoted(rule)})")
            continue
        said.append(f"{given}: {crashing} crashes ({quoted(crash)}) where {refusing} refuses "
                    f"({quoted(rule)}): no refusal re-worded")
    return "; ".join(said)


OUTPUT_SCHEMA_REFUSAL: Final = re.compile(r"output schema but no structured content", re.IGNORECASE)
"""The MCP SDK's words for a tool result declaring an outputSchema that is no error and has no
structuredContent: the server's own answer (a refusal that lost `isError`, upstream #3084) replaced."""


def _unretested(ds: list[Difference], la: str, lb: str) -> str:
    crashing = [d for d in ds if _crash_against_rule(d)]
    if crashing:
        rest = [d for d in ds if d not in crashing]
        return "; ".join([_crashes(crashing, la, lb), *([_unretested(rest, la, lb)] if rest else [])])
    bare = [d for d in ds if _bare_crash(d)] if len(ds) > 1 else []
    if bare:  # said each alone, as `_crash_order` says one: not a re-wording among the others' (PR #3014)
        rest = [d for d in ds if d not in bare]
        alone = [_crash_order([d], la, lb) for d in bare]
        return "; ".join([*([_unretested(rest, la, lb)] if rest else []), *alone])
    order = validation_order([(d.a, d.b) for d in ds])
    if order is not None:
        smallest = min(ds, key=_size)
        wa, wb = quoted(message(smallest.a)), quoted(message(smallest.b))
        # Not re-tested (core/retest.py could not tell): which rule came first is not claimed.
        return (f"refusals name other fields first — {la} `{order[0]}`, {lb} `{order[1]}` — another field "
                f"refused first, not re-worded (e.g. {wa} on {la}, {wb} on {lb})")
    crash = _crash_order(ds, la, lb)
    if crash:
        return crash
    if all(_renamed_in_crash(d) for d in ds):
        smallest = min(ds, key=_size)
        renamed = ", ".join(f"`{x}` on {la}, `{y}` on {lb}" for x, y in _renamed_in_crash(smallest))
        return (f"{_things(ds)}: both crash alike, the crash's words naming another variable ({renamed}): "
                f"{quoted(message(smallest.a))} on {la}, {quoted(message(smallest.b))} on {lb}: no refusal "
                "re-worded")
    issued = {d.id: found for d in ds if (found := issue_changes(d.a, d.b))}
    if len(issued) == len(ds):
        return _issue_wording(ds, issued, la, lb)
    fields = _field_list(sorted({d.field for d in ds if d.field}, key=_field_order))
    form = _form_change(ds, la, lb)
    if form:
        return f"schema refusals of {fields} are written otherwise: {form}"
    change = wording_change([(d.a, d.b) for d in ds])
    smallest = min(ds, key=_size)
    what = describe_wording(change, lb, (smallest.a, smallest.b), la)
    subject = f"refusals of {fields}" if fields else "refusals"
    return f"{subject}{WORDED_OTHERWISE}{la} and {lb}" + (f": {what}" if what else "")


_TOKEN: Final = re.compile(r"[A-Za-z_$][\w$]*|\d+|\S")


def _renamed_in_crash(d: Difference) -> list[tuple[str, str]]:
    """The identifiers two crashes' words differ in, when both are a runtime error's and differ in nothing
    else (#3014: “this.branches[validatedInput.branchId].push is not a function” against
    “this.branches[input.branchId].push …”: a variable renamed in the code, not a refusal re-worded)."""
    wa, wb = message(d.a), message(d.b)
    if wa == wb or not (crashed(wa) and crashed(wb)):
        return []
    ta, tb = _TOKEN.findall(wa), _TOKEN.findall(wb)
    if len(ta) != len(tb):
        return []
    apart = [(x, y) for x, y in zip(ta, tb, strict=True) if x != y]
    named = all(_TOKEN.fullmatch(t) and (t[0].isalpha() or t[0] in "_$") for pair in apart for t in pair)
    return list(dict.fromkeys(apart)) if named else []


def _form_change(ds: Sequence[Difference], la: str, lb: str) -> str:
    """When every refusal lists its issues as JSON on one side and as text on the other: which side does
    which, an example of the text, and how many of the JSON side's messages the text keeps."""
    for json_side, text_side, lj, lt in (("a", "b", la, lb), ("b", "a", lb, la)):
        pairs = [(issues(getattr(d, json_side)), text_issues(getattr(d, text_side))) for d in ds]
        if not all(j is not None and t is not None for j, t in pairs):
            continue
        kept = sum(1 for j, t in pairs if j is not None and t is not None
                   and all(any(str(i.get("message", "")) in line for line in t) for i in j[0].values()))
        example = min((t[0] for _, t in pairs if t), key=len)
        share = "all" if kept == len(pairs) else f"{kept} of {len(pairs)}"
        return (f"{lj} lists the issues as JSON objects (code, path, message), {lt} as text "
                f"(e.g. “{short(example, 70)}”), keeping the message of {share}")
    return ""


def _issue_wording(
    ds: list[Difference], issued: dict[str, list[IssueChange]], la: str, lb: str
) -> str:
    """Schema refusals on both sides: which fields' issues changed code, which were edited, and how."""
    codes: dict[tuple[str, str], dict[str, set[str]]] = {}
    edited: dict[tuple[Edit, ...], set[str]] = {}
    rewritten: set[str] = set()
    for d in ds:
        sent = last_call_arguments(d.program)
        for change in issued[d.id]:
            if change.code_a != change.code_b:
                value = sent.get(change.path, Omitted.OMIT) if isinstance(sent, dict) else Omitted.OMIT
                codes.setdefault((change.code_a, change.code_b), {}).setdefault(change.path, set()).add(
                    type_class(value))
            elif change.edits is None:
                rewritten.add(change.path)
            else:
                edited.setdefault(change.edits, set()).add(change.path)
    said: list[str] = []
    for (ca, cb), by_path in sorted(codes.items()):
        fields = _field_list(sorted(by_path, key=_field_order))
        classes = _or([_plural(c) for c in sorted({c for cs in by_path.values() for c in cs})])
        said.append(f"{fields} given as {classes}: {la} reports {_code(ca)}, {lb} {_code(cb)}")
    for edits, paths in sorted(edited.items(), key=lambda kv: (-len(kv[1]), str(kv[0]))):
        what = " and ".join(e.describe(lb) for e in edits)
        said.append(f"{what} in the issue of {_field_list(sorted(paths, key=_field_order))}")
    if rewritten:
        said.append(f"the issue of {_field_list(sorted(rewritten, key=_field_order))} is reworded")
    return f"schema refusals of the same calls differ: {'; '.join(said[:4])}" + (
        f"; {len(said) - 4} more (see the table)" if len(said) > 4 else "")


def _code(code: str) -> str:
    return "no issue" if code == "none" else f"`{code}`"


def _status(ds: list[Difference], la: str, lb: str) -> str:
    keys = sorted({k for d in ds for k in d.field.split("+") if k})
    moved = renamed_in(min(ds, key=_size)) if keys else []
    if moved:
        renamed = ", ".join(f"`{old}` → `{new}`" for old, new in moved)
        held = {k for pair in moved for k in pair}
        d = min(ds, key=_size)
        oa, ob = answer_object(d.a) or {}, answer_object(d.b) or {}
        rest = [k for k in keys if k not in held and oa.get(k) != ob.get(k)]
        beside = f"; otherwise in {_field_list(rest)} ({_values(ds, rest, la, lb)})" if rest else ""
        return f"accepted calls{_given(ds)} answer with keys renamed on {lb}, values alike: {renamed}{beside}"
    what = f"in {_field_list(keys)}" if keys else "in their text"
    return f"accepted calls{_given(ds)} answer otherwise {what} ({_values(ds, keys, la, lb)})"


def renamed_in(d: Difference) -> list[tuple[str, str]]:
    """Keys of A's answer that B's lacks, each beside the one key only B's has spelled alike (`thoughtNumber`,
    `thought_number`) with the same value: renamed, not dropped and added (issue 42, held-out-multi-11's
    toolkit-port: "answer otherwise in `branches`, `nextThoughtNeeded`, `next_thought_needed`, … (`branches`
    [] on 0.6.2, [] on …)")."""
    oa, ob = answer_object(d.a), answer_object(d.b)
    if oa is None or ob is None:
        return []
    gone = [k for k in oa if k not in ob]
    new = [k for k in ob if k not in oa]
    out: list[tuple[str, str]] = []
    for old in gone:
        alike = [k for k in new if not other_fields(old, k) and ob[k] == oa[old]]
        if len(alike) == 1:
            out.append((old, alike[0]))
    return out


def _extra(ds: list[Difference], la: str, lb: str) -> str:
    said: list[str] = []
    for detail, where in (("added", lb), ("removed", la)):
        keys = sorted({d.field for d in ds if d.detail == detail})
        if keys:
            said.append(f"accepted answers carry {_field_list(keys)} on {where} only")
    changed = sorted({d.field for d in ds if d.detail == "changed"})
    if changed:
        said.append(f"accepted answers carry a different {_field_list(changed)} on {la} and {lb}")
    return "; ".join(said)


def _store(ds: list[Difference], la: str, lb: str) -> str:
    smallest = min(ds, key=_size)
    wa, wb = short_pair(smallest.a, smallest.b, 60)
    return f"an accepted call{_given(ds)} changes the store otherwise ({la}: {wa}; {lb}: {wb})"


def _probe(ds: list[Difference], la: str, lb: str) -> str:
    """A long probe's store difference: what each side did to the quantity over many distinct accepted
    calls, the side that departs from growing first, and the smallest number of calls showing it."""
    said: list[str] = []
    for d in sorted(ds, key=lambda d: _field_order(d.field)):
        sides = [(la, d.a), (lb, d.b)]
        growing = [s for s in sides if s[1].startswith("keeps it growing")]
        if len(growing) == 1:
            sides.sort(key=lambda s: s in growing)
        first = calls_in(d.program)
        (x, what_x), (y, what_y) = sides
        said.append(f"`{d.field}` over one run of distinct accepted calls: {x} {what_x}; {y} {what_y}; "
                    f"they first differ after call {first}")
    return "; ".join(said)


def _reset(ds: Sequence[Difference], la: str, lb: str) -> str:
    """A side whose every call leaves the store as a first call leaves it (the long probes): said as the
    one change it is, with the store differences of short programs counted as following from it."""
    probes = [d for d in ds if _kind(d) == "probe" and NO_STATE in d.a + d.b]
    if not probes:
        return ""
    sides = {la if NO_STATE in d.a else lb for d in probes}
    if len(sides) != 1:
        return ""
    side = sides.pop()
    other = lb if side == la else la
    fields = _field_list(sorted({d.field for d in probes}, key=_field_order))
    calls = max(calls_in(d.program) for d in probes)
    rest = len(ds) - len(probes)
    plural = rest > 1
    follows = (f"; {rest} store difference{'s' if plural else ''} on short programs "
               f"follow{'' if plural else 's'} from it") if rest else ""
    return (f"{side} keeps no state between calls: every accepted call leaves {fields} at one, as a first "
            f"call on an empty store does, where {other} keeps {'them' if len(probes) > 1 else 'it'} growing "
            f"(they first differ after call {calls}){follows}")


def _stderr(ds: list[Difference], la: str, lb: str) -> str:
    """The box's change in words (width, header padding, rows), a multi-line thought's box said apart: it
    is its own witness, the one that shows how a thought's lines are drawn."""
    multi = [d for d in ds if d.detail == MULTI_LINE_BOX]
    plain = [d for d in ds if d not in multi]
    said = [_box_clause(plain, la, lb, "an accepted call")] if plain else []
    if multi:
        said.append(_box_clause(multi, la, lb, "a multi-line thought"))
    if len(said) == 2 and said[1] == said[0].replace("of an accepted call", "of a multi-line thought"):
        return said[0].replace("of an accepted call", "of every accepted call, one-line or multi-line")
    return "; ".join(said)


MAX_BOX_CHANGES: Final = 3
"""Distinct box changes one clause says (the rest are in the cause's table)."""


def _box_clause(ds: list[Difference], la: str, lb: str, what: str) -> str:
    silent = [side for side, texts in ((la, [d.a for d in ds]), (lb, [d.b for d in ds]))
              if all(not t.strip() for t in texts)]
    if len(silent) == 1:
        other = lb if silent[0] == la else la
        return f"{silent[0]} writes no stderr box for {what}{_given(ds)}, {other} does"
    # Each distinct change its boxes show, the smallest box's first: isolated right-to-left text in one box
    # and a width counted in columns in another are two changes, not one said and one hidden.
    said = list(dict.fromkeys(box for d in sorted(ds, key=_size)
                              if (box := box_difference(d.a, d.b, f"on {lb}", la))))[:MAX_BOX_CHANGES]
    around = list(dict.fromkeys(around_unchanged_box(d.a, d.b, lb, f"{what}{_given(ds)}")
                                for d in sorted(ds, key=_size)))
    if around and all(around):
        return "; and ".join(around[:MAX_BOX_CHANGES])
    if said:
        return f"the stderr box of {what}{_given(ds)} differs: {'; and '.join(said)}"
    fields = sorted({d.field for d in ds if d.field})
    if fields == [AFTER_THE_BOX]:
        # Lines written after the box (agiprolabs-ts' Redis notices): not a part "of" the box.
        return f"the stderr of {what}{_given(ds)} differs after the box on {la} and {lb}"
    where = _field_list(fields, code=False)
    return f"the stderr box of {what}{_given(ds)} differs at its {where or 'text'} on {la} and {lb}"


def _listing(ds: list[Difference], la: str, lb: str) -> str:
    """The listing's changes by name: tools added or dropped with their schemas, a listed key added or
    dropped with its value, texts as a line and word diff, schemas key by key (`listing.py`)."""
    said: list[str] = []
    for clause in (c for d in _listing_order(ds) for c in listing_clauses(d, la, lb, full=False)):
        head, _, rest = clause.partition(": ")
        # a schema split in parts (crossed) names its key once: "`inputSchema`: a; b", not "…: a; …: b"
        repeated = rest and head.startswith("the listed tool's `") and any(
            s.startswith(head + ": ") for s in said)
        said.append(rest if repeated else clause)
    return "; ".join(_called_folded(said, la, lb))


def _called_folded(said: list[str], la: str, lb: str) -> list[str]:
    """A called tool's clause folded into the clause that says the tool was added ("… adds the tool `x`
    (…), which, called after two thoughts, empties the history"): what it does stays in the headline's
    first clause, which a short page keeps when it cuts at clauses."""
    out = list(said)
    for clause in said:
        for label in (la, lb):
            head, sep, rest = clause.partition(f" (new on {label}), ")
            if not sep or not head.startswith("`") or not rest.startswith("called after"):
                continue
            added = next((i for i, c in enumerate(out) if c.startswith(f"{label}'s tools/list adds the tool "
                                                                       f"{head}")), None)
            if added is not None and clause in out:
                out[added] = f"{out[added]}, which, {rest}"
                out.remove(clause)
            break
    return out


def _listing_order(ds: Sequence[Difference]) -> list[Difference]:
    rank = {"names": 0, DETAIL_CALLED: 1, "changed": 2}
    return sorted(ds, key=lambda d: (rank.get(d.detail, 3), d.field))


def listing_clauses(d: Difference, la: str, lb: str, *, full: bool) -> list[str]:
    """One listing difference in words, a clause per change; `full` says every changed block of a text."""
    if d.detail == DETAIL_CALLED:
        return (called_clauses(d.a, d.b, la, lb) if full else called_gists(d.a, d.b, la, lb)) or [d.summary]
    if d.detail == DETAIL_PAGED:
        return [f"{label}'s {said}" for label, said in ((la, d.a), (lb, d.b)) if said != ONE_PAGE] + [
            f"{label} lists on {ONE_PAGE}" for label, said in ((la, d.a), (lb, d.b)) if said == ONE_PAGE]
    if d.detail == "names":
        ta, tb = _listed(d.a), _listed(d.b)
        if not isinstance(ta, list) or not isinstance(tb, list):
            return [f"tools/list offers other tools on {la} and {lb}"]
        by_a = {str(t.get("name")): t for t in ta if isinstance(t, dict)}
        by_b = {str(t.get("name")): t for t in tb if isinstance(t, dict)}
        said = [f"{lb}'s tools/list adds the tool {describe_tool(by_b[n])}" for n in by_b if n not in by_a]
        said += [f"{lb}'s tools/list drops the tool {describe_tool(by_a[n])}" for n in by_a if n not in by_b]
        return said or [f"tools/list offers other tools on {la} and {lb}"]
    if d.detail in ("added", "removed"):
        verb, value = ("adds", _listed(d.b)) if d.detail == "added" else ("drops", _listed(d.a))
        shown = f" ({quote(value) if isinstance(value, str) else _json(value)})" if value is not None else ""
        return [f"{lb}'s tools/list {verb} the tool's `{d.field}`{shown}"]
    va, vb = _listed(d.a), _listed(d.b)
    if isinstance(va, str) and isinstance(vb, str):
        words = describe_text(va, vb, lb, most=None if full else 3)
        return [f"the listed tool's `{d.field}`: {words}"]
    if va is not None and vb is not None:
        changes = object_changes(va, vb, lb)
        if changes:
            return [f"the listed tool's `{d.field}`: {changes[0]}", *changes[1:]]
    return [f"the listed tool's `{d.field}` differs between {la} and {lb}" + _at([d], la, lb)]


def _identity(ds: list[Difference], la: str, lb: str) -> str:
    said = []
    for d in ds:
        name = {"server_info": "serverInfo.", "capabilities": "capabilities."}.get(d.aspect, "")
        wa, wb = short_pair(d.a, d.b, 30)
        said.append(f"initialize: {name}{d.field} {wa} on {la}, {wb} on {lb}")
    return "; ".join(said)


def _lifecycle(ds: list[Difference], la: str, lb: str) -> str:
    said = []
    for d in ds:
        if d.aspect == "banner":
            said.append(f"the start-up banner on stderr differs between {la} and {lb}")
        else:
            wa, wb = short_pair(d.a, d.b, 30)
            said.append(f"on closed stdin {la} ends with {wa}, {lb} with {wb}")
    return "; ".join(said)


_SAYERS: Final[tuple[tuple[str, Callable[[list[Difference], str, str], str]], ...]] = (
    ("is_error", _acceptance),
    ("error_class", _kinds),
    ("probe", _probe),
    ("store", _store),
    ("status", _status),
    ("extra", _extra),
    ("wording", _wording),
    ("stderr", _stderr),
    ("tools_list", _listing),
    ("identity", _identity),
    ("lifecycle", _lifecycle),
)
# -- the pieces of a clause -------------------------------------------------------------------------------


_FIELD_ORDER: Final = ("thought", "thoughtNumber", "totalThoughts", "nextThoughtNeeded", "isRevision",
                       "revisesThought", "branchFromThought", "branchId", "needsMoreThoughts")


def _field_order(name: str) -> tuple[int, str]:
    return (_FIELD_ORDER.index(name) if name in _FIELD_ORDER else len(_FIELD_ORDER), name)


def _field_list(names: Sequence[str], *, code: bool = True) -> str:
    return first_and_more([f"`{n}`" if code else n for n in names], MAX_LISTED, last=" and ")


_PLURAL: Final = {"missing": "missing", "null": "null", "zero": "zero", "unknown tool": "unknown tool names"}


def _plural(value_class: str) -> str:
    if value_class in _PLURAL:
        return _PLURAL[value_class]
    if value_class.startswith("number"):
        return "numbers" + value_class.removeprefix("number")
    if value_class == "fraction":
        return "fractions"
    return value_class + "s"


def _article(value_class: str) -> str:
    if value_class in ("missing", "null", "zero"):
        return value_class
    return f"{'an' if value_class[:1] in 'aeiou' else 'a'} {value_class}"


def _shape(d: Difference) -> str | None:
    """A call-shape difference in words (another tool name, missing or non-object arguments)."""
    if d.field == "name":
        return "calls to another tool name"
    if d.field == "arguments":
        return "calls without arguments" if d.value_class == "missing" else \
            f"`arguments` given as {_article(d.value_class or 'non-object')}"
    return None


def _things(ds: Sequence[Difference]) -> str:
    """What was sent, shortest of: by value class ("numeric strings for `a`, `b`") or by field ("`a` given
    as a string or zero")."""
    shapes = sorted({s for d in ds if (s := _shape(d)) is not None})
    bent = [d for d in ds if _shape(d) is None]
    parts = list(shapes)
    if bent:
        by_class: dict[str, set[str]] = {}
        by_field: dict[str, set[str]] = {}
        for d in bent:
            name = d.suspect or d.field or "a field"
            cls = d.value_class or "some value"
            by_class.setdefault(cls, set()).add(name)
            by_field.setdefault(name, set()).add(cls)
        classwise = _groups([
            f"{_plural(cls)} for {_field_list(sorted(names, key=_field_order))}"
            for cls, names in sorted(by_class.items())
        ])
        fieldwise = _groups([
            f"`{name}` given as {_or([_article(c) for c in sorted(classes)])}"
            for name, classes in sorted(by_field.items(), key=lambda kv: _field_order(kv[0]))
        ])
        parts.append(classwise if len(by_class) <= len(by_field) else fieldwise)
    return _groups(parts)


def _groups(said: Sequence[str]) -> str:
    """Groups within one clause: commas and a last `, and` (a semicolon separates clauses)."""
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + ", and " + said[-1]


def _or(words: Sequence[str]) -> str:
    return first_and_more(words, MAX_LISTED, last=" or ", more=" or {} more")


def _given(ds: Sequence[Difference]) -> str:
    bent = [d for d in ds if d.suspect]
    if not bent:
        return ""
    return f" with {_things([_as_bent(d) for d in bent])}"


def _as_bent(d: Difference) -> Difference:
    return d.model_copy(update={"field": d.suspect, "suspect": ""})


def _refusals(ds: Sequence[Difference], side: str) -> str:
    """The refusing side's message when one is shared by every refusal (else the commonest, as an example)."""
    said = Counter(short(message(d.a if side == "a" else d.b), 70) for d in ds)
    text, count = said.most_common(1)[0]
    if not text:
        return ""
    return f" (refusing with “{text}”)" if count == len(ds) else f" (refusing, e.g., with “{text}”)"


def _sent(d: Difference) -> JSON | None:
    """The value the difference's last call gave its field."""
    args = last_call_arguments(d.program)
    return args.get(d.field) if isinstance(args, dict) else None


def last_call_arguments(program: Sequence[str]) -> JSON | None:
    """The arguments of the program's last tools/call (what a difference's value was sent in)."""
    for frame in reversed(program):
        try:
            message_ = read_served(frame, "frame")
        except ValueError:
            continue
        if isinstance(message_, dict) and message_.get("method") == "tools/call":
            params = message_.get("params")
            return params.get("arguments") if isinstance(params, dict) else None
    return None


def _echo(ds: Sequence[Difference], accepting: str) -> str:
    """Whether the accepting side's answers echo the strings it accepted converted (coerced) or as sent;
    said only for the fields its answer echoes, and called mixed when they differ."""
    converted: set[str] = set()
    as_sent: set[str] = set()
    for d in ds:
        sent = _sent(d)
        answer = answer_object(d.b if accepting == "b" else d.a)
        if not isinstance(sent, str) or answer is None or d.field not in answer:
            continue
        echoed = answer[d.field]
        if echoed == sent:
            as_sent.add(d.field)
        elif _converts(sent, echoed):
            converted.add(d.field)
    parts = []
    if converted:
        parts.append(f"echoing {_field_list(sorted(converted, key=_field_order))} converted (coerced)")
    if as_sent:
        parts.append(f"echoing {_field_list(sorted(as_sent, key=_field_order))} as the string sent "
                     "(accepted, not converted)")
    if not parts:
        return ""
    return ", " + (("mixed: " + " and ".join(parts)) if len(parts) == 2 else parts[0])


def _converts(sent: str, echoed: JSON) -> bool:
    if isinstance(echoed, bool):
        return sent.strip().lower() == str(echoed).lower()
    if isinstance(echoed, int | float):
        try:
            return float(sent) == echoed
        except ValueError:
            return False
    return False


def _values(ds: Sequence[Difference], keys: Sequence[str], la: str, lb: str) -> str:
    """Each key's example from the smallest difference whose shown values of it differ: the smallest
    difference of the group may differ in another key only, and a key shown with equal values on both
    sides says a difference that is not there (held-out-multi-16's plan-tracker: "`thoughtNumber` 1 on
    0.6.2, 1 on …", taken from the nextThoughtNeeded pair)."""
    shown: list[str] = []
    for k in keys:
        pair = _differing_values(ds, k)
        if pair is not None:
            shown.append(f"`{k}` {pair[0]} on {la}, {pair[1]} on {lb}")
        if len(shown) == 2:
            break
    if not shown:
        d = min(ds, key=_size)
        wa, wb = short_pair(d.a, d.b, 50)
        return f"{la}: {wa}; {lb}: {wb}"
    return "e.g. " + "; ".join(shown) if len(ds) > 1 else "; ".join(shown)


def _differing_values(ds: Sequence[Difference], key: str) -> tuple[str, str] | None:
    """`key`'s values as shown, from the smallest difference found at that key whose shown values read
    otherwise, or None: another key's difference may show this key's values apart where they are compared
    alike (a count compared relative to the program's start)."""
    for d in sorted((d for d in ds if key in d.field.split("+")), key=_size):
        oa, ob = answer_object(d.a), answer_object(d.b)
        if oa is None or ob is None:
            continue
        va, vb = _json_pair(oa.get(key), ob.get(key))
        if va != vb:
            return va, vb
    return None


def _json(value: JSON | None) -> str:
    return short(json.dumps(value, ensure_ascii=False), 30) if value is not None else "absent"


def _json_pair(a: JSON | None, b: JSON | None) -> tuple[str, str]:
    """Two values as `_json` shows them, cut where they first differ when a cut would show them alike."""
    if a is None or b is None:
        return _json(a), _json(b)
    return short_pair(json.dumps(a, ensure_ascii=False), json.dumps(b, ensure_ascii=False), 30)


def _at(ds: Sequence[Difference], la: str, lb: str) -> str:
    """Where listed values differ, with the values at the first place when both sides can be read."""
    marker = " (differs at "
    where = sorted({d.a.rpartition(marker)[2].removesuffix(")") for d in ds if marker in d.a})
    if not where:
        return ""
    shown = ""
    if len(ds) == 1:
        first = where[0].split(", ")[0]
        va, vb = _listed(ds[0].a), _listed(ds[0].b)
        if first != "(whole)" and va is not None and vb is not None:
            xa, xb = _at_path(va, first), _at_path(vb, first)
            ja, jb = _json_pair(xa, xb)
            shown = f"; e.g. `{first}` {ja} on {la}, {jb} on {lb}"
    return f" (at {short(', '.join(where), 80)}{shown})"


def _listed(text: str) -> JSON | None:
    try:
        value: JSON = read_served(text.rpartition(" (differs at ")[0] or text, "listed answer")
    except ValueError:
        return None
    return value


def _at_path(value: JSON | None, path: str) -> JSON | None:
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _size(d: Difference) -> tuple[int, int]:
    return (len(d.program), sum(map(len, d.program)))


# -- the table ----------------------------------------------------------------------------------------


def table(members: Sequence[Difference], la: str, lb: str) -> list[CauseRow]:
    """One row per field (or call shape) and outcome on each side, value classes merged, with the smallest
    example of the row."""
    rows: dict[tuple[str, str, str, str], list[Difference]] = {}
    for d in members:
        a, b, note = outcomes(d, la, lb)
        rows.setdefault((_row_field(d), a, b, note), []).append(d)
    out: list[CauseRow] = []
    for (fld, a, b, note), ds in rows.items():
        smallest = min(ds, key=_size)
        classes = sorted({c for d in ds for c in _row_classes(d)})
        if len(ds) > 1 and _kind(smallest) == "wording" and not issue_changes(smallest.a, smallest.b):
            pairs = [(d.a, d.b) for d in ds]
            note = describe_wording(wording_change(pairs), lb, (smallest.a, smallest.b), la)
        out.append(CauseRow(
            field=fld,
            value_classes=classes,
            a=a,
            b=b,
            note=note,
            example=example_text(smallest),
            example_id=smallest.id,
            differences=[d.id for d in ds],
            minimized=smallest.minimized,
        ))
    return sorted(out, key=lambda r: (_field_order(r.field.strip("`")), r.a, r.b))


def _row_classes(d: Difference) -> list[str]:
    """The kinds of value the row's fields were given: for schema refusals compared issue by issue, those of
    the fields whose issues differ (the row is theirs), else the difference's own."""
    if d.aspect == "answer" and d.detail == "error text":
        changes = issue_changes(d.a, d.b)
        sent = last_call_arguments(d.program)
        if changes and isinstance(sent, dict):
            return [type_class(sent.get(c.path, Omitted.OMIT)) for c in changes]
    if d.value_class.startswith(RETEST_CLASS + ": "):
        return [RETEST_CLASS + " " + d.value_class.removeprefix(RETEST_CLASS + ": ").partition(":")[0]]
    return [d.value_class] if d.value_class else []


def _issue_note(change: IssueChange, la: str, lb: str) -> str:
    where = f"`{change.path}`"
    if change.code_a != change.code_b:
        return f"{where}: {_code(change.code_a)} on {la}, {_code(change.code_b)} on {lb}"
    if change.edits is None:
        return f"{where}: reworded"
    return f"{where}: " + ", ".join(e.describe(lb) for e in change.edits)


def _row_field(d: Difference) -> str:
    if d.aspect == "answer" and d.detail == "error text":
        changes = issue_changes(d.a, d.b)
        if changes:
            return ", ".join(dict.fromkeys(f"`{c.path}`" for c in changes))
    if d.aspect in CALL_ASPECTS:
        shape = _shape(d)
        if shape is not None:
            return "tool name" if d.field == "name" else "`arguments`"
        name = d.suspect or d.field
        if d.aspect == "answer" and not d.suspect and d.detail not in ("error text",):
            return f"answer `{d.field}`" if d.field else "answer text"
        if d.aspect in ("store", "stderr") and not d.suspect:
            return f"{d.aspect}: {d.field}"
        return f"`{name}`" if name else "(no field named)"
    if d.aspect == "tools_list":
        return f"tools/list `{d.field}`"
    if d.aspect in ("server_info", "capabilities"):
        return f"{'serverInfo' if d.aspect == 'server_info' else 'capabilities'}.{d.field}"
    return d.aspect.replace("_", " ")


def outcomes(d: Difference, la: str, lb: str) -> tuple[str, str, str]:
    """What each side did, in a word or two, and what differs beyond that."""
    if d.aspect == "is_error":
        return ("refused", "accepted", "") if d.detail == "refused by a" else ("accepted", "refused", "")
    if d.aspect == "error_class":
        ka, _, kb = d.detail.partition(" vs ")
        return ka, kb, ""
    if d.aspect == "answer" and d.detail == "error text":
        changes = issue_changes(d.a, d.b)
        if changes:
            return "refused", "refused", "; ".join(_issue_note(c, la, lb) for c in changes[:3])
        return "refused", "refused", describe_wording(wording_change([(d.a, d.b)]), lb, (d.a, d.b), la)
    if d.aspect == "answer" and d.detail in ("added", "removed"):
        return ("absent", "present", "") if d.detail == "added" else ("present", "absent", "")
    if d.aspect in ("answer", "store", "stderr"):
        keys = [k for k in d.field.split("+") if k]
        if d.aspect == "answer" and keys:
            return "accepted", "accepted", _values([d], keys, la, lb)
        return (*short_pair(d.a, d.b, 60), "")
    if d.aspect == "tools_list":
        note = "; ".join(listing_clauses(d, la, lb, full=True))
        if d.detail == DETAIL_CALLED:
            listed = ["listed" if '"offered": true' in x else "not listed" for x in (d.a, d.b)]
            return listed[0], listed[1], note
        if d.detail in ("added", "removed"):
            return ("absent", "present", note) if d.detail == "added" else ("present", "absent", note)
        if d.detail == DETAIL_PAGED:
            pages = ["one page" if x == ONE_PAGE else "paged" for x in (d.a, d.b)]
            return pages[0], pages[1], note
        return (*short_pair(d.a, d.b, 60), note)
    return (*short_pair(d.a, d.b, 60), "")


def example_text(d: Difference) -> str:
    """The row's smallest call as a person reads it: what departs from a valid call, and after how many."""
    sent = [f for f in d.program if '"tools/call"' in f]
    calls = [_frame(f) for f in sent]
    if calls and not calls[-1]:
        return "a call cut short where it was kept (see the frames)"
    if not calls:
        last = _frame(d.program[-1]) if d.program else {}
        method = last.get("method", "initialize")
        return {"notifications/initialized": "initialize"}.get(str(method), str(method))
    before = f"after {len(calls) - 1} call{'s' if len(calls) > 2 else ''}: " if len(calls) > 1 else ""
    params = calls[-1].get("params")
    if not isinstance(params, dict):
        return before + "a call without params"
    name = params.get("name")
    if "arguments" not in params:
        return before + "no `arguments`"
    args = params["arguments"]
    prefix = "" if name == TOOL else f"tool {json.dumps(name, ensure_ascii=False)}, "
    if not isinstance(args, dict):
        return before + prefix + f"`arguments`: {short(json.dumps(args, ensure_ascii=False), 60)}"
    parts = [f"no `{k}`" for k in REQUIRED_DEFAULTS if k not in args]
    parts += [f"`{k}`: {short(json.dumps(v, ensure_ascii=False), 40)}" for k, v in args.items()
              if REQUIRED_DEFAULTS.get(k, _UNSET) != v]
    return before + prefix + (", ".join(parts) if parts else "a valid call")


_UNSET: Final = object()


def _frame(text: str) -> dict[str, JSON]:
    """One frame of a program as an object; a frame cut short when kept, or not an object, is empty."""
    try:
        value = read_served(text, "frame")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _not_shrunk(rows: Sequence[CauseRow], members: Sequence[Difference]) -> str:
    loose = [r for r in rows if not r.minimized]
    if not loose:
        return ""
    notes = {d.id: d.shrink_note for d in members}
    why = sorted({notes.get(r.example_id, "") or "shrinking stopped at the budget" for r in loose})
    return f"{len(loose)} of {len(rows)} examples not fully shrunk: {'; '.join(why)}"


__all__ = ["Explanation", "example_text", "explain", "outcomes", "shown_by", "table"]
