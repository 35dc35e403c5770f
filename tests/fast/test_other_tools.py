"""A tool a server lists beside sequentialthinking is called on processes of its own, each in a folder and
HOME made for it, and what it does to the store is said (issue 42: held-out-multi-11's `add_note`, multi-12's
`get_thought_history` were listed and never called). Against real servers: `tests/servers/reference_fork.py`'s
`tool-reads`, `tool-empties`, `tool-adds`, `tool-hangs`, and `extra_tool.py`'s `crash` and `pwd`."""

from __future__ import annotations

import json
import os
import shlex
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.other_tools import (
    MARK,
    MAX_CALLS,
    MAX_PROPERTIES,
    MAX_TOOLS,
    THOUGHTS,
    ToolCall,
    added_tools,
    arguments,
    call_tool,
    effect,
    from_record,
    gist,
    outside,
    said_in,
    what_they_do,
)
from conformance.core.jsontypes import JSON
from conformance.core.refused_requests import refused_request
from conformance.drivers.process import processes_started
from conformance.drivers.workfolder import anchored
from conformance.gate.evidence import its_failure
from conformance.gate.refusals_said import with_refusals_said
from conformance.gate.tools_said import SUMMARY_MAX, with_tools_said
from conformance.report.model import Evidence, RecordVerdict, RootCause, TestRef
from conformance.targets.specs import Target, resolve_target
from tests.servers import command


def _fork(mode: str, server: str = "reference_fork") -> Target:
    return resolve_target("cmd:" + shlex.join(command(server, mode)))


@cache
def _listed(mode: str, server: str = "reference_fork") -> list[JSON]:
    with _fork(mode, server).wire() as driver:
        driver.initialize()
        result = driver.list_tools().result
    assert result is not None and isinstance(result["tools"], list)
    return list(result["tools"])


@cache
def _said(mode: str, server: str = "reference_fork", timeout: float = 10) -> tuple[str, tuple[ToolCall, ...]]:
    """The one tool `mode` adds, called as run's RTE-1 check calls it: its name and its calls."""
    target = _fork(mode, server)
    ((name, schema),) = added_tools(_listed(mode, server))
    return name, tuple(call_tool(target.command, target.env, target.renames, name, schema, timeout))


def test_a_tool_that_reads_the_store_is_said_to_read_it_and_change_nothing() -> None:
    name, calls = _said("tool-reads")
    assert name == "get_thought_history" and calls[0].arguments == {}
    assert calls[0].kind == "accepted" and calls[0].reads == len(THOUGHTS), calls
    assert gist(name, calls, "added") == (
        '`get_thought_history` (added), called after two thoughts, takes {} and {"cursor": "probe-b"} '
        "and answers with the 2 stored thoughts, the store unchanged")


def test_a_tool_that_empties_the_store_is_said_to_empty_it() -> None:
    name, calls = _said("tool-empties")
    assert effect(calls[0]) == ('the history then holds 0 entries where it held 2, branches [] where '
                                '["probe-b"] were (it empties the history and it drops every branch)')
    assert "takes {}, it empties the history and it drops every branch" in gist(name, calls)


def test_a_tool_that_refuses_empty_arguments_and_adds_with_minimal_ones_is_said_to() -> None:
    name, calls = _said("tool-adds")
    assert [c.arguments for c in calls] == [{}, {"note": "probe-b"}]
    assert [c.kind for c in calls] == ["refused", "accepted"]
    assert gist(name, calls, "added") == (
        '`add_note` (added), called after two thoughts, refuses {}, the store unchanged, and takes '
        '{"note": "probe-b"}, it adds 1 entry to the history')


def test_a_tool_that_hangs_is_said_to_and_called_once() -> None:
    name, calls = _said("tool-hangs", timeout=2)
    assert [c.kind for c in calls] == ["no answer"]
    assert gist(name, calls) == "`wait_for_input`, called after two thoughts, does not answer {} within 2 s"


def test_a_tool_that_ends_its_process_is_said_to() -> None:
    name, calls = _said("crash", "extra_tool")
    assert {c.kind for c in calls} == {"exited"}
    assert gist(name, calls).startswith("`crash`, called after two thoughts, exits on {}, ")


