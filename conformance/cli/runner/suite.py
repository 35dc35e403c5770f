"""The suite in this process: `pytest.main` with only our own ini and the plugins we name, its output in
pytest.log, progress on the terminal, and the preflight's process handed over to it."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import os
import traceback
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Final, TextIO

import pytest

from conformance.catalog.selection import Selection, select_records
from conformance.catalog.view import CatalogView
from conformance.cli.progress import Progress
from conformance.core.create import open_new
from conformance.gate.run_options import DEFAULT_ERA, SUITE, RunOptions
from conformance.report.escape import safe, safe_lines, write_line
from conformance.suite.handover import Handover
from conformance.targets.specs import default_cache_dir

FINISHED = (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
ADDOPTS_IGNORED: Final = ("PYTEST_ADDOPTS is not passed to the suite's pytest: a run takes only the "
                          "harness's own options (python -m conformance run --help); it still reaches the "
                          "pytest you run the suite with directly")
"""Said on the terminal and in pytest.log when PYTEST_ADDOPTS is set: a CI's `-x` or `--lf` would otherwise
stop or narrow the suite unseen, and the gate would judge what it left out."""
"""pytest's exit statuses of a suite that ran (failed tests are departures, judged later)."""


def suite_conftest(suite: str) -> str | None:
    """The suite package's own conftest module (`conformance.suite.conftest`), loaded as a plugin: pytest
    would otherwise also load the conftest.py of the folder the run starts in and of its `test*` folders (a
    checkout's tests/conftest.py, with marks the suite does not know), so it loads none."""
    if os.sep in suite or suite.endswith(".py"):
        return None
    try:
        spec = importlib.util.find_spec(suite)
    except (ImportError, ValueError):
        return None
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    return f"{suite}.conftest" if any((Path(f) / "conftest.py").is_file() for f in folders) else None


def pytest_args(options: RunOptions, results_dir: Path) -> list[str]:
    """The suite's command line: only our own ini, only the plugins we name, no conftest.py but the suite's
    own, nothing from the caller."""
    package_root = Path(str(resources.files("conformance"))).parent
    ini = Path(str(resources.files("conformance").joinpath("run-pytest.ini")))
    own = suite_conftest(options.suite)
    args = [
        "--pyargs",
        options.suite,
        "-c",
        str(ini),
        "--rootdir",
        str(package_root),
        "--noconftest",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-p",
        "_hypothesis_pytestplugin",
        "-p",
        "syrupy",
        "-p",
        "conformance.suite.plugin",
        "-p",
        "conformance.cli.progress",
        *(["-p", own] if own is not None else []),
        "--target",
        options.target,
        "--profile",
        options.profile,
        "--results-dir",
        str(results_dir),
        "--call-timeout",
        str(options.timeout),
        "--max-frame",
        str(options.max_frame),
        "--snapshot-warn-unused",
        "-q",
        "-rfE",
        "--tb=short",
    ]
    if options.cache is not None:
        args += ["--target-cache", str(options.cache)]
    if options.forced_seed is not None:
        args += ["--hypothesis-seed", str(options.forced_seed)]
    if options.example_db is not None:
        args += ["--example-db", str(options.example_db.resolve())]
    if options.shard is not None:
        args += ["--shard", str(options.shard)]
    if options.era != DEFAULT_ERA:
        args += ["--era", options.era]
    if options.arguments_map is not None:
        args += ["--arguments-map", options.arguments_map]
    if options.jobs > 1:
        args += ["-p", "xdist.plugin", "-p", "conformance.suite.workers",
                 "-n", str(options.jobs), "--dist", "load"]
    return args


SUITE_IMPORTS: Final = ("conformance.drivers.sdk",)
"""What collecting the built-in suite imports that a run has not imported before it: the official SDK's
client, for the checks that drive the target through a realistic host (about a second of CPU, most of it
building its pydantic models)."""


def import_ahead(options: RunOptions) -> Callable[[], None] | None:
    """Import `SUITE_IMPORTS` while the preflight's target starts (the two overlap on two cores: against the
    reference, the first check started about 3 s sooner), when this process will collect the built-in suite:
    not for another suite, which may not need them, nor under `--jobs`, whose workers collect in their own
    processes. A module that cannot be imported is left to the suite's collection, which reports it."""
    if options.suite != SUITE or options.jobs > 1:
        return None

    def load() -> None:
        for name in SUITE_IMPORTS:
            with contextlib.suppress(ImportError):
                importlib.import_module(name)

    return load


