"""The evidence report: what `report.json` holds, versioned, and the one model every writer renders.

`schema.json` beside this module is generated from `Report` (`python -m scripts.generate_report_schema`)
and a test keeps the two equal.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from conformance.core.differences import TWO_QUOTES as _TWO_QUOTES
from conformance.core.differences import other_fields, pair_fitted, quotes_fitted
from conformance.core.failure_text import one_line
from conformance.core.identity import HarnessIdentity, ShardIdentity, TargetIdentity
from conformance.core.results import (
    ENDED_BY,
    ENDED_BY_SAID,
    LEFT_IDLE_SAID,
    GrowthPoint,
    Observed,
    TranscriptEvent,
)
from conformance.core.words import first_and_more

REPORT_FORMAT: Final = "seqthink-conformance-report/7"
READABLE_FORMATS: Final = (
    "seqthink-conformance-report/1", "seqthink-conformance-report/2", "seqthink-conformance-report/3",
    "seqthink-conformance-report/4", "seqthink-conformance-report/5", "seqthink-conformance-report/6",
    REPORT_FORMAT,
)
"""Older reports are still read: every field /2 added (root causes, comparison), /3 added (a
comparison's labels, a cause's table and upstream matches; a run's shards), /4 added (a root cause's
replayed evidence, the eras met), /5 added (each departure's evidence, which original answered; a
comparison's eras, differences some eras only see), /6 added (a failing check's `left_idle`: the kind of a
failure read while the process sat idle) and /7 added (`folded_causes`: the leading causes replayed before
the grouping folded them) has a default."""

Verdict = Literal["holds", "deviates", "not observable", "error", "not run"]
VERDICTS: tuple[Verdict, ...] = ("holds", "deviates", "not observable", "error", "not run")

ClaimVerdictName = Literal["observed-delivered", "unsupported", "contradicted", "supported", "bounded"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TestRef(_Frozen):
    """One test that evidenced a record, as the record's row shows it."""

    __test__ = False

    nodeid: str
    status: Literal["passed", "failed", "error", "skipped"]
    examples: int
    duration: float = 0.0
    message: str = ""
    contradicted: list[str] = Field(
        default_factory=list,
        description="records its failure names as contradicted; it evidences another record when this "
        "one is a behaviour it relied on",
    )
    transcript: str | None = None
    notes: list[str] = Field(
        default_factory=list,
        description="what the test noted beside its verdict: where a document states what the record names "
        "when it moved from the line the records cite, the words of a refusal, ... (provenance, not the "
        "verdict)",
    )
    observed: Observed | None = Field(
        default=None,
        description="the channel the test read: `process` (wire, stderr, exit) or `package` (the installed "
        "files); none from an older harness",
    )
    ends_a_process: str | None = Field(default=None, pattern=ENDED_BY, description=ENDED_BY_SAID)
    left_idle: float | None = Field(default=None, ge=0, description=LEFT_IDLE_SAID)


class ReplayableCounterexample(_Frozen):
    """The smallest failing input found for a record, and the frames that replay it on a fresh process."""

    test: str
    falsifying: str = Field(description="hypothesis' minimal example (or the failing step list)")
    exchange: list[TranscriptEvent] = Field(description="what crossed the pipe while the failing example ran")
    replay: list[str] = Field(
        description="newline-delimited JSON-RPC frames to pipe into a fresh server, initialize first"
    )
    minimized: bool = Field(
        default=True,
        description="false when shrinking stopped at its time budget: a smaller example may exist",
    )


class WitnessAnswer(_Frozen):
    """One witness call of a record and its canonical answer (long strings shortened to a digest)."""

    step: str = Field(description="the step's name in fixtures/witnesses/witnesses.yaml")
    answer: str = Field(description="the canonical answer as compact JSON")


LIMIT_REFUSED_WORDS: Final = "refused by the target's limit, met again on a fresh process"
"""An unlisted departure whose every failure is the refusal a fresh process gives once its state ran out or
its limit was reached (gate/pinned.py): the bound's departure, not unconfirmed (its reason starts so)."""

UNASKED: Final = "a request or notification of its own: "
"""How a replayed pair's difference begins when one side sent a message nobody asked for (gate/evidence.py
writes it; gate/pinned.py keys a pinned pair by it)."""

REFERENCE_AS_ORIGINAL: Final = (
    "the original (the reference, whose answers equal npm:0.6.2's field for field in the whole-answer"
    " differential test)"
)
"""How every writer names the reference standing in for the original: what backs the claim is
tests/e2e/test_reference_differential.py's whole-answer comparison, named rather than asserted."""


