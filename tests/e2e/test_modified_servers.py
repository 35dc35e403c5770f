"""A modified original that breaks one behaviour: its report names that behaviour's records as the root
cause and marks every other departure as explained by it.

Each case patches npm:0.6.2's dist/index.js into tmp_path and runs the real command line against it
(`cmd:node <copy>`, dev profile), two cases at a time; the full set is measured by
`python -m scripts.measure_modified_servers`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import pytest

from conformance.report.model import REFERENCE_AS_ORIGINAL, Report
from tests.e2e.ahead import selected, used
from tests.modified_servers.servers import (
    Modification,
    load_modifications,
    materialize,
    original_entry,
    patched,
    target_spec,
)
from tests.paced import run_paced

REPO = Path(__file__).resolve().parents[2]
CHECKED = ("banner", "unknown-tool-protocol-error", "error-text", "needs-more-raises-total",
           "total-rounded", "exit-after-final-thought", "initialized-sends-list-changed")
"""Few departures each, so a dev run stays short; together they touch stderr, dispatch, errors, the total
told apart by a control call (a raise an optional field decides, RTE-4/a1; a rounding the two numbers give,
RTE-4), a process that ends itself (the breaker stops the run; its cause still shows its evidence) and a
notification the server sends of its own. Identity (serverInfo's version changed) is checked the same way
(`assert_causes_name_the_change`) on the README fork's red run, which changes just that
(tests/e2e/test_fork_maintainer.py): one run of that change, not two."""

_BY_ID = {m.id: m for m in load_modifications()}
SPEC_RUN = "spec:structured-one-more-thought"
"""2026.8.31 whose structuredContent counts one thought more than its text, `--select spec`: caught, and
pinned by a baseline (two tests, one run)."""
EMPTY_CACHE_RUN = "OBJ-2:empty-cache"
"""The fork whose count is one too high, `--select OBJ-2`, its report written with an empty target cache."""
INSTALLED_RUN = "history-length-plus-one"
"""The same fork's whole run (one of `EVIDENCED`'s) is the one made with npm:0.6.2 installed."""


class Made(NamedTuple):
    """A run of a modified server: its exit status, report, `--out` folder and terminal output."""

    code: int
    report: Report
    out: Path
    stdout: str


def _dev_run(script: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """`run` of the modified server, dev profile, seed 1."""
    return run_paced(
        [sys.executable, "-m", "conformance", "run", "--target", target_spec(script), "--profile", "dev",
         "--seed", "1", *extra, "--out", str(out)],
        cwd=REPO,
    )


def _run(mod: Modification, folder: Path, *extra: str, entry: Path | None = None) -> Made:
    script = materialize(mod, folder / "server", entry)
    out = folder / "report"
    proc = _dev_run(script, out, *extra)
    assert (out / "report.json").is_file(), proc.stderr[-2000:]
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return Made(proc.returncode, Report.model_validate(report), out, proc.stdout)


def _script(made: Made) -> Path:
    """The modified server a run started (`_run` writes it beside the report)."""
    return made.out.parent / "server" / "index.js"


@pytest.fixture(scope="module")
def runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, ahead: ThreadPoolExecutor
) -> dict[str, Future[Made]]:
    """The selected tests' runs, made ahead, two at a time: each case patches and runs its own copy, then
    the spec run and the empty-cache run when a selected test checks them."""
    caches = selected(request, "cache")
    mods = selected(request, "mod_id") + ([INSTALLED_RUN] if "installed" in caches else [])
    made = {
        mod_id: ahead.submit(_run, _BY_ID[mod_id], tmp_path_factory.mktemp(mod_id), entry=original_entry())
        for mod_id in dict.fromkeys(mods)
    }
    if used(request, ["spec_run"]):
        made[SPEC_RUN] = ahead.submit(_run, _BY_ID["structured-one-more-thought"],
                                      tmp_path_factory.mktemp("spec"), "--select", "spec")
    if "empty" in caches:
        folder = tmp_path_factory.mktemp("empty-cache")
        made[EMPTY_CACHE_RUN] = ahead.submit(
            _run, _BY_ID[INSTALLED_RUN], folder, "--select", "OBJ-2", "--target-cache",
            str(folder / "empty-cache"), entry=original_entry())
    return made


@pytest.fixture(scope="module")
def spec_run(runs: dict[str, Future[Made]]) -> Made:
    return runs[SPEC_RUN].result()


def test_catalogue_patches_apply_once_each() -> None:
    """Every patch finds its text exactly once in the installed original (materialize refuses otherwise)."""
    sources = {mod.source for mod in _BY_ID.values()}
    texts = {source: original_entry(source).read_text(encoding="utf-8") for source in sources}
    assert len(_BY_ID) >= 12
    for mod in _BY_ID.values():
        for patch in mod.patches:
            assert texts[mod.source].count(patch.find) == 1, (mod.id, patch.find)


PARSES = """import vm from "node:vm";
import { readFileSync } from "node:fs";
const refused = {};
for (const file of process.argv.slice(2)) {
  try { new vm.SourceTextModule(readFileSync(file, "utf8"), { identifier: file }); }
  catch (error) { refused[file] = String(error); }
}
process.stdout.write(JSON.stringify(refused));
"""
"""`node --check` of many ES modules in one process: each parsed (none linked or run), those refused said."""


def _refused_by_node(scripts: list[Path], folder: Path) -> dict[str, str]:
    checker = folder / "parses.mjs"
    checker.write_text(PARSES, encoding="utf-8")
    done = subprocess.run(["node", "--experimental-vm-modules", "--no-warnings", str(checker),
                           *map(str, scripts)], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    refused: dict[str, str] = json.loads(done.stdout)
    return refused


def test_combined_forks_apply_whole_and_change_by_change(tmp_path: Path) -> None:
    """A fork's changes each apply alone to the original, and together; the fork parses as JavaScript (all
    in one node process, beside a copy broken on purpose that must be refused: 84 `node --check` processes
    and as many installs checked took a minute)."""
    forks = [mod for mod in _BY_ID.values() if mod.changes]
    assert len(forks) >= 6
    entries = {source: original_entry(source) for source in sorted({mod.source for mod in forks})}
    texts = {source: entry.read_text(encoding="utf-8") for source, entry in entries.items()}
    scripts: dict[str, str] = {}
    for mod in forks:
        original = texts[mod.source]
        assert 3 <= len(mod.changes) <= 4, mod.id
        for change in mod.changes:
            alone = replace(mod, changes=(), patches=change.patches, primary=change.primary)
            assert patched(original, alone) != original, (mod.id, change.id)
        scripts[str(materialize(mod, tmp_path / mod.id, entries[mod.source]))] = mod.id
    broken = tmp_path / "broken" / "index.js"
    broken.parent.mkdir()
    broken.write_text(texts[forks[0].source] + "\nconst unfinished = ;\n", encoding="utf-8")
    refused = _refused_by_node([*map(Path, scripts), broken], tmp_path)
    assert list(refused) == [str(broken)], {scripts.get(f, f): said for f, said in refused.items()}


@pytest.mark.parametrize("mod_id", CHECKED)
def test_root_causes_name_the_changed_behaviour(
    mod_id: str, runs: dict[str, Future[Made]]
) -> None:
    exit_code, report, out, _ = runs[mod_id].result()
    assert exit_code == 1, f"{mod_id}: the gate should fail on a departure"
    assert_causes_name_the_change(_BY_ID[mod_id], report, (out / "report.md").read_text(encoding="utf-8"))


def assert_causes_name_the_change(mod: Modification, report: Report, markdown: str) -> None:
    """A one-change fork's report: its root causes are records of the change's own (`mod.primary`), every
    other departure is explained by one of them or said as not explained, and each cause's example starts
    with initialize."""
    mod_id = mod.id
    deviating = {rv.id for rv in report.records if rv.verdict == "deviates"}
    assert deviating, f"{mod_id}: nothing departs"
    assert report.root_causes, f"{mod_id}: departures without a root cause: {sorted(deviating)}"
    named = {r for cause in report.root_causes for r in cause.records}
    assert named <= set(mod.primary), f"{mod_id}: root causes {sorted(named)} outside {mod.primary}"
    unexplained = []
    for rv in report.records:
        # Spec departures are said in their own section (the Eras table), a guidance one as advisory; an error
        # (a check the target's failure ended) is a departure a cause may not explain either.
        if (rv.verdict in ("deviates", "error") and rv.id not in named and rv.explained_by is None
                and rv.kind != "spec"):
            unexplained.append(rv.id)
        if rv.verdict == "deviates" and rv.explained_by is not None:
            cause = next(c for c in report.root_causes if c.id == rv.explained_by)
            assert rv.id in cause.explains, f"{rv.id} is marked explained by {cause.id}, not listed there"
        if rv.verdict != "deviates":
            assert rv.explained_by is None, rv.id
    # An "explained by" is checked, not assumed: a departure no cause's difference covers is no cause's.
    if unexplained:
        said = f"{len(unexplained)} departure" in markdown and "not explained by a cause" in markdown
        assert said, unexplained
    else:
        assert "every other departure is explained by" in markdown
    for cause in report.root_causes:
        assert cause.example, f"{cause.id}: no example"
        first = json.loads(cause.example[0])
        assert first["method"] == "initialize", cause.example[0]
        assert cause.summary
    assert markdown.index("## Root causes") < markdown.index("## Departures")


@pytest.mark.parametrize("mod_id", ["exit-after-final-thought"])
def test_a_server_ending_itself_shows_it_after_the_example(
    mod_id: str, runs: dict[str, Future[Made]]
) -> None:
    """A server that exits once a thought says the thinking is done: ABS-10 is the cause, and its evidence is
    the process after the example, running on the original and ended here."""
    report = runs[mod_id].result().report
    assert [cause.records for cause in report.root_causes] == [["ABS-10"]]
    evidence = report.root_causes[0].evidence
    assert evidence is not None and evidence.reproduced, evidence
    assert evidence.differences[0].startswith("process: "), evidence.differences
    assert "running" in evidence.original and "exited with status 0" in evidence.target


def test_structured_content_disagreeing_with_the_text_is_caught_by_its_spec_record(spec_run: Made) -> None:
    """2026.8.31 whose structuredContent counts one thought more than its text: the seed records see nothing
    (they read the text); the modern reading departs from SPEC-6, cited with revision, section and level."""
    mod = _BY_ID["structured-one-more-thought"]
    report = spec_run.report
    verdicts = {rv.id: rv for rv in report.records if rv.kind == "spec"}
    assert spec_run.code == 1
    # SPEC-12 (an unknown tool answered as a result, as every release does) is guidance: reported, not gating.
    assert [e.record for e in report.gate.advisory] == ["SPEC-12"]
    assert {i for i, rv in verdicts.items() if rv.verdict == "deviates"} == {*mod.primary, "SPEC-12"}
    caught = verdicts["SPEC-6"]
    assert caught.anchors == ["MCP 2025-06-18..2026-07-28 server/tools § Structured Content (SHOULD)"]
    assert "SPEC-6 (2025-06-18..2026-07-28 server/tools § Structured Content (SHOULD))" in caught.reason
    assert '"thoughtHistoryLength": 2' in caught.reason and "2025-11-25" in caught.reason


def test_a_spec_departure_is_pinned_by_its_era_and_answers_and_gates_green_again(
    spec_run: Made, tmp_path: Path
) -> None:
    """The same server's SPEC-6 departure written to a baseline: its signature is the auto client's meeting
    answers SPEC-6 reads (the calls), and a second run of that server gates green against it."""
    first = spec_run
    assert first.code == 1, first.stdout[-2000:]
    report = first.report
    caught = next(rv for rv in report.records if rv.id == "SPEC-6")
    assert caught.signature is not None and [w.step for w in caught.witness] == ["auto calls"]
    assert '"thoughtHistoryLength":2' in caught.witness[0].answer
    shown = (first.out / "report.md").read_text(encoding="utf-8")
    assert ("| auto | 2025\\-11\\-25 | server/discover refused \\(\\-32601\\); initialize settles on"
            " 2025\\-11\\-25 | 11 | 12 | 2 | SPEC\\-6, SPEC\\-12 |") in shown[shown.index("## Eras"):]
    baseline = tmp_path / "baseline.yaml"
    written = run_paced(
        [sys.executable, "-m", "conformance", "baseline", str(first.out / "report.json"), "-o",
         str(baseline)], cwd=REPO, stall=120,
    )
    assert written.returncode == 0, written.stderr
    assert f"signature: {caught.signature}" in baseline.read_text(encoding="utf-8")
    again = _dev_run(_script(first), tmp_path / "again", "--select", "spec", "--baseline", str(baseline))
    assert again.returncode == 0, again.stdout[-2000:]
    assert "gate passed" in again.stdout


EVIDENCED = {
    "history-length-plus-one": "thoughtHistoryLength: 1 on the original, 2 here",
    "parameter-description-reworded": "thoughtNumber.description",
}
"""Issue 33's two forks: what the leading cause's replay must show differing."""


@pytest.mark.parametrize("mod_id", sorted(EVIDENCED))
def test_the_leading_cause_shows_the_original_beside_the_server_on_a_replay_that_reproduces(
    mod_id: str, runs: dict[str, Future[Made]]
) -> None:
    exit_code, report, out, _ = runs[mod_id].result()
    assert exit_code == 1
    cause = report.root_causes[0]
    assert set(cause.records) <= set(_BY_ID[mod_id].primary), cause.records
    assert cause.evidence is not None and cause.evidence.reproduced, cause.evidence
    assert any(EVIDENCED[mod_id] in d for d in cause.evidence.differences), cause.evidence.differences
    assert cause.evidence.original and cause.evidence.target and cause.evidence.breaks
    assert json.loads(cause.example[0])["method"] == "initialize"
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "**Reproduced**" in markdown
    assert "AssertionError" not in markdown and "object at 0x" not in markdown
    # Every departure has its pair, against npm:0.6.2 (the default cache holds it: the fork is a copy of it);
    # a spec record's oracle is its revision's words, not the original (SPEC-12 departs on both).
    departing = [rv for rv in report.records if rv.verdict in ("deviates", "error") and rv.kind != "spec"]
    missing = [rv.id for rv in departing if rv.evidence is None]
    assert not missing, missing
    assert {rv.evidence.original_spec for rv in departing if rv.evidence is not None} == {"npm:0.6.2"}
    assert cause.evidence.original_spec == "npm:0.6.2"


@pytest.mark.parametrize("cache", ["installed", "empty"])
def test_the_original_is_npm_0_6_2_when_installed_and_the_reference_otherwise(
    cache: str, runs: dict[str, Future[Made]]
) -> None:
    """The fork whose count is one too high, OBJ-2 alone: its pair names npm:0.6.2 when the target cache holds
    it (its whole run, `INSTALLED_RUN`), the reference when the cache folder is empty (`--select OBJ-2`,
    nothing installed at report time)."""
    made = runs[INSTALLED_RUN if cache == "installed" else EMPTY_CACHE_RUN].result()
    assert made.code == 1, made.stdout[-2000:]
    evidence = next(rv.evidence for rv in made.report.records if rv.id == "OBJ-2")
    assert evidence is not None and evidence.reproduced, evidence
    assert "thoughtHistoryLength: 1 on the original, 2 here" in evidence.differences[0]
    named = ("the original (npm:0.6.2)" if cache == "installed"
             else REFERENCE_AS_ORIGINAL)
    assert evidence.original_spec == ("npm:0.6.2" if cache == "installed" else "reference")
    assert named in (made.out / "report.md").read_text(encoding="utf-8").replace("\\", "")
    short = "npm:0.6.2" if cache == "installed" else "the reference"
    assert f"(reproduced at tools/call 1 against {short})" in made.stdout
    if cache == "empty":
        assert not (made.out.parent / "empty-cache" / "npm").exists(), "nothing installed at report time"
