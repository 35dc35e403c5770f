"""What one run observed, independent of pytest: the plugin fills it, report writers and the gate read it."""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from conformance.core.identity import HarnessIdentity, TargetIdentity

RESULTS_FORMAT: Final = "seqthink-conformance-results/2"
"""/2: `collected`, and the harness identity's `shard`; a shard's report folder holds its results.json."""

TestStatus = Literal["passed", "failed", "error", "skipped"]
"""`failed`: a record's assertion did not hold; `error`: the server crashed, hung or broke the protocol."""

EventKind = Literal["sent", "received", "stderr", "note"]


CAVEAT: Final = "caveat: "
"""How a check's note begins when it says how the run judged its record other than the statement reads (an
install replaced under the run: ABS-1 compared its files by name and size): every report shows such a note
beside the record's verdict, the terminal too (`report/sections/caveats.py`)."""

class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TranscriptEvent(_Frozen):
    kind: EventKind
    data: str
    t: float


class Counterexample(_Frozen):
    """The smallest failing input hypothesis found, with the exchange that replays it."""

    falsifying: str = Field(description="hypothesis' 'Falsifying example' text or the failing step list")
    exchange: list[TranscriptEvent] = Field(default_factory=list)
    minimized: bool = Field(default=True, description="false when shrinking stopped at its time budget")


class ClaimObservation(_Frozen):
    """One observation gathered for or against a claim (CLM-*), in the records' vocabulary."""

    claim: str
    verdict: Literal["observed-delivered", "unsupported", "contradicted", "supported", "bounded"]
    observation: str
    test: str = ""


class GrowthPoint(_Frozen):
    """One checkpoint of a store-growth test: accepted calls so far, the length the server reported, and the
    server's resident memory when /proc could tell it."""

    calls: int
    history_length: int
    rss_bytes: int | None = Field(default=None, description="VmRSS summed over the server's process group")


Observed = Literal["process", "package"]
ENDED_BY: Final = r"^(?:stdin|stdout|SIG[A-Z0-9]{2,8})?$"
"""How a check had ended the process when its failure was read: `stdin` (it ended the process's stdin),
`stdout` (it closed the process's stdout), the signal it sent (`SIGTERM`), or empty (it had done none)."""
ENDED_BY_SAID: Final = (
    "how the check had ended the process when its failure was read: `stdin` (it ended its stdin), `stdout` "
    "(it closed its stdout) or the signal it sent (`SIGTERM`), which no replay of requests does; empty when "
    "it had done none, or the check did not fail; none from an older harness (the gate reads the failure's "
    "words then)")
"""What a check read: a running server (its answers, stderr, life) or the installed package's files."""
LEFT_IDLE_SAID: Final = (
    "seconds the check had left the process idle after its last call when its failure was read (it wrote, "
    "sent or ended meanwhile), which no replay of requests does: the gate confirms such a failure on its "
    "idle witness; none when it had not, the check did not fail, or from an older harness")


class TestOutcome(_Frozen):
    __test__ = False

    nodeid: str
    records: list[str]
    relies: list[str] = Field(default_factory=list, description="records it takes for granted (`relies_on`)")
    contradicted: list[str] = Field(
        default_factory=list,
        description="records its failure names as contradicted (an own record, or one it relies on)",
    )
    status: TestStatus
    examples: int = 0
    duration: float = 0.0
    message: str = ""
    counterexample: Counterexample | None = None
    transcript: str | None = Field(default=None, description="transcript path, relative to the run dir")
    notes: list[str] = Field(default_factory=list)
    claims: list[ClaimObservation] = Field(default_factory=list)
    growth: list[GrowthPoint] = Field(default_factory=list, description="store-growth checkpoints, if any")
    observed: Observed | None = Field(
        default=None,
        description="the channel the check read: a running process (wire, stderr, exit) or the package's "
        "files; a departure is behaviour or packaging by it (none from an older harness)",
    )
    ends_a_process: str | None = Field(default=None, pattern=ENDED_BY, description=ENDED_BY_SAID)
    left_idle: float | None = Field(default=None, ge=0, description=LEFT_IDLE_SAID)


class RunResults(_Frozen):
    format: Literal["seqthink-conformance-results/2"] = RESULTS_FORMAT
    target: TargetIdentity
    harness: HarnessIdentity
    server_info: dict[str, str] = Field(default_factory=dict)
    protocol_version: str | None = None
    eras: dict[str, str | None] = Field(
        default_factory=dict,
        description="each era's client the spec records were judged with, and the revision it settled on",
    )
    era_meets: dict[str, str] = Field(
        default_factory=dict,
        description="each era's client and what it meets, in a line (calls/meetings.py `meets`)",
    )
    started: str
    finished: str
    processes_started: int = 0
    calls_made: int = 0
    tests: list[TestOutcome] = Field(default_factory=list)
    stopped: str | None = Field(default=None, description="why the suite stopped before its last test")
    collected: list[str] = Field(
        default_factory=list,
        description="a shard's: every test the whole run collects, in order (its share is computed from it)",
    )