class Evidence(_Frozen):
    """A departure's smallest example replayed at report time on a fresh process of the target and of the
    original: the pair of answers and what differs between them."""

    reproduced: bool = Field(description="the example showed a difference again on fresh processes")
    why: str = Field(default="", description="why this example (not the failing test's), or why none did")
    at: str = Field(default="", description="which request of the example the answers first differ on")
    differences: list[str] = Field(
        default_factory=list, description="what differs there: a field's value on each side, or the words")
    original: str = Field(default="", description="the original's answer to that request, compact JSON")
    target: str = Field(default="", description="this server's answer to that request, compact JSON")
    breaks: str = Field(
        default="", description="why this record: the words of its statement the difference contradicts")
    original_spec: str = Field(
        default="reference", description="(/5) which original answered: npm:0.6.2 when installed in the "
        "target cache, else the reference (its answers equal 0.6.2's, field for field, in the whole-answer "
        "differential test, tests/e2e/test_reference_differential.py)")
    example: list[str] = Field(
        default_factory=list, description="(/5) the sequence replayed: JSON-RPC frames, initialize first")
    cause: str = Field(
        default="", description="(/5) on a record: the root cause whose replay this is, reused, not replayed "
        "again (empty: the record's own)")
    not_replayed: str = Field(
        default="", description="(/5) on a record: why its own sequence was not replayed (the report's "
        "replay budget), empty when it was or had none")
    no_difference: bool = Field(
        default=False, description="(/5) not reproduced, and not for want of trying: its example and the "
        "fixed opening calls were replayed on fresh processes of both sides and no answer differed at all")
    elsewhere: list[str] = Field(
        default_factory=list, description="(/5) not reproduced by its own example: what the fixed opening "
        "calls, replayed on fresh processes of both sides, showed differing all the same (fields, refusals; "
        "core/differences.py's keys); the gate holds them against the baseline's pinned differences")
    own_failure: bool = Field(
        default=False, description="(/5) on a record: its checks kept no call to replay (they read the "
        "installed files, or watch the process): its own failure, in its check's words, is its evidence")
    not_its_failure: bool = Field(
        default=False, description="(/5) on a record: its example's replay differs, but not where its checks "
        "failed (another change of the server shows first on that sequence): the record's line is its own "
        "failure in its check's words, and the pair is no evidence of a cause it would share")

    def original_named(self) -> str:
        """Which original answered, as every writer says it."""
        if self.original_spec == "reference":
            return REFERENCE_AS_ORIGINAL
        return f"the original ({self.original_spec})"

    def original_short(self) -> str:
        """Which original answered, in a terminal line."""
        return "the reference" if self.original_spec == "reference" else self.original_spec

    def headline(self) -> str:
        """The pair in one line: what differs first, near its field, where and against which original (empty
        when nothing reproduced): the terminal's line, report.md's summary and a root cause's headline."""
        if not self.reproduced or not self.differences:
            return ""
        prefix = "on the example's "
        where = "at " + self.at.removeprefix(prefix) if self.at.startswith(prefix) else self.at
        moved = renamed_keys(self.differences)
        first_key = holder_and_key(self.differences[0])
        if first_key is not None and first_key in {hk for pair in moved for hk in pair}:
            said = renamed_said(moved)
            apart = {key for pair in moved for _, key in pair}
            return (one_line(said, HEADLINE_PAIR_CHARS) + beside_it(self.differences, apart)
                    + f" (reproduced {one_line(where, 50)} against {one_line(self.original_short(), 40)})")
        first = quote_fitted(_near_field(self.differences[0]), HEADLINE_PAIR_CHARS)
        return (one_line(first, HEADLINE_PAIR_CHARS) + beside_it(self.differences)
                + f" (reproduced {one_line(where, 50)} against {one_line(self.original_short(), 40)})")


_MASKED: Final = re.compile(r"masked by (\S+)'s refusal(?:; re-judged past it \([^)]*\)(?P<holds> on fresh)?|"
                            r"(?P<not>: not checked past it))")
"""What a departure's evidence says of another change's refusal its checks met first (gate/detour.py)."""


def masked_said(evidence: Evidence | None) -> str:
    """A departure's line's note on the refusal that masked it: checked past it and holding there, judged
    past it (its line then its own difference), or not checked past it; empty when none masked it."""
    found = _MASKED.search(evidence.why) if evidence is not None else None
    if found is None:
        return ""
    if found.group("not"):
        return f"masked by {found.group(1)}'s refusal, not checked past it"
    if found.group("holds"):
        return f"checked past {found.group(1)}'s refusal, nothing else differs"
    return f"past {found.group(1)}'s refusal"


