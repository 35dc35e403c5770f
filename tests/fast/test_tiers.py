"""The tiers by cost, as `python -m pytest` sees them: `-m "not slow"` selects tests/fast/ and nothing else,
and every test under tests/e2e/ and of the conformance suite is marked slow (by tests/conftest.py); the
README's test command leaves out the evidence tier, each of whose cases names tests CI runs that prove its
behaviour.

The whole test run is collected (never run) once, in a subprocess with a small plugin that lists what was
selected, what was deselected and what each evidence case names.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fast.test_docs import TEST_JOB

REPO = Path(__file__).resolve().parents[2]
LISTER = '''
import json

_deselected = []


def pytest_deselected(items):
    _deselected.extend(items)


def _evidence(items):
    return {item.nodeid: [str(a) for m in item.iter_markers("evidence") for a in m.args] for item in items
            if item.get_closest_marker("evidence") is not None}


def pytest_collection_finish(session):
    print("TIERS " + json.dumps({"selected": [i.nodeid for i in session.items],
                                 "deselected": [i.nodeid for i in _deselected],
                                 "evidence": _evidence([*session.items, *_deselected])}))
'''


@pytest.fixture(scope="module")
def tiers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The fast tier's selection (`-m "not slow"`), what it left out, and every evidence case's siblings."""
    folder = tmp_path_factory.mktemp("lister")
    (folder / "tier_lister.py").write_text(LISTER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "-p", "tier_lister", "-m", "not slow"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    line = next((line for line in done.stdout.splitlines() if line.startswith("TIERS ")), None)
    assert line is not None, done.stdout[-3000:] + done.stderr[-3000:]
    found: dict[str, Any] = json.loads(line.removeprefix("TIERS "))
    return found


def test_not_slow_selects_exactly_the_fast_tier(tiers: dict[str, Any]) -> None:
    selected, deselected = tiers["selected"], tiers["deselected"]
    assert selected and all(nodeid.startswith("tests/fast/") for nodeid in selected), [
        n for n in selected if not n.startswith("tests/fast/")
    ]
    slow = ("tests/e2e/", "conformance/suite/")
    assert all(nodeid.startswith(slow) for nodeid in deselected), [
        n for n in deselected if not n.startswith(slow)
    ]
    assert {n.split("/")[1] if n.startswith("tests/") else "suite" for n in deselected} == {"e2e", "suite"}


def _named(sibling: str, collected: set[str]) -> set[str]:
    """The collected tests a sibling's node id names: itself, or each of its parameters."""
    return {nodeid for nodeid in collected if nodeid == sibling or nodeid.startswith(f"{sibling}[")}


def test_the_readmes_test_command_leaves_out_the_evidence_tier() -> None:
    argv = shlex.split(TEST_JOB.split(" && ")[1])
    assert argv[:3] == ["python", "-m", "pytest"], argv
    options = argv[3:]
    assert options[options.index("-m") + 1] == "not evidence", argv


def test_every_evidence_case_is_end_to_end_and_names_tests_ci_runs(tiers: dict[str, Any]) -> None:
    """An evidence case is left out of CI only because the tests it names prove its behaviour there: each
    names at least one, each collected and none itself an evidence case (a name gone stale fails here)."""
    evidence: dict[str, list[str]] = tiers["evidence"]
    collected = {*tiers["selected"], *tiers["deselected"]}
    assert evidence, "no evidence case collected"
    assert all(nodeid.startswith("tests/e2e/") for nodeid in evidence), sorted(evidence)
    unnamed = [nodeid for nodeid, siblings in evidence.items() if not siblings]
    assert not unnamed, unnamed
    stale = {nodeid: sibling for nodeid, siblings in evidence.items() for sibling in siblings
             if not _named(sibling, collected)}
    assert not stale, stale
    circular = {nodeid: sibling for nodeid, siblings in evidence.items() for sibling in siblings
                if _named(sibling, collected) & set(evidence)}
    assert not circular, circular
