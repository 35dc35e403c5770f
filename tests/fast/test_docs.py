"""The docs cannot go stale: every `python -m conformance …` / `seqthink-conformance …` command in the README,
docs/ and the changelog parses against the command line's real parsers, every `python -m scripts.X` /
`benchmarks.X` module and `tox -e X` environment exists, every relative link resolves, and the README keeps
its two set-up commands (the test command being what .ci/run runs)."""

from __future__ import annotations

import configparser
import contextlib
import importlib.util
import io
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.cli.arguments import UsageError
from conformance.cli.main import build_parser

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", REPO / "CHANGELOG.md", REPO / "ARCHITECTURE.md",
        *sorted((REPO / "docs").glob("*.md")), *sorted((REPO / "docs").glob("*.yml"))]
MAIN_JOB = "python3 -m pip install -e '.[dev]' && python -m conformance run"
TEST_JOB = "python3 -m pip install -e '.[dev]' && python -m pytest"

_COMMAND = re.compile(r"(?:python3? -m conformance|seqthink-conformance) [a-z-][^\n`]*")
_SYNOPSIS = re.compile(r"…|\.\.\.|\bCOMMAND\b|\[")
"""A usage synopsis (`baseline REPORT.json [-o FILE]`), not a command one can type as it stands."""
_SAMPLES = {"matrix.release": "0.6.2", "matrix.target": "npm:0.6.2", "matrix.name": "fork"}
"""A value for each workflow expression the docs' commands use (a new one must be added here)."""
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _text(doc: Path) -> str:
    """The file with shell line continuations joined, so a command is one line."""
    return re.sub(r"\\\n\s*", " ", doc.read_text(encoding="utf-8"))


def _commands(doc: Path) -> Iterator[str]:
    for line in _text(doc).splitlines():
        for found in _COMMAND.finditer(line):
            command = re.split(r"\s+#\s|\s(?:&&|\|\||\||>>|>|;)\s|\)|\"$", found.group(0))[0].strip()
            if not _SYNOPSIS.search(command):
                yield command


def _argv(command: str) -> list[str]:
    def sample(match: re.Match[str]) -> str:
        expression = match.group(1)
        assert expression in _SAMPLES, f"no sample value for ${{{{ {expression} }}}}"
        return _SAMPLES[expression]

    words = shlex.split(re.sub(r"\$\{\{\s*(.*?)\s*\}\}", sample, command))
    return words[3:] if words[0].startswith("python") else words[1:]


def _parse(argv: list[str]) -> str | None:
    """None when the real parser accepts argv, else its one-line complaint."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            build_parser().parse_args(argv)
    except UsageError as exc:
        return str(exc)
    except SystemExit as exc:  # --help prints and exits 0
        return None if exc.code == 0 else f"exit {exc.code}"
    return None


def _all_commands() -> list[tuple[str, str]]:
    return [(doc.relative_to(REPO).as_posix(), command) for doc in DOCS for command in _commands(doc)]


def test_the_extraction_finds_the_documented_commands() -> None:
    found = _all_commands()
    commands = {command for _, command in found}
    assert len(found) >= 30, found
    assert "python -m conformance run" in commands
    assert any(c.startswith("python -m conformance baseline ") for c in commands)
    assert any(c.startswith("seqthink-conformance diff ") for c in commands)  # from the example workflow
    assert not any(_SYNOPSIS.search(c) for c in commands)


@pytest.mark.parametrize(("doc", "command"), _all_commands())
def test_every_documented_command_parses(doc: str, command: str) -> None:
    complaint = _parse(_argv(command))
    assert complaint is None, f"{doc}: `{command}`: {complaint}"


def test_a_wrong_command_is_caught() -> None:
    """The check is not vacuous: an unknown option, a bad choice and a missing argument are refused."""
    for wrong in ("python -m conformance run --targt reference", "python -m conformance run --profile fast",
                  "python -m conformance baseline", "python -m conformance nosuch"):
        assert _parse(_argv(wrong)) is not None, wrong


def test_every_documented_script_module_and_tox_env_exists() -> None:
    tox = configparser.ConfigParser()
    tox.read(REPO / "tox.ini", encoding="utf-8")
    envs = {e.strip() for e in tox["tox"]["env_list"].split(",")}
    envs |= {s.removeprefix("testenv:") for s in tox.sections() if s.startswith("testenv:")}
    for doc in DOCS:
        text = _text(doc)
        for module in re.findall(r"python3? -m ((?:scripts|benchmarks)\.[a-z_]\w*)", text):
            assert importlib.util.find_spec(module) is not None, f"{doc.name}: no module {module}"
        for env in re.findall(r"\btox -e ([\w-]+)", text):
            assert env in envs, f"{doc.name}: no tox environment {env}"


def _anchors(doc: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    headings = re.findall(r"^#+ (.+)$", doc.read_text(encoding="utf-8"), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_every_relative_link_resolves() -> None:
    checked = 0
    for doc in DOCS:
        if doc.suffix != ".md":
            continue
        for link in _LINK.findall(doc.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", link):
                continue
            path, _, anchor = link.partition("#")
            target = (doc.parent / path).resolve() if path else doc
            assert target.exists(), f"{doc.name}: link {link} points nowhere"
            assert target.is_relative_to(REPO), f"{doc.name}: link {link} leaves the repository"
            if anchor and target.suffix == ".md":
                assert anchor in _anchors(target), f"{doc.name}: no heading #{anchor} in {target.name}"
            checked += 1
    assert checked >= 20


def test_the_readme_keeps_its_two_set_up_commands() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert f"    {MAIN_JOB}" in readme and f"    {TEST_JOB}" in readme
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    # .ci/run runs the README's test command as it stands: no arguments added (its status may be kept)
    assert re.search(r"^python -m pytest(\s*$|\s+(\|\||&&|;))", ci, re.MULTILINE)
    assert _parse(_argv(MAIN_JOB.split(" && ")[1])) is None