HEADLINE_PAIR_CHARS: Final = 150
"""Characters of a pair's first difference a headline keeps."""
_QUOTE: Final = re.compile(r"“([^”]{60,})”")
_QUOTE_HEAD: Final = 24
"""Characters kept from a long quote's start when its middle is cut: where its words begin."""


def quote_fitted(difference: str, limit: int) -> str:
    """A difference over `limit` whose two quotes side by side share words is said by the words that differ,
    marked, with a few around (“…branches[[validatedInput.]branchId]…” against “…branches[[]branchId]…”):
    a cut at the end kept the original's words and dropped this server's (Rikxed/sequentialthinking: two
    refusals of one crash in other words, V8 quoting each side's own source). Else its first long quote is
    cut in its middle, at words ("“MCP error -32602: Input … expected string, received boolean”"): a
    refusal's own words come last, after a wrapper's prefix, and a cut at the end kept only the prefix
    (issue 42: npm:2025.11.25's RTE-3 never said what was refused)."""
    if len(difference) > limit:
        paired = pair_fitted(difference, limit)
        if paired is not None:
            return paired if len(paired) <= limit else quote_fitted(paired, len(paired))
        both = quotes_fitted(difference, limit) if _TWO_QUOTES.search(difference) else None
        if both is not None:
            return both
    found = _QUOTE.search(difference)
    if len(difference) <= limit or found is None:
        return difference
    words = found.group(1)
    room = len(words) - (len(difference) - limit) - 2  # what of the quote fits, less " … "
    if room < _QUOTE_HEAD + 20:
        return difference
    head = words[:_QUOTE_HEAD].rsplit(" ", 1)[0]
    tail = words[len(words) - (room - len(head)):]
    tail = tail.split(" ", 1)[1] if " " in tail and not tail.startswith(" ") else tail.lstrip()
    return f"{difference[: found.start()]}“{head} … {tail}”{difference[found.end():]}"




_BESIDE_SHOWN: Final = 3
"""Keys named after "and N more"; the rest counted."""


def holder_and_key(difference: str) -> tuple[str, str] | None:
    """A field difference's object and key (`result.serverInfo.version: …` → result.serverInfo, version);
    None for a difference said as a sentence."""
    path, sep, _ = difference.partition(": ")
    if not sep or " " in path.replace(" → ", ""):
        return None
    cut = max(path.rfind("."), path.rfind(" → "))
    if cut < 0:
        return None
    return path[:cut], path[cut:].removeprefix(".").removeprefix(" → ")


def beside_it(differences: Sequence[str], apart: Collection[str] = ()) -> str:
    """The other keys of the first difference's object that differ too, said after it (`; and 1 more beside
    it: icons`): a headline naming the first alone said a fork changed only the version where it
    added icons too (issue 42, round 14: levalicious-ts' CMP-3). Empty when no sibling differs. Keys in
    `apart` (another cause's own) are left out (`gate/evidence.beside_apart`)."""
    first = holder_and_key(differences[0]) if differences else None
    if first is None:
        return ""
    keys = list(dict.fromkeys(hk[1] for hk in map(holder_and_key, differences[1:])
                              if hk is not None and hk[0] == first[0] and hk[1] != first[1]
                              and hk[1] not in apart))
    if not keys:
        return ""
    shown = first_and_more([one_line(key, 40) for key in keys], _BESIDE_SHOWN)
    return f"; and {len(keys)} more beside it: {shown}"


_GONE: Final = re.compile(r"^(?P<was>.+) on the original, absent here$")
_NEW: Final = re.compile(r"^absent on the original, (?P<now>.+) here$")


