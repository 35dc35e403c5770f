"""End-to-end tests of `python -m conformance`: real processes, real pipes, exit statuses and reports.

One full-suite run against the reference (dev profile); the gate, escaping, xdist and diff checks use a
three-test stand-in suite (`--suite tests/cli_suite`) so they take seconds, against the reference and
against a hostile fake server (tests/cli_servers/fake.py).
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import pytest
import yaml

from conformance.catalog.view import load_catalog_view
from conformance.cli.main import main
from conformance.report.json import shipped_schema

REPO = Path(__file__).resolve().parent.parent
FAKE = REPO / "tests" / "cli_servers" / "fake.py"
MINI_SUITE = str(REPO / "tests" / "cli_suite" / "gate_suite.py")
"""Named so the harness's own test run does not collect it; `--suite` names the file, so the run does."""
SEED = "20260821"
HOSTILE = "<script>alert(1)</script>"
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass
class Ran:
    code: int
    stdout: str
    stderr: str
    out: Path

    @property
    def report(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads((self.out / "report.json").read_text(encoding="utf-8"))
        return loaded

    def verdicts(self) -> dict[str, str]:
        return {r["id"]: r["verdict"] for r in self.report["records"]}


def cli(*args: str, out: Path | None = None, timeout: float = 420) -> Ran:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    env.pop("CI", None)
    argv = [sys.executable, "-m", "conformance", *args]
    if out is not None:
        argv += ["--out", str(out)]
    done = subprocess.run(
        argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    return Ran(done.returncode, done.stdout, done.stderr, out or REPO)


def cli_here(*args: str) -> Ran:
    """The same entry point in this process, for commands that start no server and no pytest."""
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=out, stderr=err)
    return Ran(code, out.getvalue(), err.getvalue(), REPO)


def fake(mode: str) -> str:
    return "cmd:" + shlex.join([sys.executable, str(FAKE), mode])


def mini_run(target: str, out: Path, *extra: str) -> Ran:
    return cli(
        "run", "--target", target, "--profile", "dev", "--seed", SEED, "--suite", MINI_SUITE, *extra, out=out
    )


def assert_one_clean_error_line(ran: Ran) -> None:
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1, ran.stderr
    assert lines[0].startswith("seqthink-conformance: error: "), lines[0]
    assert "Traceback" not in ran.stdout + ran.stderr
    assert not CONTROL.search(ran.stdout + ran.stderr), repr(ran.stdout + ran.stderr)


def assert_valid_report(out: Path) -> dict[str, Any]:
    report: dict[str, Any] = json.loads((out / "report.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(shipped_schema()).validate(report)
    assert report["format"] == "seqthink-conformance-report/2"
    for name in ("report.md", "report.html", "junit.xml"):
        assert (out / name).is_file(), name
    suite = ET.parse(out / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    assert [case.get("name") for case in suite.iter("testcase")] == [r["id"] for r in report["records"]]
    return report


# -- the full suite against the reference --------------------------------------------------------------


@pytest.fixture(scope="module")
def reference_full(tmp_path_factory: pytest.TempPathFactory) -> Ran:
    out = tmp_path_factory.mktemp("reference-full")
    return cli("run", "--target", "reference", "--profile", "dev", "--seed", SEED, out=out)


def test_reference_passes_the_gate(reference_full: Ran) -> None:
    assert reference_full.code == 0, reference_full.stdout[-3000:] + reference_full.stderr
    assert "gate passed" in reference_full.stdout


def test_reference_report_is_complete_and_valid(reference_full: Ran) -> None:
    assert reference_full.code in (0, 1), reference_full.stderr
    report = assert_valid_report(reference_full.out)
    catalog = load_catalog_view()
    assert [r["id"] for r in report["records"]] == [r.id for r in catalog.records]
    assert report["target"]["kind"] == "reference" and report["target"]["tree_sha256"]
    assert report["harness"]["seed"] == SEED and report["harness"]["profile"] == "dev"
    assert report["run"]["tests"] > 0 and report["summary"]["examples"] > 0
    assert report["summary"]["moved_to_observed"] > 0
    transcripts = {t for r in report["records"] for t in r["transcripts"]}
    assert transcripts and all((reference_full.out / t).is_file() for t in transcripts)
    for record in report["records"]:
        if record["verdict"] == "not observable":
            assert record["reason"] and record["channels"] == ["none"]
        if record["verdict"] == "not run":
            assert record["reason"].startswith("skipped: "), record["reason"]
            assert "not an npm package target" in record["reason"], record["reason"]
            assert record["id"] in reference_full.stdout
    assert "not an npm package target" in reference_full.stdout
    aliases = {r["id"]: r["aliases"] for r in report["records"]}
    assert "EPI-3" in aliases["ABS-12"]
    assert "records checked" in reference_full.stdout


# -- targets that cannot be used -----------------------------------------------------------------------


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
def test_unusable_target_exits_2_with_a_report(target: str, says: str, tmp_path: Path) -> None:
    extra = ["--target-cache", str(tmp_path / "cache")] if target.startswith("npm:") else []
    ran = cli("run", "--target", target, "--profile", "dev", "--seed", SEED, *extra, out=tmp_path / "out")
    assert ran.code == 2, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert says in ran.stderr
    report = assert_valid_report(tmp_path / "out")
    assert report["preflight"]["ok"] is False and says in report["preflight"]["error"]
    assert report["gate"]["passed"] is False
    assert {r["verdict"] for r in report["records"]} <= {"not run", "not observable"}


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--target", "bogus"],
        ["run", "--jobs", "0"],
        ["run", "--profile", "fast"],
        ["frobnicate"],
        [],
        ["run", "--baseline", "/no/such/baseline.yaml"],
    ],
    ids=["bad-target-spec", "jobs-0", "bad-profile", "unknown-command", "no-command", "missing-baseline"],
)
def test_misuse_exits_2_with_one_line(argv: list[str], tmp_path: Path) -> None:
    ran = cli_here(*argv, "--out", str(tmp_path)) if argv[:1] == ["run"] else cli_here(*argv)
    assert ran.code == 2, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert not (tmp_path / "report.json").exists()


@pytest.mark.parametrize(
    ("baseline", "says"),
    [
        ({"target": "npm:9.9.9", "deviations": []}, "is for target"),
        ({"target": "reference", "deviations": [{"record": "NOPE-1", "reason": "x"}]}, "not a record"),
        ({"target": "reference", "deviations": [{"record": "RTE-2", "reason": " "}]}, "reason"),
        ({"target": "reference", "deviations": [{"record": "RTE-2"}]}, "reason"),
        (
            {"target": "reference", "deviations": [{"record": "RTE-2", "reason": "x", "verdict": "holds"}]},
            "verdict",
        ),
    ],
    ids=["other-target", "unknown-record", "blank-reason", "no-reason", "bad-verdict"],
)
def test_invalid_baseline_exits_2(baseline: dict[str, Any], says: str, tmp_path: Path) -> None:
    path = tmp_path / "baseline.yaml"
    path.write_text(yaml.safe_dump(baseline), encoding="utf-8")
    ran = cli_here("run", "--target", "reference", "--baseline", str(path), "--out", str(tmp_path / "out"))
    assert ran.code == 2, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert says in ran.stderr


# -- the gate, escaping, xdist: the stand-in suite -----------------------------------------------------


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Ran:
    return mini_run(fake("hostile"), tmp_path_factory.mktemp("hostile"))


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
    exact = mini_run(fake("hostile"), tmp_path / "exact", "--baseline", str(tmp_path / "all.yaml"))
    assert exact.code == 0, exact.stdout + exact.stderr
    assert [e["record"] for e in exact.report["gate"]["expected"]] == ["CMP-3", "RTE-2", "RTE-5"]

    partial = yaml.safe_load((tmp_path / "all.yaml").read_text(encoding="utf-8"))
    partial["deviations"] = [d for d in partial["deviations"] if d["record"] != "RTE-5"]
    (tmp_path / "partial.yaml").write_text(yaml.safe_dump(partial), encoding="utf-8")
    ran = mini_run(fake("hostile"), tmp_path / "partial", "--baseline", str(tmp_path / "partial.yaml"))
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


def test_records_lists_and_filters_the_catalog() -> None:
    catalog = load_catalog_view()
    everything = cli_here("records")
    assert everything.code == 0, everything.stderr
    assert f"{len(catalog.records)} of {len(catalog.records)} records" in everything.stdout

    routes = cli_here("records", "--kind", "rte", "--observable")
    listed = [line.split()[0] for line in routes.stdout.splitlines()[:-1]]
    assert listed == [r.id for r in catalog.records if r.kind == "rte" and r.observable]

    hidden = cli_here("records", "--unobservable", "--json")
    rows = [json.loads(line) for line in hidden.stdout.splitlines()]
    assert rows and all(not r["observable"] and r["unobservable_reason"] for r in rows)
    assert {r["id"] for r in rows} == {r.id for r in catalog.records if not r.observable}

    aliased = [
        json.loads(line) for line in cli_here("records", "--kind", "abs", "--json").stdout.splitlines()
    ]
    assert "EPI-3" in next(r for r in aliased if r["id"] == "ABS-12")["aliases"]

    wire = cli_here("records", "--channel", "stderr", "--json")
    assert all("stderr" in json.loads(line)["channels"] for line in wire.stdout.splitlines())

    bad = cli_here("records", "--kind", "nosuch")
    assert bad.code == 2
    assert_one_clean_error_line(bad)


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
    assert not_a_report.code == 2
    assert_one_clean_error_line(not_a_report)


def test_sigterm_mid_run_leaves_no_server_behind(tmp_path: Path) -> None:
    """A cancelled CI job sends SIGTERM: the run exits and every server process it started is gone."""
    import signal
    import time

    import psutil

    proc = subprocess.Popen(
        [sys.executable, "-m", "conformance", "run", "--target", "reference", "--profile", "dev",
         "--out", str(tmp_path / "out")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        harness = psutil.Process(proc.pid)
        servers: list[psutil.Process] = []
        deadline = time.monotonic() + 60
        while not servers and time.monotonic() < deadline:
            servers = [c for c in harness.children(recursive=True)
                       if "reference_server" in " ".join(c.cmdline())]
            time.sleep(0.2)
        assert servers, "the run never started a server"
        time.sleep(1.0)
        servers = [c for c in harness.children(recursive=True) if "reference_server" in " ".join(c.cmdline())]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) != 0
        _, alive = psutil.wait_procs(servers, timeout=10)
        assert alive == [], f"servers left behind: {[p.pid for p in alive]}"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
