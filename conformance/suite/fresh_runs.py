"""One fixed sequence run on fresh processes, once per target, for every record about a fresh process.

LOOP-B (two fresh processes answer alike), BAP-3 (a process whose stderr nobody reads answers alike), CMP-1
and ABS-1 (a fresh process starts from an empty store) all need the same thing: the answers of a process
that has seen nothing before. Three raw processes give it to all of them, instead of one or two each; they
go back to the pool afterwards for checks that need a used process. The run holds one `FreshRunner` (the
plugin's run state); checks reach it through the `fresh_runs` fixture, which is also how the plugin knows to
start its processes with the session.

The other records about a process no one has written to read the same processes, before the sequence: what
the first one says with nothing asked (the banner, a silent stdout: RTE-10, CMP-4), and on each, tools/list
before the handshake and right after it (RTE-1). All three get the same opening, so the
sequence's answers and stderr are still compared between processes that were sent exactly the same frames.
A server that leaves the tools/list before initialize unanswered (or answers it with something else) gets
the sequence on three new processes without the opening: its fresh runs are as they were without RTE-1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, TypeVar

from conformance.calls.opening import FRESH_SEQUENCE
from conformance.calls.store import StoreState
from conformance.core.differences import quoted
from conformance.core.jsontypes import JSON
from conformance.core.key_paths import found_at
from conformance.core.protocol import TOOL
from conformance.core.served import read_answer, status_block
from conformance.suite.contradiction import brief
from conformance.suite.rawproc import RawPool, target_key
from conformance.targets.specs import Target

UNASKED_WAIT: Final = 20.0
"""Seconds the first process has to write its first stderr bytes with nothing sent (a slow start is no
departure: the read returns at the first bytes)."""
UNASKED_STDOUT_WAIT: Final = 0.2
"""Seconds stdout is then watched, with nothing sent: a server writing of its own writes by then."""

_T = TypeVar("_T")

SEQUENCE: Final = FRESH_SEQUENCE


@dataclass(frozen=True)
class FreshRun:
    """What one fresh process answered to `SEQUENCE`, and the stderr bytes that came with each answer."""

    answers: tuple[dict[str, JSON], ...]
    stderrs: tuple[bytes, ...]
    banner: bytes
    listed_before: dict[str, JSON] | None = None
    """The answer to tools/list sent before initialize (None: the run had no opening)."""
    listed_after: dict[str, JSON] | None = None
    """The answer to tools/list sent right after initialize (None: the run had no opening)."""


@dataclass(frozen=True)
class Unasked:
    """What the first fresh process wrote before anything was sent to it."""

    stderr: bytes
    """Its stderr from its start, read at its first bytes (within `UNASKED_WAIT`) until it went quiet."""
    stdout: bytes | None
    """The first stdout line within `UNASKED_STDOUT_WAIT` after that (None: nothing)."""


@dataclass(frozen=True)
class FreshRuns:
    """Two fresh processes whose stderr is read, and one whose stderr goes to /dev/null."""

    read: tuple[FreshRun, FreshRun]
    discarded: FreshRun
    unasked: Unasked
    opening_failed: Exception | None = None
    """What sending tools/list before initialize raised on the first process, when it did (no answer in
    time, a line that is no answer to it): that process was closed, and the runs had no opening."""


class _OpeningFailed(Exception):
    def __init__(self, raised: Exception, unasked: Unasked | None) -> None:
        super().__init__(str(raised))
        self.raised = raised
        self.unasked = unasked


@dataclass
class _Early:
    """What the fresh processes said before their sequence, kept as it is read: a target whose calls all fail
    (it dies, hangs or writes garbage at its first tools/call) still answered the opening, and RTE-1 and the
    banner are judged on that, not on the sequence's failure."""

    unasked: Unasked | None = None
    listings: list[tuple[dict[str, JSON], dict[str, JSON]]] = field(default_factory=list)
    failed: bool = False


