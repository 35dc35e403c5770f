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
        ["run", "--target", "npm:latest"],
        ["run", "--against", "cmd:"],
        ["install", "npm:nope"],
        ["run", "--target-cache", "pyproject.toml"],
        ["compare", "reference", "--target-cache", "pyproject.toml"],
    ],
    ids=["bad-target-spec", "jobs-0", "bad-profile", "unknown-command", "no-command", "missing-baseline",
         "npm-range", "empty-cmd", "install-npm-tag", "cache-is-a-file", "compare-cache-is-a-file"],
)
def test_misuse_exits_4_with_one_line(argv: list[str], tmp_path: Path) -> None:
    """Every bad value is refused as misuse (4) before anything starts or is said to start: a target spec
    that cannot name a target, a file where a folder goes, a baseline that is not there."""
    ran = cli_here(*argv, "--out", str(tmp_path)) if argv[:1] in (["run"], ["compare"]) else cli_here(*argv)
    assert ran.code == USAGE, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert ran.stdout == "", "the run said it started"
    assert not (tmp_path / "report.json").exists()


QUOTE_IT = "a cmd: command line with spaces is one argument: quote it whole, e.g. 'cmd:node x.js' (see"


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["run", "--taget", "reference"], "unrecognized arguments: --taget reference; did you mean --target? "
         "(see seqthink-conformance run --help)"),
        (["compare", "reference", "--budgte", "3"],
         "did you mean --budget? (see seqthink-conformance compare"),
        (["run", "--target", "cmd:node", "x.js", "--seed", "1"], QUOTE_IT),
        (["run", "--target=FOO=1 cmd:node", "x.js", "--seed", "1"], QUOTE_IT),
        (["compare", "cmd:node", "x.js"], "'x.js': expected [KEY=VALUE ...] reference, npm:<version>[@today] "
         "or cmd:<command line> (a cmd: command line with spaces is one argument: quote it whole)"),
        (["run", "x.js"], "unrecognized arguments: x.js (see seqthink-conformance run --help)"),
    ],
    ids=["option-typo", "compare-option-typo", "unquoted-cmd", "unquoted-cmd-with-env",
         "compare-unquoted-cmd", "stray-word"],
)
def test_a_leftover_word_is_refused_by_its_command_with_what_was_meant(argv: list[str], says: str) -> None:
    ran = cli_here(*argv)
    assert ran.code == USAGE, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert says in ran.stderr, ran.stderr


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
