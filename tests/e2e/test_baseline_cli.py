"""Behaviour-pinned baselines end to end: `run`, `baseline -o`, `baseline --refresh` as a user types them.

Real targets over real pipes: npm releases from the cache, and forks of the original built at test time
(a copy of npm:0.6.2's install with one behaviour patched in dist/index.js). Runs use the stand-in suites
of tests/cli_suite/ so each takes seconds; signatures are computed by the real witness run. Two runs that
only read the same baseline are made side by side: each mostly waits on its server processes.
"""

from __future__ import annotations

import shlex
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from conformance.targets.specs import resolve_target
from tests.cli import GATE_SUITE, Ran, assert_one_clean_error_line, cli, cli_here
from tests.side_by_side import side_by_side

REPO = Path(__file__).resolve().parents[2]
SIGNATURE_SUITE = str(REPO / "tests" / "cli_suite" / "signature_suite.py")
ENTRY = Path("node_modules/@modelcontextprotocol/server-sequential-thinking/dist/index.js")
UNKNOWN_TOOL = "text: `Unknown tool: ${request.params.name}`"


def suite_run(target: str, out: Path, suite: str, seed: str, *extra: str) -> Ran:
    args = ["run", "--target", target, "--profile", "dev", "--seed", seed, "--suite", suite, *extra]
    return cli(*args, out=out)


def fork(where: Path, unknown_tool_text: str) -> str:
    """npm:0.6.2's install copied to `where`, answering unknown tools with another text (RTE-2 departs)."""
    entry = Path(resolve_target("npm:0.6.2").command[-1])
    shutil.copytree(entry.parents[4], where, symlinks=True)
    script = where / ENTRY
    source = script.read_text(encoding="utf-8")
    assert UNKNOWN_TOOL in source
    patched = source.replace(UNKNOWN_TOOL, f"text: `{unknown_tool_text}: ${{request.params.name}}`")
    script.write_text(patched, encoding="utf-8")
    return "cmd:" + shlex.join(["node", str(script)])


@pytest.fixture(scope="module")
def release_reports(tmp_path_factory: pytest.TempPathFactory, ahead: ThreadPoolExecutor) -> dict[str, Ran]:
    """2025.12.18 twice (two seeds) and 2026.7.4 once, on the signature suite (RTE-1 and RTE-3 depart),
    two at a time."""
    root = tmp_path_factory.mktemp("releases")
    runs = {
        name: ahead.submit(suite_run, target, root / name, SIGNATURE_SUITE, seed)
        for name, target, seed in (
            ("old", "npm:2025.12.18", "1"),
            ("old-again", "npm:2025.12.18", "987654321"),
            ("new", "npm:2026.7.4", "1"),
        )
    }
    return {name: run.result() for name, run in runs.items()}


def test_signatures_do_not_depend_on_the_seed(release_reports: dict[str, Ran]) -> None:
    def signed(ran: Ran) -> dict[str, str]:
        return {r["id"]: r["signature"] for r in ran.report["records"] if r["verdict"] == "deviates"}

    first, second = signed(release_reports["old"]), signed(release_reports["old-again"])
    assert set(first) == {"RTE-1", "RTE-3"} and all(first.values())
    assert first == second


def test_baseline_from_2025_12_18_fails_on_2026_7_4_naming_the_changed_departures(
    release_reports: dict[str, Ran], tmp_path: Path
) -> None:
    baseline = tmp_path / "baseline.yaml"
    made = cli_here("baseline", str(release_reports["old"].out / "report.json"), "-o", str(baseline))
    assert made.code == 0, made.stderr
    assert "for project @modelcontextprotocol/server-sequential-thinking" in made.stdout

    def gated(target: str, name: str) -> Ran:
        return suite_run(target, tmp_path / name, SIGNATURE_SUITE, "5", "--baseline", str(baseline))

    same, ran = side_by_side(lambda: gated("npm:2025.12.18", "same"), lambda: gated("npm:2026.7.4", "next"))
    assert same.code == 0, same.stdout + same.stderr
    assert ran.code == 1, ran.stdout + ran.stderr
    gate = ran.report["gate"]
    assert [e["record"] for e in gate["changed"]] == ["RTE-1", "RTE-3"]
    assert not gate["unexpected"] and not gate["stale"] and not gate["expected"]
    rte3 = gate["changed"][1]
    assert {w["step"] for w in rte3["before"]} >= {"string-number", "string-flag"}
    after = {w["step"]: w["answer"] for w in rte3["after"]}
    assert '"isError":false' in after["string-number"]
    rte1 = gate["changed"][0]
    assert "annotations" in rte1["after"][0]["answer"] and "annotations" not in rte1["before"][0]["answer"]
    assert "changed behaviour since the baseline pinned them (RTE-1, RTE-3)" in ran.stdout
    assert "departure changed: RTE-3" in ran.stdout and "before:" in ran.stdout
    assert "Departure changed" in (ran.out / "report.md").read_text(encoding="utf-8")
    assert "Departure changed" in (ran.out / "report.html").read_text(encoding="utf-8")


