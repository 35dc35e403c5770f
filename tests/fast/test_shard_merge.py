"""`run --merge`: shard reports written by the real report path (`RunReport`) from generated outcomes over
real catalog records, merged, and compared with the report of the same outcomes as one run; and shard folders
that do not belong together, or are hostile, refused with one line and exit status 4, nothing written beside
the report. The same against real servers, through the command line: tests/e2e/test_shards.py.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.catalog.shard_costs import shard_costs
from conformance.catalog.view import load_catalog_view
from conformance.cli.runner import reporting
from conformance.cli.runner import shards as merging
from conformance.cli.runner.reporting import RunReport
from conformance.cli.runner.shards import Expected, merge
from conformance.core.identity import ShardIdentity, TargetIdentity, harness_identity
from conformance.core.results import Counterexample, RunResults, TestOutcome, TranscriptEvent
from conformance.gate import exit_status
from conformance.gate.assemble import TargetSeen
from conformance.gate.run_options import RunOptions
from conformance.gate.signatures import RecordSignature
from conformance.report.model import Preflight, Report, WitnessAnswer
from conformance.suite.sharding import share_of
from tests.cli import cli_here

CATALOG = load_catalog_view()
RECORDS = [r.id for r in CATALOG.records if r.observable][:12]
SEED = 20261201
SPEC = "npm:0.6.2"
DEAL = shard_costs("dev")
KNOWN = sorted(DEAL.by_test)
"""Tests the cost table names, so that shards are dealt by unequal costs (the others cost its default)."""


@pytest.fixture(scope="module", autouse=True)
def _no_replays() -> Iterator[None]:
    """Outcomes here are made up, so replaying their examples on real servers (SPEC, when the npm cache holds
    it) proves nothing and costs seconds a report: the replay is tested on real servers in
    tests/e2e/test_modified_servers.py, and a merged report is judged here on what the runner wrote."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reporting._Ahead, "start", lambda self, report: None)
        patch.setattr(reporting._Ahead, "evidenced", lambda self, report: report)
        yield


def _identity(**changes: object) -> TargetIdentity:
    base = TargetIdentity(spec=SPEC, kind="npm", command=["node", "/a/dist/index.js"],
                          package_name="@modelcontextprotocol/server-sequential-thinking",
                          package_version="0.6.2",
                          entry_sha256="e" * 64, installed_at="2026-12-01T00:00:00+00:00")
    return base.model_copy(update=changes)


def _outcome(position: int, records: list[str], relies: list[str], status: str, examples: int) -> TestOutcome:
    frame = json.dumps({"jsonrpc": "2.0", "id": position, "method": "tools/call", "params": {"name": "x"}})
    failed = status in ("failed", "error")
    return TestOutcome.model_validate({
        "nodeid": f"{KNOWN[position]}[{SPEC}]" if position % 2 == 0 and position < len(KNOWN)
        else f"conformance/suite/test_m{position % 3}.py::test_{position}[{SPEC}]",
        "records": records,
        "relies": [r for r in relies if r not in records],
        "contradicted": relies[:1] if status == "failed" else [],
        "status": status,
        "examples": examples,
        "message": f"AssertionError: test {position}" if failed else "",
        "counterexample": Counterexample(
            falsifying=f"test_{position}(x={position})",
            exchange=[TranscriptEvent(kind="sent", data=frame, t=0.0)]) if failed else None,
        "transcript": f"transcripts/{SPEC.replace(':', '_')}.jsonl",
    })


def _sign(ids: list[str]) -> dict[str, RecordSignature]:
    """A target whose witness answers depend on the record alone, as a real one's do."""
    return {
        rid: RecordSignature(rid, hashlib.sha256(rid.encode()).hexdigest(),
                             [WitnessAnswer(step="s", answer=rid)])
        for rid in ids
    }


