"""The harness survives any server: whatever a server writes, a run ends in a report within its budget, with
no traceback and no process left behind.

The server (tests/servers/hostile.py) follows a plan hypothesis draws: random frames, wrong and duplicate
ids, partial and huge lines, stray notifications and requests, invalid UTF-8, pauses and early exits. Each
example is a whole `conformance run` (of the small gate suite, with a 1 s call timeout), so there are few.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.e2e.ahead import selected
from tests.servers import TAG_VARIABLE, command, tagged

REPO = Path(__file__).resolve().parents[2]
GATE_SUITE = str(REPO / "tests" / "cli_suite" / "gate_suite.py")
BUDGET = 60
"""`--max-time` of each run: it must end in a report by then, whatever the server does."""

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
actions = st.one_of(
    st.just({"do": "answer"}),
    st.builds(lambda data: {"do": "frame", "data": data}, json_values),
    st.sampled_from([{"do": d} for d in ("wrong_id", "duplicate", "notify", "request", "bad_utf8")]),
    st.just({"do": "silent"}),
    st.builds(lambda s: {"do": "partial", "seconds": s}, st.sampled_from([0.0, 0.3, 1.5])),
    st.builds(lambda n: {"do": "huge", "size": n}, st.sampled_from([70_000, 1_500_000])),
    st.builds(lambda s: {"do": "pause", "seconds": s}, st.sampled_from([0.1, 0.8, 1.5])),
    st.builds(lambda c: {"do": "exit", "code": c}, st.sampled_from([0, 1, 137])),
)
plans = st.fixed_dictionaries({
    "handshake": st.one_of(st.just({"do": "answer"}), actions),
    "actions": st.lists(actions, min_size=1, max_size=6),
})


def run_against(plan: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        plan_file = Path(tmp) / "plan.json"
        plan_file.write_text(json.dumps(plan), encoding="utf-8")
        tag = uuid.uuid4().hex
        env = {**os.environ, TAG_VARIABLE: tag,
               "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
        env.pop("CI", None)
        target = "cmd:" + shlex.join(command("hostile", str(plan_file)))
        out = Path(tmp) / "out"
        done = subprocess.run(
            [sys.executable, "-m", "conformance", "run", "--target", target, "--suite", GATE_SUITE,
             "--profile", "dev", "--seed", "1", "--call-timeout", "1", "--max-time", str(BUDGET),
             "--out", str(out)],
            cwd=REPO, env=env, capture_output=True, text=True, timeout=BUDGET + 60, check=False,
        )
        left = tagged(tag)
        assert done.returncode in (0, 1, 2, 124), (done.returncode, done.stderr[-2000:])
        assert "Traceback" not in done.stdout + done.stderr, done.stderr[-4000:]
        assert (out / "report.json").is_file(), (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
        report = json.loads((out / "report.json").read_text(encoding="utf-8"))
        assert report["records"], report
        assert left == [], f"servers left running: {left}"


PINNED: dict[str, dict[str, Any]] = {
    "exits-after-the-handshake": {"handshake": {"do": "answer"}, "actions": [{"do": "exit", "code": 1}]},
    "duplicate-bad-utf8-huge": {"handshake": {"do": "answer"},
                                "actions": [{"do": "duplicate"}, {"do": "bad_utf8"},
                                            {"do": "huge", "size": 1_500_000}]},
}
"""Plans always checked (they were the drawn test's explicit examples): their runs are made ahead, beside
the drawn ones, which wait on the same kind of timeouts and pauses (each run mostly waits)."""


@pytest.fixture(scope="module")
def pinned(request: pytest.FixtureRequest, ahead: ThreadPoolExecutor) -> dict[str, Future[None]]:
    """The selected pinned plans' runs, made ahead, two at a time, from the module's first test on."""
    return {name: ahead.submit(run_against, PINNED[name]) for name in selected(request, "name")}


@settings(max_examples=3, deadline=None, phases=[Phase.generate], database=None,
          suppress_health_check=list(HealthCheck))
@given(plan=plans)
def test_any_server_ends_in_a_report(plan: dict[str, Any], pinned: dict[str, Future[None]]) -> None:
    """Asks for `pinned` so that the pinned plans' runs, when selected, start before the drawn ones (whose
    test comes first in the module) and run beside them."""
    run_against(plan)


@pytest.mark.parametrize("name", list(PINNED))
def test_a_pinned_server_ends_in_a_report(name: str, pinned: dict[str, Future[None]]) -> None:
    pinned[name].result()
