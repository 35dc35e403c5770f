"""The probes for what the search never sent (calls/probes.py, issues 42 and 43): an argument the tool does
not declare (OBJ-13's `sessionId`, `kind`, ...; ABS-11's label-retiring `mergeBranch`, ...), isRevision as
the string "false" (RTE-9/a1), a thought of 64 lines (RTE-9/a1, and every probed property).

Round 13's blind held-out-multi-8 left five changes unnamed: no call carried these shapes under its seed.
Here: which checks send them before their search; that the reference answers and draws each as the records
say; that a reference fork making each change departs on them (real processes,
tests/servers/reference_fork.py); and one run of the command line, under a seed the multi-8 measurement never
used, on a fork of three changes.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.calls.probes import (
    LABEL_ARGUMENT,
    LABEL_ARGUMENTS,
    MANY_LINES,
    MANY_LINES_PROBE,
    PROBE_ATTRIBUTE,
    PROBES,
    REVISION_STRINGS,
    UNDECLARED_ARGUMENTS,
    UNFILED_FROM,
    ArgumentProbe,
    probe_of,
)
from conformance.calls.strategies import OPTIONAL, REQUIRED, Envelope
from conformance.core.jsontypes import JSON
from conformance.drivers.wire import Exchange, WireDriver
from conformance.gate.verdicts import reached_by_probes
from conformance.report.model import Report
from conformance.suite import test_absences, test_render, test_store
from conformance.suite.jsvalues import guard_failure
from conformance.suite.served_schema import schema_valid
from tests.cli import REPO, cli
from tests.fast.test_probes import _outcome
from tests.servers.reference_fork import ARGUMENT_CHANGES

REFERENCE: Final = [sys.executable, "-m", "reference_server"]


def _fork(change: str) -> list[str]:
    return [sys.executable, str(REPO / "tests" / "servers" / "reference_fork.py"), change]


def _explicit(test: object) -> list[dict[str, object]]:
    return [dict(e.kwargs) for e in getattr(test, "hypothesis_explicit_examples", [])]


ARGUED: Final = (*UNDECLARED_ARGUMENTS, *REVISION_STRINGS)


# -- what is sent, and by whom ---------------------------------------------------------------------------


@pytest.mark.parametrize("argued", ARGUED, ids=lambda a: a.probe.shape)
def test_each_argued_probe_is_a_call_the_original_accepts_and_known_as_a_probe(argued: ArgumentProbe) -> None:
    arguments = argued.arguments()
    assert guard_failure(arguments) is None, argued
    # An undeclared argument passes the schema (it closes nothing); a string isRevision only a caller that
    # skips schema validation sends, as BAP-4/a1's checks do.
    assert schema_valid(arguments) == (argued in UNDECLARED_ARGUMENTS), argued
    assert probe_of(arguments) == argued.probe
    assert reached_by_probes([_outcome({"thought": "before"}, arguments)]) == [argued.probe.shape]


def test_the_undeclared_arguments_are_undeclared() -> None:
    declared = {*REQUIRED, *OPTIONAL}
    names = [name for argued in UNDECLARED_ARGUMENTS for name in argued.extra]
    assert "sessionId" in names and "kind" in names and not declared & set(names)
    assert not declared & set(LABEL_ARGUMENTS) and "mergeBranch" in LABEL_ARGUMENTS
    assert {argued.extra["isRevision"] for argued in REVISION_STRINGS} >= {"false"}


def test_obj_13s_check_sends_each_undeclared_argument_first() -> None:
    sent = _explicit(test_absences.test_no_hypothesis_object)
    for argued in UNDECLARED_ARGUMENTS:
        assert {"envelope": argued.probe.envelope, "extra": dict(argued.extra)} in sent, argued.probe.shape


def test_the_render_checks_send_a_false_string_and_many_lines_first() -> None:
    captions = _explicit(test_render.test_caption_trusts_unvalidated_is_revision)
    for argued in REVISION_STRINGS:
        assert any(e["envelope"] == argued.probe.envelope and e["truthy"] == argued.extra["isRevision"]
                   for e in captions), argued.probe.shape
    # The many-lines thought goes to every probed property, CMP-5's box check among them.
    assert getattr(test_render.test_box_format, PROBE_ATTRIBUTE, False)
    assert MANY_LINES_PROBE in PROBES and MANY_LINES.count("\n") + 1 > 10


def test_abs_11s_label_check_sends_each_label_argument_first() -> None:
    sent = _explicit(test_store.test_no_argument_retires_a_label)
    assert sorted(e["name"] for e in sent) == sorted(LABEL_ARGUMENTS)


@settings(max_examples=25)
@given(text=st.text(min_size=0, max_size=20))
def test_the_many_lines_thought_is_known_at_any_numbers(text: str) -> None:
    """RTE-9/a1's check sends it at 1 of 1; a marker after it keeps it known, another thought is not it."""
    assert probe_of(Envelope(MANY_LINES + text, 1, 1, True).arguments()) == MANY_LINES_PROBE
    assert probe_of(Envelope(text + "x", 1, 1, True).arguments()) is None


