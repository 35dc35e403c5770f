"""End-to-end tests of `python -m conformance`: real processes, real pipes, exit statuses and reports.

The full suite against the reference is the session's ci run (tests/e2e/conftest.py, whose start count
tests/e2e/test_processes.py checks); the gate, escaping, xdist and diff checks use a three-test stand-in
suite (`--suite tests/cli_suite`) so they take seconds, against the reference and against a hostile fake
server (tests/cli_servers/fake.py; that run is the session's too, opened in a browser by test_browser.py).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import pytest
import yaml

from conformance.catalog.view import load_catalog_view
from conformance.report.json import shipped_schema
from tests.cli import (
    CONTROL,
    FAKE,
    GATE_SEED,
    GATE_SUITE,
    CountedRun,
    Ran,
    assert_one_clean_error_line,
    cli,
    cli_here,
    fake,
    stalls,
    wait_for_file,
)
from tests.e2e.ahead import selected

SEED = GATE_SEED
HOSTILE = "<script>alert(1)</script>"


def mini_run(target: str, out: Path, *extra: str) -> Ran:
    return cli(
        "run", "--target", target, "--profile", "dev", "--seed", SEED, "--suite", GATE_SUITE, *extra, out=out
    )


def assert_valid_report(out: Path) -> dict[str, Any]:
    report: dict[str, Any] = json.loads((out / "report.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(shipped_schema()).validate(report)
    assert report["format"] == "seqthink-conformance-report/7"
    for name in ("report.md", "report.html", "junit.xml"):
        assert (out / name).is_file(), name
    suite = ET.parse(out / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    assert [case.get("name") for case in suite.iter("testcase")] == [r["id"] for r in report["records"]]
    return report


# -- the full suite against the reference --------------------------------------------------------------


@pytest.fixture(scope="module")
def reference_full(reference_ci: CountedRun) -> Ran:
    return reference_ci.ran


def test_reference_passes_the_gate(reference_full: Ran) -> None:
    assert reference_full.code == 0, reference_full.stdout[-3000:] + reference_full.stderr
    assert "gate passed" in reference_full.stdout


def test_reference_report_is_complete_and_valid(reference_full: Ran, reference_ci: CountedRun) -> None:
    assert reference_full.code in (0, 1), reference_full.stderr
    report = assert_valid_report(reference_full.out)
    assert report["eras"] == {"auto": "2024-11-05"}  # the spec records met it as the official client
    catalog = load_catalog_view()
    assert [r["id"] for r in report["records"]] == [r.id for r in catalog.records]
    assert report["target"]["kind"] == "reference" and report["target"]["tree_sha256"]
    assert report["harness"]["seed"] == reference_ci.seed
    assert report["harness"]["profile"] == reference_ci.profile
    assert report["run"]["tests"] > 0 and report["summary"]["examples"] > 0
    assert report["summary"]["moved_to_observed"] > 0
    transcripts = {t for r in report["records"] for t in r["transcripts"]}
    assert transcripts and all((reference_full.out / t).is_file() for t in transcripts)
    for record in report["records"]:
        if record["verdict"] == "not observable":
            assert record["reason"] and record["channels"] == ["none"]
        if record["verdict"] == "not run":
            assert record["reason"].startswith("skipped: "), record["reason"]
            why = "not applicable" if record["kind"] == "spec" else "not an npm package target"
            assert why in record["reason"], record["reason"]
            assert record["id"] in reference_full.stdout
    assert "not an npm package target" in reference_full.stdout
    aliases = {r["id"]: r["aliases"] for r in report["records"]}
    assert "EPI-3" in aliases["ABS-12"]
    assert "records checked" in reference_full.stdout


# -- targets that cannot be used -----------------------------------------------------------------------


def _unusable_run(target: str, folder: Path) -> Ran:
    extra = ["--target-cache", str(folder / "cache")] if target.startswith("npm:") else []
    return cli("run", "--target", target, "--profile", "dev", "--seed", SEED, *extra, out=folder / "out")


@pytest.fixture(scope="module")
def unusable(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
             ahead: ThreadPoolExecutor) -> dict[str, Future[Ran]]:
    """The selected unusable targets' runs, made ahead, two at a time: each is a process start, a preflight
    that fails and a report, mostly waits (a server exiting, a handshake unanswered, npm's registry)."""
    return {target: ahead.submit(_unusable_run, target, tmp_path_factory.mktemp("unusable"))
            for target in selected(request, "target")}


@pytest.mark.parametrize(
    ("target", "says"),
    [
        (fake("exit"), "server exited with status 3"),
        (fake("no-tool"), "does not offer the sequentialthinking tool"),
        (fake("garbage"), "not JSON"),
        ("cmd:/no/such/binary --stdio", "/no/such/binary"),
        ("npm:0.0.0-nonexistent", "0.0.0-nonexistent"),
    ],
    ids=["exits-at-start", "no-tool", "garbage-on-stdout", "missing-binary", "missing-npm-version"],
)
def test_unusable_target_exits_2_with_a_report(
    target: str, says: str, unusable: dict[str, Future[Ran]]
) -> None:
    ran = unusable[target].result()
    assert ran.code == 2, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert says in ran.stderr
    report = assert_valid_report(ran.out)
    assert report["preflight"]["ok"] is False and says in report["preflight"]["error"]
    assert report["gate"]["passed"] is False
    # A line on stdout that is not JSON-RPC is itself CMP-4's departure ("nothing else is written to stdout"),
    # and a listing of other tools CMP-2's, the run's one root cause; every other record is not run.
    departing = {r["id"] for r in report["records"] if r["verdict"] not in ("not run", "not observable")}
    cause = "CMP-4" if "not JSON" in says else "CMP-2" if "does not offer" in says else None
    assert departing == ({cause} if cause else set()), departing
    assert [c["records"] for c in report["root_causes"]] == ([[cause]] if cause else [])


# -- the gate, escaping, xdist: the stand-in suite -----------------------------------------------------


@pytest.fixture(scope="module")
def hostile(hostile_gate: Ran) -> Ran:
    return hostile_gate


@pytest.fixture(scope="module")
def reference_mini(tmp_path_factory: pytest.TempPathFactory) -> Ran:
    return mini_run("reference", tmp_path_factory.mktemp("reference-mini"))


def test_hostile_server_deviates_and_fails_the_gate(hostile: Ran) -> None:
    assert hostile.code == 1, hostile.stdout + hostile.stderr
    assert_valid_report(hostile.out)
    assert {k for k, v in hostile.verdicts().items() if v == "deviates"} == {"CMP-3", "RTE-2", "RTE-5"}
    gate = hostile.report["gate"]
    assert [e["record"] for e in gate["unexpected"]] == ["CMP-3", "RTE-2", "RTE-5"]
    counterexample = next(r for r in hostile.report["records"] if r["id"] == "RTE-2")["counterexample"]
    assert json.loads(counterexample["replay"][0])["method"] == "initialize"
    assert any(HOSTILE in e["data"] for e in counterexample["exchange"] if e["kind"] == "received")


def test_server_strings_are_escaped_everywhere(hostile: Ran) -> None:
    assert HOSTILE in json.dumps(hostile.report["server_info"], ensure_ascii=False)
    page = (hostile.out / "report.html").read_text(encoding="utf-8")
    assert "<script" not in page.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Content-Security-Policy" in page
    markdown = (hostile.out / "report.md").read_text(encoding="utf-8")
    outside_code = re.sub(r"^(`{3,})[^\n]*\n.*?^\1$", "", markdown, flags=re.S | re.M)
    assert "<script" not in outside_code.lower()
    for name in ("report.html", "report.md", "junit.xml"):
        assert not CONTROL.search((hostile.out / name).read_text(encoding="utf-8")), name
    ET.parse(hostile.out / "junit.xml")
    assert not CONTROL.search(hostile.stdout + hostile.stderr)


def test_exact_baseline_passes_and_a_missing_entry_fails(hostile: Ran, tmp_path: Path) -> None:
    made = cli_here("baseline", str(hostile.out / "report.json"), "--output", str(tmp_path / "all.yaml"))
    assert made.code == 0, made.stderr
    partial = yaml.safe_load((tmp_path / "all.yaml").read_text(encoding="utf-8"))
    # /3 folds a cause's departures under its entry: RTE-5 goes, wherever it is listed.
    partial["deviations"] = [
        {**d, "explains": [e for e in d.get("explains", []) if e["record"] != "RTE-5"]}
        for d in partial["deviations"] if d["record"] != "RTE-5"
    ]
    (tmp_path / "partial.yaml").write_text(yaml.safe_dump(partial), encoding="utf-8")
    with ThreadPoolExecutor(2, thread_name_prefix="baseline-run") as side_by_side:  # two runs sharing nothing
        made_exact = side_by_side.submit(mini_run, fake("hostile"), tmp_path / "exact", "--baseline",
                                         str(tmp_path / "all.yaml"))
        made_partial = side_by_side.submit(mini_run, fake("hostile"), tmp_path / "partial", "--baseline",
                                           str(tmp_path / "partial.yaml"))
        exact, ran = made_exact.result(), made_partial.result()
    assert exact.code == 0, exact.stdout + exact.stderr
    assert [e["record"] for e in exact.report["gate"]["expected"]] == ["CMP-3", "RTE-2", "RTE-5"]

    assert ran.code == 1, ran.stdout + ran.stderr
    assert [e["record"] for e in ran.report["gate"]["unexpected"]] == ["RTE-5"]
    assert "not in the baseline (RTE-5)" in ran.stdout


def test_stale_baseline_entry_fails(reference_mini: Ran, tmp_path: Path) -> None:
    assert reference_mini.code == 0, reference_mini.stdout + reference_mini.stderr
    path = tmp_path / "stale.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "target": "reference",
                "deviations": [
                    {"record": "RTE-2", "reason": "used to answer unknown tools with a protocol error"}
                ],
            }
        ),
        encoding="utf-8",
    )
    ran = mini_run("reference", tmp_path / "out", "--baseline", str(path))
    assert ran.code == 1, ran.stdout + ran.stderr
    gate = ran.report["gate"]
    assert [e["record"] for e in gate["stale"]] == ["RTE-2"] and not gate["unexpected"]
    assert "stale" in ran.stdout


