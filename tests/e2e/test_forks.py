"""The suite against forks of the original that escape a luck-based search: patched copies of npm:0.6.2's
dist/index.js, made at test time (never committed), each run through the dev-profile suite (stopping at its
first failure; two forks at a time), which must fail on the property built to catch it.

- `isRevision === true` exactly (not merely truthy) and no revisesThought: answered as an error after the
  thought is retained. Caught by ABS-6's exact examples (and, by chance, by RTE-9's caption test).
- `isRevision === false` exactly (not merely falsy): the thought is not retained. Caught by ABS-6's exact
  examples; the suite before them met `false` in that field only by chance.
- a thought containing "final answer" (lowercase, case-sensitive): the answer says nextThoughtNeeded false.
  Caught by the reasoning corpus, sent step by step (ABS-3 / CMP-5).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Final

import pytest

from conformance.targets.specs import resolve_target
from tests.e2e.ahead import selected
from tests.paced import run_paced

ROOT = Path(__file__).resolve().parents[2]

PUSH: Final = "            this.thoughtHistory.push(validatedInput);\n"
FORKS: Final[dict[str, tuple[str, str, str]]] = {
    "exact-true-revision": (
        PUSH,
        PUSH
        + "            if (validatedInput.isRevision === true && validatedInput.revisesThought == null) {\n"
        + '                throw new Error("a revision needs revisesThought");\n'
        + "            }\n",
        "test_absences.py::test_revision_is_a_label_only",
    ),
    "exact-false-revision": (
        PUSH,
        "            if (validatedInput.isRevision !== false) {\n"
        + "    "
        + PUSH
        + "            }\n",
        "test_absences.py::test_revision_is_a_label_only",
    ),
    "final-answer-ends-thinking": (
        PUSH,
        PUSH
        + '            if (validatedInput.thought.includes("final answer")) {\n'
        + "                validatedInput.nextThoughtNeeded = false;\n"
        + "            }\n",
        "test_absences.py::test_every_corpus_step_is_content_free",
    ),
}
"""fork → (anchor in dist/index.js, its replacement, the suite test that must fail)."""


def make_fork(destination: Path, anchor: str, replacement: str) -> Path:
    """A copy of the original's package with one patch in dist/index.js; its dependencies are the
    installed original's, through a node_modules link. Returns the patched entry file."""
    entry = Path(resolve_target("npm:0.6.2").command[-1])
    package = entry.parent.parent
    (destination / "dist").mkdir(parents=True)
    shutil.copy2(package / "package.json", destination / "package.json")
    source = entry.read_text(encoding="utf-8")
    assert source.count(anchor) == 1, "the anchor must occur exactly once in dist/index.js"
    patched = destination / "dist" / "index.js"
    patched.write_text(source.replace(anchor, replacement), encoding="utf-8")
    (destination / "node_modules").symlink_to(package.parent.parent, target_is_directory=True)
    return patched


def suite_on_fork(fork: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """The dev-profile suite, stopping at its first failure, against `fork` patched into `folder`."""
    anchor, replacement, _ = FORKS[fork]
    patched = make_fork(folder / fork, anchor, replacement)
    environment = {k: v for k, v in os.environ.items() if k not in ("CI", "CONFORMANCE_PROFILE")}
    return run_paced(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "-rf",
            "-x",
            "conformance/suite",
            "--target",
            f"cmd:node {patched}",
            "--profile",
            "dev",
            "--hypothesis-seed",
            "0",
        ],
        cwd=ROOT,
        env=environment,
    )


@pytest.fixture(scope="module")
def suite_runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, ahead: ThreadPoolExecutor
) -> dict[str, Future[subprocess.CompletedProcess[str]]]:
    """The selected forks' suite runs, made ahead: each patches its own copy."""
    forks = selected(request, "fork")
    return {fork: ahead.submit(suite_on_fork, fork, tmp_path_factory.mktemp(fork)) for fork in forks}


@pytest.mark.parametrize("fork", sorted(FORKS))
def test_dev_suite_fails_on_the_fork(
    fork: str, suite_runs: dict[str, Future[subprocess.CompletedProcess[str]]]
) -> None:
    _, _, must_fail = FORKS[fork]
    run = suite_runs[fork].result()
    failed = set(re.findall(r"^FAILED \S*?(test_\w+\.py::test_\w+)", run.stdout, flags=re.MULTILINE))
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-2000:]
    assert must_fail in failed, (sorted(failed), run.stdout[-3000:])
