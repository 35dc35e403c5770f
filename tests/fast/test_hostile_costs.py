"""What a hostile input costs, within the size limits: each class of file a pull request can plant (long
strings, many values, deep nesting, a FIFO or a device, a lone surrogate, a key given twice, a baseline over
what `run --baseline` reads) is refused by the command line in one line, exit status 4, in a child process
whose peak memory and time stay under ceilings. The ceilings are generous (a loaded two-core machine stays
well under them) and far below what each case cost before it was bounded: the cost is named beside each case
(issue 29's measurements on that machine; "hung" is a command still running when killed)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.core.inputs import BASELINE_BYTES, REPORT_BYTES, MiB
from conformance.gate.exit_status import USAGE
from tests import costs
from tests.cli import REPO, Ran, assert_one_clean_error_line
from tests.costs import Cost

REPORT = REPO / "reports" / "npm-0.6.2" / "report.json"
DEPARTING = REPO / "reports" / "npm-2026.8.31" / "report.json"
"""A report whose departures are signed, with witness answers (what a baseline pins)."""
SECONDS: float = 60
"""Every case's ceiling on time, in CPU seconds of the command (user + system): the slowest takes a few
seconds on an idle machine. CPU time, not the wall clock: under two busy loops beside other jobs (load 25
on 2 cores) a second of CPU took 30 s of wall time (issue 43's flake hunt), while a blow-up costs CPU
anywhere."""
HANG_SECONDS: float = 600
"""Wall-clock guard against a case that never ends (a blocking read costs no CPU): killed and failed then."""
MEMORY_MIB: float = 400
"""Every case's ceiling on peak memory (resident): the largest file read is 32 MiB; before, 1.3 to 6.6 GB."""
HEAD = '{"format": "seqthink-conformance-report/3", '


def measured(*args: str, cwd: Path) -> Cost:
    """`python -m conformance ARGS` as a grandchild (`tests.costs.measured`), its peak memory and CPU time;
    failed after `HANG_SECONDS` of wall time."""
    path = [str(REPO), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)}
    env.pop("CI", None)
    try:
        return costs.measured([sys.executable, "-m", "conformance", *args], cwd=cwd, env=env,
                              hang_seconds=HANG_SECONDS)
    except costs.StillRunning as hung:
        pytest.fail(str(hung))


def within_ceilings(cost: Cost, says: str) -> None:
    assert cost.code == USAGE, cost.stdout + cost.stderr
    assert_one_clean_error_line(Ran(cost.code, cost.stdout, cost.stderr, Path()))
    assert says in cost.stderr, cost.stderr
    assert cost.cpu_seconds < SECONDS, f"{cost.cpu_seconds:.1f} CPU seconds"
    assert cost.peak_mib < MEMORY_MIB, f"{cost.peak_mib:.0f} MiB"


def _report_with(**fields: str) -> str:
    return HEAD + ", ".join(f'"{name}": {value}' for name, value in fields.items()) + "}"


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# -- cost: long strings, many values, deep nesting ---------------------------------------------------------


def _long_string(tmp: Path) -> list[str]:  # before: 4.0 GB, 11 s (diff)
    text = _report_with(x='"' + "a" * (REPORT_BYTES - 200) + '"')
    return ["diff", str(_write(tmp / "report.json", text)), str(REPORT)]


def _three_long_strings(tmp: Path) -> list[str]:  # before: 1.3 GB (baseline)
    text = _report_with(**{name: '"' + "a" * 10_000_000 + '"' for name in "abc"})
    return ["baseline", str(_write(tmp / "report.json", text))]