def test_each_call_runs_in_a_folder_and_home_of_its_own_removed_after() -> None:
    _, calls = _said("pwd", "extra_tool")
    folders = [json.loads(c.answer) for c in calls]
    assert all(Path(f["cwd"]).parent == Path(f["home"]).parent and f["cwd"] != os.getcwd()
               for f in folders), folders
    assert len({f["cwd"] for f in folders}) == len(folders), "two calls shared a folder"
    assert not any(os.path.exists(f["cwd"]) for f in folders)


def test_a_command_still_starts_from_its_own_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "index.js").write_text("", encoding="utf-8")
    (tmp_path / "server.py").write_text("", encoding="utf-8")
    (tmp_path / "reference_server").mkdir()
    monkeypatch.chdir(tmp_path)
    assert anchored(["node", "dist/index.js", "server.py", "-m", "reference_server", "--flag", "/abs"]) == (
        "node", str(tmp_path / "dist" / "index.js"), str(tmp_path / "server.py"), "-m", "reference_server",
        "--flag", "/abs")
    assert anchored(["python", "reference_server"]) == ("python", "reference_server")


def test_the_original_listing_starts_nothing_and_says_nothing() -> None:
    original = _listed("tool-reads")[:1]
    started = processes_started()
    assert what_they_do(("false",), {}, None, original, 10) == ""
    assert processes_started() == started


def test_run_says_each_added_tool_and_a_cause_headline_repeats_it_within_its_budget() -> None:
    target = _fork("tool-empties")
    message = "tools/list serves 2 tools. " + what_they_do(target.command, target.env, target.renames,
                                                            _listed("tool-empties"), 10)
    (gist_said,) = said_in([message])
    assert gist_said.startswith("`clear_history`, called after two thoughts, takes {}, it empties")
    test = TestRef(nodeid="t", status="failed", examples=1, message=message)
    record = RecordVerdict(id="RTE-1", kind="runtime", aliases=[], anchors=[], statement="", channels=[],
                           verdict="deviates", evidence_before="implemented", evidence_after="observed",
                           tests=[test])
    cause = RootCause(id="RTE-1", records=["RTE-1"], summary="RTE-1 departs — " + "x " * 300)
    (said,) = with_tools_said([cause], [record])
    assert len(said.summary) <= SUMMARY_MAX and said.summary.endswith(gist_said), said.summary
    assert with_tools_said([said], [record]) == [said]


SCHEMAS = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "properties", "required", "enum", "minimum", "minLength", "anyOf", "oneOf",
                         "p", "q"]) | st.text(max_size=4), inner, max_size=6),
    max_leaves=30)


@given(SCHEMAS)
def test_arguments_from_any_schema_are_few_small_and_begin_empty(schema: JSON) -> None:
    calls = arguments(schema)
    assert calls[0] == {} and 1 <= len(calls) <= MAX_CALLS
    assert all(len(c) <= MAX_PROPERTIES for c in calls)
    assert len({json.dumps(c, sort_keys=True) for c in calls}) == len(calls)
    json.dumps(calls, allow_nan=False)


@given(st.lists(st.fixed_dictionaries({"name": st.text(max_size=300)}), max_size=30))
def test_added_tools_are_capped_and_never_the_compared_one(tools: list[JSON]) -> None:
    added = added_tools([{"name": "sequentialthinking"}, *tools])
    assert len(added) <= MAX_TOOLS and all(name != "sequentialthinking" and len(name) <= 200
                                           for name, _ in added)


LABELS = st.lists(st.sampled_from("abc"), unique=True)


@given(had=st.integers(0, 50), holds=st.integers(0, 60), before=LABELS, after=LABELS)
def test_the_effect_says_what_the_counts_show(had: int, holds: int, before: list[str], after: list[str]
                                              ) -> None:
    call = ToolCall({}, "accepted", "ok", (had, tuple(before)), (holds + 1, tuple(after)))
    said = effect(call)
    assert ("it empties the history" in said) == (holds == 0 < had)
    assert ("to the history" in said) == (holds > had)
    assert ("from the history" in said) == (0 < holds < had)
    assert said.startswith("the history unchanged") == (holds == had and set(before) == set(after))
    assert from_record(json.loads(json.dumps(call.record()))) == call


def test_said_in_reads_only_the_marked_words() -> None:
    assert said_in(["tools/list serves 2 tools"]) == []
    assert said_in([f"x. {MARK}`a`, called after two thoughts, takes {{}}. In full: more"] * 2) == [
        "`a`, called after two thoughts, takes {}"]


