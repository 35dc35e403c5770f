"""A process id in what a server writes is no behaviour: a witness signs alike on every fresh process (gate/
canonical.py `without_volatile`, issue 43).

fork-background-worker (held-out-multi-14) writes its banner as a JSON log line carrying its pid. Its CMP-4
and RTE-10 entries pin the banner, so under ci 22 (and every later gate) both were "changed": the pid the
baseline's witness process had is not the next one's.
"""

from __future__ import annotations

import json
import shlex
from concurrent.futures import ThreadPoolExecutor

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.canonical import without_volatile
from conformance.gate.signatures import witness_signatures
from tests.servers import command

PIDS = st.integers(min_value=1, max_value=4_194_304)


def test_a_banner_with_its_pid_signs_alike_on_two_fresh_processes() -> None:
    spec = "cmd:" + shlex.join(command("pid_banner"))
    with ThreadPoolExecutor(2) as pool:  # two fresh processes side by side: each waits out its idle watch
        first, again = pool.map(lambda _: witness_signatures(spec, ["CMP-4", "RTE-10"], timeout=20), range(2))
    for rid in ("CMP-4", "RTE-10"):
        assert first[rid].signature == again[rid].signature, (first[rid].witness, again[rid].witness)
        assert "<pid>" in first[rid].witness[0].answer, first[rid].witness


@given(a=PIDS, b=PIDS, spelled=st.sampled_from([
    '{{"level":"info","msg":"up","pid":{pid}}}', "[pid {pid}] ready", "ready (pid={pid})", "PID: {pid} up",
    "worker ppid={pid}"]))
def test_process_ids_in_any_logger_spelling_read_alike(a: int, b: int, spelled: str) -> None:
    assert without_volatile(spelled.format(pid=a)) == without_volatile(spelled.format(pid=b))
    assert without_volatile({"pid": a, "n": 3}) == without_volatile({"pid": b, "n": 3})


@given(n=st.integers(min_value=0, max_value=10**6))
def test_numbers_that_are_behaviour_stay(n: int) -> None:
    """A count, a thought number, a number beside a word merely ending in "pid" are still compared."""
    for text in (f"thought {n}", f"rapid {n}", f"thoughtNumber: {n}",
                 json.dumps({"thoughtHistoryLength": n})):
        assert without_volatile(text) == text
    assert without_volatile({"pids": n, "count": n}) == {"pids": n, "count": n}
