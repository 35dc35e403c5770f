"""Tiers by cost, children that can be interrupted, and how the README's
`python -m pytest -n 3 -m "not evidence"` deals tests to its workers.

Everything under tests/e2e/ and the conformance suite is marked `slow`, here and never by hand, so
`python -m pytest -m "not slow"` is the fast tier: tests/fast/ alone.
"""

from __future__ import annotations

import hashlib
import os
import signal
import tempfile
from pathlib import Path
from typing import Any

import pytest

import conformance.suite
from conformance.core.collector import collect_less_often
from tests.basetemps import claim, prune

# The test processes too (the controller and each xdist worker), set before the tests are collected: the
# ~2,300 collected tests are a heap every full pass of the collector walks again (at Python's default, about
# half the collector's CPU while collecting; `tests/fast/test_harness_cost.py`).
collect_less_often()

E2E = Path(__file__).resolve().parent / "e2e"
SLOW = (E2E, Path(conformance.suite.__file__).resolve().parent)
"""Full runs, CLI runs, the action, the browser, installs, node, the suite against real servers."""


REPO = Path(__file__).resolve().parents[1]
BASETEMPS = Path(tempfile.gettempdir()) / f"seqthink-tests-{hashlib.sha256(bytes(REPO)).hexdigest()[:12]}"
"""This checkout's own temporary folders for its test runs, one per run, beside nothing of anyone else's
(outside the checkout: a test's scratch project must not sit inside this repository's git tree)."""
KEPT_BASETEMPS = 3


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """The harness's own test runs keep their temporary files in this checkout's own folder (`BASETEMPS`),
    one new folder per run, not in pytest's default folder that every job of the machine's user shares; xdist
    hands each worker a folder inside it. Runs the tests start (their own ini file) are left alone."""
    _restore_sigint()
    if config.inipath == REPO / "pyproject.toml":
        _pin_own_profile(config)
    if config.option.basetemp or config.inipath != REPO / "pyproject.toml" or hasattr(config, "workerinput"):
        return
    BASETEMPS.mkdir(parents=True, exist_ok=True)
    prune(BASETEMPS, KEPT_BASETEMPS)  # never a folder a live run holds, however old (issue 43)
    config.option.basetemp = str(claim(BASETEMPS))


OWN_PROFILE = "dev"
"""The examples the harness's own tests draw: the same on a laptop and in CI. Without this, CI's `CI`
variable chose the `ci` profile for the in-process suite and every property test (three times the examples:
the conformance suite in this process took 289 s against 93 s, side by side); the `ci` profile itself is
tested by the end-to-end runs that ask for it."""


