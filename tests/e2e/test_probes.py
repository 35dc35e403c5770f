"""The deterministic probes (calls/probes.py, issue 43) on a fork whose one change shows only for a
thoughtNumber that skips ahead of the history: a baseline written under one seed passes under another,
because the probes reach the change under both.

Real processes: npm:0.6.2's dist/index.js patched with held-out-multi-4's `thought-number-no-skip` change
alone (a call whose thoughtNumber exceeds the history's length + 1 is refused), run by the command line (dev
profile). Before the probes, RTE-4 and OBJ-1/a1 departed under dev seeds 11 to 55 and not under seed 1, so a
seed-1 baseline failed every other seed with "new OBJ-1/a1, RTE-4". `python -m benchmarks.flap --forks
hardened-inputs` measures the same over more seeds, the ci profile and a stderr relay.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conformance.report.model import Report
from tests.cli import run_dev
from tests.modified_servers.servers import Modification, load_modifications, materialize, target_spec

REPO = Path(__file__).resolve().parents[2]
_HARDENED = next(m for m in load_modifications() if m.id == "fork-hardened-inputs")
NO_SKIP = Modification(
    id="thought-number-no-skip", set="tuning",
    change="a thoughtNumber may not skip ahead of the history (held-out-multi-4's hardened-inputs, alone)",
    patches=_HARDENED.patches[:1], primary=())
"""The one change: its first patch (tests/modified_servers/modifications.yaml, `thought-number-no-skip`)."""


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, Path, Report]:
    """The fork's seed-1 run and the baseline written from it (its reasons filled in)."""
    folder = tmp_path_factory.mktemp("no-skip")
    assert "skips ahead" in NO_SKIP.patches[0].replace
    spec = target_spec(materialize(NO_SKIP, folder / "server"))
    _, report = run_dev(spec, folder / "seed-1", 1)
    baseline = folder / "baseline.yaml"
    subprocess.run([sys.executable, "-m", "conformance", "baseline", str(folder / "seed-1" / "report.json"),
                    "-o", str(baseline)], cwd=REPO, check=True, capture_output=True)
    baseline.write_text(baseline.read_text(encoding="utf-8").replace("TODO say why", "we refuse a skip"),
                        encoding="utf-8")
    return spec, folder, baseline, report


def test_the_probes_reach_the_skip_under_seed_one(written: tuple[str, Path, Path, Report]) -> None:
    _, folder, _, report = written
    by_id = {rv.id: rv for rv in report.records}
    for record in ("RTE-4", "OBJ-1/a1"):
        assert by_id[record].verdict == "deviates", (record, by_id[record].reason)
        assert by_id[record].probes, (record, by_id[record].counterexample)
    assert "skips ahead" in by_id["RTE-4"].reason, by_id["RTE-4"].reason
    assert "a thoughtNumber skipping ahead of the history" in by_id["RTE-4"].probes
    markdown = (folder / "seed-1" / "report.md").read_text(encoding="utf-8")
    assert "Reached by the deterministic probes" in markdown
    assert "RTE\\-4" in markdown.split("Reached by the deterministic probes", 1)[1].split("\n", 1)[0]


def test_the_seed_one_baseline_holds_under_another_seed(written: tuple[str, Path, Path, Report]) -> None:
    spec, folder, baseline, _ = written
    code, report = run_dev(spec, folder / "seed-22", 22, baseline)
    assert code == 0, (report.gate.unexpected, report.gate.stale, report.gate.changed)
    gated = {e.record for e in report.gate.expected}
    assert {"RTE-4", "OBJ-1/a1"} <= gated, sorted(gated)


def test_the_original_is_reached_by_no_probe(tmp_path: Path) -> None:
    """The unmodified original answers every probe as its records say: nothing departs through them."""
    _, report = run_dev("npm:0.6.2", tmp_path / "original", 1)
    probed = [rv.id for rv in report.records if rv.probes]
    assert not probed, probed
    failed = [rv.id for rv in report.records if rv.verdict == "deviates" and rv.id.startswith(("RTE", "OBJ"))]
    assert not failed, failed