def renamed_keys(differences: Sequence[str]) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """Keys of one object the original writes and this server does not, each beside a key only this server
    writes carrying the same value: renamed, (holder, old key) → (holder, new key). A key spelled alike
    (`thoughtNumber`, `thought_number`) is matched first, else the one new key of that value when it is the
    only one both sides hold it (issue 42, held-out-multi-11's toolkit-port: "thoughtNumber: 2 on the
    original, absent here; and 7 more beside it" read as keys dropped)."""
    gone: dict[tuple[str, str], str] = {}
    new: dict[tuple[str, str], str] = {}
    for difference in differences:
        hk = holder_and_key(difference)
        values = difference.partition(": ")[2]
        if hk is None:
            continue
        if (was := _GONE.match(values)) is not None:
            gone[hk] = was["was"]
        elif (now := _NEW.match(values)) is not None:
            new[hk] = now["now"]
    out: list[tuple[tuple[str, str], tuple[str, str]]] = []
    taken: set[tuple[str, str]] = set()
    for old, value in gone.items():
        alike = [hk for hk, v in new.items() if hk not in taken and hk[0] == old[0] and v == value]
        spelled = [hk for hk in alike if not other_fields(hk[1], old[1])]
        sharing = [hk for hk, v in gone.items() if hk[0] == old[0] and v == value]
        pick = (spelled[0] if len(spelled) == 1
                else alike[0] if len(alike) == 1 and len(sharing) == 1 else None)
        if pick is not None:
            taken.add(pick)
            out.append((old, pick))
    return out


def renamed_said(moved: Sequence[tuple[tuple[str, str], tuple[str, str]]]) -> str:
    """Renamed keys in one line, old → new, as many as fit a headline's pair, the rest counted."""
    head = "answer keys renamed, values alike: "
    names = [f"{one_line(old[1], 40)} → {one_line(new[1], 40)}" for old, new in moved]
    return head + first_and_more(names, len(names), room=HEADLINE_PAIR_CHARS - len(head))


def _near_field(difference: str) -> str:
    """A difference named by its field alone, not the whole path (report.md has it): the words that changed
    fit the line."""
    path, sep, values = difference.partition(": ")
    if not sep or " " in path.replace(" → ", ""):
        return difference
    near = path.rsplit(" → ", 1)[1] if " → " in path else ".".join(path.split(".")[-2:])
    return f"{near}: {values}"


class RecordVerdict(_Frozen):
    """One record of the catalog and what this run observed about it."""

    id: str
    kind: str
    aliases: list[str] = Field(description="lens-local IDs registered as this record (EPI-3 → ABS-12, ...)")
    anchors: list[str]
    statement: str
    channels: list[str] = Field(
        description="how it can be observed from outside: wire, stderr, artifact, none"
    )
    verdict: Verdict
    reason: str = Field(default="", description="why not observable / not run / error, in one line")
    tests: list[TestRef] = Field(default_factory=list)
    examples: int = Field(default=0, description="generated examples over all its tests")
    counterexample: ReplayableCounterexample | None = None
    probes: list[str] = Field(
        default_factory=list, description="(/5) reached by the deterministic probes: the input shapes of "
        "the fixed calls sent before the search (calls/probes.py) its failing checks failed on, when each "
        "failed on one of them")
    transcripts: list[str] = Field(default_factory=list, description="paths relative to the report")
    evidence_before: str = Field(description="the documents' status: implemented, absent, doctrine, ...")
    evidence_after: str = Field(description="`observed` when this run observed it, else unchanged")
    explained_by: str | None = Field(
        default=None, description="the root cause (its id) whose change this record's departure follows from"
    )
    signature: str | None = Field(
        default=None,
        description="sha256 hex of the canonical answers to the record's witness calls (set for departures)",
    )
    witness: list[WitnessAnswer] = Field(
        default_factory=list, description="the canonical witness answers behind `signature`"
    )
    evidence: Evidence | None = Field(
        default=None, description="(/5) a departure: its smallest example replayed on fresh processes of "
        "this server and the original")


class ClaimObservationOut(_Frozen):
    verdict: ClaimVerdictName
    observation: str
    test: str


class ClaimVerdict(_Frozen):
    """A claim (CLM-*) of the documents, judged from what the suite observed for or against it."""

    claim: str
    statement: str = ""
    verdict: ClaimVerdictName | Literal["no observation"]
    observations: list[ClaimObservationOut] = Field(default_factory=list)


class Finding(_Frozen):
    """An amendment in the documents' own form: a record contradicted by observation on the original."""

    amendment: str = Field(description="the amendment's ID, e.g. RTE-8/o1")
    annotates: str = Field(description="the record it annotates")
    finding: str
    evidence_anchor: list[str] = Field(description="transcripts and tests of this run that show it")
    superseded: str = Field(description="the record text this replaces, or `none`")
    reproduced: bool = Field(description="whether this run observed the finding (its observing tests passed, "
                             "or the record deviated)")
    verdict: Verdict = Field(description="the annotated record's verdict in this run")


class UnregisteredDeviation(_Frozen):
    """A record that deviates on the original with no finding registered: a wrong test or a wrong record."""

    record: str
    message: str


