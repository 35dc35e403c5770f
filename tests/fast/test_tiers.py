"""The tiers by cost, as `python -m pytest` sees them: `-m "not slow"` selects tests/fast/ and nothing else,
and every test under tests/e2e/ and of the conformance suite is marked slow (by tests/conftest.py).

The whole test run is collected (never run) in a subprocess with a small plugin that lists what was
selected and what was deselected.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LISTER = '''
import json

_deselected = []


def pytest_deselected(items):
    _deselected.extend(item.nodeid for item in items)


def pytest_collection_finish(session):
    print("TIERS " + json.dumps({"selected": [i.nodeid for i in session.items], "deselected": _deselected}))
'''


def test_not_slow_selects_exactly_the_fast_tier(tmp_path: Path) -> None:
    (tmp_path / "tier_lister.py").write_text(LISTER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "-p", "tier_lister", "-m", "not slow"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    line = next((line for line in done.stdout.splitlines() if line.startswith("TIERS ")), None)
    assert line is not None, done.stdout[-3000:] + done.stderr[-3000:]
    tiers = json.loads(line.removeprefix("TIERS "))
    selected, deselected = tiers["selected"], tiers["deselected"]
    assert selected and all(nodeid.startswith("tests/fast/") for nodeid in selected), [
        n for n in selected if not n.startswith("tests/fast/")
    ]
    slow = ("tests/e2e/", "conformance/suite/")
    assert all(nodeid.startswith(slow) for nodeid in deselected), [
        n for n in deselected if not n.startswith(slow)
    ]
    assert {n.split("/")[1] if n.startswith("tests/") else "suite" for n in deselected} == {"e2e", "suite"}
