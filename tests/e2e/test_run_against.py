"""`run --against B` checks B before the suite: a B that cannot be used ends the run at once, exit status 2,
with a report that says so; and on every path a run can end, the report's gate sentence agrees with the exit
status.

The module's runs are made ahead, two at a time (tests/e2e/conftest.py `ahead`): most of each is a process
starting, a preflight or a deadline waited out. The unusable `--against` run is one run, read by both tests
that check it (neither writes into it).
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.cli import GATE_SEED, GATE_SUITE, Ran, assert_one_clean_error_line, cli, fake, stalls

NOWHERE = "cmd:/nonexistent/seqthink-server"
STALLS = stalls(3)
"""The reference until its fourth call, then silent: a run against it never finishes before its deadline,
however fast the machine (the stand-in suite alone finishes in under a second)."""


def _run(out: Path, *extra: str, target: str = "reference") -> Ran:
    return cli("run", "--target", target, "--profile", "dev", "--seed", GATE_SEED, "--suite", GATE_SUITE,
               *extra, out=out)


Key = tuple[str, tuple[str, ...]]
UNUSABLE_AGAINST: Key = ("reference", ("--against", NOWHERE))


def _key(item: pytest.Function) -> Key | None:
    """The run a test of this module checks: its target and extra options."""
    if item.originalname == "test_an_unusable_against_target_ends_the_run_before_the_suite":
        return UNUSABLE_AGAINST
    params = getattr(item, "callspec", None)
    if params is None or "target" not in params.params:
        return None
    return str(params.params["target"]), tuple(params.params["extra"])


@pytest.fixture(scope="module")
def runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
         ahead: ThreadPoolExecutor) -> dict[Key, Future[Ran]]:
    """The selected tests' runs, each made once, ahead, from the module's first test on."""
    keys = [key for item in request.session.items
            if isinstance(item, pytest.Function) and item.module is request.module
            and (key := _key(item)) is not None]
    return {(target, extra): ahead.submit(_run, tmp_path_factory.mktemp("run") / "out", *extra, target=target)
            for target, extra in dict.fromkeys(keys)}


def test_an_unusable_against_target_ends_the_run_before_the_suite(runs: dict[Key, Future[Ran]]) -> None:
    ran = runs[UNUSABLE_AGAINST].result()
    assert ran.code == 2, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    assert "--against" in ran.stderr and "/nonexistent/seqthink-server" in ran.stderr
    report = ran.report
    assert report["run"]["tests"] == 0, "the suite ran before the comparison's target was checked"
    assert report["gate"]["passed"] is False
    assert "/nonexistent/seqthink-server" in report["preflight"]["error"]
    assert "gate passed" not in ran.stdout


def _gate_sentence(ran: Ran) -> str:
    return next(line for line in ran.stdout.splitlines() if line.startswith("gate "))


@pytest.mark.parametrize(
    ("target", "extra", "code"),
    [
        ("reference", (), 0),
        (fake("hostile"), (), 1),
        (fake("exit"), (), 2),
        ("reference", ("--against", NOWHERE), 2),
        ("reference", ("--against", fake("no-tool")), 2),
        (STALLS, ("--max-time", "1", "--call-timeout", "600"), 124),
    ],
    ids=["passes", "fails", "unusable", "against-missing", "against-no-tool", "deadline"],
)
def test_the_gate_sentence_agrees_with_the_exit_status(
    target: str, extra: tuple[str, ...], code: int, runs: dict[Key, Future[Ran]]
) -> None:
    ran = runs[(target, extra)].result()
    assert ran.code == code, ran.stdout + ran.stderr
    report = ran.report
    assert report["gate"]["passed"] is (code == 0)
    assert _gate_sentence(ran).startswith("gate passed" if code == 0 else "gate failed"), ran.stdout
    assert ("gate passed" in (ran.out / "report.md").read_text(encoding="utf-8")) is (code == 0)