class GateEntry(_Frozen):
    record: str
    verdict: Verdict
    expected: str = Field(description="what the baseline says: deviates, error or `holds` when unlisted")
    reason: str = ""
    folded_under: str | None = Field(
        default=None,
        description="/5: the baseline entry this departure is folded under (its `explains`), whose reason it "
        "shares; null for an entry of its own",
    )
    witnessed: str | None = Field(
        default=None,
        description="/5: why a departure the search did not reach, or one the baseline does not list, is "
        "expected: its pinned witness re-observed on a fresh process, or an entry's pinned difference",
    )
    before: list[WitnessAnswer] = Field(
        default_factory=list, description="departure changed: the baseline's witness answers that differ"
    )
    after: list[WitnessAnswer] = Field(
        default_factory=list, description="departure changed: this run's answers to the same witnesses"
    )


class Gate(_Frozen):
    """The CI gate: passes exactly when observed departures equal the baseline's."""

    baseline: str | None = Field(description="the baseline file, or null when none was given")
    passed: bool
    expected: list[GateEntry] = Field(default_factory=list, description="departures the baseline declares")
    unexpected: list[GateEntry] = Field(default_factory=list, description="departures not in the baseline")
    advisory: list[GateEntry] = Field(
        default_factory=list,
        description="(/5) departures not in the baseline from records of level guidance (words with no RFC "
        "keyword, fixtures/spec_records.yaml): reported, never failing the gate",
    )
    seen_once: list[GateEntry] = Field(
        default_factory=list,
        description="(/5) departures not in the baseline that the search saw once and fresh processes did "
        "not confirm (neither its witness nor its replayed example differs from the original's): reported, "
        "not failing the gate",
    )
    stale: list[GateEntry] = Field(default_factory=list, description="baseline entries that now hold")
    unconfirmed: list[GateEntry] = Field(
        default_factory=list, description="baseline entries this run could not check, or saw depart otherwise"
    )
    changed: list[GateEntry] = Field(
        default_factory=list,
        description="departure changed: listed departures whose behaviour signature differs from the "
        "baseline's",
    )
    unexplained: list[GateEntry] = Field(
        default_factory=list,
        description="strict baseline mode: entries whose reason still says TODO (a human has not said why)",
    )
    deferred: str | None = Field(
        default=None,
        description="a shard's report: not judged here (`passed` is false), but on the merged report",
    )


class ArgumentCheck(_Frozen):
    """The original's canonical valid call, sent once in the preflight: whether the target takes it as the
    original spells it (or as `--arguments-map` respells it)."""

    accepted: bool | None = Field(
        description="false: refused for its argument names, and the run stopped; null: the call did not come "
        "back (the target failed), left to the suite"
    )
    sent: list[str] = Field(description="the call's argument names as sent to the target")
    required: list[str] = Field(default_factory=list, description="what the target's inputSchema requires")
    properties: list[str] = Field(default_factory=list,
                                  description="the names the target's inputSchema lists")
    refusal: str = Field(default="", description="the refusal's words, cut to 300 characters")
    spelling: dict[str, str] = Field(
        default_factory=dict,
        description="a spelling of the original's names detected in the target's inputSchema and confirmed "
        "by a call it accepted (original → target); empty when none was",
    )
    nested: dict[str, list[str]] = Field(
        default_factory=dict,
        description="a required argument whose schema is an object listing the call's fields (in either "
        "spelling), and those fields: a port that takes them one level down, which no --arguments-map "
        "(a renaming of keys) can reach",
    )
    arguments_map: dict[str, str] = Field(
        default_factory=dict,
        description="the mapping every call of this run was sent through (original → target)",
    )
    arguments_map_from: str | None = Field(
        default=None, description="where the mapping came from: the --arguments-map file, or a spelling "
        "(snake_case, kebab-case, PascalCase, lowercase, UPPERCASE)"
    )


class Preflight(_Frozen):
    """Starting the target before the suite: it must start, initialize and offer the tool."""

    ok: bool
    error: str | None = None
    tool_offered: bool | None = None
    tools: list[str] = Field(default_factory=list)
    stderr_tail: str = ""
    stderr_lines: list[str] = Field(
        default_factory=list,
        description="what its stderr says in short: the first error line, then the last few meaningful lines",
    )
    known_case: str | None = Field(
        default=None, description="the known case of a server that would not start: not built, missing module"
    )
    hint: str | None = Field(default=None, description="what to do about that case")
    transcript: str | None = None
    arguments: ArgumentCheck | None = Field(
        default=None, description="whether the target takes the original's call (None: not asked)"
    )
    stray_stdout: str | None = Field(
        default=None, description="(/5) after a stop at the tool-name or argument check: the first stdout "
        "line read before the target was closed that is not a JSON-RPC message, in the stdout check's words "
        "(CMP-4 departs beside the stop, as the stdout finding says); None when none came")


