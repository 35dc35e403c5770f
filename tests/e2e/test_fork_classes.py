"""A fork combining the changes real third-party forks make (tests/servers/many_changes.py), run as a user
runs it: each class of change is a root cause of its own, holding the departures whose own line is that change
(issue 42; nalyk-ts and bartoszkula-ts, /work/r11-audit):

- a cap (the history keeps 40 thoughts, 6 branch labels at most) is a cause whose records are those whose
  line is the cap, beside a re-worded guard whose cause holds none of them (nalyk-ts: both caps fell under
  the re-worded thought refusal);
- a process poisoned by one call (a prototype-named label) is a cause led by the sequence that poisons it,
  holding every departure refused by the poisoned process (bartoszkula-ts: no cause, or other causes');
- a limit on calls the original accepts (a thought of at most 1,000 characters, numbers refused unless
  positive integers, revisesThought required beside isRevision) is a cause of its own for each, holding the
  departures refused in its words (nalyk-ts: none of the three was ever a cause);
- a render cause (no box, other words on stderr) explains only departures whose own line is the box or
  stderr, not those of an answer key the fork adds too (bartoszkula-ts: CMP-5 "explained" 10, 1 rightly);
- a report's causes chosen again from the report alone (`scripts.measure_modified_servers --reattribute`)
  are the causes its run wrote: a re-attribution measures the run's own grouping (the poisoned and limited
  forks; the capped fork's run replays a leading cause the grouping then folds away, whose pair report.json
  keeps among its `folded_causes`: without it, 3 causes where the run wrote 5).

One seed's run of the dev profile each; nothing about time is asserted.
"""

from __future__ import annotations

import json
import re
import shlex
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Final

import pytest

from conformance.core.js import PROTOTYPE_KEYS
from conformance.gate.caps import cap_seen
from conformance.report.model import Report, RootCause
from scripts.measure_modified_servers import reattributed, suite_marks
from tests.cli import Ran, cli
from tests.e2e.ahead import used
from tests.servers import command

FORKS: Final = {
    "capped": ("cap-history=40", "cap-branches=6", "reword-thought", "answer-key"),
    "poisoned": ("poisoned", "no-box", "answer-key"),
    "limited": ("max-thought=1000", "integer-numbers", "revision-pair", "answer-key"),
}
PUSH: Final = "branches[thought.branchId].push is not a function"


def _run(name: str, out: Path) -> Ran:
    spec = "cmd:" + shlex.join(command("many_changes", *FORKS[name]))
    return cli("run", "--target", spec, "--profile", "dev", "--seed", "1", out=out)


@pytest.fixture(scope="module")
def runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
         ahead: ThreadPoolExecutor) -> dict[str, Future[Ran]]:
    """The forks' runs, made ahead (those the selected tests read)."""
    return {name: ahead.submit(_run, name, tmp_path_factory.mktemp(name) / "out")
            for name in used(request, list(FORKS))}


@pytest.fixture(scope="module")
def capped(runs: dict[str, Future[Ran]]) -> dict[str, Any]:
    return _report(runs["capped"].result())


@pytest.fixture(scope="module")
def limited(runs: dict[str, Future[Ran]]) -> dict[str, Any]:
    return _report(runs["limited"].result())


@pytest.fixture(scope="module")
def poisoned(runs: dict[str, Future[Ran]]) -> dict[str, Any]:
    return _report(runs["poisoned"].result())


def _report(ran: Ran) -> dict[str, Any]:
    assert ran.code == 1, ran.stdout[-3000:] + ran.stderr[-2000:]
    return ran.report


def _under(report: dict[str, Any]) -> dict[str, str]:
    """Each record a root cause holds → that cause's id."""
    return {record: cause["id"] for cause in report["root_causes"]
            for record in [*cause["records"], *cause["explains"]]}


