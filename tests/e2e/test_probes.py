"""The deterministic probes (calls/probes.py, issue 43) on a fork whose one change shows only for a
thoughtNumber that skips ahead of the history: a baseline written under one seed passes under another,
because the probes reach the change under both.

Real processes: npm:0.6.2's dist/index.js patched with held-out-multi-4's `thought-number-no-skip` change
alone (a call whose thoughtNumber exceeds the history's length + 1 is refused), run by the command line (dev
profile). Before the probes, RTE-4 and OBJ-1/a1 departed under dev seeds 11 to 55 and not under seed 1, so a
seed-1 baseline failed every other seed with "new OBJ-1/a1, RTE-4". `python -m benchmarks.flap --forks
hardened-inputs` measures the same over more seeds, the ci profile and a stderr relay.

CI's seed-1 run judges those two records alone (`--select`, `PROBED`): what its test reads is theirs, and a
check's probes go out before its own examples however few records the run judges (a `--select` run is where
they once did not). The whole seed-1 run, whose baseline the seed-22 run is gated by, is the evidence tier's.
"""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

import pytest

from conformance.report.model import Report
from tests.cli import run_dev
from tests.e2e.ahead import used
from tests.modified_servers.servers import Modification, load_modifications, materialize, target_spec
from tests.report_links import broken_links

REPO = Path(__file__).resolve().parents[2]
PROBED = ("RTE-4", "OBJ-1/a1")
"""The records the skip departs from, reached by the probes under every seed."""
_HARDENED = next(m for m in load_modifications() if m.id == "fork-hardened-inputs")
NO_SKIP = Modification(
    id="thought-number-no-skip", set="tuning",
    change="a thoughtNumber may not skip ahead of the history (held-out-multi-4's hardened-inputs, alone)",
    patches=_HARDENED.patches[:1], primary=())
"""The one change: its first patch (tests/modified_servers/modifications.yaml, `thought-number-no-skip`)."""


class Written(NamedTuple):
    """The fork's seed-1 run, the baseline written from it (its reasons filled in), and the runs the selected
    tests check, made ahead."""

    spec: str
    folder: Path
    baseline: Path
    report: Report
    later: dict[str, Future[tuple[int, Report]]]


@pytest.fixture(scope="module")
def written(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, ahead: ThreadPoolExecutor
) -> Written:
    """The seed-1 run here, beside the original's (`original_run`), then the seed-22 run once the baseline
    is written, beside the test of the seed-1 run (the session's `ahead` pool): a run spends much of its
    wall time waiting on its server's processes and clocks, so its neighbour fills the other core."""
    folder = tmp_path_factory.mktemp("no-skip")
    later: dict[str, Future[tuple[int, Report]]] = {}
    assert "skips ahead" in NO_SKIP.patches[0].replace
    spec = target_spec(materialize(NO_SKIP, folder / "server"))
    _, report = run_dev(spec, folder / "seed-1", 1)
    baseline = folder / "baseline.yaml"
    subprocess.run([sys.executable, "-m", "conformance", "baseline", str(folder / "seed-1" / "report.json"),
                    "-o", str(baseline)], cwd=REPO, check=True, capture_output=True)
    baseline.write_text(baseline.read_text(encoding="utf-8").replace("TODO say why", "we refuse a skip"),
                        encoding="utf-8")
    if used(request, ["seed_22"]):
        later["seed_22"] = ahead.submit(run_dev, spec, folder / "seed-22", 22, baseline)
    return Written(spec, folder, baseline, report, later)


@pytest.fixture(scope="module")
def seed_22(written: Written) -> tuple[int, Report]:
    return written.later["seed_22"].result()


@pytest.fixture(scope="module", autouse=True)
def original_run(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, ahead: ThreadPoolExecutor
) -> tuple[Path, Future[tuple[int, Report]]] | None:
    """The unmodified original's seed-1 run (its `--out` folder), started with the module's first test when
    its test is selected: it needs nothing of the fork."""
    if not used(request, ["original"]):
        return None
    out = tmp_path_factory.mktemp("original") / "out"
    return out, ahead.submit(run_dev, "npm:0.6.2", out, 1)


@pytest.fixture(scope="module")
def original(original_run: tuple[Path, Future[tuple[int, Report]]] | None) -> tuple[Path, Report]:
    assert original_run is not None
    out, future = original_run
    return out, future.result()[1]


@pytest.fixture(scope="module")
def probed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Report]:
    """The fork's seed-1 run judging `PROBED` alone: its `--out` folder and report."""
    folder = tmp_path_factory.mktemp("no-skip-probed")
    out = folder / "seed-1"
    _, report = run_dev(target_spec(materialize(NO_SKIP, folder / "server")), out, 1, None,
                        "--select", ",".join(PROBED))
    return out, report


def test_the_probes_reach_the_skip_under_seed_one(probed: tuple[Path, Report]) -> None:
    out, report = probed
    by_id = {rv.id: rv for rv in report.records}
    for record in PROBED:
        assert by_id[record].verdict == "deviates", (record, by_id[record].reason)
        assert by_id[record].probes, (record, by_id[record].counterexample)
    assert "skips ahead" in by_id["RTE-4"].reason, by_id["RTE-4"].reason
    assert "a thoughtNumber skipping ahead of the history" in by_id["RTE-4"].probes
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "Reached by the deterministic probes" in markdown
    assert "RTE\\-4" in markdown.split("Reached by the deterministic probes", 1)[1].split("\n", 1)[0]


@pytest.mark.evidence(
    "tests/e2e/test_probes.py::test_the_probes_reach_the_skip_under_seed_one",
    "tests/fast/test_probes.py::test_the_checks_send_the_probes_before_their_search",
    "tests/e2e/test_pinned_replay.py::test_one_entry_covers_the_departures_that_show_its_difference",
)
def test_the_seed_one_baseline_holds_under_another_seed(seed_22: tuple[int, Report]) -> None:
    """Seed 22 against the seed-1 baseline. In CI: the probes reach the skip under seed 1, each check sends
    them as explicit examples, ahead of any seed's search, and a seed-1 baseline holds under another seed on
    the sorted fork."""
    code, report = seed_22
    assert code == 0, (report.gate.unexpected, report.gate.stale, report.gate.changed)
    gated = {e.record for e in report.gate.expected}
    assert {"RTE-4", "OBJ-1/a1"} <= gated, sorted(gated)


@pytest.mark.evidence("tests/e2e/test_pinned_replay.py::test_the_original_is_reached_by_no_probe")
def test_the_original_is_reached_by_no_probe(original: tuple[Path, Report]) -> None:
    """The unmodified original answers every probe as its records say: nothing departs through them. In CI:
    the same checks on the original's seed-11 run that test_pinned_replay.py makes anyway."""
    out, report = original
    assert broken_links(out) == []  # as every test's own folder (tests/e2e/conftest.py)
    probed = [rv.id for rv in report.records if rv.probes]
    assert not probed, probed
    failed = [rv.id for rv in report.records if rv.verdict == "deviates" and rv.id.startswith(("RTE", "OBJ"))]
    assert not failed, failed
