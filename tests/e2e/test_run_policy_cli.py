"""Policy options as a user types them. `run --select` against the reference: only the tests evidencing the
selected record run, the records left out are `not run` (report.json says which), a baseline entry of a
record left out does not fail the gate, and the rerun line repeats the selection. `--strict-baseline` on
the stand-in gate suite against the hostile fake server: the entry whose reason still says TODO fails the
gate, the others are accepted and counted on the terminal. `--example-db`: a counterexample one run saves
is replayed first by the next (tests/cli_suite/replay_suite.py)."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

from conformance.gate.verdicts import NOT_SELECTED
from tests.cli import GATE_SEED, GATE_SUITE, Ran, cli, cli_here, fake


def test_a_selected_run_judges_only_the_selected_records(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text(yaml.safe_dump({"target": "reference", "deviations": [
        {"record": "RTE-2", "reason": "left out of this run, so not weighed", "verdict": "deviates"}]}),
        encoding="utf-8")
    ran = cli("run", "--select", "RTE-3", "--baseline", str(baseline), "--profile", "dev", "--seed", "7",
              out=tmp_path / "out")
    assert ran.code == 0, ran.stdout + ran.stderr
    report = ran.report
    verdicts = {r["id"]: r for r in report["records"]}
    assert verdicts["RTE-3"]["verdict"] == "holds"
    judged = [r["id"] for r in report["records"] if r["verdict"] in ("holds", "deviates", "error")]
    assert judged == ["RTE-3"]
    left_out = report["run"]["selection"]["not_selected"]
    assert "RTE-2" in left_out and "RTE-3" not in left_out and len(left_out) == len(report["records"]) - 1
    assert (verdicts["RTE-2"]["verdict"], verdicts["RTE-2"]["reason"]) == ("not run", NOT_SELECTED)
    assert report["gate"]["passed"] and not report["gate"]["unconfirmed"]
    assert report["run"]["rerun"].endswith("--select RTE-3")
    assert 0 < report["run"]["tests"] == len(verdicts["RTE-3"]["tests"]), "only tests evidencing RTE-3 ran"
    assert f"records ({left_out[0]}, " in ran.stdout and NOT_SELECTED in ran.stdout



def test_strict_baseline_fails_the_entry_nobody_explained(hostile_gate: Ran, tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.yaml"
    wrote = cli_here("baseline", str(hostile_gate.out / "report.json"), "-o", str(baseline))
    assert wrote.code == 0, wrote.stderr
    document = yaml.safe_load(baseline.read_text(encoding="utf-8"))
    entries = document["deviations"]
    assert len(entries) >= 2 and all(e["reason"].startswith("TODO say why") for e in entries)
    for entry in entries[1:]:
        entry["reason"] = "the fake server answers with markup on purpose"
    baseline.write_text(yaml.safe_dump(document), encoding="utf-8")
    ran = cli("run", "--target", fake("hostile"), "--profile", "dev", "--seed", GATE_SEED, "--suite",
              GATE_SUITE, "--baseline", str(baseline), "--strict-baseline", out=tmp_path / "out")
    assert ran.code == 1, ran.stdout + ran.stderr
    unexplained = entries[0]["record"]
    folded = [e["record"] for e in entries[0].get("explains", [])]  # one reason per cause (baseline /3)
    gate = ran.report["gate"]
    assert [e["record"] for e in gate["unexplained"]] == [unexplained, *folded]
    assert not gate["unexpected"] and not gate["stale"] and not gate["changed"]
    assert all(e["folded_under"] == unexplained for e in gate["unexplained"][1:])
    named = f"{unexplained} with {', '.join(folded)} folded under it" if folded else unexplained
    assert f"1 baseline reason still says TODO ({named})" in ran.stdout
    accepted = len(entries) - 1 + sum(len(e.get("explains", [])) for e in entries[1:])
    assert f"  accepted {accepted} departure{'s' if accepted > 1 else ''} the baseline lists" in ran.stdout
    assert ran.report["run"]["rerun"].endswith("--strict-baseline")


REPLAY_SUITE = str(Path(GATE_SUITE).with_name("replay_suite.py"))


def test_a_counterexample_saved_by_one_run_is_replayed_first_by_the_next(tmp_path: Path) -> None:
    """The first run finds and saves a failing number; a second run, failing only on that number, fails with
    the example database and holds without it (its seed's 20 examples do not draw that number)."""
    database = tmp_path / "examples"

    def replay(name: str, *extra: str, env: dict[str, str] | None = None) -> Ran:
        return cli("run", "--suite", REPLAY_SUITE, "--profile", "dev", "--call-timeout", "60", *extra,
                   out=tmp_path / name, env=env)

    first = replay("first", "--example-db", str(database))
    assert first.code == 1, first.stdout + first.stderr
    assert first.report["run"]["example_db"] == str(database)
    assert first.report["harness"]["seed"] is None and "--seed" not in first.report["run"]["rerun"]
    assert any(path.is_file() for path in database.rglob("*")), "the failing example was saved"
    found = re.search(r"number=(\d+)", _falsifying(first))
    assert found is not None, _falsifying(first)
    only = {"REPLAY_FAILS_ON": found.group(1)}
    with ThreadPoolExecutor(2, thread_name_prefix="replay") as side_by_side:  # two runs that share nothing
        made_again = side_by_side.submit(replay, "again", "--example-db", str(database), env=only)
        made_fresh = side_by_side.submit(replay, "fresh", "--seed", "2", env=only)
        again, fresh = made_again.result(), made_fresh.result()
    assert again.code == 1, again.stdout + again.stderr
    assert f"number={found.group(1)}" in _falsifying(again)
    assert fresh.code == 0, fresh.stdout + fresh.stderr
    assert fresh.report["run"]["example_db"] is None


def _falsifying(ran: Ran) -> str:
    record = next(r for r in ran.report["records"] if r["id"] == "RTE-2")
    return str(record["counterexample"]["falsifying"])