class RunSelection(_Frozen):
    """What `--select`/`--deselect` asked for and which records it left out."""

    select: list[str] = Field(description="record IDs, aliases or kinds selected; empty: every record")
    deselect: list[str] = Field(description="record IDs, aliases or kinds left out")
    not_selected: list[str] = Field(description="the records left out: `not run`, not weighed by the gate")


class ShardRun(_Frozen):
    """One shard of a merged run, as its own report told it."""

    shard: ShardIdentity
    duration_s: float
    tests: int
    processes_started: int
    calls_made: int
    interrupted: str | None = None


class RunInfo(_Frozen):
    started: str
    finished: str
    duration_s: float
    jobs: int
    processes_started: int
    calls_made: int
    tests: int
    rerun: str = Field(description="the command that reruns the same examples")
    out: str | None = Field(
        default=None,
        description="the --out folder as the command line named it: the folder the printed next steps name",
    )
    pytest_exit: int | None = None
    interrupted: str | None = Field(
        default=None,
        description="why the run ended before its last test: \"cancelled by SIGTERM\", \"deadline: ...\", or "
        "the breaker's reason when the target kept failing; unfinished records are `not run`",
    )
    selection: RunSelection | None = Field(default=None, description="set when --select/--deselect was given")
    example_db: str | None = Field(
        default=None, description="hypothesis' example database the run replayed saved counterexamples from"
    )
    shards: list[ShardRun] = Field(
        default_factory=list,
        description="a merged report's shards (`run --merge`); its duration is the longest shard's",
    )


class Summary(_Frozen):
    records: int
    counts: dict[str, int] = Field(description="records per verdict; every verdict is a key")
    observed: int = Field(description="records whose evidence status is now `observed`")
    moved_to_observed: int = Field(description="records moved from `implemented` to `observed`")
    examples: int


class DependencySwap(_Frozen):
    """One dependency moved alone (the rest of the side's tree pinned as it was): on A's code to B's version,
    or on B's code back to A's, and whom the result answered as on one difference."""

    change: str = Field(description="`name a → b`, as the trees resolve it")
    code: Literal["a", "b"] = Field(description="whose code ran with the one dependency moved")
    answers_as: Literal["a", "b", "neither", "unusable"] = Field(
        description="`unusable`: the swapped tree could not be installed or driven (no evidence)"
    )
    also_moved: list[str] = Field(
        default_factory=list, description="other packages of the side's locked tree the swapped install "
        "resolved otherwise despite the pins (`place a → b`): the swap is then not one package alone"
    )


class Difference(_Frozen):
    """One behaviour difference between two targets on the same calls, minimized, classified, attributed."""

    id: str = Field(description="stable signature: the same change gets the same id in every run")
    aspect: str = Field(description="what differs: answer, is_error, error_class, store, stderr, tools_list, "
                        "server_info, capabilities, banner, exit_status, ...")
    summary: str = Field(description="one line, in the records' vocabulary")
    records: list[str] = Field(default_factory=list, description="records whose statements cover it")
    cause: str = Field(default="", description="the root cause (its id) this difference is grouped under")
    program: list[str] = Field(
        default_factory=list, description="newline-delimited JSON-RPC frames that show it, initialize first"
    )
    a: str = Field(default="", description="what the first target answered (or did)")
    b: str = Field(default="", description="what the second target answered (or did)")
    minimized: bool = Field(default=True, description="false when shrinking stopped at its budget")
    normalized: list[str] = Field(
        default_factory=list, description="SDK-owned details normalized first (docs/reference-server.md)"
    )
    accepted: bool = Field(default=False, description="declared in the baseline given to the run")
    field: str = Field(
        default="", description="the argument (or key, or call shape) it is about: named by a refusal, the "
        "field its minimal call bends, the listed tool's key, `name` / `arguments` for the call's shape"
    )
    suspect: str = Field(
        default="", description="for a difference between two accepted answers: the argument its minimal "
        "call sets to a value not of its declared type, the likely trigger"
    )
    value_class: str = Field(
        default="", description="the kind of value the argument (the suspect, else the field) was given: "
        "numeric string, zero, missing, ..."
    )
    detail: str = Field(
        default="", description="the id's last part: `refused by a`, `error text`, `added`, ..."
    )
    shrink_note: str = Field(default="", description="why its example is not fully shrunk, when it is not")
    eras: list[str] = Field(
        default_factory=list, description="(/5) compare's era pass: the eras whose clients see it, when only "
        "some of the eras met do; empty for what the search (a 2024-11-05 client) found"
    )
    origin: Literal["", "code", "dependencies", "unclear"] = Field(
        default="", description="with compare --cross: `dependencies` when A's package on B's tree answered "
        "as B, `code` when as A, `unclear` otherwise or when not shown again; empty when not crossed"
    )
    swaps: list[DependencySwap] = Field(
        default_factory=list, description="with compare --cross: one dependency moved at a time, on each "
        "side's own code, and which side the result answered as"
    )