def test_a_refused_request_and_the_added_tools_are_both_said_from_one_failure() -> None:
    """RTE-1's check says the added tools beside its first failure, a refused cursor's too (a paged-history
    fork of held-out-multi-12 refuses one before the tools are counted): both reach the cause's headline."""
    refused = refused_request("tools/list", {"cursor": "next"}, "MCP error -32602: Invalid cursor: next",
                              "lists its tool")
    gist_said = ("`get_history` (added), called after two thoughts, takes {} and answers with the 2 stored "
                 "thoughts")
    message = f"{refused}; {MARK}{gist_said}. In full: `get_history`, called with {{}}: answers “a; b”."
    test = TestRef(nodeid="t", status="failed", examples=1, message=message)
    record = RecordVerdict(id="RTE-1", kind="runtime", aliases=[], anchors=[], statement="", channels=[],
                           verdict="deviates", evidence_before="implemented", evidence_after="observed",
                           tests=[test])
    cause = RootCause(id="RTE-1", records=["RTE-1"], summary="RTE-1 departs — `get_history` added")
    (said,) = with_tools_said(with_refusals_said([cause], [record]), [record])
    assert refused in said.summary and said.summary.endswith(gist_said), said.summary
    assert len(said.summary) <= SUMMARY_MAX


def _rte1(message: str) -> RecordVerdict:
    test = TestRef(nodeid="t", status="failed", examples=1, message=message)
    return RecordVerdict(id="RTE-1", kind="runtime", aliases=[], anchors=[], statement="", channels=[],
                         verdict="deviates", evidence_before="implemented", evidence_after="observed",
                         tests=[test])


@given(headline=st.text(st.sampled_from("ab ;,."), min_size=1, max_size=500),
       words=st.text(st.sampled_from("cd ,"), max_size=400).map(
           lambda said: f"`tool`, called after two thoughts, {said}".strip(" ,")))
def test_the_tools_words_keep_their_room_and_a_cut_copy_is_replaced(headline: str, words: str) -> None:
    record = _rte1(f"x; {MARK}{words}. In full: y.")
    copied = f"{headline}; {MARK}{words[:len(words) // 2]}… (2 checks fail)"
    for summary in (headline, copied):
        (said,) = with_tools_said([RootCause(id="RTE-1", records=["RTE-1"], summary=summary)], [record])
        assert len(said.summary) <= SUMMARY_MAX and MARK.strip() not in said.summary, said.summary
        clause = said.summary.rpartition("; ")[2].removesuffix(" (2 checks fail)")
        assert clause == words or (clause.endswith("…") and len(clause) >= 80), said.summary
        if len(headline) <= 260:
            assert said.summary.startswith(headline.rstrip(" ;,")), said.summary


def test_an_accepted_answer_telling_no_count_is_not_said_refused() -> None:
    """A port answering in its own keys (`active-branches` names the labels otherwise) accepts every call:
    its store goes unread, which is said as such, never as a refusal."""
    target = _fork("active-branches")
    (call,) = call_tool(target.command, target.env, target.renames, "sequentialthinking_extra", {}, 10)[:1]
    assert call.kind == "not called" and "not accepted" not in call.answer, call
    assert "tell no thoughtHistoryLength" in call.answer


def test_the_added_tools_words_are_not_read_as_the_checks_failure() -> None:
    """A tool's own refusal, said beside RTE-1's count, is not the count check seeing a refusal: the replayed
    tools/list still tells its failure (before, a run against the notebook fork headed RTE-1 with the check's
    words, the pair marked "differ only elsewhere")."""
    message = ('tools/list serves 2 tools ("sequentialthinking", "add_note"), not the original\'s one, '
               f'sequentialthinking; {MARK}`add_note`, called after two thoughts, refuses {{}}, the store '
               'unchanged. In full: `add_note`, called with {} after two thoughts: '
               'refuses it “{"error": "x"}”.')
    record = _rte1(message)
    listed = [{"name": "sequentialthinking"}]
    pair = Evidence(reproduced=True, at="on the example's tools/list (request 2)",
                    differences=["result.tools: 1 item(s) on the original, 2 here: `add_note` added"],
                    original=json.dumps({"jsonrpc": "2.0", "id": 2, "result": {"tools": listed}}),
                    target=json.dumps({"jsonrpc": "2.0", "id": 2, "result": {
                        "tools": [*listed, {"name": "add_note"}]}}))
    assert not its_failure(record, pair).not_its_failure
    assert outside(message).endswith("not the original's one, sequentialthinking")