def selection_args(selection: Selection) -> list[str]:
    """`--records` naming the selected records, when `--select`/`--deselect` left some out."""
    return ["--records", ",".join(selection.selected)] if selection.narrowed else []


def _hypothesis_storage(options: RunOptions, scratch: Path) -> Path:
    """Where hypothesis keeps its Unicode tables between runs (computing them costs seconds per run).

    The profiles use no example database unless `--example-db` names one, so nothing here can change
    which examples a seed gives; an unwritable cache falls back to the run's scratch folder.
    """
    cache = (options.cache or default_cache_dir()) / "hypothesis"
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:
        return scratch / "hypothesis"
    return cache


@contextlib.contextmanager
def _isolated_environment(storage: Path) -> Iterator[None]:
    """No plugin autoload, no PYTEST_ADDOPTS, no example database but the one `--example-db` names (the
    seed decides examples); hypothesis' own storage holds only its Unicode tables."""
    saved = {
        k: os.environ.get(k)
        for k in (
            "PYTEST_ADDOPTS",
            "PYTEST_PLUGINS",
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
            "HYPOTHESIS_STORAGE_DIRECTORY",
        )
    }
    os.environ.pop("PYTEST_ADDOPTS", None)
    os.environ.pop("PYTEST_PLUGINS", None)
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = str(storage)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class EscapedLog(io.TextIOBase):
    """pytest.log as pytest writes it, every control character escaped: what a server says reaches it in
    failure messages and captured stderr, and the log is uploaded and read in terminals (`cat`, a CI log
    viewer), where an OSC 52 sequence writes the reader's clipboard and a CSI one clears the screen."""

    def __init__(self, out: TextIO) -> None:
        super().__init__()
        self._out = out

    def write(self, text: str) -> int:
        self._out.write(safe_lines(text))
        return len(text)

    def flush(self) -> None:
        self._out.flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self) -> str:  # type: ignore[override]  # what pytest's terminal writer asks of its file
        return "utf-8"


def run_suite(
    options: RunOptions, results_dir: Path, scratch: Path, catalog: CatalogView, stream: TextIO,
    handover: Handover,
) -> int | pytest.ExitCode:
    """pytest.main in this process; its own output goes to pytest.log, the terminal shows progress."""
    selection = select_records(catalog.records, catalog.canonical, options.select, options.deselect)
    chosen = set(selection.selected)
    observable = sum(r.observable for r in catalog.records if r.id in chosen)
    counted = {name: rid for name, rid in catalog.canonical.items() if rid in chosen}
    progress = Progress(stream, records_total=observable, canonical=counted)
    log = options.out / "pytest.log"
    addopts = os.environ.get("PYTEST_ADDOPTS", "")
    ignored = f"note: {ADDOPTS_IGNORED} (it holds {safe(addopts, 120)!r})" if addopts.strip() else ""
    if ignored:
        write_line(ignored, stream)
    with (
        io.TextIOWrapper(open_new(log), encoding="utf-8", errors="backslashreplace") as file,
        _isolated_environment(_hypothesis_storage(options, scratch)),
        contextlib.redirect_stdout(handle := EscapedLog(file)),
    ):
        if ignored:
            handle.write(ignored + "\n")
        try:
            argv = pytest_args(options, results_dir) + selection_args(selection)
            return pytest.main(argv, plugins=[progress, handover])
        except Exception:  # a plugin or suite bug must end in one line and a report, not a traceback
            traceback.print_exc(file=handle)
            return pytest.ExitCode.INTERNAL_ERROR


def pytest_failure(code: int | pytest.ExitCode, missing: bool) -> str:
    """Why the suite did not finish, in a few words for the one line on stderr."""
    if code == pytest.ExitCode.NO_TESTS_COLLECTED:
        return "no tests were collected"
    if code == pytest.ExitCode.INTERRUPTED:
        return "the run was interrupted (or the suite failed to import)"
    if code == pytest.ExitCode.USAGE_ERROR:
        return "pytest rejected the command line"
    if code == pytest.ExitCode.INTERNAL_ERROR:
        return "pytest hit an internal error"
    if missing:
        return "the suite wrote no results"
    return f"pytest exited with status {int(code)}"
