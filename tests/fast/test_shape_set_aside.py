"""A change of every answer's form no longer ends every check at its first example (issue 42): held-out-
multi-18's fork-docs-console renames `branches` to `branchIds`, so every check reading an accepted answer
failed at its first call and the run met 323 calls, and its box change reached only by a thought holding
`<` or `&` was never named. A check now sets such an example aside and goes on; the render checks read the
box first. Real processes of tests/servers/reference_fork.py (`branch-ids`, `html-escaped`)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from conformance.suite.contradiction import Contradiction
from conformance.suite.set_aside import Watch, go_on_past_shapes, raise_first, watching
from tests.cli import cli
from tests.servers import command, suite_outcomes

OUTCOMES = ("holds", "form", "own", "other")
"""What one example of a check does: holds, fails on the answer's form (OBJ-4's, another record's), fails on
the check's own record, fails on another record's expectation that is not the answer's form."""
FAILS = {"form": ("OBJ-4", True), "own": ("RTE-9/a1", False), "other": ("OBJ-14", False)}


def _run_check(outcomes: list[str]) -> tuple[list[int], BaseException | None]:
    """A hypothesis check of RTE-9/a1 whose explicit examples 0, 1, … do `outcomes`, run as the suite runs
    it: the examples it ran, and what it ended with."""
    ran: list[int] = []

    @settings(phases=[Phase.explicit], database=None, report_multiple_bugs=False,
              suppress_health_check=list(HealthCheck))
    @given(index=st.integers())
    def check(index: int) -> None:
        ran.append(index)
        if outcomes[index] in FAILS:
            record, form = FAILS[outcomes[index]]
            raise Contradiction(record, f"{outcomes[index]} at example {index}", answer_shape=form)

    for index in reversed(range(len(outcomes))):
        check = example(index=index)(check)
    go_on_past_shapes(check)
    watch = Watch(("RTE-9/a1",), lambda: (), lambda began: None, lambda: True)
    try:
        with watching(watch):
            check()
        raise_first(watch)
    except Contradiction as ended:
        return ran, ended
    return ran, None


@settings(suppress_health_check=[HealthCheck.nested_given], max_examples=60)
@given(st.lists(st.sampled_from(OUTCOMES), min_size=1, max_size=8))
def test_a_check_ends_on_a_failure_of_its_own_else_on_its_first_example_failing_on_the_form(
    outcomes: list[str]
) -> None:
    ran, ended = _run_check(outcomes)
    stops = [i for i, outcome in enumerate(outcomes) if outcome in ("own", "other")]
    forms = [i for i, outcome in enumerate(outcomes) if outcome == "form"]
    if stops:
        assert ran == list(range(stops[0] + 1))
        assert ended is not None and str(ended).endswith(f"{outcomes[stops[0]]} at example {stops[0]}")
    else:
        assert ran == list(range(len(outcomes)))
        said = f"form at example {forms[0]}" if forms else None
        assert (str(ended).split(": ", 1)[1] if ended is not None else None) == said
    if ended is not None and not stops:
        assert any(note.startswith("Failing explicit example: check(") for note in ended.__notes__)


def _fork(mode: str) -> str:
    return "cmd:" + shlex.join(command("reference_fork", mode))


def test_a_render_change_behind_a_renamed_key_is_named_beside_it(tmp_path: Path) -> None:
    ran = cli("run", "--target", _fork("branch-ids+html-escaped"), "--profile", "dev", "--seed", "1",
              "--select", "OBJ-4,RTE-9/a1", out=tmp_path / "run")
    assert ran.code == 1, ran.stderr
    causes = {cause["id"]: cause["summary"] for cause in ran.report["root_causes"]}
    assert set(causes) == {"OBJ-4", "RTE-9/a1"}, causes
    assert "branches → branchIds" in causes["OBJ-4"], causes
    assert "&lt;" in causes["RTE-9/a1"] or "&amp;" in causes["RTE-9/a1"], causes


@pytest.mark.parametrize(("mode", "said"), [
    ("branch-ids", "OBJ-4 contradicted: "),
    ("branch-ids+html-escaped", "the box's payload row is "),
])
def test_the_verbatim_check_fails_on_the_box_past_the_renamed_key_and_on_the_key_alone_as_before(
    tmp_path: Path, mode: str, said: str
) -> None:
    seen = suite_outcomes("test_render.py", ["test_single_line_payload_verbatim"], _fork(mode), tmp_path)
    outcome, message = seen["test_single_line_payload_verbatim"]
    assert outcome == "failed" and said in message, message