def write_run(out: Path, tests: Sequence[TestOutcome], collected: Sequence[str], shard: ShardIdentity | None,
              *, target: TargetIdentity | None = None, seed: int = SEED, profile: str = "dev") -> Report:
    """One run's report folder written by the runner's own report path, as `run [--shard I/N]` writes it."""
    options = RunOptions(target=SPEC, profile=profile, seed=seed, out=out, shard=shard)
    run = RunReport.begin(options)
    identity = target or _identity()
    (run.transcripts / f"{SPEC.replace(':', '_')}.jsonl").write_text('{"kind":"sent"}\n', encoding="utf-8")
    (run.transcripts / "preflight.jsonl").write_text("{}\n", encoding="utf-8")
    results = RunResults(
        target=identity, harness=harness_identity(profile=profile, seed=str(seed), shard=shard),
        started="2026-12-01T00:00:00+00:00", finished="2026-12-01T00:01:00+00:00", processes_started=3,
        calls_made=100, tests=list(tests), collected=list(collected) if shard is not None else [],
    )
    preflight = Preflight(ok=True, tool_offered=True, transcript="transcripts/preflight.jsonl")
    seen = TargetSeen(identity, preflight, {"name": "x"}, "2024-11-05")
    return run.write(results, seen, 1 if any(t.status == "failed" for t in tests) else 0,
                     "no test evidences this record", sign=_sign)


def write_shards(root: Path, tests: Sequence[TestOutcome], count: int, **kwargs: object) -> list[Path]:
    """Each shard's folder, holding the outcomes of its share of the run's tests."""
    collected = [t.nodeid for t in tests]
    folders = []
    for index in range(1, count + 1):
        shard = ShardIdentity(index=index, count=count)
        mine = set(share_of(collected, shard, DEAL))
        folder = root / f"shard-{index}"
        write_run(folder, [t for t in tests if t.nodeid in mine], collected, shard, **kwargs)  # type: ignore[arg-type]
        folders.append(folder)
    return folders


_TRANSCRIPTS = re.compile(r"transcripts/shard-[0-9]+/")


def judged(report: Report) -> dict[str, object]:
    """What a merge must keep equal to one run: verdicts (with tests, examples, signatures, explanations),
    root causes, gate, summary, claims and findings; transcript paths compared by file name."""
    document = report.model_dump(mode="json", include={"records", "root_causes", "gate", "summary", "claims",
                                                       "findings", "unregistered_deviations", "growth"})
    loaded: dict[str, object] = json.loads(_TRANSCRIPTS.sub("transcripts/", json.dumps(document)))
    records = loaded["records"]
    assert isinstance(records, list)
    for record in records:  # one run's single transcript file is one per shard once merged
        record["transcripts"] = sorted(set(record["transcripts"]))
    return loaded


_tests = st.lists(
    st.tuples(
        st.lists(st.sampled_from(RECORDS), min_size=1, max_size=2, unique=True),
        st.lists(st.sampled_from(RECORDS), max_size=2, unique=True),
        st.sampled_from(["passed", "passed", "passed", "failed", "error", "skipped"]),
        st.integers(0, 1000),
    ),
    min_size=1,
    max_size=14,
).map(lambda rows: [_outcome(i, *row) for i, row in enumerate(rows)])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tests=_tests, count=st.integers(1, 4))
def test_merged_shards_judge_as_one_run(tmp_path_factory: pytest.TempPathFactory, tests: list[TestOutcome],
                                         count: int) -> None:
    root = tmp_path_factory.mktemp("merge")
    single = write_run(root / "single", tests, [t.nodeid for t in tests], None)
    folders = write_shards(root, tests, count)
    code, merged, message = merge(folders, root / "merged", None, Expected(), io.StringIO())
    assert message is None
    assert judged(merged) == judged(single)
    first = RunResults.model_validate_json((folders[0] / "results.json").read_text())
    assert [t.nodeid for t in first.tests] == share_of([t.nodeid for t in tests],
                                                       ShardIdentity(index=1, count=count), DEAL)
    assert merged.harness.shard is None and merged.gate.deferred is None
    assert merged.run.rerun == single.run.rerun
    assert [str(s.shard) for s in merged.run.shards] == [f"{i}/{count}" for i in range(1, count + 1)]
    assert code == (exit_status.OK if single.gate.passed else exit_status.GATE_FAILED)


def test_a_shard_report_says_its_gate_is_left_to_the_merge(tmp_path: Path) -> None:
    tests = [_outcome(0, [RECORDS[0]], [], "failed", 5), _outcome(1, [RECORDS[1]], [], "passed", 5)]
    [first, _] = write_shards(tmp_path, tests, 2)
    report = json.loads((first / "report.json").read_text(encoding="utf-8"))
    assert report["harness"]["shard"] == {"index": 1, "count": 2}
    assert report["gate"]["passed"] is False
    assert "shard 1/2" in report["gate"]["deferred"] and "--merge" in report["gate"]["deferred"]
    assert "gate not judged: this is shard 1/2" in (first / "report.md").read_text(encoding="utf-8")
    assert report["run"]["rerun"].endswith("--shard 1/2")
    others = [r for r in report["records"] if r["id"] not in (RECORDS[0],) and r["verdict"] == "not run"]
    assert others and all("another shard" in r["reason"] for r in others)