# -- on real processes --------------------------------------------------------------------------------


def _calls(names: dict[str, str]) -> Iterator[dict[str, JSON]]:
    """What the checks send before their search: each undeclared argument beside its envelope, each
    isRevision string, the many-lines thought, and a label filed then named by each label argument."""
    for argued in ARGUED:
        yield argued.probe.envelope.arguments()
        yield argued.arguments()
    yield MANY_LINES_PROBE.envelope.arguments()
    for name in LABEL_ARGUMENTS:
        label = names.setdefault(name, f"probe merge {name}")
        yield Envelope("probe: a label to name", 1, 1, True).arguments(
            branchFromThought=UNFILED_FROM, branchId=label)
        yield {**LABEL_ARGUMENT.envelope.arguments(), name: label}


def _said(exchange: Exchange) -> tuple[str, str]:
    """An answer (its count left out: a fork refusing a call counts one fewer after it) and its box."""
    response = exchange.response if isinstance(exchange.response, dict) else {}
    result = response.get("result")
    content = result.get("content") if isinstance(result, dict) else None
    text = content[0].get("text") if isinstance(content, list) and isinstance(content[0], dict) else None
    status = json.loads(text) if isinstance(text, str) and text.startswith("{") else text
    if isinstance(status, dict):
        status.pop("thoughtHistoryLength", None)
    error = result.get("isError") if isinstance(result, dict) else None
    return json.dumps([status, error], sort_keys=True), exchange.stderr.decode("utf-8", "replace")


def _run(command: list[str]) -> list[tuple[str, str]]:
    with WireDriver(command, timeout=60) as driver:
        driver.initialize()
        driver.stderr_settled(30.0)
        return [_said(driver.call_tool("sequentialthinking", arguments)) for arguments in _calls({})]


@pytest.fixture(scope="module")
def reference_said() -> list[tuple[str, str]]:
    return _run(REFERENCE)


def test_the_reference_answers_and_draws_the_probes_as_the_records_say(
        reference_said: list[tuple[str, str]]) -> None:
    """OBJ-13: an undeclared argument changes neither answer nor box; RTE-9/a1: "false" is a revision, 64
    lines are drawn inside one box; ABS-11: a named label stays listed."""
    calls = list(_calls({}))
    assert len(reference_said) == len(calls)
    for index, argued in enumerate(ARGUED):
        (plain_text, plain_box), (marked_text, marked_box) = reference_said[2 * index:2 * index + 2]
        assert '"isError": true' not in marked_text, argued.probe.shape
        if argued in UNDECLARED_ARGUMENTS:
            assert (plain_text, plain_box) == (marked_text, marked_box), argued.probe.shape
        else:
            assert "🔄 Revision 2/3 (revising thought undefined)" in marked_box, marked_box
    many_box = reference_said[2 * len(ARGUED)][1]
    assert MANY_LINES in many_box and many_box.count("┌") == 1
    for text, _box in reference_said[2 * len(ARGUED) + 1:]:
        assert "probe merge " in text and '"isError": true' not in text


@pytest.mark.parametrize("change", sorted(ARGUMENT_CHANGES))
def test_a_fork_making_each_change_departs_on_the_probes(
        change: str, reference_said: list[tuple[str, str]]) -> None:
    """The fork's answer or box differs from the reference's on a probe call, the first such call the one
    carrying the shape its change reads (what follows a retired label differs after it)."""
    said = _run(_fork(change))
    pairs = zip(said, reference_said, strict=True)
    differing = [index for index, (one, two) in enumerate(pairs) if one != two]
    assert differing, change
    first = json.dumps(list(_calls({}))[differing[0]], sort_keys=True)
    wanted = {"session-checked": '"sessionId"', "kind-in-box": '"kind"', "merge-branch": '"mergeBranch"',
              "revision-strings": '"isRevision": "false"', "line-limit": "line 64"}[change]
    assert wanted in first, (change, first)


# -- the command line, one fork of three changes --------------------------------------------------------


def test_a_fork_of_three_probe_only_changes_departs_on_the_probes_under_a_new_seed(tmp_path: Path) -> None:
    """kind-in-box, merge-branch and revision-strings at once; seed 7 (the multi-8 measurement ran seed 1):
    each record departs, and every failing check of each failed on a probe."""
    spec = "cmd:" + shlex.join(_fork("kind-in-box+merge-branch+revision-strings"))
    ran = cli("run", "--target", spec, "--select", "OBJ-13,ABS-11,RTE-9/a1", "--profile", "dev",
              "--seed", "7", out=tmp_path / "out")
    assert ran.code == 1, ran.stdout + ran.stderr
    records = {r.id: r for r in Report.model_validate(ran.report).records}
    shapes = {"OBJ-13": "an undeclared argument kind", "ABS-11": LABEL_ARGUMENT.shape,
              "RTE-9/a1": REVISION_STRINGS[0].probe.shape}
    for record, shape in shapes.items():
        assert records[record].verdict == "deviates", (record, records[record].reason)
        assert records[record].probes == [shape], (record, records[record].probes)