class Crossing(_Frozen):
    """compare --cross: A's package installed with B's dependency tree, each difference replayed on it."""

    label: str = Field(description="how the report names the crossed target")
    identity: TargetIdentity
    changes: list[str] = Field(default_factory=list, description="dependencies A's and B's trees resolve "
                               "differently, `name a → b`")
    crossed_changes: list[str] = Field(default_factory=list, description="dependencies A's tree and the "
                                       "crossed tree resolve differently, `name a → crossed`")


class EraSettled(_Frozen):
    """(/5) What each side of a comparison settled on with one era's client (compare's era pass)."""

    era: str = Field(description="the era's client: the revision it offers (2026-07-28: stateless)")
    a: str | None = Field(description="the revision A settled on with it; null when none was agreed")
    b: str | None = Field(description="the revision B settled on with it")
    failure_a: str = Field(default="", description="why A's meeting stopped early, when it did")
    failure_b: str = Field(default="", description="why B's meeting stopped early, when it did")


class OtherTool(_Frozen):
    """A tool only one side lists: whether compare called it, and why (a call may act outside the store)."""

    name: str
    offered_by: str = Field(description="the label of the side that lists it")
    called: bool = Field(description="compare called it (its answer and effect are a difference)")
    why: str = Field(description="why it was or was not called: by default, --no-call-other-tools, the cap")


class Comparison(_Frozen):
    """Two targets driven in lock-step on the same generated calls (`compare A B`, `run --against B`)."""

    a: TargetIdentity
    b: TargetIdentity
    calls: int = Field(description="tools/call requests sent to each side")
    programs: int = Field(description="generated call sequences run on both sides")
    differences: list[Difference] = Field(default_factory=list)
    normalized: list[str] = Field(default_factory=list, description="SDK-owned differences normalized")
    budget_reached: bool = Field(default=False, description="the search stopped at its time or count budget")
    label_a: str = Field(default="", description="how the report names A (all but the identity table)")
    label_b: str = Field(default="", description="how the report names B")
    crossing: Crossing | None = Field(default=None, description="compare --cross: the crossed target")
    arguments_map_b: str = Field(
        default="", description="(/5) compare --arguments-map: B's calls were sent through this mapping "
        "(snake_case or a file's path), as run's are; empty: sent as the original spells them")
    eras: list[EraSettled] = Field(
        default_factory=list, description="(/5) each era's client met on both sides, oldest first, and the "
        "revision each side settled on"
    )
    other_tools: list[OtherTool] = Field(
        default_factory=list, description="(/5) the tools only one side lists, each called or not and why: "
        "by default each is called, each call on a process of its own (compare --no-call-other-tools: none)")


class CauseRow(_Frozen):
    """One row of a root cause's table: a field (or call shape), the values it was given, what each side
    did, and the smallest example among the differences of the row."""

    field: str
    value_classes: list[str] = Field(default_factory=list)
    a: str = Field(description="what A did (accepted, refused, a protocol error, …)")
    b: str = Field(description="what B did")
    note: str = Field(default="", description="what differs beyond the outcome (wording, status keys, …)")
    example: str = Field(default="", description="the row's smallest call, compact")
    example_id: str = Field(default="", description="the difference whose program the example is")
    differences: list[str] = Field(default_factory=list)
    minimized: bool = True