# -- refused -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of 6 tests in 3 shards, made once and copied by each test that spoils it."""
    root = tmp_path_factory.mktemp("shards")
    tests = [_outcome(i, [RECORDS[i]], [], "failed" if i == 2 else "passed", 10) for i in range(6)]
    write_shards(root, tests, 3)
    return root


@pytest.fixture
def shards(made: Path, tmp_path: Path) -> list[Path]:
    copy = tmp_path / "in"
    shutil.copytree(made, copy, symlinks=True)
    return [copy / f"shard-{i}" for i in range(1, 4)]


def _refused(folders: Sequence[Path], out: Path, *extra: str) -> str:
    ran = cli_here("run", "--merge", *map(str, folders), "--out", str(out), *extra)
    lines = ran.stderr.strip().splitlines()
    assert ran.code == exit_status.USAGE, ran.stderr
    assert len(lines) == 1 and lines[0].startswith("seqthink-conformance: error: "), ran.stderr
    assert not out.exists(), "a refused merge writes nothing"
    return lines[0]


def _edit(path: Path, change: Callable[[dict[str, object]], None]) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)
    path.write_text(json.dumps(document), encoding="utf-8")


def _harness(field: str, value: object) -> Callable[[dict[str, object]], None]:
    def change(document: dict[str, object]) -> None:
        harness = document["harness"]
        assert isinstance(harness, dict)
        harness[field] = value
    return change


def test_the_shards_of_one_run_merge(shards: list[Path], tmp_path: Path) -> None:
    ran = cli_here("run", "--merge", *map(str, reversed(shards)), "--out", str(tmp_path / "merged"))
    assert ran.code == exit_status.GATE_FAILED, ran.stderr
    assert sorted(os.listdir(tmp_path / "merged")) == [
        ".seqthink-conformance.json", "junit.xml", "report.html", "report.json", "report.md", "transcripts"]
    assert sorted(os.listdir(tmp_path / "merged" / "transcripts")) == ["shard-1", "shard-2", "shard-3"]
    report = json.loads((tmp_path / "merged" / "report.json").read_text(encoding="utf-8"))
    assert {t["transcript"] for r in report["records"] for t in r["tests"]} == {
        f"transcripts/shard-{i}/npm_0.6.2.jsonl" for i in (1, 2, 3)}


@pytest.mark.parametrize(("spoil", "says"), [
    (lambda s: s[:2], "shard 3/3 missing"),
    (lambda s: [s[0], s[1], s[1]], "given twice"),
])
def test_an_incomplete_set_is_refused(shards: list[Path], tmp_path: Path,
                                      spoil: Callable[[list[Path]], list[Path]], says: str) -> None:
    assert says in _refused(spoil(shards), tmp_path / "merged")


@pytest.mark.parametrize(("field", "value", "says"), [
    ("seed", "7", "seed '7'"),
    ("profile", "ci", "profile 'ci'"),
    ("git_commit", "0" * 40, "harness commit"),
    ("version", "9.9", "harness version"),
    ("shard", {"index": 3, "count": 4}, "shard 3/4"),
    ("shard", None, "not a shard's report"),
])
def test_shards_of_another_run_are_refused(shards: list[Path], tmp_path: Path, field: str, value: object,
                                           says: str) -> None:
    _edit(shards[2] / "report.json", _harness(field, value))
    _edit(shards[2] / "results.json", _harness(field, value))
    assert says in _refused(shards, tmp_path / "merged")


def test_results_of_another_run_than_the_report_are_refused(shards: list[Path], tmp_path: Path) -> None:
    _edit(shards[1] / "results.json", _harness("seed", "7"))
    assert "another run's results" in _refused(shards, tmp_path / "merged")