class FreshRunner:
    """`SEQUENCE` on three pristine processes of a pool, run once per target and kept for the session."""

    def __init__(self, pool: RawPool) -> None:
        self.pool = pool
        self._runs: dict[tuple[tuple[str, ...], tuple[tuple[str, str], ...]], FreshRuns] = {}
        self._early: dict[tuple[tuple[str, ...], tuple[tuple[str, str], ...]], _Early] = {}

    def _run(
        self, target: Target, *, discard_stderr: bool, opening: bool, unasked: bool = False
    ) -> tuple[FreshRun, Unasked | None]:
        """The sequence on a pristine process: first, with `unasked`, what it writes with nothing sent; with
        `opening`, tools/list before initialize and right after it (`_OpeningFailed` when the first one
        raises: the process is then closed)."""
        said = None
        early = self._early.setdefault(target_key(target), _Early())
        with self.pool.lend(target, pristine=True, discard_stderr=discard_stderr) as raw:
            if unasked:
                stderr = raw.stderr_now(wait=UNASKED_WAIT)
                said = early.unasked = Unasked(stderr, raw.read_line(timeout=UNASKED_STDOUT_WAIT))
            before = after = None
            if opening:
                try:
                    before = raw.request("tools/list", {})
                except Exception as exc:
                    raise _OpeningFailed(exc, said) from exc
            raw.initialize()
            if opening:
                after = raw.request("tools/list", {})
                assert before is not None, "the opening's first tools/list was not answered"
                early.listings.append((before, after))
            raw.stderr_now(wait=raw.banner_wait())
            banner = bytes(raw.seen)
            answers: list[dict[str, JSON]] = []
            stderrs: list[bytes] = []
            for method, arguments in SEQUENCE:
                params: JSON = {"name": TOOL, "arguments": arguments} if method == "tools/call" else arguments
                answers.append(raw.request(method, params))
                stderrs.append(raw.stderr_now())
        return FreshRun(tuple(answers), tuple(stderrs), banner, before, after), said

    def prestart(self, target: Target) -> None:
        """Have the pool start the fresh runs' processes now, side by side (unless they already ran)."""
        if target_key(target) not in self._runs:
            self.pool.prestart(target, pristine=2, discarding=1)

    def of(self, target: Target) -> FreshRuns:
        """`SEQUENCE` on three pristine processes of `target` (run on first use, then kept)."""
        key = target_key(target)
        if key not in self._runs:
            self.prestart(target)
            self._early[key] = _Early()
            try:
                self._runs[key] = self._three(target)
            except BaseException:
                self._early[key].failed = True
                raise
        return self._runs[key]

    def _before_a_failed_sequence(self, target: Target, pick: Callable[[_Early], _T | None]) -> _T | None:
        """What `pick` finds among what the processes said before their sequence, when a sequence failed after
        it (the fresh runs are run first if they have not been; what they raised is raised again when `pick`
        finds nothing); None when the fresh runs ran whole or `pick` finds nothing of an earlier failure."""
        key = target_key(target)
        if key not in self._runs and not (key in self._early and self._early[key].failed):
            try:
                self.of(target)
            except Exception:
                found = pick(self._early[key])
                if found is None:
                    raise
                return found
        early = self._early.get(key)
        return pick(early) if early is not None and early.failed and key not in self._runs else None

    def unasked(self, target: Target) -> Unasked:
        """What the first fresh process wrote with nothing sent, also when a sequence failed after it."""
        early = self._before_a_failed_sequence(target, lambda read: read.unasked)
        return early if early is not None else self.of(target).unasked

    def listings(self, target: Target) -> list[tuple[dict[str, JSON], dict[str, JSON]]]:
        """tools/list before and right after initialize on each fresh process that was sent the opening, also
        when a sequence failed after it; raises what the opening raised when it failed."""
        early = self._before_a_failed_sequence(target, lambda read: list(read.listings) or None)
        if early is not None:
            return early
        runs = self.of(target)
        if runs.opening_failed is not None:
            raise runs.opening_failed
        return [(run.listed_before, run.listed_after) for run in (*runs.read, runs.discarded)
                if run.listed_before is not None and run.listed_after is not None]

    def _three(self, target: Target) -> FreshRuns:
        failed: Exception | None = None
        try:
            first, unasked = self._run(target, discard_stderr=False, opening=True, unasked=True)
        except _OpeningFailed as opening:
            failed, unasked = opening.raised, opening.unasked
            first, _ = self._run(target, discard_stderr=False, opening=False)
        assert unasked is not None, "the first fresh run was not asked what its process says unasked"
        opened = failed is None
        second, _ = self._run(target, discard_stderr=False, opening=opened)
        discarded, _ = self._run(target, discard_stderr=True, opening=opened)
        return FreshRuns((first, second), discarded, unasked, failed)


def state_of_answer(answer: dict[str, JSON]) -> StoreState:
    """The store state an accepted raw answer reports (OBJ-4's status object in content[0].text)."""
    from conformance.suite.answers import describe_response  # the runner imports this module without the SDK

    result = answer.get("result")
    assert isinstance(result, dict) and not result.get("isError"), (
        f"a fresh process refused a call the original accepts: {describe_response(answer)}")
    content = result.get("content")
    assert isinstance(content, list) and content and isinstance(content[0], dict), (
        f"a fresh process answered content {brief(content)}, where the original answers a text block")
    texts = [block.get("text") if isinstance(block, dict) else None for block in content[:8]]
    text = texts[status_block(texts)]  # a summary line put first is OBJ-4's own check's (one text item)
    assert isinstance(text, str), (
        f"a fresh process answered a first block without text, {brief(content[0])}, where the original "
        f"answers its status object as text")
    status = read_answer(text, "answer text")
    assert isinstance(status, dict), (
        f"a fresh process answered the text {quoted(text)}, where the original answers a JSON object")
    length, branches = status.get("thoughtHistoryLength"), status.get("branches")
    assert isinstance(length, int) and isinstance(branches, list), (
        f"a fresh process answered {_fields(status, ('thoughtHistoryLength', 'branches'))}, where the "
        "original answers a count and a list of labels")
    return StoreState(length, tuple(str(b) for b in branches))


def _fields(status: dict[str, JSON], keys: tuple[str, ...]) -> str:
    """Status fields as answered: each present one with its value, the absent ones said absent at the top
    level together, with where each sits instead (a count under an envelope's `result` is no null count,
    issue 42, fork-api-envelope), short enough that a cut line still says where."""
    present = [f"{key} {brief(status[key])}" for key in keys if key in status]
    absent = [key for key in keys if key not in status]
    if absent:
        places = [at for key in absent if (at := found_at(status, key)) is not None]
        moved = f" ({'they are' if len(places) > 1 else 'it is'} at {', '.join(f'`{p}`' for p in places)})"
        said = " and ".join(f"no {key}" for key in absent) + " at the top level"
        present.append(said + (moved if places else ""))
    return " and ".join(present)
