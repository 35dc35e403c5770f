"""`python -m conformance compare` end to end: exit statuses, the report family, replayable differences,
compare baselines, `diff` of two comparisons, `run --against`."""

from __future__ import annotations

import functools
import io
import json
import os
import subprocess
import xml.etree.ElementTree as ET
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from conformance.gate.comparison import accept, comparison_gate, dump_compare_baseline, load_compare_baseline
from conformance.report.json import load_report
from conformance.targets.specs import Target, resolve_target
from tests.cli import GATE_SUITE, Ran, cli
from tests.e2e.ahead import used

OLD, NEW = "npm:2025.12.18", "npm:2026.7.4"
COMPARISONS = {
    "same": ("compare", "reference", "npm:0.6.2", "--profile", "dev", "--seed", "11"),
    "drift": ("compare", OLD, NEW, "--seed", "11", "--budget", "2"),
    "against": ("run", "--target", NEW, "--against", NEW, "--profile", "dev", "--seed", "5", "--suite",
                GATE_SUITE),
}
"""`same` checks compare's no-difference outcome, which the dev profile shows as CI's would (the reference's
answers equal the original's byte for byte: tests/e2e/test_reference_differential.py). `drift` checks what
the first witnesses (a numeric and a boolean string), the coercion exploration they start and the era pass
show: a 2 s search reaches them, and bounds the long probes to 2 s each. `against` is `run --against`, made
ahead with them: its comparison of two equal servers waits out a dev search and its probes."""


@pytest.fixture(scope="module")
def comparisons(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, ahead: ThreadPoolExecutor
) -> dict[str, Future[Ran]]:
    """The comparisons (and the run with one) the selected tests check, made ahead, side by side."""
    return {
        name: ahead.submit(cli, *COMPARISONS[name], out=tmp_path_factory.mktemp(name))
        for name in used(request, list(COMPARISONS))
    }


@pytest.fixture(scope="module")
def same(comparisons: dict[str, Future[Ran]]) -> Ran:
    return comparisons["same"].result()


@pytest.fixture(scope="module")
def against(comparisons: dict[str, Future[Ran]]) -> Ran:
    return comparisons["against"].result()


@pytest.fixture(scope="module")
def drift(comparisons: dict[str, Future[Ran]]) -> Ran:
    return comparisons["drift"].result()


def test_the_reference_and_the_original_do_not_differ(same: Ran) -> None:
    assert same.code == 0, same.stdout + same.stderr
    comparison = same.report["comparison"]
    assert comparison["differences"] == [] and same.report["root_causes"] == []
    assert comparison["a"]["spec"] == "reference" and comparison["b"]["spec"] == "npm:0.6.2"
    assert comparison["programs"] > 100 and comparison["calls"] > 100
    # The reference answers capabilities as the original does: nothing of it needs normalizing.
    assert not any("listChanged" in n for n in comparison["normalized"]), comparison["normalized"]
    assert (comparison["label_a"], comparison["label_b"]) == ("reference", "0.6.2")
    assert "no difference between reference and 0\\.6\\.2" in (same.out / "report.md").read_text()
    for name in ("report.html", "junit.xml"):
        assert (same.out / name).is_file()


def test_the_coercion_change_and_the_annotations_are_named_with_one_call_programs(drift: Ran) -> None:
    assert drift.code == 1, drift.stdout + drift.stderr
    differences = {d["id"]: d for d in drift.report["comparison"]["differences"]}
    for field, value in (("thoughtNumber", "1"), ("nextThoughtNeeded", "false")):
        kind = "numeric-string" if field == "thoughtNumber" else "boolean-string"
        coerced = differences[f"is_error.{field}.{kind}.refused-by-a"]
        calls = [json.loads(f) for f in coerced["program"] if '"tools/call"' in f]
        assert len(calls) == 1 and calls[0]["params"]["arguments"][field] == value
        # Sides are named by their labels: an npm: target's version.
        assert f"refused (isError) by {OLD[4:]}, accepted by {NEW[4:]}" in coerced["summary"]
        assert coerced["cause"] == "coercion" and "RTE-3" in coerced["records"]
    annotations = differences["tools_list.annotations.added"]
    assert annotations["program"][-1] == '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
    assert "annotations" in annotations["summary"]
    causes = {c["id"]: c for c in drift.report["root_causes"]}
    headline = causes["coercion"]["summary"]
    assert headline.startswith(f"{NEW[4:]} accepts ") and f"that {OLD[4:]} refuses" in headline, headline
    # #3428 is named only when its recorded signature is met: its three required fields seen coerced.
    seen = {d["field"] for d in differences.values() if d["id"].startswith("is_error.")
            and d["id"].endswith(".refused-by-a") and d["cause"] == "coercion"}
    assert ("behaves like upstream #3428" in headline) is (
        {"thoughtNumber", "totalThoughts", "nextThoughtNeeded"} <= seen), headline
    assert "coercion" in drift.stdout and "annotations" in drift.stdout
    markdown = (drift.out / "report.md").read_text(encoding="utf-8")
    assert "tools/list" in markdown and "| field | values |" in markdown
    failures = ET.parse(drift.out / "junit.xml").getroot().findall(".//failure")
    assert len(failures) == len(differences)