def _escaped_string(tmp: Path) -> list[str]:  # a string of escapes: the scan's slowest path
    text = _report_with(x='"' + "\\\\\\n\\\"" * ((REPORT_BYTES - 200) // 6) + '"')
    return ["diff", str(_write(tmp / "report.json", text)), str(REPORT)]


def _million_invalid_items(tmp: Path) -> list[str]:  # before: 41 s (jsonschema collected every error)
    text = _report_with(records="[" + "0," * 999_999 + "0]")
    return ["diff", str(_write(tmp / "report.json", text)), str(REPORT)]


def _too_many_values(tmp: Path) -> list[str]:  # before: over 300 s (9 MB, 4.7 million items)
    text = _report_with(records="[" + "[]," * 3_000_000 + "[]]")
    return ["diff", str(_write(tmp / "report.json", text)), str(REPORT)]


def _yaml_many_values(tmp: Path) -> list[str]:  # before: 3.4 GB, 37 s (run --baseline)
    baseline = _write(tmp / "baseline.yaml", "[" + "0," * (BASELINE_BYTES // 2 - 2) + "0]")
    return ["baseline", str(REPORT), "--refresh", str(baseline)]


def _yaml_many_keys(tmp: Path) -> list[str]:  # one mapping of distinct keys, each composed as it is read
    lines = "".join(f"k{i}: {i}\n" for i in range(BASELINE_BYTES // 16))
    baseline = _write(tmp / "baseline.yaml", lines[: BASELINE_BYTES - 10])
    return ["baseline", str(REPORT), "--refresh", str(baseline)]


def _deep_nesting(tmp: Path) -> list[str]:
    return ["diff", str(_write(tmp / "report.json", "[" * (REPORT_BYTES - 10))), str(REPORT)]


def _deep_yaml(tmp: Path) -> list[str]:
    baseline = _write(tmp / "baseline.yaml", "[" * (BASELINE_BYTES - 10))
    return ["baseline", str(REPORT), "--refresh", str(baseline)]


@pytest.mark.parametrize(("make", "says"), [
    pytest.param(_long_string, "does not match", id="long-string"),
    pytest.param(_three_long_strings, "does not match", id="three-long-strings"),
    pytest.param(_escaped_string, "does not match", id="escaped-string"),
    pytest.param(_million_invalid_items, "0 is not of type 'object'", id="million-invalid-items"),
    pytest.param(_too_many_values, "holds more than 2,097,152 values", id="too-many-values"),
    pytest.param(_yaml_many_values, "holds more than 65,536 values", id="yaml-many-values"),
    pytest.param(_yaml_many_keys, "holds more than 65,536 values", id="yaml-many-keys"),
    pytest.param(_deep_nesting, "nests deeper than 64 levels", id="deep-json"),
    pytest.param(_deep_yaml, "baseline.yaml", id="deep-yaml"),
])
def test_a_costly_input_is_refused_within_the_ceilings(
    make: Callable[[Path], list[str]], says: str, tmp_path: Path
) -> None:
    within_ceilings(measured(*make(tmp_path), cwd=tmp_path), says)


def test_a_shard_file_is_read_no_further_than_the_report_limit(tmp_path: Path) -> None:
    """Before: shard files were read up to 256 MiB (128 MiB cost 6.6 GB); the documented limit is 32 MiB."""
    folders = []
    for index in (1, 2):
        folder = tmp_path / f"shard-{index}"
        folder.mkdir()
        folders.append(str(folder))
    with (tmp_path / "shard-1" / "report.json").open("w", encoding="utf-8") as handle:
        handle.write('{"a": [')
        for _ in range(48):
            handle.write("0," * (MiB // 2))
        handle.write("0]}")
    cost = measured("run", "--merge", *folders, "--out", str(tmp_path / "merged"), cwd=tmp_path)
    within_ceilings(cost, "is larger than 32 MiB")


# -- only regular files ----------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [
    pytest.param(["run", "--target", "reference", "--baseline", "{fifo}", "--out", "out"],
                 id="run--baseline"),
    pytest.param(["diff", "{fifo}", str(REPORT)], id="diff"),
    pytest.param(["baseline", "{fifo}"], id="baseline-report"),
    pytest.param(["baseline", str(REPORT), "--refresh", "{fifo}"], id="baseline--refresh"),
    pytest.param(["compare", "reference", "reference", "--baseline", "{fifo}", "--out", "out"],
                 id="compare--baseline"),
])
def test_a_fifo_is_refused_before_it_is_opened(command: list[str], tmp_path: Path) -> None:
    """Before: `open()` waited for a writer for ever (`run` even held SIGTERM "in set-up")."""
    fifo = tmp_path / "input"
    os.mkfifo(fifo)
    cost = measured(*(part.replace("{fifo}", str(fifo)) for part in command), cwd=tmp_path)
    within_ceilings(cost, f"{fifo} is not a regular file (a FIFO)")


def test_a_fifo_atlas_json_is_refused_by_merge(tmp_path: Path) -> None:
    part = tmp_path / "part"
    part.mkdir()
    os.mkfifo(part / "atlas.json")
    out = tmp_path / "out"
    within_ceilings(measured("atlas", "--merge", str(part), "--out", str(out), "--no-compare", cwd=tmp_path),
                    "atlas.json is not a regular file (a FIFO)")


# -- strict decoding, duplicate keys, what is written can be read back ---------------------------------------


def _report_holding(change: Callable[[dict[str, object]], None], tmp: Path, source: Path = REPORT) -> Path:
    document = json.loads(source.read_text(encoding="utf-8"))
    change(document)
    return _write(tmp / "report.json", json.dumps(document))  # ensure_ascii: a surrogate as "\ud800"


def _surrogate_reason(document: dict[str, object]) -> None:
    records = document["records"]
    assert isinstance(records, list)
    records[0]["reason"] = "observed: \ud800"


@pytest.mark.parametrize("command", [["baseline", "{report}"], ["diff", "{report}", str(REPORT)]])
def test_a_lone_surrogate_in_a_report_is_read_back(command: list[str], tmp_path: Path) -> None:
    """A report quotes what a server sent, a lone surrogate as JSON's escape: `baseline` and `diff` read it
    (once refused with one line, before that a traceback when `baseline` wrote the reason back)."""
    report = _report_holding(_surrogate_reason, tmp_path)
    cost = measured(*(part.replace("{report}", str(report)) for part in command), cwd=tmp_path)
    assert cost.code in (0, 1), cost.stdout + cost.stderr
    assert "Traceback" not in cost.stderr and "lone surrogate" not in cost.stderr, cost.stderr
    assert cost.cpu_seconds < SECONDS and cost.peak_mib < MEMORY_MIB


@pytest.mark.parametrize("command", [
    ["baseline", str(REPORT), "--refresh", "{baseline}", "-o", "out.yaml"],
    ["run", "--target", "reference", "--baseline", "{baseline}", "--out", "out"],
])
def test_a_key_given_twice_in_a_baseline_is_refused(command: list[str], tmp_path: Path) -> None:
    """Before: YAML's loader kept the last value silently (the shard reader already refused JSON's)."""
    baseline = _write(tmp_path / "baseline.yaml", (
        "format: seqthink-conformance-baseline/2\n"
        "project: '@modelcontextprotocol/server-sequential-thinking'\n"
        "deviations: []\ndeviations: []\n"
    ))
    cost = measured(*(part.replace("{baseline}", str(baseline)) for part in command), cwd=tmp_path)
    within_ceilings(cost, "key 'deviations' appears twice")
    assert not (tmp_path / "out.yaml").exists()


def _long_witnesses(document: dict[str, object]) -> None:
    records = document["records"]
    assert isinstance(records, list)
    signed = [r for r in records if r.get("witness")][:4]
    assert len(signed) == 4
    for record in signed:
        record["witness"][0]["answer"] = "w" * (BASELINE_BYTES // 3)


def test_baseline_writes_no_baseline_that_run_baseline_would_refuse(tmp_path: Path) -> None:
    """Before: a 20 MB baseline was written, which `run --baseline` then refused as over 4 MiB."""
    report = _report_holding(_long_witnesses, tmp_path, DEPARTING)
    cost = measured("baseline", str(report), "-o", "baseline.yaml", cwd=tmp_path)
    within_ceilings(cost, "more than the 4 MiB `run --baseline` reads")
    assert not (tmp_path / "baseline.yaml").exists()


# -- a stop signal wherever the command waits ----------------------------------------------------------------

HOLDER = """
import os, sys
from conformance.drivers import cancel
read, _ = os.pipe()
with cancel.handling():
    try:
        with cancel.deferred():
            print("waiting", flush=True)
            os.read(read, 1)  # nothing ever writes: a set-up stuck in a system call
    except cancel.Cancelled as stop:
        print(stop.stop.reason, flush=True)
        sys.exit(stop.stop.exit_code)
"""


def test_a_stop_held_in_set_up_ends_a_set_up_that_waits() -> None:
    """Before: a stop arriving in a run's set-up was held until the set-up ended, which a blocking read never
    does (`timeout 15` left `run --baseline FIFO` running past ten minutes)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen([sys.executable, "-c", HOLDER], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "waiting\n"
        child.send_signal(signal.SIGTERM)
        said, _ = child.communicate(timeout=HANG_SECONDS)
    finally:
        child.kill()
        child.wait()
    assert child.returncode == 128 + signal.SIGTERM
    assert said == "cancelled by SIGTERM\n"
