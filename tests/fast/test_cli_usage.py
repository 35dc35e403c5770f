"""The command line's answers that need no server: misuse and invalid baselines refused in one line before
anything starts, and the records catalog listed and filtered (runs: tests/e2e/test_cli.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.catalog.view import load_catalog_view
from conformance.gate.exit_status import USAGE
from tests.cli import assert_one_clean_error_line, cli_here


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
def test_misuse_exits_4_with_one_line(argv: list[str], tmp_path: Path) -> None:
    ran = cli_here(*argv, "--out", str(tmp_path)) if argv[:1] == ["run"] else cli_here(*argv)
    assert ran.code == USAGE, ran.stdout + ran.stderr
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
def test_invalid_baseline_exits_4(baseline: dict[str, Any], says: str, tmp_path: Path) -> None:
    path = tmp_path / "baseline.yaml"
    path.write_text(yaml.safe_dump(baseline), encoding="utf-8")
    ran = cli_here("run", "--target", "reference", "--baseline", str(path), "--out", str(tmp_path / "out"))
    assert ran.code == USAGE, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert says in ran.stderr


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
    assert bad.code == USAGE
    assert_one_clean_error_line(bad)
