"""A server whose stderr reaches the pipe after its answer (a relay, a shell wrapper, `docker run -i`, an
async logger) gets the verdicts of the server it wraps: the wire driver reads a call's stderr until its box is
complete or stderr stays quiet (issue 43). Before, `compare reference <relay>` found a `render` root cause."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from conformance.core.jsontypes import JSON
from conformance.drivers.wire import SETTLE_LIMIT, WireDriver
from tests.cli import REPO, Ran, cli
from tests.e2e.ahead import used

RELAY = [sys.executable, str(REPO / "tests" / "servers" / "late_stderr.py")]
"""The reference behind a relay forwarding its stderr 5 to 30 ms late, in pieces."""
WRAPPER = ["bash", "-c", 'exec "$0" -m reference_server 2> >(cat >&2)', sys.executable]
"""The reference behind a shell script whose stderr goes through a pipe to `cat` (a process substitution)."""
REFERENCE = [sys.executable, "-m", "reference_server"]
SEEDS = ("7", "7", "7")
"""The compare through the relay, once in CI and twice more in the evidence tier: each call's stderr through
it is read again `ROUNDS` times by `test_every_call_gets_the_stderr_the_wrapped_server_wrote_for_it`."""
BUDGET = ("--budget", "4")
"""The compares' search and long probes, in seconds: the fixed witnesses and the first generated programs,
then a few thousand probe calls, each call's stderr read through the relay. What they check is that no call
through it reads differently, not what a longer search finds: the dev profile's 14 s search (held to its
floor of programs, up to four times that through a relay) and 8 s probes took a minute more per compare."""

RUNS = {
    "run-relay": ("run", "--target", "cmd:" + shlex.join(RELAY), "--profile", "dev", "--seed", "7"),
    **{f"compare-{index}": ("compare", "reference", "cmd:" + shlex.join(RELAY), "--seed", seed, *BUDGET)
       for index, seed in enumerate(SEEDS)},
    "compare-wrapper": ("compare", "reference", "cmd:" + shlex.join(WRAPPER), "--seed", "7", *BUDGET),
    "run-reference": ("run", "--target", "reference", "--profile", "dev", "--seed", "7"),
}
"""In the order they start, three at a time: the run through the relay, the longest (every call's stderr
waited for), first, beside the others; started last, it made the module wait for it alone."""
SHARDS = 5
"""The run through the relay is made as five shards side by side, merged (docs/sharding.md: the verdicts and
exit status of one run of the same seed). It is waits, not work: whole, 231 s of wall time for 16 CPU seconds
(each refusal waits out a quiet period through the relay), the module's longest by far. Five against three,
the old module beside in one pytest -n 2 at load 28: 144 against 174 s."""
AT_ONCE = 3
"""Runs of the module made at a time: each is mostly waits for a relay's late stderr (a relay compare: 33 s
of wall time for 9 CPU seconds), so a third overlaps them instead of queueing behind two."""


def _run(name: str, out: Path) -> Ran:
    """One of `RUNS` into `out`; the relay run as `SHARDS` shards made side by side, then merged there."""
    if name != "run-relay":
        return cli(*RUNS[name], out=out)
    parts = [out.parent / f"{out.name}-shard-{index}" for index in range(1, SHARDS + 1)]
    with ThreadPoolExecutor(SHARDS, thread_name_prefix="relay-shard") as shards:
        ran = list(shards.map(lambda index: cli(*RUNS[name], "--shard", f"{index}/{SHARDS}",
                                                out=parts[index - 1]), range(1, SHARDS + 1)))
    broken = [(part.code, part.stderr[-2000:]) for part in ran if part.code != 0]
    assert not broken, broken
    return cli("run", "--merge", *map(str, parts), out=out)


@pytest.fixture(scope="module")
def runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Future[Ran]]]:
    """The runs the selected tests check, made ahead, `AT_ONCE` at a time."""
    wanted = used(request, ["compares", "repeated_compares", "relay_run"])
    names = [name for name in RUNS if (name in REPEATED and "repeated_compares" in wanted)
             or (name.startswith("compare") and name not in REPEATED and "compares" in wanted)
             or (name.startswith("run") and "relay_run" in wanted)]
    pool = ThreadPoolExecutor(AT_ONCE, thread_name_prefix="late-stderr-run")
    try:
        yield {name: pool.submit(_run, name, tmp_path_factory.mktemp(name)) for name in names}
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # runs not started when the module ends: dropped


REPEATED = ("compare-1", "compare-2")
"""The relay's compare made again under the same seed: the evidence tier's."""


@pytest.fixture(scope="module")
def compares(runs: dict[str, Future[Ran]]) -> dict[str, Ran]:
    return {name: future.result() for name, future in runs.items()
            if name.startswith("compare") and name not in REPEATED}


@pytest.fixture(scope="module")
def repeated_compares(runs: dict[str, Future[Ran]]) -> dict[str, Ran]:
    return {name: runs[name].result() for name in REPEATED}


@pytest.fixture(scope="module")
def relay_run(runs: dict[str, Future[Ran]]) -> tuple[Ran, Ran]:
    return runs["run-reference"].result(), runs["run-relay"].result()


_NUMBERED: list[dict[str, JSON]] = [
    {"thought": f"thought {n}", "thoughtNumber": n, "totalThoughts": 5, "nextThoughtNeeded": n < 5}
    for n in range(1, 6)
]
ACCEPTED: list[dict[str, JSON]] = [
    *_NUMBERED,
    {"thought": "a branch", "thoughtNumber": 2, "totalThoughts": 5, "nextThoughtNeeded": True,
     "branchFromThought": 1, "branchId": "b"},
    {"thought": "a revision", "thoughtNumber": 2, "totalThoughts": 5, "nextThoughtNeeded": True,
     "isRevision": True, "revisesThought": 1},
    {"thought": "line one\nline two " + "x" * 300, "thoughtNumber": 6, "totalThoughts": 5,
     "nextThoughtNeeded": False},
]
REFUSED: list[dict[str, JSON]] = [{"thought": "", "thoughtNumber": 1}, {"thoughtNumber": "one"}]


def _stderrs(command: list[str], rounds: int) -> tuple[list[bytes], float]:
    """Each call's stderr (the banner read first, whole, as compare does) and the seconds spent waiting."""
    with WireDriver(command, timeout=60) as driver:
        driver.initialize()
        assert driver.stderr_settled(60.0).startswith(b"Sequential Thinking MCP Server running on stdio\n")
        return [driver.call_tool("sequentialthinking", arguments).stderr
                for _ in range(rounds) for arguments in [*ACCEPTED, *REFUSED]], driver.stderr_waited