def test_baseline_entry_for_an_unchecked_record_fails(tmp_path: Path) -> None:
    path = tmp_path / "unconfirmed.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "target": "reference",
                "deviations": [{"record": "ABS-9", "reason": "not checked by the stand-in suite"}],
            }
        ),
        encoding="utf-8",
    )
    ran = mini_run("reference", tmp_path / "out", "--baseline", str(path))
    assert ran.code == 1, ran.stdout + ran.stderr
    assert [e["record"] for e in ran.report["gate"]["unconfirmed"]] == ["ABS-9"]


def test_parallel_workers_give_the_serial_verdicts(hostile: Ran, tmp_path: Path) -> None:
    parallel = mini_run(fake("hostile"), tmp_path, "--jobs", "2")
    assert parallel.code == hostile.code, parallel.stdout + parallel.stderr
    assert parallel.verdicts() == hostile.verdicts()
    # Shrinking has a time budget (docs/robustness.md): a shrunk property's example count follows the clock,
    # so only the records whose tests are single examples must count the same.
    def fixed_examples(ran: Ran) -> dict[str, int]:
        return {r["id"]: r["examples"] for r in ran.report["records"]
                if r["tests"] and all(t["examples"] == 1 for t in r["tests"])}

    assert fixed_examples(hostile)
    assert fixed_examples(parallel) == fixed_examples(hostile)
    assert parallel.report["run"]["jobs"] == 2
    assert all((tmp_path / t).is_file() for r in parallel.report["records"] for t in r["transcripts"])


