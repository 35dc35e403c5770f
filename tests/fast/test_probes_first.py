"""A probed check sends its probes before its own explicit examples, whatever else shares the session (issue
43).

Hypothesis runs the explicit examples last added first and stops at the first failing one. An `@example`
above `@probe_examples()` (RTE-4's `Envelope("t", 9, 5, True)`) ran before every probe, and its shape depends
on what the shared process holds: on the thought-number-no-skip fork, 9 skips ahead of a short history
(`--select RTE-4,OBJ-1/a1`) and not of a full run's, so RTE-4 departed there on that example and the probes
never ran, where a full run reached it by the probe "a thoughtNumber skipping ahead of the history".
"""

from __future__ import annotations

import importlib
import shlex
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from conformance import suite
from conformance.calls.probes import BOUNDARY_PROBES, PROBE_ATTRIBUTE, PROBES, probe_examples, probes_first
from conformance.calls.strategies import Envelope
from tests.servers import command, suite_outcomes

OWN = st.builds(Envelope, st.text(max_size=5), st.integers(1, 20), st.integers(1, 20), st.booleans())


def _probed_checks() -> list[object]:
    folder = Path(suite.__file__).resolve().parent
    found = []
    for module in (importlib.import_module(f"conformance.suite.{p.stem}") for p in folder.glob("test_*.py")):
        found += [getattr(module, name) for name in dir(module)
                  if name.startswith("test_") and getattr(getattr(module, name), PROBE_ATTRIBUTE, False)]
    return found


def _run_order(test: object) -> list[Envelope | None]:
    """The envelopes of a check's explicit examples in the order hypothesis runs them."""
    cases = getattr(test, "hypothesis_explicit_examples", [])
    return [case.kwargs.get("envelope") for case in reversed(cases)]


@given(above=st.lists(OWN, max_size=4), below=st.lists(OWN, max_size=4))
def test_the_probes_run_before_a_checks_own_examples_wherever_they_are_placed(
        above: list[Envelope], below: list[Envelope]) -> None:
    """Own examples above and below `@probe_examples()`: after `probes_first`, every probe runs first, in
    PROBES' order, then the check's own examples in theirs."""

    def check(envelope: Envelope) -> None:
        del envelope

    for envelope in below:
        check = example(envelope=envelope)(check)
    check = probe_examples()(check)
    for envelope in above:
        check = example(envelope=envelope)(check)
    own = [*reversed(above), *reversed(below)]
    probes_first(check)
    order = _run_order(check)
    assert order[:len(PROBES)] == [probe.envelope for probe in PROBES]
    assert [e for e in order[len(PROBES):] if e not in {p.envelope for p in PROBES}] == [
        e for e in own if e not in {p.envelope for p in PROBES}]


@pytest.mark.parametrize("check", _probed_checks(), ids=lambda check: getattr(check, "__name__", "?"))
def test_every_probed_check_of_the_suite_runs_its_probes_first(check: object) -> None:
    """As the suite's plugin orders them at collection (the boundary examples are probes too)."""
    probes_first(check)
    order = _run_order(check)
    probes = {probe.envelope for probe in (*PROBES, *BOUNDARY_PROBES)}
    sent = [i for i, envelope in enumerate(order) if envelope in probes]
    assert sent and sent == list(range(len(sent))), order[:len(sent) + 2]


def test_a_check_run_alone_departs_on_the_probe_a_full_run_departs_on(tmp_path: Path) -> None:
    """RTE-4's check alone on a fresh process of a fork refusing a skip ahead of its history (the shortest
    session a `--select` makes): it fails on the far-ahead probe, as in a full run, not on thoughtNumber 9."""
    target = "cmd:" + shlex.join(command("reference_fork", "no-skip"))
    seen = suite_outcomes("test_coercion.py", ["test_total_raised_to_thought_number"], target, tmp_path)
    outcome, message = seen["test_total_raised_to_thought_number"]
    assert outcome == "failed", seen
    assert "1000000000 skips ahead" in message, message
