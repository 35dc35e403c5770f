"""The action's pull-request mode, its writing half: a committed comparison's report as the job summary's
headline table and a comment body under GitHub's limit (the action's steps run: tests/e2e/test_action.py)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.gate.comparison import AcceptedDifference, CompareBaseline, accept
from conformance.report.json import load_report
from conformance.report.model import Report
from conformance.report.pull_request import COMMENT_LIMIT, comment_body, headline_table, verdict_line
from scripts import pr_comment

COMMITTED = Path(__file__).resolve().parents[2] / "reports" / "compare-npm-2025.12.18-vs-npm-2026.7.4"


def _report(declared: set[str]) -> Report:
    """The committed 2025.12.18 → 2026.7.4 comparison, the differences `declared` accepted by a baseline."""
    report = load_report(COMMITTED / "report.json")
    assert report.comparison is not None
    entries = [AcceptedDifference(id=i, reason="declared") for i in sorted(declared)]
    baseline = CompareBaseline(accepted=entries)
    return report.model_copy(update={"comparison": accept(report.comparison, baseline)})


def test_the_table_has_a_row_per_cause_and_says_what_is_not_declared() -> None:
    report = _report({"tools_list.inputSchema.changed", "tools_list.annotations.added"})
    table = headline_table(report)
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert len(rows) == len(report.root_causes) == 3
    assert any("| 0 / 2 |" in row and "`tool-spec`" in row for row in rows), rows
    assert report.comparison is not None
    undeclared = len(report.comparison.differences) - 2
    assert undeclared > 0
    verdict = verdict_line(report)
    assert f"2 declared by the pull request, {undeclared} not declared: the check fails" in verdict
    everything = _report({d.id for d in report.comparison.differences} if report.comparison else set())
    assert "the check passes" in verdict_line(everything)


def test_the_comment_names_each_undeclared_difference_with_the_lines_that_declare_it() -> None:
    report = _report({"tools_list.inputSchema.changed"})
    body = comment_body(report)
    assert len(body) <= COMMENT_LIMIT
    assert "**not declared**" in body and "(`tools_list.annotations.added`)" in body, body[:2000]
    assert "declared: " in body and "(`tools_list.inputSchema.changed`)" in body
    snippet = body.split("```yaml\n", 1)[1].split("\n```", 1)[0]
    declared = yaml.safe_load(snippet)["accepted"]
    assert all(entry["reason"].startswith("TODO") for entry in declared)
    assert "tools_list.inputSchema.changed" not in {entry["id"] for entry in declared}


@settings(max_examples=30, deadline=None)
@given(limit=st.integers(300, 20_000))
def test_the_comment_stays_under_any_limit(limit: int) -> None:
    body = comment_body(_report(set()), limit)
    assert len(body) <= limit
    if len(comment_body(_report(set()))) > limit:
        assert "report artifact" in body


def test_the_script_appends_the_table_and_writes_the_comment(tmp_path: Path) -> None:
    summary, comment = tmp_path / "summary.md", tmp_path / "comment.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    written = ["--summary", str(summary), "--comment", str(comment)]
    assert pr_comment.main([str(COMMITTED / "report.json"), *written]) == 0
    assert summary.read_text(encoding="utf-8").startswith("earlier step\n## Behaviour differences: ")
    assert comment.read_text(encoding="utf-8").startswith("## Behaviour differences: ")
    run_report = Path(__file__).resolve().parents[2] / "reports" / "npm-0.6.2" / "report.json"
    assert pr_comment.main([str(run_report), *written]) == 4, "a run's report is not a comparison's"


def _prose(body: str) -> str:
    """The comment outside code blocks and code spans, where GitHub turns `@name` into a mention."""
    return re.sub(r"`[^`\n]*`", "", re.sub(r"```.*?```", "", body, flags=re.S))


def test_mentions_from_the_servers_ping_nobody() -> None:
    """A head's server name, labels and answers are the pull request author's words: `@someone` in them
    reaches the comment as text, not as a notification."""
    report = _report(set())
    assert report.comparison is not None and report.root_causes
    cause = report.root_causes[0].model_copy(update={"summary": "@octocat and @acme/security-team differ"})
    comparison = report.comparison.model_copy(update={"label_b": "@everyone-here"})
    hostile = report.model_copy(update={"comparison": comparison, "root_causes": [cause]})
    body = comment_body(hostile)
    assert not re.search(r"(?<![\w`])@[A-Za-z0-9]", _prose(body)), _prose(body)[:1500]
    assert "@&#8203;octocat" in body and "@&#8203;acme/security\\-team" in body
    assert "@&#8203;everyone\\-here" in headline_table(hostile)


def test_every_command_the_comment_prints_parses_as_written() -> None:
    """The comment's commands (its rerun line) paste as they are: a code span read by a shell gives the same
    words, and the command line's own parser takes them (running a compare is the e2e tier's)."""
    import re
    import shlex

    from conformance.cli.main import build_parser

    body = comment_body(_report(set()), COMMENT_LIMIT)
    commands = re.findall(r"(?<!`)`(python -m conformance [^`\n]+)`", body)
    assert commands, body[-600:]
    for command in commands:
        argv = shlex.split(command)
        assert argv[:3] == ["python", "-m", "conformance"], command
        build_parser().parse_args(argv[3:])  # exits (a SystemExit) on an option it does not know