# -- records and diff ----------------------------------------------------------------------------------


def test_diff_shows_records_whose_verdict_differs(reference_mini: Ran, hostile: Ran) -> None:
    a, b = str(reference_mini.out / "report.json"), str(hostile.out / "report.json")
    ran = cli_here("diff", a, b)
    assert ran.code == 1, ran.stderr
    rows = {line.split()[0]: line.split()[1:3] for line in ran.stdout.splitlines()[1:-1]}
    assert rows == {
        "CMP-3": ["holds", "deviates"],
        "RTE-2": ["holds", "deviates"],
        "RTE-5": ["holds", "deviates"],
    }
    assert "3 of" in ran.stdout.splitlines()[-1]
    as_json = json.loads(cli_here("diff", a, b, "--format", "json").stdout)
    assert [d["record"] for d in as_json["differences"]] == ["CMP-3", "RTE-2", "RTE-5"]
    markdown = cli_here("diff", a, b, "--format", "markdown").stdout
    assert "| CMP\\-3 | holds | deviates |" in markdown and "<script" not in markdown

    same = cli_here("diff", a, a)
    assert same.code == 0 and "0 of" in same.stdout

    not_a_report = cli_here("diff", a, str(FAKE))
    assert not_a_report.code == 4
    assert_one_clean_error_line(not_a_report)


def test_sigterm_mid_run_leaves_no_server_behind(tmp_path: Path) -> None:
    """A cancelled CI job sends SIGTERM: the run exits and every server process it started is gone. The signal
    comes while the run waits on a server that stopped answering, never after a run that may have ended."""
    import signal

    import psutil

    mark = tmp_path / "stalled"
    proc = subprocess.Popen(
        [sys.executable, "-m", "conformance", "run", "--target", stalls(20, mark), "--profile", "dev",
         "--call-timeout", "600", "--out", str(tmp_path / "out")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        harness = psutil.Process(proc.pid)
        wait_for_file(mark, proc)
        servers = [c for c in harness.children(recursive=True) if "reference_server" in " ".join(c.cmdline())
                   or "stalls.py" in " ".join(c.cmdline())]
        assert servers, "the run started no server"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) != 0  # far under the stalled call's 600 s, and a slow machine's stop
        _, alive = psutil.wait_procs(servers, timeout=30)
        assert alive == [], f"servers left behind: {[p.pid for p in alive]}"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
