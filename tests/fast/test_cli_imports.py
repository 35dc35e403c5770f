"""What starting the command line costs: importing it and parsing any command's arguments loads no test
framework, no engine and no report model (each command imports its work when it runs), and `records`
reads the catalog without the suite's tools. Checked in a fresh interpreter: this one has them all."""

from __future__ import annotations

import json
import subprocess
import sys

from conformance.cli import commands
from tests.cli import REPO

HEAVY = (
    "hypothesis",
    "pytest",
    "_pytest",
    "mcp",
    "jsonschema",
    "conformance.calls",
    "conformance.compare",
    "conformance.atlas",
    "conformance.suite.plugin",
    "conformance.catalog.records",
    "conformance.report.model",
    "conformance.gate.baseline",
    "conformance.gate.comparison",
    "conformance.cli.runner",
)
"""Packages (and everything under them) that a start of the command line must not import."""

ARGUMENTS: dict[str, list[str]] = {
    "run": ["run", "--target", "npm:0.6.2", "--profile", "dev", "--seed", "1", "--out", "out"],
    "records": ["records", "--kind", "rte", "--channel", "wire"],
    "diff": ["diff", "a/report.json", "b/report.json"],
    "compare": ["compare", "npm:0.6.2", "--seed", "1"],
    "install": ["install", "npm:0.6.2"],
    "baseline": ["baseline", "report.json", "-o", "baseline.yaml"],
    "atlas": ["atlas", "npm:0.6.2", "--profile", "dev"],
}

PROBE = """
import json, sys
from conformance.cli.main import build_parser
for argv in json.loads(sys.argv[1]):
    build_parser().parse_args(argv)
print(json.dumps(sorted(sys.modules)))
"""


def _loaded(code: str, *argv: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code, *argv], cwd=REPO, capture_output=True, text=True,
                          timeout=60, check=True)
    modules: list[str] = json.loads(done.stdout.splitlines()[-1])
    return modules


def _heavy(modules: list[str], heavy: tuple[str, ...] = HEAVY) -> list[str]:
    return [m for m in modules if any(m == h or m.startswith(f"{h}.") for h in heavy)]


def test_every_command_has_arguments_here() -> None:
    assert set(ARGUMENTS) == {command.NAME for command in commands.COMMANDS}


def test_parsing_any_command_imports_none_of_its_work() -> None:
    modules = _loaded(PROBE, json.dumps(list(ARGUMENTS.values())))
    assert {f"conformance.cli.commands.{name}" for name in ARGUMENTS} <= set(modules)
    assert _heavy(modules) == []


def test_records_reads_the_catalog_without_the_suites_tools() -> None:
    code = (
        "import io, json, sys\n"
        "from conformance.cli.main import main\n"
        "assert main(['records', '--json'], stdout=io.StringIO()) == 0\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    modules = _loaded(code)
    assert "conformance.catalog.records" in modules
    assert _heavy(modules, ("hypothesis", "pytest", "_pytest", "mcp", "conformance.compare")) == []


def test_a_package_counts_with_everything_under_it() -> None:
    assert _heavy(["hypothesis", "hypothesis.core", "hypothesisx", "conformance.compare.engine",
                   "conformance.compared", "conformance.core.identity"]) == [
        "hypothesis", "hypothesis.core", "conformance.compare.engine"]


def test_the_runner_and_the_suites_plugin_leave_the_sdk_to_the_checks_that_use_it() -> None:
    """A run of a stand-in suite, a merge or a run whose target fails its preflight does not import the SDK:
    the checks that use it import it with their modules (the suite's own test files)."""
    code = (
        "import json, sys\n"
        "import conformance.cli.runner, conformance.suite.plugin\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    modules = _loaded(code)
    assert "conformance.suite.session" in modules
    assert _heavy(modules, ("mcp", "mcp_types", "conformance.drivers.sdk")) == []