def _pin_own_profile(config: pytest.Config) -> None:
    """Before the plugin reads it (tryfirst): the profile asked for on the command line or by
    `CONFORMANCE_PROFILE` is kept; only the `CI` default is replaced."""
    if not config.getoption("conformance_profile") and not os.environ.get("CONFORMANCE_PROFILE"):
        config.option.conformance_profile = OWN_PROFILE


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under CI, every property test draws the examples its own name seeds (hypothesis' `derandomize`), so
    CI's verdict is a function of the commit; outside CI each run draws new ones. `--hypothesis-seed` wins."""
    if not os.environ.get("CI") or session.config.getoption("hypothesis_seed", None) is not None:
        return
    from hypothesis import settings

    settings.register_profile("harness-ci", parent=settings.default, derandomize=True)
    settings.load_profile("harness-ci")


def _restore_sigint() -> None:
    """A launcher that started the test run in the background (`nohup cmd &` in a shell without job control)
    leaves SIGINT ignored, and every child inherits that: the Ctrl-C tests would then wait for an interrupt
    that never arrives. Restoring Python's handler here gives children the default disposition again."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Before `-m` deselects: the mark comes from where a test lives."""
    for item in items:
        if any(item.path.resolve().is_relative_to(folder) for folder in SLOW):
            item.add_marker(pytest.mark.slow)


SHARED_RUN = "reference_ci"
"""The session's costliest shared run (tests/e2e/conftest.py): every file whose tests check it goes to one
worker, so it is made once, not once per worker."""


def _sharing_files() -> frozenset[str]:
    return frozenset(f"tests/e2e/{p.name}" for p in sorted(E2E.glob("test_*.py"))
                     if SHARED_RUN in p.read_text(encoding="utf-8"))


COSTLY = (
    "tests/e2e/test_modified_servers.py",
    SHARED_RUN,
    "tests/e2e/test_fork_classes.py",
    "tests/e2e/test_compare_cli.py",
    "tests/e2e/test_compare_changes.py",
    "tests/e2e/test_action.py",
    "tests/e2e/test_late_stderr.py",
    "tests/e2e/test_fork_changes_alone.py",
    "tests/e2e/test_pinned_replay.py",
    "tests/e2e/test_hostile_output.py",
    "tests/e2e/test_fail_fast.py",
    "tests/e2e/test_fork_maintainer.py",
    "tests/e2e/test_baseline_cli.py",
    "tests/e2e/test_junit_cli.py",
    "tests/fast/test_ports.py",
    "tests/fast/test_exhausted_witness.py",
    "tests/fast/test_slow_ends.py",
    "tests/e2e/test_refused_version_and_listed_name.py",
    "tests/fast/test_idle_witness.py",
    "tests/e2e/test_probes.py",
    "tests/e2e/test_reference_differential.py",
    "tests/e2e/test_compare_crossing.py",
    "tests/e2e/test_compare_modified.py",
    "tests/e2e/test_ports.py",
    "tests/fast/test_compare_bounds.py",
    "tests/e2e/test_atlas.py",
    "tests/e2e/test_cancel_commands.py",
    "tests/e2e/test_sdk2_fork.py",
    "tests/e2e/test_compare_probes.py",
    "tests/fast/test_compare_retests.py",
    "tests/e2e/test_offered_beyond_tool.py",
    "tests/e2e/test_two_fields_two_causes.py",
    "tests/fast/test_late_ascii_box.py",
    "tests/e2e/test_log_escapes.py",
    "tests/e2e/test_browser.py",
    "tests/fast/test_hostile_costs.py",
    "tests/fast/test_startup_hints.py",
    "tests/fast/test_wire_driver.py",
    "tests/e2e/test_run_policy_cli.py",
    "tests/fast/test_sdk_driver.py",
    "tests/fast/test_red_run_costs.py",
    "tests/fast/test_record_evidence.py",
    "tests/e2e/test_compare_pairs.py",
    "tests/fast/test_refusal_replays.py",
    "tests/fast/test_spec_breakers.py",
    "tests/e2e/test_compare_eras.py",
    "tests/fast/test_line_endings.py",
    "tests/fast/test_replay_behind_history.py",
    "tests/fast/test_late_refusal_stderr.py",
    "tests/e2e/test_baseline_signatures.py",
    "tests/fast/test_blank_probes.py",
    "tests/e2e/test_hostile_server.py",
    "tests/fast/test_compare_pair_rules.py",
    "tests/fast/test_shared_process_ended.py",
)
"""The scopes that cost most in CI, dealt first, costliest first: each file's sum of durations in the
fresh-clone junit of 2026-12-07 on 2a5deaf2 (15-224 s, every scope of it over 15 s: the fast tier's few-test
files, which its dealing by test count would leave last, among them), less the evidence tier's cases. The last
scopes dealt are then short ones, and no worker idles long at the end while another finishes a long file. Only
an order: a stale list costs balance, never a test."""


def _dealing_order(scope: str, tests: int) -> tuple[int, int, int]:
    """Costly scopes in `COSTLY`'s order, then the other end-to-end files, the conformance suite's, and the
    fast tier last, each by its number of tests, most first (xdist's own order, which alone deals the
    one-test end-to-end files, some of the longest, last)."""
    if scope in COSTLY:
        return (0, COSTLY.index(scope), 0)
    tier = 1 if scope.startswith("tests/e2e/") else 2 if scope.startswith("conformance/") else 3
    return (tier, 0, -tests)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under xdist, a file's tests go to one worker (its module fixtures and `ahead` runs are made once), and
    the files sharing `SHARED_RUN` go to the same worker; scopes are dealt costliest first
    (`_dealing_order`). Optional: the runs the tests start read this file too, without xdist."""
    from xdist.scheduler import LoadScopeScheduling

    sharing = _sharing_files()
    dealt: list[bool] = []

    class ByFile(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return SHARED_RUN if path in sharing else path

        def _assign_work_unit(self, node: Any) -> None:
            """The first dealing puts the queue of scopes in dealing order (the workers' collections, whose
            positions xdist sends them, stay as collected)."""
            if not dealt:
                dealt.append(True)
                ordered = sorted(self.workqueue.items(),
                                 key=lambda item: _dealing_order(item[0], len(item[1])))
                self.workqueue.clear()
                self.workqueue.update(ordered)
            super()._assign_work_unit(node)

    return ByFile(config, log)