ROUNDS = 10
"""Each of `ACCEPTED` and `REFUSED` sent this many times, on one process."""


@pytest.fixture(scope="module")
def expected_stderrs() -> list[bytes]:
    """The unwrapped reference's stderr call by call, read once for both wrappers."""
    return _stderrs(REFERENCE, ROUNDS)[0]


@pytest.mark.parametrize("wrapped", [RELAY, WRAPPER], ids=["relay", "shell-wrapper"])
def test_every_call_gets_the_stderr_the_wrapped_server_wrote_for_it(
    wrapped: list[str], expected_stderrs: list[bytes]
) -> None:
    """Call by call, the wrapped reference's stderr is the reference's: each box whole and with its own call,
    nothing for a refused call; the wait costs the relay's lag, never the whole settle limit per call."""
    rounds, expected = ROUNDS, expected_stderrs
    got, waited = _stderrs(wrapped, rounds)
    wrong = [index for index, (a, b) in enumerate(zip(expected, got, strict=True)) if a != b]
    assert not wrong, f"calls {wrong[:10]} differ, first: {expected[wrong[0]]!r} against {got[wrong[0]]!r}"
    # Half the whole limit per call: a wait ends when the box is whole, at the relay's lag (tens of ms, ten
    # times that under load), where waiting out the limit costs a second per call.
    assert waited < rounds * len(ACCEPTED) * SETTLE_LIMIT / 2, f"{waited:.1f} s waiting for late stderr"


def _no_difference(compares: dict[str, Ran]) -> None:
    for name, ran in compares.items():
        assert ran.code == 0, f"{name}: exit {ran.code}\n{ran.stdout[-3000:]}{ran.stderr[-2000:]}"
        assert ran.report["comparison"]["differences"] == [], name


def test_compare_of_the_reference_and_its_stderr_relay_finds_no_difference(compares: dict[str, Ran]) -> None:
    """With `--seed 7` through the relay (before: exit 1, then 0, then 0; with a 5-30 ms relay, exit 1 three
    times), and once behind a shell wrapper."""
    assert set(compares) == {"compare-0", "compare-wrapper"}, sorted(compares)
    _no_difference(compares)


@pytest.mark.evidence(
    "tests/e2e/test_late_stderr.py::test_compare_of_the_reference_and_its_stderr_relay_finds_no_difference",
    "tests/e2e/test_late_stderr.py::test_every_call_gets_the_stderr_the_wrapped_server_wrote_for_it",
)
def test_compare_of_the_reference_and_its_stderr_relay_finds_no_difference_every_time(
    repeated_compares: dict[str, Ran],
) -> None:
    """The relay's compare twice more under the same seed, where a read ending before the relay's stderr did
    once gave exit 1 then 0; each call's stderr read again and again is CI's check of the same race."""
    _no_difference(repeated_compares)


def test_a_run_against_the_relay_gives_the_references_verdicts(relay_run: tuple[Ran, Ran]) -> None:
    reference, relay = relay_run
    assert reference.code == 0, reference.stdout[-3000:] + reference.stderr[-2000:]
    assert relay.code == 0, relay.stdout[-3000:] + relay.stderr[-2000:]
    # Each read of a report checks it against the schema: read once a side, not once a record.
    theirs, ours = reference.verdicts(), relay.verdicts()
    differ = {record: (verdict, ours.get(record)) for record, verdict in theirs.items()
              if ours.get(record) != verdict}
    assert not differ, differ
    assert relay.report["run"]["shards"], "the relay run is the merge of its shards"


def test_the_evidence_replay_of_the_opening_calls_through_the_relay_finds_no_difference() -> None:
    """A departure's evidence replays fixed frames on fresh processes of the original and the target. The
    banner is no request's stderr: through a relay it reaches the pipe after initialize is answered, and was
    read as initialize's "" against the original's banner (agent-defaults under the relay: OBJ-1/a1 and RTE-4
    confirmed new on that alone, issue 43). Three fresh pairs, each with no difference at all."""
    from conformance.gate.evidence import _keys_of, _opening_frames, _replay_both
    from conformance.targets.specs import resolve_target

    reference = resolve_target("reference")
    relayed = resolve_target("cmd:" + shlex.join(RELAY))
    for _ in range(3):
        theirs, ours = _replay_both(reference, relayed, _opening_frames(), 20.0)
        assert isinstance(theirs, list) and isinstance(ours, list), (theirs, ours)
        assert theirs[0].stderr.startswith("Sequential Thinking MCP Server running on stdio"), theirs[0]
        assert _keys_of(theirs, ours) == [], [(a.method, a.stderr[:80], b.stderr[:80])
                                              for a, b in zip(theirs, ours, strict=False) if a != b][:3]
