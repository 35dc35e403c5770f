"""Forks that will not start, made at test time from npm:0.6.2's package (never committed), each run as a
fork's maintainer runs it: the one line on stderr, the terminal summary and report.md name the server's first
error line and its last lines, and a hint for the known case (fixtures/startup/hints.yaml).

- not built: package.json and node_modules/, no dist/ (`cmd:node dist/index.js` before `npm run build`);
- node_modules/ not installed;
- written for a newer Node.js: a built-in module this Node.js lacks, package.json's engines asking for more;
- the entry file started directly without its execute bit;
- a Python server whose import fails, and one that raises while starting.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Final

import pytest

from conformance.report.markdown_parts import md
from conformance.targets.specs import resolve_target
from tests.cli import Ran, assert_one_clean_error_line, cli
from tests.e2e.ahead import selected


def original_package() -> Path:
    """The installed npm:0.6.2 package folder (its package.json, dist/, and node_modules two levels up)."""
    return Path(resolve_target("npm:0.6.2").command[-1]).parent.parent


def _copy(fork: Path, *, build: bool, modules: bool) -> None:
    package = original_package()
    fork.mkdir(parents=True)
    shutil.copy2(package / "package.json", fork / "package.json")
    if build:
        shutil.copytree(package / "dist", fork / "dist")
    if modules:
        (fork / "node_modules").symlink_to(package.parent.parent, target_is_directory=True)


def not_built(fork: Path) -> str:
    _copy(fork, build=False, modules=True)
    return f"cmd:node {fork / 'dist' / 'index.js'}"


def no_node_modules(fork: Path) -> str:
    _copy(fork, build=True, modules=False)
    return f"cmd:node {fork / 'dist' / 'index.js'}"


def newer_node(fork: Path) -> str:
    _copy(fork, build=True, modules=True)
    manifest = json.loads((fork / "package.json").read_text(encoding="utf-8"))
    asking = {**manifest, "engines": {"node": ">=99"}}
    (fork / "package.json").write_text(json.dumps(asking), encoding="utf-8")
    entry = fork / "dist" / "index.js"
    shebang = "#!/usr/bin/env node\n"
    importing = f"{shebang}import {{ x }} from '{BUILTIN}';\n"
    source = entry.read_text(encoding="utf-8").replace(shebang, importing, 1)
    entry.write_text(source, encoding="utf-8")
    return f"cmd:node {entry}"


def not_executable(fork: Path) -> str:
    _copy(fork, build=True, modules=True)
    (fork / "dist" / "index.js").chmod(0o644)
    return f"cmd:{fork / 'dist' / 'index.js'}"


def python_import(fork: Path) -> str:
    fork.mkdir(parents=True)
    (fork / "server.py").write_text("import seqthink_no_such_dependency\n", encoding="utf-8")
    return f"cmd:{sys.executable} {fork / 'server.py'}"


def python_raises(fork: Path) -> str:
    fork.mkdir(parents=True)
    (fork / "server.py").write_text(
        "def configure():\n    raise RuntimeError('THOUGHT_LIMIT must be a number')\n\nconfigure()\n",
        encoding="utf-8")
    return f"cmd:{sys.executable} {fork / 'server.py'}"


BUILTIN: Final = "node:sqlite"
"""A built-in module Node.js gained in v22.5: the machine's Node.js v20 fails to import it."""
FORKS: Final[dict[str, tuple[Callable[[Path], str], str, str, str]]] = {
    "not-built": (not_built, "not built", "Error: Cannot find module", "does not exist: build the fork"),
    "no-node-modules": (no_node_modules, "missing module",
                        "Cannot find package '@modelcontextprotocol/sdk'", "run npm ci"),
    "newer-node": (newer_node, "wrong Node.js version", f"No such built-in module: {BUILTIN}",
                   "asks for node >=99"),
    "not-executable": (not_executable, "not executable", "", "chmod +x"),
    "python-import": (python_import, "missing module",
                      "ModuleNotFoundError: No module named 'seqthink_no_such_dependency'",
                      "install the server's"),
    "python-raises": (python_raises, "Python exception", "RuntimeError: THOUGHT_LIMIT must be a number",
                      "raised an exception while starting"),
}
"""fork → (how it is made, its known case, the stderr line that must be quoted, a phrase of its hint)."""


def _has_builtin() -> bool:
    found = subprocess.run(["node", "-e", f"require('{BUILTIN}')"], capture_output=True, check=False)
    return found.returncode == 0


def run_fork(fork: str, folder: Path) -> Ran:
    make = FORKS[fork][0]
    return cli("run", "--target", make(folder / "fork"), "--profile", "dev", "--seed", "1",
               out=folder / "out", stall=120)


@pytest.fixture(scope="module")
def runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
         ahead: ThreadPoolExecutor) -> dict[str, Future[Ran]]:
    forks = selected(request, "fork")
    return {fork: ahead.submit(run_fork, fork, tmp_path_factory.mktemp(fork)) for fork in forks}


@pytest.mark.parametrize("fork", list(FORKS))
def test_a_fork_that_will_not_start_says_what_to_do(fork: str, runs: dict[str, Future[Ran]]) -> None:
    if fork == "newer-node" and _has_builtin():
        pytest.skip(f"this Node.js has {BUILTIN}")
    _, case, quoted, hint = FORKS[fork]
    ran = runs[fork].result()
    assert ran.code == 2, ran.stdout + ran.stderr
    assert_one_clean_error_line(ran)
    line = ran.stderr
    assert quoted in line and f"hint ({case}): " in line and hint in line, line
    assert not line.rstrip().endswith("Node.js v20.20.2)"), "Node's last line is not the explanation"
    preflight = ran.report["preflight"]
    assert preflight["known_case"] == case and hint in preflight["hint"]
    assert all(quoted in said for said in preflight["stderr_lines"][:1]), preflight["stderr_lines"]
    assert f"hint ({case}): " in ran.stdout and quoted in ran.stdout, ran.stdout
    markdown = (ran.out / "report.md").read_text(encoding="utf-8")
    assert f"**Hint ({md(case)}):**" in markdown
    assert quoted in markdown
    if fork.startswith(("not-built", "no-node", "newer")):
        assert preflight["stderr_lines"][-1].startswith("Node.js v"), preflight["stderr_lines"]
