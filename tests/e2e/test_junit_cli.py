"""junit.xml of real runs against baselines: npm:2026.8.31 with the shipped baseline passes its gate and
junit.xml shows no failure; the same target against a baseline that misses one departure, pins another
behaviour for a second and lists a record that holds fails its gate, and junit.xml fails exactly those.

Both runs use the shipped baseline's own profile and seed (docs/baselines.md), so the departures are the
ones it was written from; they are made ahead, side by side (tests/e2e/conftest.py). The failing run judges
the records its baseline lists (`--select`): every one of its gate's entries, without the suite's other
records, which the passing run judges with the same profile and seed.
"""

from __future__ import annotations

import json
import os
import sys
import xml.etree.ElementTree as ET
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.ahead import used
from tests.paced import run_paced

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "fixtures" / "baselines" / "npm-2026.8.31.yaml"
TARGET = "npm:2026.8.31"
MISSING, REPINNED, HOLDING = "CMP-3", "OBJ-8", "ABS-12"
"""Dropped from the baseline (an unexpected departure), pinned to another signature (a changed departure),
added to it though it holds on the release (a stale entry)."""


@dataclass
class Ran:
    code: int
    output: str
    report: dict[str, Any]
    junit: ET.Element


def _run(baseline: Path, out: Path, *options: str) -> Ran:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    done = run_paced(
        [sys.executable, "-m", "conformance", "run", "--target", TARGET, "--profile", "ci",
         "--seed", "20261129", "--baseline", str(baseline), "--out", str(out), *options],
        cwd=REPO, env=env,
    )
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return Ran(done.returncode, done.stdout + done.stderr, report, ET.parse(out / "junit.xml").getroot())


def _listed(baseline: Path) -> list[str]:
    """The records a baseline lists: what a run checking only its gate's entries judges."""
    data = yaml.safe_load(baseline.read_text(encoding="utf-8"))
    return sorted({e["record"] for e in data["deviations"]})


def _fail_baseline(root: Path) -> Path:
    """The shipped baseline less one departure, with another re-pinned and a holding record added."""
    data = yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))
    entries = [e for e in data["deviations"] if e["record"] != MISSING]
    for entry in entries:
        if entry["record"] == REPINNED:
            entry["signature"] = "0" * 64
    entries.append({"record": HOLDING, "reason": "listed though the release keeps it"})
    baseline = root / "baseline.yaml"
    baseline.write_text(yaml.safe_dump({**data, "deviations": entries}, sort_keys=False), encoding="utf-8")
    return baseline


@pytest.fixture(scope="module")
def runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, ahead: ThreadPoolExecutor
) -> dict[str, Future[Ran]]:
    """The runs the selected tests check, made ahead, side by side."""
    made: dict[str, Future[Ran]] = {}
    for name in used(request, ["passing", "failing"]):
        root = tmp_path_factory.mktemp(f"junit-{name}")
        if name == "passing":
            made[name] = ahead.submit(_run, SHIPPED, root / "out")
        else:
            # The shipped baseline's records: the one dropped from this one must still be run to depart.
            judged = sorted({*_listed(SHIPPED), HOLDING})
            made[name] = ahead.submit(_run, _fail_baseline(root), root / "out", "--select", ",".join(judged))
    return made


@pytest.fixture(scope="module")
def passing(runs: dict[str, Future[Ran]]) -> Ran:
    return runs["passing"].result()


@pytest.fixture(scope="module")
def failing(runs: dict[str, Future[Ran]]) -> Ran:
    return runs["failing"].result()


def _records_suite(junit: ET.Element) -> ET.Element:
    suite = junit.find("testsuite")
    assert suite is not None
    return suite


def _suite_properties(suite: ET.Element) -> dict[str | None, str | None]:
    found = suite.find("properties")
    assert found is not None
    return {p.get("name"): p.get("value") for p in found}


def _failing(junit: ET.Element) -> dict[str, str]:
    """Testcase name → the type of its failure or error, over every testsuite."""
    return {
        case.get("name", ""): child.get("type", "")
        for case in junit.iter("testcase")
        for child in case
        if child.tag in ("failure", "error")
    }


def test_a_run_that_passes_its_baseline_writes_no_failure(passing: Ran) -> None:
    assert passing.code == 0, passing.output[-3000:]
    gate = passing.report["gate"]
    assert gate["passed"] and len(gate["expected"]) == 25  # the shipped baseline's entries, one per record
    suite = _records_suite(passing.junit)
    assert (suite.get("failures"), suite.get("errors")) == ("0", "0")
    assert _failing(passing.junit) == {}
    assert _suite_properties(suite)["gate"] == "passed"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    for entry in gate["expected"]:
        accepted = {p.get("name"): p.get("value") for p in cases[entry["record"]].iter("property")}
        assert accepted["baseline"] == "accepted" and accepted["baseline-reason"] == entry["reason"][:500]
        assert accepted["verdict"] == entry["verdict"]


def test_a_run_that_fails_its_baseline_fails_exactly_its_gate_entries(failing: Ran) -> None:
    assert failing.code == 1, failing.output[-3000:]
    gate = failing.report["gate"]
    assert [e["record"] for e in gate["unexpected"]] == [MISSING]
    assert [e["record"] for e in gate["changed"]] == [REPINNED]
    assert [e["record"] for e in gate["stale"]] == [HOLDING]
    assert not gate["unconfirmed"] and len(gate["expected"]) == 23
    assert _failing(failing.junit) == {
        MISSING: "deviates",
        REPINNED: "departure changed",
        HOLDING: "stale baseline entry",
    }
    suite = _records_suite(failing.junit)
    assert (suite.get("failures"), suite.get("errors")) == ("3", "0")
    assert _suite_properties(suite)["gate"] == "failed"
