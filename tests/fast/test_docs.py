"""The docs cannot go stale: every `python -m conformance …` / `seqthink-conformance …` command in the README,
docs/ and the changelog parses against the command line's real parsers, every exit status the README and
docs/ state names the case the command line's table gives it, every `python -m scripts.X` /
`benchmarks.X` module and `tox -e X` environment exists, every relative link resolves, and the README keeps
its two set-up commands (the test command being what .ci/run runs)."""

from __future__ import annotations

import configparser
import contextlib
import importlib.util
import io
import re
import shlex
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.cli.arguments import UsageError
from conformance.cli.main import build_parser
from conformance.drivers.cancel import DEADLINE_EXIT
from conformance.gate import exit_status

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", REPO / "CHANGELOG.md", REPO / "ARCHITECTURE.md",
        *sorted((REPO / "docs").glob("*.md")), *sorted((REPO / "docs").glob("*.yml"))]
MAIN_JOB = "python3 -m pip install -e '.[dev]' && python -m conformance run"
TEST_JOB = "python3 -m pip install -e '.[dev]' && python -m pytest -n 3 -m \"not evidence\""

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


def install_commands(readme: str) -> list[str]:
    """The indented command lines of the README's Install section, in order (tests/e2e/test_install.py runs
    them in a scratch folder)."""
    section = readme.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    return [line[4:] for line in section.splitlines() if line.startswith("    ") and line.strip()]


def test_the_readmes_install_makes_a_virtualenv_and_installs_what_is_at_hand() -> None:
    """A clone or an unpacked archive, into a virtualenv the commands make; no placeholder address among them
    (`OWNER` is only named in the prose, as what works once published)."""
    commands = install_commands((REPO / "README.md").read_text(encoding="utf-8"))
    assert commands[0].startswith("python3 -m venv .venv && . .venv/bin/activate"), commands
    assert any(re.fullmatch(r"python -m pip install \./[\w.-]+", c) for c in commands), commands
    assert not any("OWNER" in c or "git+" in c for c in commands), commands
    runs = [c for c in commands if c.startswith("seqthink-conformance ")]
    assert runs and all(_parse(_argv(c)) is None for c in runs), runs


def test_the_readme_keeps_its_two_set_up_commands() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert f"    {MAIN_JOB}" in readme and f"    {TEST_JOB}" in readme
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    # .ci/run runs the README's test command as it stands: no arguments added (its status may be kept)
    command = re.escape(TEST_JOB.split(" && ")[1])
    assert re.search(rf"^{command}(\s*$|\s+(\|\||&&|;))", ci, re.MULTILINE)
    assert _parse(_argv(MAIN_JOB.split(" && ")[1])) is None


_EXIT = re.compile(
    r"\bexit(?:s|ed)?(?: with)?(?: (?:status|code)(?:es)?)?(?: is)? \**(\d{1,3}(?: / \d{1,3})*)\b",
    re.IGNORECASE,
)
"""A stated exit status: `exit 2`, `exits 1`, `exit status 4`, `the exit status is 0`, `exit 143 / 130`."""
STATED = [REPO / "README.md", REPO / "ARCHITECTURE.md", *sorted((REPO / "docs").glob("*.md"))]
"""Where an exit status stated must be the command line's (the changelog says what statuses were)."""
ABOUT_OTHER_PROGRAMS = {"docs/reference-server.md"}
"""Docs whose exit statuses are a server's (the reference's and the original's), not the command line's."""
_OTHER_SUBJECT = re.compile(r"\b(?:server|original|reference|node)\b[^,;()]{0,20}$", re.IGNORECASE)
"""`the server now exits 0`: a statement whose subject, just before it, is a server is not the harness's."""
CASES: dict[int, str] = {
    exit_status.OK: r"pass|green|exactly the|no record\S* (?:verdict )?differs|without differences|written|"
                    r"once it ran|summary is the report",
    exit_status.GATE_FAILED: r"fail|departure|differ|changed|breaker|broken server|does not accept",
    exit_status.UNUSABLE: r"cannot be used|not usable|unusable|cannot start|exits at start|could not be|"
                          r"HarnessError|stops the run",
    exit_status.NO_SPACE: r"no space|disk full|device is full|full device",
    exit_status.USAGE: r"usage|misuse|invalid|malformed|not valid|cannot be split|refuse|blank reason|"
                       r"twice|missing or repeated|InputError",
    DEADLINE_EXIT: r"deadline|--max-time",
    exit_status.INTERRUPTED: r"SIGINT|Ctrl-C",
    128 + signal.SIGTERM: r"SIGTERM|cancel",
}
"""Each status of the command line's table (`gate/exit_status.py`, `drivers/cancel.py`, a signal's 128+N) and
the words that name its case: a statement must name the case of the status it states, and no other's."""