def _departing(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [rv for rv in report["records"] if rv["verdict"] == "deviates" and rv["kind"] != "spec"]


@pytest.mark.parametrize("cap", ["the count stops at 40",
                                 "refused by the bound “Maximum number of branches (6) exceeded”"])
def test_a_cap_is_a_cause_holding_the_departures_that_met_it(capped: dict[str, Any], cap: str) -> None:
    met = [rv["id"] for rv in _departing(capped) if cap_seen(rv["reason"]) == cap]
    assert met, f"no departure's line says {cap!r}: {[rv['reason'][:120] for rv in _departing(capped)]}"
    under = _under(capped)
    homes = {under.get(record) for record in met}
    assert len(homes) == 1 and None not in homes, {record: under.get(record) for record in met}
    home = next(c for c in capped["root_causes"] if c["id"] in homes)
    number = re.search(r"\d+", cap)
    assert number is not None and number.group(0) in home["summary"], home["summary"]


def test_the_reworded_guard_holds_no_capped_departure(capped: dict[str, Any]) -> None:
    reworded = [c for c in capped["root_causes"] if "non-empty string" in c["summary"]]
    assert reworded, [c["summary"][:160] for c in capped["root_causes"]]
    lines = {rv["id"]: rv["reason"] for rv in capped["records"]}
    held = [r for c in reworded for r in c["explains"] if cap_seen(lines[r])]
    assert not held, {r: lines[r][:160] for r in held}


def test_a_poisoned_process_is_a_cause_led_by_the_call_that_poisons_it(poisoned: dict[str, Any]) -> None:
    refused = [rv["id"] for rv in _departing(poisoned) if PUSH in rv["reason"]]
    assert len(refused) >= 2, [rv["reason"][:120] for rv in _departing(poisoned)]
    under = _under(poisoned)
    homes = {under.get(record) for record in refused}
    assert len(homes) == 1 and None not in homes, {record: under.get(record) for record in refused}
    cause = next(c for c in poisoned["root_causes"] if c["id"] in homes)
    calls = [json.loads(frame).get("params", {}).get("arguments", {}) for frame in cause["example"]]
    assert any(isinstance(a, dict) and a.get("branchId") in PROTOTYPE_KEYS for a in calls), cause["example"]
    assert "poisons" in cause["summary"], cause["summary"]


def test_a_render_cause_explains_only_departures_of_the_box(poisoned: dict[str, Any]) -> None:
    lines = {rv["id"]: rv["reason"] for rv in poisoned["records"]}
    render = [c for c in poisoned["root_causes"]
              if re.search(r"\bbox\b|stderr", c["summary"].partition(" — ")[2])]
    assert render, [c["summary"][:160] for c in poisoned["root_causes"]]
    strays = {r: lines[r][:160] for c in render for r in c["explains"]
              if not re.search(r"\bbox|render|stderr|rows?\b|header", lines[r].split("{")[0], re.IGNORECASE)}
    assert not strays, strays


LIMITS: Final = ["refused by the limit “Invalid thought: must be between 1 and 1000 characters”",
                  "refused unless a positive integer",
                  "refused by the pair “revisesThought is required when isRevision is true”"]


@pytest.mark.parametrize("limit", LIMITS)
def test_a_limit_on_calls_is_a_cause_holding_the_departures_it_refused(limited: dict[str, Any],
                                                                       limit: str) -> None:
    met = [rv["id"] for rv in _departing(limited) if cap_seen(rv["reason"]) == limit]
    lines = [rv["reason"][:120] for rv in _departing(limited)]
    assert len(met) >= 2, f"{limit!r} met by {met}: {lines}"
    under = _under(limited)
    homes = {under.get(record) for record in met}
    assert len(homes) == 1 and None not in homes, {record: under.get(record) for record in met}
    home = next(c for c in limited["root_causes"] if c["id"] in homes)
    words = limit.partition("“")[2].removesuffix("”") or "positive integer"
    assert words in home["summary"], home["summary"]


def _said(cause: RootCause) -> tuple[str, list[str], list[str], str]:
    return cause.id, cause.records, sorted(cause.explains), cause.summary


def test_a_report_regrouped_says_the_causes_its_run_wrote(limited: dict[str, Any], poisoned: dict[str, Any],
                                                          capped: dict[str, Any]) -> None:
    marks = suite_marks()
    for name, written in (("limited", limited), ("poisoned", poisoned), ("capped", capped)):
        report = Report.model_validate(written)
        again = reattributed(report, marks)
        assert [_said(c) for c in again.root_causes] == [_said(c) for c in report.root_causes], name
        assert ({rv.id: rv.explained_by for rv in again.records}
                == {rv.id: rv.explained_by for rv in report.records}), name