class RootCause(_Frozen):
    """One behaviour change and the departures that follow from it: what a reviewer reads first."""

    id: str
    records: list[str] = Field(description="the primary records: the behaviour that changed")
    explains: list[str] = Field(default_factory=list, description="records that deviate because of it")
    summary: str
    example: list[str] = Field(
        default_factory=list, description="its smallest example: JSON-RPC frames to replay, initialize first"
    )
    test: str | None = Field(default=None, description="the failing test whose example this is, if any")
    differences: list[str] = Field(default_factory=list, description="ids of the differences it groups")
    minimized: bool = True
    rows: list[CauseRow] = Field(
        default_factory=list, description="a comparison's cause as a table: one row per field and outcomes"
    )
    upstream: list[str] = Field(
        default_factory=list, description="known upstream changes whose recorded signature the cause matches"
    )
    origin: str = Field(default="", description="compare --cross: what the crossed target showed on its "
                        "differences (code or dependencies), one sentence")
    not_shrunk: str = Field(
        default="", description="how many of its rows' examples are not fully shrunk, and why (empty if all)"
    )
    evidence: Evidence | None = Field(
        default=None, description="a run's cause: its example replayed on fresh processes of both sides")


class StoreGrowth(_Frozen):
    """The store observed growing on one process (RTE-5, ABS-11): checkpoints of one test of this run."""

    test: str
    records: list[str]
    points: list[GrowthPoint]


class StrayLine(_Frozen):
    """One line on the target's stdout that is not JSON-RPC: what it said, in which phase, and when."""

    text: str = Field(description="the line, cut to 200 characters")
    phase: str = Field(description="the preflight, the suite, the witness step, ...")
    transcript: str = Field(description="the transcript it is in (transcripts/NAME.jsonl)")
    after_s: float | None = Field(default=None, description="seconds after its process was started")
    after_request: str | None = Field(
        default=None,
        description="the last request written to that process before it: `tools/call (request 20)`",
    )


class StdoutHygiene(_Frozen):
    """Every line the target wrote on stdout that is not JSON-RPC, counted over the run's transcripts (the
    preflight, the suite's recorded processes, the witness step): a stdio client reports each as an error and
    reads on to the answer after it, as the drivers do (CMP-4 departs from this count)."""

    lines_seen: int
    lines: list[StrayLine] = Field(default_factory=list, description="the first 20")
    late_answers_dropped: list[str] = Field(
        default_factory=list,
        description="answers read after a stray line had already failed their request (none came within the "
        "drivers' grace after it), so skipped as late: `witness step: request 20`",
    )
    scanned_all: bool = Field(default=True, description="false when a transcript was too long to scan whole")


class Report(_Frozen):
    format: Literal[
        "seqthink-conformance-report/1", "seqthink-conformance-report/2", "seqthink-conformance-report/3",
        "seqthink-conformance-report/4", "seqthink-conformance-report/5", "seqthink-conformance-report/6",
        "seqthink-conformance-report/7",
    ] = REPORT_FORMAT
    generated: str
    target: TargetIdentity
    server_info: dict[str, str] = Field(default_factory=dict)
    protocol_version: str | None = None
    eras: dict[str, str | None] = Field(
        default_factory=dict,
        description="(/4) the clients the spec records were judged with: era (a revision or auto) to the "
        "revision the target settled on with it, null when none was agreed",
    )
    era_meets: dict[str, str] = Field(
        default_factory=dict,
        description="(/5) each era's client and what it meets there, in a line: the revision initialize "
        "settles on, or for a 2026-07-28 client that settles on none, what the server does with its "
        "requests (e.g. serves them the old way, results without resultType)",
    )
    harness: HarnessIdentity
    preflight: Preflight
    run: RunInfo
    summary: Summary
    gate: Gate
    records: list[RecordVerdict]
    claims: list[ClaimVerdict] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    unregistered_deviations: list[UnregisteredDeviation] = Field(default_factory=list)
    root_causes: list[RootCause] = Field(default_factory=list, description="behaviour changes, leading")
    folded_causes: list[RootCause] = Field(
        default_factory=list, description="(/7) the leading causes the run replayed that its grouping then "
        "folded into others, with their pairs: no writer shows them; a report's causes chosen again "
        "(`--reattribute`) start from the pairs its run had")
    comparison: Comparison | None = Field(default=None, description="set when run against a second target")
    stdout_hygiene: StdoutHygiene | None = Field(
        default=None, description="set when the target wrote anything but JSON-RPC on stdout, in any phase"
    )
    growth: list[StoreGrowth] = Field(
        default_factory=list, description="the store's growth against calls, as observed by the suite"
    )

    def tests_once(self) -> dict[str, TestRef]:
        """Each test of the run once, by node id, as the records' rows show it (a test that evidenced several
        records is in several rows)."""
        return {test.nodeid: test for verdict in self.records for test in verdict.tests}
