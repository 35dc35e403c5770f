"""The repository's own workflow runs the action it ships (`uses: ./`) with inputs action.yml declares, on
every exit status a fork's CI branches on, with arguments the command line's parser judges as the workflow
expects (the action's steps themselves: tests/e2e/test_action.py)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import yaml

from conformance.cli.arguments import UsageError
from conformance.cli.main import build_parser
from conformance.gate import exit_status

REPO = Path(__file__).resolve().parents[2]


def _load(path: Path) -> dict[Any, Any]:
    loaded: dict[Any, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return loaded


WORKFLOW = _load(REPO / ".github" / "workflows" / "action.yml")
ACTION = _load(REPO / "action.yml")


def _gate_cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = WORKFLOW["jobs"]["gate"]["strategy"]["matrix"]["include"]
    return cases


def test_the_gate_job_uses_this_checkout_with_declared_inputs() -> None:
    steps = WORKFLOW["jobs"]["gate"]["steps"]
    assert steps[0]["uses"].startswith("actions/checkout@")
    gate = next(s for s in steps if s.get("uses") == "./")
    assert gate["continue-on-error"] is True and gate["id"] == "gate"
    assert set(gate["with"]) <= set(ACTION["inputs"])
    assert all(n in gate["with"] for n, spec in ACTION["inputs"].items() if spec.get("required"))


def test_every_exit_status_is_exercised() -> None:
    expected = {int(case["expect"]) for case in _gate_cases()}
    assert expected == {exit_status.OK, exit_status.GATE_FAILED, exit_status.UNUSABLE, exit_status.USAGE, 124}
    signals = "\n".join(s.get("run", "") for s in WORKFLOW["jobs"]["signals"]["steps"])
    assert "INT:130" in signals and "TERM:143" in signals
    pythons = {case["python"] for case in _gate_cases() if int(case["expect"]) == 0}
    tested = set(WORKFLOW["jobs"]["tests"]["strategy"]["matrix"]["python"])
    assert pythons == {"3.11", "3.12", "3.13"} == tested


def test_each_case_s_arguments_are_judged_as_it_expects() -> None:
    """Arguments the parser refuses are the usage-error case's and no other's."""
    for case in _gate_cases():
        argv = ["run", "--target", case["target"], "--profile", "dev", *shlex.split(case["args"])]
        try:
            build_parser().parse_args(argv)
            refused = False
        except UsageError:
            refused = True
        assert refused == (int(case["expect"]) == exit_status.USAGE), case


def test_the_action_sets_up_node_caches_and_documents_every_status() -> None:
    uses = [s.get("uses", "") for s in ACTION["runs"]["steps"]]
    assert any(u.startswith("actions/setup-node@") for u in uses)
    assert sum(u.startswith("actions/cache@") for u in uses) == 2
    described = ACTION["outputs"]["exit-status"]["description"]
    for status in ("0", "1", "2", "4", "124", "130", "143"):
        assert f" {status} " in f" {described.replace(';', ' ').replace('—', ' ')} ", status
    assert {"transcripts", "retention-days", "node-version", "cache"} <= set(ACTION["inputs"])
