"""The reference with one fork's change (tests/servers/reference_fork.py), run as a user runs it: the change
departs on its own record, and every other record is checked and holds.

- `renamed`: tools/list names the tool `think`, a call to `sequentialthinking` is still answered. The run is
  not stopped at the preflight: CMP-2 departs (and CMP-2/a1, whose expectation is the listed name), every
  other record is checked, and report.md, report.html and the terminal say why the run went on.
- `fenced`: answers inside a ```json fence. The checks read the object inside; the fence departs on OBJ-4's
  and OBJ-8's own checks, nowhere else.
- `stringified`: refusals read "Error: Invalid thought: …". OBJ-8 departs.
- `debug-logged`: the `logging` capability, and each thought sent as a debug log message once a client sets
  that level: CMP-3 and EXT-1 (the capability, setLevel answered) and OBJ-9 and LOOP-A (the thought sent),
  which only a check asking for debug logging sees.

The verdicts come from one seed's run of the dev profile; whatever the load, a record of the reference that
holds holds on a copy that changes something else (no timing is asserted).
"""

from __future__ import annotations

import shlex
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Final

import pytest

from tests.cli import Ran, cli
from tests.e2e.ahead import selected
from tests.servers import command

DEPARTS: Final[dict[str, set[str]]] = {
    "renamed": {"CMP-2", "CMP-2/a1"},
    "fenced": {"OBJ-4", "OBJ-8"},
    "debug-logged": {"CMP-3", "EXT-1", "LOOP-A", "OBJ-9"},
}
"""fork → the records its change departs from (beside SPEC-12, the reference's own guidance departure). The
stringified refusal departs wherever a check compares a refusal's words: its own test below."""
REFERENCE_DEPARTS: Final = {"SPEC-12"}
"""What the reference itself departs from, not gating (guidance without a keyword)."""


def _run(change: str, out: Path) -> Ran:
    spec = "cmd:" + shlex.join(command("reference_fork", change))
    return cli("run", "--target", spec, "--profile", "dev", "--seed", "1", out=out)


NEEDS: Final = {
    "test_a_tool_listed_as_think_says_why_the_run_went_on": "renamed",
    "test_a_fence_is_named_on_the_shape_checks_alone": "fenced",
    "test_a_stringified_refusal_names_obj8_wherever_it_is_read": "stringified",
}
"""The run each unparametrized test reads."""


@pytest.fixture(scope="module")
def runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
         ahead: ThreadPoolExecutor) -> dict[str, Future[Ran]]:
    """The forks' runs, made ahead (those the selected tests read)."""
    wanted = selected(request, "change") + [
        NEEDS[item.originalname] for item in request.session.items
        if isinstance(item, pytest.Function) and item.module is request.module and item.originalname in NEEDS]
    return {change: ahead.submit(_run, change, tmp_path_factory.mktemp(change) / "out")
            for change in dict.fromkeys(wanted)}


@pytest.mark.parametrize("change", sorted(DEPARTS))
def test_the_change_departs_alone_and_the_rest_is_checked(change: str,
                                                          runs: dict[str, Future[Ran]]) -> None:
    ran = runs[change].result()
    assert ran.code == 1, ran.stdout[-3000:] + ran.stderr[-2000:]
    verdicts = ran.verdicts()
    departing = {record for record, verdict in verdicts.items() if verdict == "deviates"}
    assert departing == DEPARTS[change] | REFERENCE_DEPARTS, (departing, ran.stdout[-3000:])
    holding = [record for record, verdict in verdicts.items() if verdict == "holds"]
    assert len(holding) > 60, f"only {len(holding)} records were checked and hold: {ran.stdout[-2000:]}"
    assert ran.report["run"]["tests"] > 100, "the suite did not run"


def test_a_tool_listed_as_think_says_why_the_run_went_on(runs: dict[str, Future[Ran]]) -> None:
    ran = runs["renamed"].result()
    said = ("tools/list offers think, not sequentialthinking, but a call to sequentialthinking is answered: "
            "every record was checked on that name, and the listing departs as CMP-2")
    assert said in ran.stdout, ran.stdout[-3000:]
    assert said.replace("-", "\\-") in (ran.out / "report.md").read_text(encoding="utf-8")  # markdown-escaped
    assert said in (ran.out / "report.html").read_text(encoding="utf-8")
    assert ran.report["preflight"]["ok"] is True and ran.report["preflight"]["tool_offered"] is False


def test_a_fence_is_named_on_the_shape_checks_alone(runs: dict[str, Future[Ran]]) -> None:
    """Only OBJ-4's and OBJ-8's own checks fail, each on the fence: every other check read the object
    inside."""
    ran = runs["fenced"].result()
    failed = {test["nodeid"]: test for record in ran.report["records"] for test in record["tests"]
              if test["status"] == "failed" and "SPEC-12" not in record["id"]}
    assert failed and all("markdown code fence" in test["message"] for test in failed.values()), failed
    shapes = {nodeid.split("::")[-1].split("[")[0] for nodeid in failed}
    assert shapes == {"test_status_object_shape", "test_refusal_text_is_its_json_alone"}, shapes


def test_a_stringified_refusal_names_obj8_wherever_it_is_read(runs: dict[str, Future[Ran]]) -> None:
    """Every check reading a refusal says the error is stringified and names OBJ-8; the records whose checks
    compare a refusal's words depart with it, under OBJ-8's name."""
    ran = runs["stringified"].result()
    assert ran.code == 1, ran.stdout[-3000:] + ran.stderr[-2000:]
    failed = {test["nodeid"]: test for record in ran.report["records"] for test in record["tests"]
              if test["status"] == "failed" and record["id"] != "SPEC-12"}
    assert failed, ran.stdout[-3000:]
    assert all(test.get("contradicted") == ["OBJ-8"] and "stringified whole" in test["message"]
               for test in failed.values()), failed
    assert ran.verdicts()["OBJ-8"] == "deviates"
    assert "OBJ-8" in {cause["id"] for cause in ran.report["root_causes"]}, ran.report["root_causes"]