def test_another_build_of_the_target_is_refused_the_install_path_and_time_are_not(
        made: Path, tmp_path: Path) -> None:
    tests = [_outcome(i, [RECORDS[i]], [], "passed", 10) for i in range(4)]
    moved = _identity(command=["node", "/elsewhere/dist/index.js"], installed_at="2026-12-02T00:00:00+00:00")
    folders = write_shards(tmp_path / "a", tests, 2)
    write_run(folders[1], [t for t in tests if t.nodeid in share_of([t.nodeid for t in tests],
                                                                      ShardIdentity(index=2, count=2), DEAL)],
              [t.nodeid for t in tests], ShardIdentity(index=2, count=2), target=moved)
    merged = cli_here("run", "--merge", *map(str, folders), "--out", str(tmp_path / "ok"))
    assert merged.code == exit_status.OK, merged.stderr
    rebuilt = _identity(entry_sha256="f" * 64)
    write_run(folders[1], [], [t.nodeid for t in tests], ShardIdentity(index=2, count=2), target=rebuilt)
    assert "its entry_sha256 differs" in _refused(folders, tmp_path / "merged")


def test_what_the_command_line_expects_is_checked(shards: list[Path], tmp_path: Path) -> None:
    assert "--seed 7 was asked" in _refused(shards, tmp_path / "merged", "--seed", "7")
    assert "--target reference was asked" in _refused(shards, tmp_path / "merged", "--target", "reference")
    ran = cli_here("run", "--merge", *map(str, shards), "--out", str(tmp_path / "m"), "--profile", "dev",
                   "--seed", str(SEED), "--target", SPEC)
    assert ran.code == exit_status.GATE_FAILED, ran.stderr


def _move_test(shards: list[Path]) -> None:
    """Shard 1's first test claimed by shard 2 as well."""
    first = json.loads((shards[0] / "results.json").read_text(encoding="utf-8"))["tests"][0]
    _edit(shards[1] / "results.json", lambda d: d["tests"].append(first))  # type: ignore[attr-defined]


def _drop_collected(shards: list[Path]) -> None:
    _edit(shards[1] / "results.json", lambda d: d["collected"].pop())  # type: ignore[attr-defined]


def _escape(reference: str) -> Callable[[list[Path]], None]:
    def spoil(shards: list[Path]) -> None:
        def change(document: dict[str, object]) -> None:
            tests = document["tests"]
            assert isinstance(tests, list)
            tests[0]["transcript"] = reference
        _edit(shards[0] / "results.json", change)
    return spoil


@pytest.mark.parametrize(("spoil", "says"), [
    (_move_test, "is not in shard 2/3's part"),
    (_drop_collected, "collected other tests"),
    (_escape("transcripts/../../../etc/passwd"), "is not transcripts/<file name>"),
    (_escape("/etc/passwd"), "is not transcripts/<file name>"),
    (_escape("transcripts/a/b.jsonl"), "is not transcripts/<file name>"),
])
def test_shards_that_overreach_are_refused(shards: list[Path], tmp_path: Path,
                                           spoil: Callable[[list[Path]], None], says: str) -> None:
    spoil(shards)
    assert says in _refused(shards, tmp_path / "merged")


def _replace(name: str, content: bytes) -> Callable[[Path], None]:
    def spoil(folder: Path) -> None:
        (folder / name).write_bytes(content)
    return spoil


def _symlink(folder: Path) -> None:
    (folder / "report.json").rename(folder / "real.json")
    (folder / "report.json").symlink_to(folder / "real.json")


def _fifo(folder: Path) -> None:
    (folder / "report.json").unlink()
    os.mkfifo(folder / "report.json")


@pytest.mark.parametrize(("spoil", "says"), [
    (_replace("report.json", b"\xff\xfe{}"), "not UTF-8"),
    (_replace("report.json", b'{"format": 1, "format": 2}'), "appears twice"),
    (_replace("report.json", b'{"x": NaN}'), "NaN is not JSON"),
    (_replace("report.json", b"[" * 100 + b"]" * 100), "nests deeper than 64"),
    (_replace("report.json", b"[" * 100000 + b"]" * 100000), "nests deeper than 64"),
    # A lone surrogate a server sent is kept as its escape, read back: this file fails on its missing target.
    (_replace("results.json", b'{"target": 1, "tests": [{"message": "\\ud800"}]}'), "results.json: target"),
    (_replace("report.json", b'{"a": [' + b"0," * 2**21 + b"0]}"), "more than 2,097,152 values"),
    (_replace("report.json", b'{"format": "seqthink-conformance-report/3"}'), "report.json: generated"),
    (_replace("results.json", b"{}"), "results.json: target"),
    (_symlink, "a symlink is refused"),
    (_fifo, "not a regular file"),
    (lambda folder: (folder / "report.json").unlink(), "report.json: No such file"),
])
def test_hostile_files_are_refused(shards: list[Path], tmp_path: Path, spoil: Callable[[Path], None],
                                   says: str) -> None:
    spoil(shards[1])
    assert says in _refused(shards, tmp_path / "merged")


