"""A fork whose render failure is logged, not answered (held-out-multi-7's async-logger, issue 42): RTE-8/a1's
render check read an accepted call that drew nothing as the render switched off and passed, so the change
was never seen; a fork wrapping every answer (api-envelope) failed RTE-2's check on the probe before its own
answer was read. Real processes: tests/servers/many_changes.py `render-logged` and the plain reference, run
through the built-in suite's check itself (its hypothesis-wrapped body, one example)."""

from __future__ import annotations

import shlex

import pytest

from conformance.calls.strategies import Envelope
from conformance.suite import test_absences, test_dispatch, test_errors
from conformance.suite.contradiction import Contradiction
from conformance.targets.specs import resolve_target
from tests.servers import command, session_on

CHECK = test_errors.test_render_failure_after_retention.hypothesis.inner_test  # type: ignore[attr-defined]
"""The check's body without hypothesis' search: one call, its witness, as a run sends it."""


def _run(*change: str) -> None:
    target = resolve_target("cmd:" + shlex.join(command("many_changes", *change)))
    with session_on(target) as session:
        CHECK(server=session, envelope=Envelope("t", 1, 1, True), conversion={"toString": 1})


def test_a_render_failure_logged_after_an_accepted_answer_departs() -> None:
    """The call the original refuses after retention is answered as accepted; the next plain call draws its
    box, so the render is on: the check fails, saying the acceptance and the original's refusal."""
    with pytest.raises(AssertionError) as raised:
        _run("render-logged")
    said = str(raised.value)
    assert "was answered as accepted" in said and "Cannot convert object to primitive value" in said, said


def test_the_reference_still_passes() -> None:
    """Without the change (the fork's other changes off), the render fails inside the call, as the original's
    does: the check holds."""
    _run()


UNKNOWN = test_dispatch.test_unknown_names_get_an_error_result.hypothesis.inner_test  # type: ignore[attr-defined]


def test_the_unknown_tool_answer_is_judged_before_the_store_is_read() -> None:
    """A fork wrapping accepted answers and the unknown-tool refusal alike (api-envelope): RTE-2's check
    fails on the unknown-tool answer, its own, not on the probe's missing count (before, the probe came
    first and the unknown-tool change was never said)."""
    target = resolve_target("cmd:" + shlex.join(command("many_changes", "enveloped")))
    with session_on(target) as session, pytest.raises(AssertionError) as raised:
        UNKNOWN(server=session, name="SequentialThinking", envelope=Envelope("t", 1, 1, True))
    said = str(raised.value)
    assert "a call of the unknown tool" in said and "UNKNOWN_TOOL" in said, said


REVISION = test_absences.test_revision_is_a_label_only.hypothesis.inner_test  # type: ignore[attr-defined]


def test_a_key_only_a_revision_is_answered_with_is_read_before_its_count() -> None:
    """A fork answering a revision with one key more and leaving revisions out of its count
    (held-out-multi-10's revision-ledger): ABS-6's check names the key, OBJ-4's change, before the count,
    OBJ-2's, fails it (before, the count failed first and the key was read by no check)."""
    target = resolve_target("cmd:" + shlex.join(command("many_changes", "revision-ledger")))
    with session_on(target) as session, pytest.raises(Contradiction) as raised:
        REVISION(server=session, envelope=Envelope("t", 5, 3, True), is_revision=True, revises=1)
    assert raised.value.record == "OBJ-4", str(raised.value)
    assert "revisionsOfThought" in str(raised.value), str(raised.value)