def test_refresh_keeps_reasons_and_repins_signatures(release_reports: dict[str, Ran], tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.yaml"
    old, new = (str(release_reports[name].out / "report.json") for name in ("old", "new"))
    assert cli_here("baseline", old, "-o", str(baseline)).code == 0
    data = yaml.safe_load(baseline.read_text(encoding="utf-8"))
    for entry in data["deviations"]:
        entry["reason"] = f"why {entry['record']} departs, in a human's words"
    data["deviations"].append({"record": "ABS-9", "reason": "an entry this report does not run"})
    baseline.write_text("# kept by hand\n" + yaml.safe_dump(data), encoding="utf-8")

    refreshed = cli_here("baseline", new, "--refresh", str(baseline), "--drop-stale")
    assert refreshed.code == 0, refreshed.stderr
    assert ("kept the reasons of 2 departure(s), re-pinned 2 signature(s) (RTE-1, RTE-3), added 0, removed 0"
            in refreshed.stdout)
    assert "not run by this report, kept as written: ABS-9" in refreshed.stdout
    text = baseline.read_text(encoding="utf-8")
    assert "# kept by hand" in text
    after = yaml.safe_load(text)
    assert [(e["record"], e["reason"]) for e in after["deviations"]] == [
        ("RTE-1", "why RTE-1 departs, in a human's words"),
        ("RTE-3", "why RTE-3 departs, in a human's words"),
        ("ABS-9", "an entry this report does not run"),
    ]
    new = {r["id"]: r["signature"] for r in release_reports["new"].report["records"]}
    assert all(e["signature"] == new[e["record"]] for e in after["deviations"][:2])
    assert after["format"] == "seqthink-conformance-baseline/4" and after["project"] == data["project"]


def test_refresh_of_a_missing_file_is_one_line(release_reports: dict[str, Ran], tmp_path: Path) -> None:
    ran = cli_here("baseline", str(release_reports["new"].out / "report.json"), "--refresh",
                   str(tmp_path / "nope.yaml"))
    assert ran.code == 4
    assert_one_clean_error_line(ran)


def test_a_fork_at_another_path_passes_its_baseline_and_fails_when_it_changes_again(tmp_path: Path) -> None:
    first = fork(tmp_path / "checkout-a", "No such tool")
    made_from = suite_run(first, tmp_path / "a", GATE_SUITE, "1")
    assert made_from.code == 1, made_from.stdout + made_from.stderr
    assert made_from.verdicts()["RTE-2"] == "deviates"
    baseline = tmp_path / "fork.yaml"
    assert cli_here("baseline", str(made_from.out / "report.json"), "-o", str(baseline)).code == 0

    elsewhere = fork(tmp_path / "checkout-b", "No such tool")
    changed = fork(tmp_path / "checkout-c", "Tool not found")
    ran, again = side_by_side(
        lambda: suite_run(elsewhere, tmp_path / "b", GATE_SUITE, "2", "--baseline", str(baseline)),
        lambda: suite_run(changed, tmp_path / "c", GATE_SUITE, "2", "--baseline", str(baseline)))
    assert ran.code == 0, ran.stdout + ran.stderr
    assert [e["record"] for e in ran.report["gate"]["expected"]] == ["RTE-2"]

    assert again.code == 1, again.stdout + again.stderr
    [entry] = again.report["gate"]["changed"]
    assert entry["record"] == "RTE-2"
    assert "No such tool" in entry["before"][0]["answer"] and "Tool not found" in entry["after"][0]["answer"]


def test_a_baseline_for_another_project_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.yaml"
    path.write_text(
        yaml.safe_dump({"format": "seqthink-conformance-baseline/2", "project": "some-other-server",
                        "deviations": []}),
        encoding="utf-8",
    )
    args = ["run", "--target", "npm:0.6.2", "--baseline", str(path), "--suite", GATE_SUITE]
    ran = cli(*args, out=tmp_path / "o")
    assert ran.code == 4, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert "is for project 'some-other-server'" in ran.stderr