@functools.cache
def _target(spec: str) -> Target:
    return resolve_target(spec)


def _answers(spec: str, frames: list[str]) -> dict[int, dict[str, Any]]:
    """Pipe the frames into a fresh process, close stdin, and read every answer by id."""
    target = _target(spec)
    done = subprocess.run(list(target.command), input="\n".join(frames) + "\n", capture_output=True,
                          text=True, timeout=60, env={**os.environ, **target.env}, check=False)
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return {a["id"]: a for a in answers if "id" in a}


def test_every_published_program_replays_on_fresh_servers(drift: Ran) -> None:
    differences = drift.report["comparison"]["differences"]
    _target(OLD), _target(NEW)
    with ThreadPoolExecutor(max_workers=4) as pool:
        replays = list(pool.map(lambda d: (_answers(OLD, d["program"]), _answers(NEW, d["program"])),
                                differences))
    for difference, (answers_a, answers_b) in zip(differences, replays, strict=True):
        last = json.loads(difference["program"][-1])
        a, b = answers_a[last["id"]], answers_b[last["id"]]
        if difference["aspect"] == "tools_list":
            field = difference["id"].split(".")[1]
            tool_a, tool_b = a["result"]["tools"][0], b["result"]["tools"][0]
            assert tool_a.get(field) != tool_b.get(field), difference["id"]
        elif difference["aspect"] == "is_error":
            assert bool(a["result"].get("isError")) != bool(b["result"].get("isError")), difference["id"]
        else:
            assert a != b, difference["id"]


def test_a_compare_baseline_accepts_what_it_lists(drift: Ran, tmp_path: Path) -> None:
    report = load_report(drift.out / "report.json")
    assert report.comparison is not None and not report.gate.passed
    path = tmp_path / "accepted.yaml"
    path.write_text(dump_compare_baseline(report.comparison), encoding="utf-8")
    baseline = load_compare_baseline(path)
    accepted = accept(report.comparison, baseline)
    assert all(d.accepted for d in accepted.differences) and comparison_gate(accepted, str(path)).passed
    partial = baseline.model_copy(update={"accepted": baseline.accepted[1:]})
    assert not comparison_gate(accept(report.comparison, partial), str(path)).passed


def test_diff_shows_behaviour_differences_of_two_comparisons(same: Ran, drift: Ran) -> None:
    from conformance.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    reports = [str(same.out / "report.json"), str(drift.out / "report.json")]
    code = main(["diff", *reports], stdout=out, stderr=err)
    assert code == 1, err.getvalue()
    assert "is_error.thoughtNumber.numeric-string.refused-by-a: absent → differs" in out.getvalue()
    assert "behaviour differences (comparisons) differ" in out.getvalue()


def test_an_unusable_target_exits_2_with_one_line(tmp_path: Path) -> None:
    ran = cli("compare", "reference", f"cmd:{tmp_path / 'no-such-server'}", out=tmp_path / "out", stall=60)
    assert ran.code == 2
    lines = [line for line in ran.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "no-such-server" in lines[0], ran.stderr


def test_run_against_puts_the_comparison_in_the_run_report(against: Ran) -> None:
    ran = against
    assert ran.code in (0, 1), ran.stdout + ran.stderr
    report = ran.report
    assert report["records"] and report["comparison"]["b"]["spec"] == NEW
    assert report["comparison"]["differences"] == []
    assert "--against npm:2026.7.4" in report["run"]["rerun"]