SENTENCE_ENDS = (". ", ".\n", "\n\n", "|")


def _clause_around(text: str, start: int, end: int) -> str:
    """The sentence (or table cell) a statement stands in."""
    before = max(text.rfind(mark, 0, start) for mark in SENTENCE_ENDS)
    ends = [i for mark in SENTENCE_ENDS if (i := text.find(mark, end)) != -1]
    return text[before + 1:min(ends, default=len(text))]


def exit_statements(doc: str, text: str) -> Iterator[tuple[str, int, str]]:
    """(where, status, its clause) for every exit status the text states about the command line."""
    text = re.sub(r"\s*\n\s*(?!\n)", " ", text)  # a paragraph is one line; a blank line still ends a clause
    for found in _EXIT.finditer(text):
        subject = text[max(0, found.start() - 60):found.start()]
        if doc in ABOUT_OTHER_PROGRAMS or _OTHER_SUBJECT.search(subject):
            continue
        clause = _clause_around(text, found.start(), found.end())
        for status in found.group(1).split(" / "):
            yield f"{doc}: {found.group(0)!r}", int(status), clause


def wrong_statuses(doc: str, text: str) -> list[str]:
    """Statements of an exit status that is not in the table, whose clause names no case, or names only the
    case the table gives another status."""
    wrong = []
    for where, status, clause in exit_statements(doc, text):
        named = {code for code, words in CASES.items() if re.search(words, clause, re.IGNORECASE)}
        if status not in CASES:
            wrong.append(f"{where}: the command line has no exit status {status}")
        elif status not in named:
            said = f"names the case of {sorted(named)}" if named else "does not say which case"
            wrong.append(f"{where} in {clause.strip()!r}: {said}")
    return wrong


def test_every_exit_status_the_docs_state_is_the_tables() -> None:
    docs = {doc.relative_to(REPO).as_posix(): _text(doc) for doc in STATED}
    found = [s for doc, text in docs.items() for s in exit_statements(doc, text)]
    assert len(found) >= 30, found
    assert {status for _, status, _ in found} >= {0, 1, 2, 3, 4, 124, 130, 143}
    wrong = [w for doc, text in docs.items() for w in wrong_statuses(doc, text)]
    assert wrong == [], "\n".join(wrong)


def test_the_cases_are_the_tables_statuses() -> None:
    table = {v for k, v in vars(exit_status).items() if k.isupper() and isinstance(v, int)}
    assert table | {DEADLINE_EXIT, 128 + signal.SIGTERM} == set(CASES)


@pytest.mark.parametrize(
    ("statement", "caught"),
    [
        ("A blank reason or a malformed signature is a usage error (exit 2).", True),
        ("A blank reason or a malformed signature is a usage error (exit 4).", False),
        ("A target that cannot be used ends the run, exit status 4.", True),
        ("Run it: the exit status is 3.", True),
        ("It exits 1.", True),
        ("The server now exits 0 when stdin closes.", False),
    ],
    ids=["usage-as-2", "usage-as-4", "unusable-as-4", "no-such-status", "no-case", "a-servers-status"],
)
def test_a_wrong_or_unexplained_status_is_caught(statement: str, caught: bool) -> None:
    assert bool(wrong_statuses("doc.md", statement)) is caught