def test_a_file_over_the_size_bound_is_refused(shards: list[Path], tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(merging, "REPORT_BYTES", 1000)
    assert "larger than" in _refused(shards, tmp_path / "merged")


def test_transcripts_are_copied_only_as_plain_files_from_inside(shards: list[Path], tmp_path: Path) -> None:
    secret = tmp_path / "secret.jsonl"
    secret.write_text("not to be copied\n", encoding="utf-8")
    own = shards[0] / "transcripts" / "npm_0.6.2.jsonl"
    own.unlink()
    own.symlink_to(secret)
    (shards[0] / "transcripts" / ".hidden").write_text("x", encoding="utf-8")
    ran = cli_here("run", "--merge", *map(str, shards), "--out", str(tmp_path / "merged"))
    assert ran.code == exit_status.GATE_FAILED, ran.stderr
    copied = tmp_path / "merged" / "transcripts" / "shard-1"
    assert sorted(os.listdir(copied)) == ["preflight.jsonl"]
    report = json.loads((tmp_path / "merged" / "report.json").read_text(encoding="utf-8"))
    references = {t["transcript"] for r in report["records"] for t in r["tests"]}
    assert "transcripts/shard-1/npm_0.6.2.jsonl" not in references
    assert "transcripts/shard-2/npm_0.6.2.jsonl" in references


def test_a_transcripts_folder_that_is_a_symlink_is_refused(shards: list[Path], tmp_path: Path) -> None:
    shutil.rmtree(shards[2] / "transcripts")
    (shards[2] / "transcripts").symlink_to(tmp_path)
    assert "a symlink is refused" in _refused(shards, tmp_path / "merged")


def test_the_merged_report_is_not_written_into_a_shard(shards: list[Path]) -> None:
    before = sorted(os.listdir(shards[0]))
    ran = cli_here("run", "--merge", *map(str, shards), "--out", str(shards[0]))
    assert ran.code == exit_status.USAGE and "overlaps shard folder" in ran.stderr
    assert sorted(os.listdir(shards[0])) == before


@pytest.mark.parametrize("extra", [["--shard", "1/2"], ["--against", "reference"], ["--max-time", "5"],
                                   ["--jobs", "2"], ["--env", "A=1"]])
def test_options_that_would_run_something_are_refused_with_merge(shards: list[Path], tmp_path: Path,
                                                                 extra: list[str]) -> None:
    ran = cli_here("run", "--merge", *map(str, shards), "--out", str(tmp_path / "m"), *extra)
    assert ran.code == exit_status.USAGE and len(ran.stderr.strip().splitlines()) == 1, ran.stderr
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("text", ["0/2", "3/2", "1/0", "1/65", "a/b", "1/2/3", "½/2", "-1/2", ""])
def test_a_shard_is_i_of_n(text: str) -> None:
    ran = cli_here("run", "--shard", text, "--target", "reference")
    assert ran.code == exit_status.USAGE, ran.stderr
    assert "--shard" in ran.stderr and len(ran.stderr.strip().splitlines()) == 1


def test_a_shard_whose_suite_could_not_run_makes_the_merge_unusable(shards: list[Path],
                                                                    tmp_path: Path) -> None:
    def crashed(document: dict[str, object]) -> None:
        run = document["run"]
        assert isinstance(run, dict)
        run["pytest_exit"] = 3  # pytest's internal error: exit 2 in one run
    _edit(shards[1] / "report.json", crashed)
    ran = cli_here("run", "--merge", *map(str, shards), "--out", str(tmp_path / "merged"))
    assert ran.code == exit_status.UNUSABLE, ran.stderr
    assert "could not run" in ran.stderr and "shard 2/3" in ran.stderr
    merged = json.loads((tmp_path / "merged" / "report.json").read_text(encoding="utf-8"))
    assert merged["gate"]["passed"] is False
