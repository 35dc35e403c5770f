"""Changes no check read before round 15 (issue 42, held-out-multi-9), each now named under the record that
states it, on real reference processes (tests/servers/reference_fork.py):

- a result key the original never sends (`structuredContent`, MCP 2025-06-18 on; fork-mcp-modern): OBJ-4 for
  an accepted call, OBJ-8 for a refusal;
- a line written beside a box drawn otherwise (a "[warn]" line after a long thought's box whose header also
  changed; fork-thought-metrics): LOOP-A, where the box's own difference stays CMP-5's.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator

import pytest

from conformance.calls.probes import PROBES
from conformance.drivers.transcript import Transcript
from conformance.suite import test_store, test_validation
from conformance.suite.answers import ACCEPTED_RESULT_KEYS, REFUSED_RESULT_KEYS, unsent_result_keys
from conformance.suite.contradiction import Contradiction
from conformance.suite.render_box import expect_render
from conformance.suite.session import ServerSession
from conformance.targets.specs import resolve_target
from tests.servers import VALID, command

LONG = next(probe.envelope for probe in PROBES if probe.shape == "a very long thought")
"""The probe every probed property sends (some 10,000 UTF-16 units): past the 2,000 a fork warns at."""


def _session(change: str | None) -> ServerSession:
    spec = command("reference_fork", change) if change else [sys.executable, "-m", "reference_server"]
    return ServerSession(target=resolve_target("cmd:" + shlex.join(spec)), transcript=Transcript(None),
                         timeout=20.0)


@pytest.fixture
def reference() -> Iterator[ServerSession]:
    session = _session(None)
    yield session
    session.close()


def test_the_keys_the_original_sends_are_none_unsent() -> None:
    assert unsent_result_keys({"content": []}, ACCEPTED_RESULT_KEYS) == ""
    assert unsent_result_keys({"content": [], "isError": True}, REFUSED_RESULT_KEYS) == ""
    said = unsent_result_keys({"content": [], "isError": False, "_meta": {"a": 1}}, ACCEPTED_RESULT_KEYS)
    assert said.startswith("isError false, _meta {") and "a" in said, said


def _shapes(session: ServerSession) -> None:
    """OBJ-4's and OBJ-8's shape checks, each on one call (their hypothesis-free bodies)."""
    test_store.test_status_object_shape.hypothesis.inner_test(  # type: ignore[attr-defined]
        server=session, envelope=LONG)
    test_validation.test_error_object_shape.hypothesis.inner_test(  # type: ignore[attr-defined]
        server=session, arguments={**VALID, "thought": ""})


def test_the_reference_answers_no_key_the_original_never_sends(reference: ServerSession) -> None:
    _shapes(reference)


def test_structured_content_departs_obj_4_and_obj_8() -> None:
    session = _session("structured")
    try:
        with pytest.raises(AssertionError, match="accepted call's result holds structuredContent"):
            test_store.test_status_object_shape.hypothesis.inner_test(  # type: ignore[attr-defined]
                server=session, envelope=LONG)
        with pytest.raises(AssertionError, match="refusal's result holds structuredContent"):
            test_validation.test_error_object_shape.hypothesis.inner_test(  # type: ignore[attr-defined]
                server=session, arguments={**VALID, "thought": ""})
    finally:
        session.close()


def _render(session: ServerSession) -> None:
    arguments = LONG.arguments()
    expect_render(session.call(arguments), arguments, session)


def test_the_reference_draws_a_long_thought_alone(reference: ServerSession) -> None:
    _render(reference)


@pytest.mark.parametrize(("change", "record"), [("word-count", "CMP-5"), ("word-count+long-warning", "LOOP-A"),
                                                ("long-warning", "LOOP-A")])
def test_a_warning_line_beside_a_box_departs_loop_a_whatever_the_box(change: str, record: str) -> None:
    """A box whose header changed is CMP-5's alone; a "[warn]" line after it is LOOP-A's, with or without
    the header's change (before round 15 the line went unread when the box differed)."""
    session = _session(change)
    try:
        with pytest.raises(Contradiction) as raised:
            _render(session)
        assert raised.value.record == record, raised.value
        if record == "LOOP-A":
            assert "[warn] thought 2 is " in str(raised.value), raised.value
    finally:
        session.close()
