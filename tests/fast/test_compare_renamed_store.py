"""compare reads the store through a renamed key (issue 42, held-out-multi-11's toolkit-port): an answer
naming its count `thought_history_length` keeps the store as the original does, so neither the store
headline ("no thoughtHistoryLength with a branches list in the answer") nor the history probe ("answers the
probe's call 1 without a thoughtHistoryLength …") may say otherwise; the rename is the status's difference."""

from __future__ import annotations

import json
import shlex
import sys
from typing import Final

from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.observe import Base, observe
from conformance.compare.pair import Side
from conformance.compare.probes import run_probes
from conformance.drivers.wire import Exchange
from conformance.targets.specs import resolve_target
from tests.servers import fork_target

REFERENCE: Final = resolve_target("cmd:" + shlex.join([sys.executable, "-m", "reference_server"]))
SNAKE: Final = fork_target("snake-keys")


def _spelled(key: str, how: str) -> str:
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in key)
    return {"snake": snake, "upper": snake.upper(), "pascal": key[0].upper() + key[1:], "same": key}[how]


def _answered(status: dict[str, object]) -> Exchange:
    text = json.dumps(status, indent=2)
    result = {"content": [{"type": "text", "text": text}]}
    return Exchange(method="tools/call", request=b"", response={"jsonrpc": "2.0", "id": 2, "result": result},
                    stderr=b"", t_sent=0.0, t_received=0.0)


@given(length=st.integers(1, 10**6), labels=st.lists(st.text("abz-", min_size=1, max_size=5), max_size=4,
                                                      unique=True),
       start=st.integers(0, 5), how=st.sampled_from(["snake", "upper", "pascal", "same"]))
def test_a_store_key_spelled_otherwise_is_read_as_the_originals(length: int, labels: list[str], start: int,
                                                                 how: str) -> None:
    status = {"thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False, "branches": labels,
              "thoughtHistoryLength": length}
    renamed = {_spelled(k, how): v for k, v in status.items()}
    base = Base(start, frozenset(labels[:1]))
    original, port = observe(_answered(status), base), observe(_answered(renamed), base)
    assert port.store == original.store == (length - start, tuple(labels[1:])), (port, original)
    assert isinstance(port.parsed, dict) and _spelled("thoughtHistoryLength", how) not in port.parsed, port


def test_a_port_answering_in_snake_case_keeps_its_process_and_probes_alike() -> None:
    """The probe call before each program read the count through the suite's reader, whose KeyError restarted
    the port's process before every program; the long probes said a store kept alike as unreadable."""
    side = Side(SNAKE, 10)
    try:
        for _ in range(3):
            base = side.base()
        assert side.starts == 1 and base.length == 3, (side.starts, base)
    finally:
        side.close()
    probed = run_probes(REFERENCE, SNAKE, 10, 40, 8, lambda _: None)
    assert [item.found.signature for item in probed.found] == [], [item.found for item in probed.found]
