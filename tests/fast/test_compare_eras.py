"""compare's era pass (`compare/eras.py`): what each era's client reads of an answer, and the pass against two
small servers (`tests/servers/era_aware.py`) that differ only in what a newer client negotiates or reads.
Against real releases: tests/e2e/test_compare_eras.py."""

from __future__ import annotations

import shlex
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.eras import (
    RESULT_KEYS_SINCE,
    TOOL_KEYS_SINCE,
    era_pass,
    era_summary,
    knows,
    seen_result,
    seen_tools,
)
from conformance.core.eras import ERAS, REVISIONS
from conformance.report.json import load_report
from conformance.report.markdown_parts import md
from conformance.report.model import Comparison, EraSettled, Report
from conformance.report.pull_request import headline_table
from conformance.report.text import era_lines
from conformance.targets.specs import Target, resolve_target
from tests.fast.test_pull_request_comment import COMMITTED
from tests.servers import command

values = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=4))
keys = st.sampled_from(["content", "isError", "other", *RESULT_KEYS_SINCE])
tool_keys = st.sampled_from(["name", "description", "inputSchema", "other", *TOOL_KEYS_SINCE])


@given(st.sampled_from(ERAS), st.dictionaries(keys, values, max_size=6))
def test_a_client_reads_the_result_keys_its_revision_defines(era: Any, result: dict[str, Any]) -> None:
    seen: Any = seen_result(era, {"jsonrpc": "2.0", "id": 1, "result": result})["result"]
    for key, value in result.items():
        since = RESULT_KEYS_SINCE.get(key)
        older = since is not None and REVISIONS.index(era.revision) < REVISIONS.index(since)
        assert (key in seen) is not older and (older or seen[key] == value)
    assert set(seen) <= set(result)


@given(st.sampled_from(ERAS), st.dictionaries(tool_keys, values, max_size=6))
def test_a_client_reads_the_tool_keys_its_revision_defines(era: Any, tool: dict[str, Any]) -> None:
    listed: list[Any] = seen_tools(era, [tool])
    [seen] = listed
    assert isinstance(seen, dict)
    assert set(seen) == {k for k in tool if k not in TOOL_KEYS_SINCE or knows(era, TOOL_KEYS_SINCE[k])}


def test_structured_content_is_read_from_2025_06_18_on() -> None:
    assert [knows(era, "2025-06-18") for era in ERAS] == [False, False, True, True, True]


def _server(*args: str) -> Target:
    return resolve_target("cmd:" + shlex.join(command("era_aware", *args)))


def test_a_structured_content_off_by_one_is_seen_by_the_eras_that_read_it() -> None:
    done = era_pass(_server(), _server("--skew", "1"), timeout=10)
    assert [(s.era, s.a, s.b) for s in done.settled] == [
        *((r, r, r) for r in REVISIONS[:4]), ("2026-07-28", None, None)]
    assert [(f.found.signature, f.eras) for f in done.found] == [
        ("answer.structuredContent.changed", ("2025-06-18", "2025-11-25", "2026-07-28"))]
    assert '"method":"tools/call"' in done.found[0].program[-1]
    assert '"protocolVersion":"2025-06-18"' in done.found[0].program[0]


def test_the_revision_settled_on_differs_under_the_eras_one_side_does_not_accept() -> None:
    done = era_pass(_server("--newest", "2024-11-05"), _server(), timeout=10)
    assert [(s.era, s.a, s.b) for s in done.settled][1:4] == [
        ("2025-03-26", "2024-11-05", "2025-03-26"), ("2025-06-18", "2024-11-05", "2025-06-18"),
        ("2025-11-25", "2024-11-05", "2025-11-25")]
    [negotiated] = [f for f in done.found if f.found.aspect == "protocol_version"]
    assert negotiated.eras == ("2025-03-26", "2025-06-18", "2025-11-25")
    assert ("2025-06-18", '"2024-11-05"', '"2025-06-18"') in negotiated.answers
    said = era_summary(negotiated, "", "base", "head")
    assert "to a 2025-06-18 client base answers 2024-11-05, head 2025-06-18" in said, said


def test_a_structured_content_that_differs_because_the_text_does_is_the_search_s() -> None:
    """A head keeping no state differs in its text under every era; its structuredContent differing too, on
    the same call, is that difference again, not one of some eras."""
    done = era_pass(_server(), _server("--no-state"), timeout=10)
    assert done.found == [], [(f.found.signature, f.eras) for f in done.found]


def test_two_copies_of_one_server_differ_under_no_era() -> None:
    done = era_pass(_server(), _server(), timeout=10)
    assert done.found == [] and all(s.a == s.b for s in done.settled)


def test_the_settled_revisions_are_said_per_era_in_the_report_and_the_pull_request() -> None:
    identity: Any = resolve_target("cmd:" + shlex.join(command("mini"))).identity
    comparison = Comparison(a=identity, b=identity, calls=0, programs=0, label_a="base", label_b="head",
                            eras=[
        EraSettled(era="2024-11-05", a="2024-11-05", b="2024-11-05"),
        EraSettled(era="2025-06-18", a="2024-11-05", b="2025-06-18"),
        EraSettled(era="2026-07-28", a=None, b=None, failure_b="DriverTimeout: no answer")])
    assert era_lines(comparison) == [
        "2024-11-05 client: both answer 2024-11-05",
        "2025-06-18 client: base answers 2024-11-05; head answers 2025-06-18",
        "2026-07-28 client: base agrees on no revision; head stops early (DriverTimeout: no answer)"]
    assert comparison.model_dump()["eras"][1]["b"] == "2025-06-18"
    table = headline_table(_report(comparison))
    assert md("2025-06-18 client: base answers 2024-11-05; head answers 2025-06-18", 200) in table
    assert md("2024-11-05 client", 200) not in table


def _report(comparison: Comparison) -> Report:
    """The committed 2025.12.18 → 2026.7.4 comparison's report (a /4 report, read as ever) carrying
    `comparison`."""
    report = load_report(COMMITTED / "report.json")
    return report.model_copy(update={"comparison": comparison})
