"""Ports and forks in the wild (tests/servers/ports.py), driven as the preflight drives them: a port spelling
the arguments in snake_case is stopped with both sides' fields and the spelling a call confirmed, and is
accepted through the mapping; a logger writing on stdout after the handshake is caught by the preflight; every
stray line of a run is counted from its transcripts, with the answers it made late; a server's own last
words are kept whole."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.catalog.startup_hints import diagnose
from conformance.cli.runner.preflight import check_target, preflight
from conformance.compare.arguments import check_arguments, stop_sentence
from conformance.compare.engine import UnusableTarget, _fresh
from conformance.core.arguments_map import SNAKE_CASE, Renamer, load, renames_of, snake_case_map
from conformance.core.errors import InputError
from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.jsontypes import JSON
from conformance.core.protocol import ARGUMENT_NAMES, PROBE_ARGUMENTS, PROTOCOL_VERSION, TOOL
from conformance.drivers.transcript import Transcript
from conformance.drivers.wire import NOT_JSON_RPC, WireDriver
from conformance.gate.preflight_departures import with_preflight_departure
from conformance.gate.stdout_hygiene import stdout_hygiene
from conformance.report.escape import STOP_CHARS, _split_top, conclusion_kept
from conformance.report.text import STOP_SAID, stop_named
from conformance.targets.specs import Target
from tests.servers import session_on

PORTS = Path(__file__).resolve().parent.parent / "servers" / "ports.py"
ROOT = Path(__file__).resolve().parents[2]


def port(mode: str, renames: dict[str, str] | None = None) -> Target:
    spec = f"cmd:python {PORTS} {mode}"
    identity = TargetIdentity(spec=spec, kind="cmd", command=[sys.executable, str(PORTS), mode])
    return Target(spec, (sys.executable, str(PORTS), mode), identity, renames=renames or {})


def test_a_snake_case_port_is_stopped_naming_both_sides_fields_and_the_spelling_it_takes() -> None:
    with WireDriver(port("snake").command, timeout=10) as driver:
        driver.initialize(PROTOCOL_VERSION)
        check = check_arguments(driver, driver.list_tools(), None)
    assert check.accepted is False, check
    assert {"thought_number", "total_thoughts", "next_thought_needed"} <= set(check.required), check.required
    assert check.sent == list(PROBE_ARGUMENTS), check.sent
    assert "Invalid thought_number" in check.refusal, check.refusal
    assert check.spelling["thoughtNumber"] == "thought_number", check.spelling
    said = stop_sentence(check)
    assert said.startswith(f"the server's `{TOOL}` requires thought, next_thought_needed, thought_number, "
                           "total_thoughts; the original's call (thought, thoughtNumber, totalThoughts, "
                           "nextThoughtNeeded) is refused: “"), said
    assert f"--arguments-map {SNAKE_CASE}" in said, said
    conclusion = _split_top(said, "; ")[-1]
    assert conclusion == (
        f"spelled {SNAKE_CASE} (thought_number, total_thoughts, next_thought_needed and 5 more) it is "
        f"accepted (one call confirmed it): rerun with --arguments-map {SNAKE_CASE} to check everything else"
    ), conclusion
    assert conclusion_kept(said, STOP_SAID).endswith(conclusion), "the summary's sentence keeps what to run"


def test_a_port_with_words_of_its_own_is_stopped_naming_what_it_takes(tmp_path: Path) -> None:
    """No snake_case spelling and no field marked required: the names it lists are not the original's."""
    checked, _, _ = check_target(port("words"), tmp_path / "t.jsonl", 10)
    assert not checked.ok and checked.error is not None, checked
    said = (f"the server's `{TOOL}` takes text, step, steps, more (its inputSchema requires none); the "
            "original's call (thought, thoughtNumber, totalThoughts, nextThoughtNeeded) is refused: "
            "“unexpected arguments: ")
    assert checked.error.startswith(said), checked.error
    assert "--arguments-map FILE" in checked.error, checked.error


def test_a_port_taking_the_fields_inside_one_object_is_not_sent_to_a_mapping(tmp_path: Path) -> None:
    """A FastMCP port whose tool takes a pydantic model argument (dhkts1/sequentialStory: `data`, an object of
    snake_case fields): the stop says what the object holds, and not that --arguments-map would help, as a
    renaming of keys cannot nest them (reports/third-party/AUDIT.md)."""
    checked, _, _ = check_target(port("nested"), tmp_path / "t.jsonl", 10)
    assert not checked.ok and checked.error is not None, checked
    assert checked.error.startswith(
        f"the server's `{TOOL}` requires data (an object of thought, next_thought_needed, thought_number, "
        "total_thoughts, is_revision, revises_thought, branch_from_thought, branch_id, needs_more_thoughts); "
        "the original's call (thought, thoughtNumber, totalThoughts, nextThoughtNeeded) is refused: "), \
        checked.error
    assert "--arguments-map FILE" not in checked.error, checked.error
    assert "cannot express" in checked.error, checked.error
    assert checked.arguments is not None and checked.arguments.nested["data"][:2] == ["thought",
                                                                                     "next_thought_needed"]


def test_the_mapping_respells_every_call_and_the_port_accepts_the_originals_call(tmp_path: Path) -> None:
    renames = renames_of(SNAKE_CASE)
    assert set(renames) == {n for n in ARGUMENT_NAMES if n != "thought"}, renames
    checked, _, _ = check_target(port("snake", renames), tmp_path / "t.jsonl", 10, mapped_from=SNAKE_CASE)
    assert checked.ok, checked.error
    assert checked.arguments is not None and checked.arguments.accepted is True, checked.arguments
    assert checked.arguments.arguments_map == renames and checked.arguments.arguments_map_from == SNAKE_CASE
    sent = (tmp_path / "t.jsonl").read_text(encoding="utf-8")
    assert '\\"thought_number\\":1' in sent and '\\"thoughtNumber\\"' not in sent, "the frame as written"


def test_the_preflight_stops_a_port_refusing_the_originals_names(tmp_path: Path) -> None:
    checked, _, _ = check_target(port("snake"), tmp_path / "t.jsonl", 10)
    assert not checked.ok
    assert checked.error is not None, checked
    assert "requires thought, next_thought_needed" in checked.error, checked.error


def test_a_refusal_for_other_reasons_is_left_to_the_suite(tmp_path: Path) -> None:
    """broken.py reject refuses every call, yet the call spells every field it requires: not a stop."""
    broken = Path(__file__).resolve().parent.parent / "servers" / "broken.py"
    spec = f"cmd:python {broken} reject"
    target = Target(spec, (sys.executable, str(broken), "reject"),
                    TargetIdentity(spec=spec, kind="cmd", command=[sys.executable, str(broken), "reject"]))
    checked, _, _ = check_target(target, tmp_path / "t.jsonl", 10)
    assert checked.ok, checked.error
    assert checked.arguments is not None and checked.arguments.accepted is True


def test_a_logger_writing_after_the_handshake_is_caught_by_the_preflight(tmp_path: Path) -> None:
    checked, _, _ = check_target(port("logger"), tmp_path / "t.jsonl", 10)
    assert not checked.ok
    assert checked.error is not None and checked.error.startswith(NOT_JSON_RPC), checked.error
    assert '"msg": "client connected"' in checked.error and "s after the server started" in checked.error


def test_a_stray_text_line_is_said_in_the_harness_words_with_its_text(tmp_path: Path) -> None:
    """pino-pretty's line (axefield-ts) is not a JSON-RPC message: said so, where it stops being JSON, and
    quoted; never in Python's parser words ("Expecting ',' delimiter: line 1 column 4 (char 3)")."""
    checked, _, _ = check_target(port("logger+pretty"), tmp_path / "t.jsonl", 10)
    assert not checked.ok and checked.error is not None
    assert checked.error.startswith(f"{NOT_JSON_RPC} JSON, so not a JSON-RPC message (it stops being JSON at "
                                    "its character 4): '["), checked.error
    assert "INFO" in checked.error and "client connected" in checked.error
    assert "Expecting" not in checked.error and "(char " not in checked.error


def test_a_stray_line_before_the_listing_stop_says_both_stops(tmp_path: Path) -> None:
    """axefield-ts, some starts: a logger's line came before the answer to tools/list, the stop was the stdout
    check's (CMP-4) and the renamed tool was never mentioned. Both are known once the answer is read."""
    checked, _, _ = check_target(port("renamed+early"), tmp_path / "t.jsonl", 10)
    assert not checked.ok and checked.error is not None
    assert checked.error.startswith(NOT_JSON_RPC) and '"msg": "listing tools"' in checked.error, checked.error
    assert f"; and it does not offer the {TOOL} tool (it offers: " in checked.error, checked.error
    assert checked.error.endswith(f"where the original's {TOOL} takes thought, thoughtNumber, totalThoughts, "
                                  "nextThoughtNeeded"), checked.error


@pytest.mark.parametrize("mode", ["renamed+started", "started"])
def test_a_stray_line_before_the_handshake_answer_says_the_tool_stop_too(tmp_path: Path, mode: str) -> None:
    """uookong-ts: a start message on stdout before the answer to initialize stopped the preflight at the
    handshake, and its other tool name was never asked about: a maintainer who removed the line met a second
    stop. The tools are listed once the answer to initialize is read; a server offering the tool adds
    nothing."""
    checked, _, _ = check_target(port(mode), tmp_path / "t.jsonl", 10)
    assert not checked.ok and checked.error is not None
    assert checked.error.startswith(NOT_JSON_RPC), checked.error
    assert "'Sequential Thinking MCP Server started'" in checked.error, checked.error
    harness = HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3")
    results = with_preflight_departure(None, checked, TargetIdentity(spec="cmd:x", kind="cmd", command=["x"]),
                                       harness, "2026-01-01T00:00:00Z")
    assert results is not None
    departing = {record for t in results.tests if t.status == "failed" for record in t.contradicted}
    if mode == "started":
        assert "; and" not in checked.error, checked.error
        assert departing == {"CMP-4"}, results.tests
    else:
        assert f"; and it does not offer the {TOOL} tool (it offers: process_thought, " in checked.error, \
            checked.error
        assert departing == {"CMP-2", "CMP-4"}, results.tests  # both stops depart, as the stop line says
        stdout = next(t for t in results.tests if t.contradicted == ["CMP-4"])
        assert "does not offer" not in stdout.message, stdout.message  # CMP-2's words stay CMP-2's


@pytest.mark.parametrize("mode", ["renamed+started", "started"])
def test_compares_stray_line_stop_says_the_tool_stop_too(mode: str) -> None:
    """uookong-ts's compare stopped at the start message alone, as run did: its tools are listed past the
    stray line on a process of its own, and a server offering the tool adds nothing."""
    with pytest.raises(UnusableTarget) as stopped:
        _fresh(port(mode), 10, None)
    said = str(stopped.value)
    assert f"is not usable: {NOT_JSON_RPC}" in said, said
    assert "'Sequential Thinking MCP Server started'" in said, said
    if mode == "started":
        assert "; and" not in said, said
    else:
        assert (f"; and it does not offer the {TOOL} tool (it offers: process_thought, generate_summary, "
                "clear_history); its process_thought takes ") in said, said


def test_every_stray_line_is_counted_with_when_it_came_and_the_answers_it_made_late(tmp_path: Path) -> None:
    folder = tmp_path / "transcripts"
    folder.mkdir()
    with Transcript(folder / "witnesses.jsonl") as transcript, \
            WireDriver(port("print").command, timeout=10, transcript=transcript) as driver:
        driver.initialize(PROTOCOL_VERSION)
        # Each call's answer is read past the print() line before it, as a stdio client does (issue 46):
        # no answer is dropped as late any more.
        answers = [driver.call_tool(TOOL, dict(PROBE_ARGUMENTS)) for _ in range(2)]
    assert [a.error for a in answers] == [None, None]
    found = stdout_hygiene(folder)
    assert found is not None and found.lines_seen == 2, found
    first = found.lines[0]
    assert first.text == "Thought 1: conformance probe" and first.phase == "the witness step", first
    assert first.after_request == "tools/call (request 2)" and first.after_s is not None, first
    assert found.late_answers_dropped == [], found.late_answers_dropped


def test_a_clean_run_has_no_stdout_finding(tmp_path: Path) -> None:
    folder = tmp_path / "transcripts"
    folder.mkdir()
    with Transcript(folder / "preflight.jsonl") as transcript, \
            WireDriver(port("snake").command, timeout=10, transcript=transcript) as driver:
        driver.initialize(PROTOCOL_VERSION)
        driver.list_tools()
    assert stdout_hygiene(folder) is None


def test_renaming_touches_keys_only() -> None:
    renamer = Renamer(snake_case_map(ARGUMENT_NAMES))
    frame = (b'{"arguments":{"thoughtNumber" :1,"thought":"thoughtNumber","x\\"thoughtNumber":2,'
             b'"thought\\u004eumber":3}}')
    assert renamer.frame(frame) == (b'{"arguments":{"thought_number" :1,"thought":"thoughtNumber",'
                                    b'"x\\"thoughtNumber":2,"thought\\u004eumber":3}}')
    assert renamer.arguments({"thoughtNumber": 1, "other": 2}) == {"thought_number": 1, "other": 2}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"arguments": {"thoughtNumber": "thought number"}}', "not a plain argument name"),
        ('{"arguments": {"a": "x", "b": "x"}}', "the same server name"),
        ('{"mapping": {}}', "arguments"),
        ("[1]", "(top level)"),
    ],
)
def test_a_mapping_file_that_is_not_one_is_refused_in_one_line(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "map.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="arguments map") as refused:
        load(path)
    assert says in str(refused.value), str(refused.value)


def test_a_yaml_mapping_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "map.yaml"
    path.write_text("arguments:\n  thoughtNumber: n\n  thought: thought\n", encoding="utf-8")
    assert load(path) == {"thoughtNumber": "n"}


def test_a_servers_own_last_words_are_kept_whole() -> None:
    """A FastMCP port under mcp 2.x: the module exists, the server's message says what to do."""
    import subprocess

    ran = subprocess.run([sys.executable, str(PORTS), "hint"], capture_output=True, text=True, check=False)
    failure = diagnose("server exited with status 1", ran.stderr)
    assert failure.lines[0].endswith("or pin 'mcp<2' to keep running v1 code."), failure.lines
    assert failure.case == "dependency version", failure
    assert failure.hint is not None and "is not installed" not in failure.hint, failure.hint


def test_a_port_that_renamed_the_tool_is_stopped_naming_its_look_alike_tools_fields(tmp_path: Path) -> None:
    """A port offering process_thought, not sequentialthinking (arben-adm/mcp-sequential-thinking,
    reports/third-party/AUDIT-round9.md): the stop named its tools and none of their fields."""
    checked, _, _ = check_target(port("renamed"), tmp_path / "t.jsonl", 10)
    assert not checked.ok and checked.error is not None, checked
    assert checked.error == (
        f"it does not offer the {TOOL} tool (it offers: process_thought, generate_summary, clear_history); "
        "its process_thought takes thought, next_thought_needed, thought_number, total_thoughts, "
        "is_revision, revises_thought, branch_from_thought, branch_id, needs_more_thoughts, stage, where the "
        "original's "
        f"{TOOL} takes thought, thoughtNumber, totalThoughts, nextThoughtNeeded"), checked.error


def test_compares_tool_name_stop_names_the_look_alike_as_runs_does(tmp_path: Path) -> None:
    """amama-fatima-ts, spideynolove-py (reports/third-party/AUDIT-round15-wild.md): compare's stop named the
    tools only, where run's names the look-alike's fields and required ones: the same clause now."""
    checked, _, _ = check_target(port("renamed+required"), tmp_path / "t.jsonl", 10)
    with pytest.raises(UnusableTarget) as stopped:
        _fresh(port("renamed+required"), 10, None)
    assert checked.error is not None and "; its process_thought takes " in checked.error, checked.error
    assert str(stopped.value).endswith(checked.error.removeprefix("it ")), str(stopped.value)


def test_a_tool_name_stop_under_a_mapping_says_the_mapping_was_not_used_in_run_and_compare(
        tmp_path: Path) -> None:
    """A user passed --arguments-map and the run stopped because the tool is not offered: the stop said
    nothing of the option (r15's note), as if the mapping had been tried. Run's and compare's stops say it."""
    renamed = port("renamed", renames_of(SNAKE_CASE))
    seen = preflight(renamed, tmp_path, 10, None, mapped_from=SNAKE_CASE)
    with pytest.raises(UnusableTarget) as stopped:
        _fresh(renamed, 10, None, SNAKE_CASE)
    said = (f"; --arguments-map {SNAKE_CASE} was not used: it renames the arguments of the original's "
            f"{TOOL} call, and this server offers no {TOOL} tool to send it to (a mapping renames arguments, "
            "not the tool)")
    error = seen.preflight.error
    assert error is not None and error.startswith(f"it does not offer the {TOOL} tool"), error
    assert said in error, error
    assert str(stopped.value).endswith(said), str(stopped.value)


def test_a_tool_name_stop_names_the_look_alikes_required_fields(tmp_path: Path) -> None:
    """axefield-ts and promptly-ts require a `stage` the original's call lacks: the stop said which fields
    their tool takes, not which it requires (issue 46: both sides' required fields)."""
    checked, _, _ = check_target(port("renamed+required"), tmp_path / "t.jsonl", 10)
    said = ("is_revision, revises_thought, branch_from_thought, branch_id, needs_more_thoughts, stage "
            "(requiring thought, thought_number, total_thoughts, next_thought_needed, stage), where the "
            f"original's {TOOL} takes thought, thoughtNumber, totalThoughts, nextThoughtNeeded")
    assert checked.error is not None and said in checked.error, checked.error


def test_a_stopped_preflight_keeps_the_stray_lines_its_target_writes_before_it_is_closed(
        tmp_path: Path) -> None:
    """A renamed port whose logger writes on stdout after the handshake (axefield-ts: pino-pretty's worker
    thread, 0.15-1.21 s after the server answered initialize): the tool-name stop closed it before the line
    came, and the stop said nothing of stdout. The line is now in the preflight's transcript, and the stdout
    finding beside the stop shows it with its text."""
    folder = tmp_path / "transcripts"
    folder.mkdir()
    checked, _, _ = check_target(port("renamed+logger"), folder / "preflight.jsonl", 10)
    assert not checked.ok and stop_named(checked) == "the tool-name check", checked
    found = stdout_hygiene(folder)
    assert found is not None and found.lines_seen == 1, found
    line = found.lines[0]
    assert '"msg": "client connected"' in line.text and line.phase == "the preflight", found
    # The finding names CMP-4: so does the record's row, departing beside the stop, not "not checked".
    assert checked.stray_stdout is not None and '"msg": "client connected"' in checked.stray_stdout, checked
    harness = HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3")
    results = with_preflight_departure(None, checked, TargetIdentity(spec="cmd:x", kind="cmd", command=["x"]),
                                       harness, "2026-01-01T00:00:00Z")
    assert results is not None
    by_record = {tuple(t.contradicted): t for t in results.tests if t.status == "failed"}
    assert set(by_record) == {("CMP-2",), ("CMP-4",)}, results.tests
    assert by_record[("CMP-4",)].message.startswith(NOT_JSON_RPC), by_record


def test_a_server_info_field_that_is_not_a_string_is_quoted_as_json(tmp_path: Path) -> None:
    """levalicious-ts lists serverInfo.icons: report.md's identity table read `icons=[{'src': …}]`, a Python
    repr, where the target's own JSON is what a maintainer can search for."""
    checked, info, _ = check_target(port("icons"), tmp_path / "t.jsonl", 10)
    assert checked.ok, checked.error
    assert info["name"] == "port-icons" and info["version"] == "0.1.0", info
    assert json.loads(info["icons"]) == [{"mimeType": "image/svg+xml", "sizes": ["any"],
                                          "src": "data:image/svg+xml;base64,PHN2Zz4="}], info


def test_a_stops_conclusion_is_kept_whole_within_its_bound(tmp_path: Path) -> None:
    """The nested port refuses in pydantic's long words (its input repeated, a link): the stop's reason is
    over 600 characters, and the terminal line and report.md cut the refusal, not the conclusion."""
    checked, _, _ = check_target(port("nested"), tmp_path / "t.jsonl", 10)
    assert checked.error is not None and len(checked.error) > STOP_CHARS, checked.error
    said = conclusion_kept(checked.error)
    assert len(said) <= STOP_CHARS, said
    assert said.endswith("so nothing else of this server can be checked"), said
    assert said.startswith(f"the server's `{TOOL}` requires data (an object of thought, "), said
    assert "validation error for sequentialthinkingArguments data…”; it takes" in said, said


_CLAUSE = st.text(alphabet=st.sampled_from("ab “”()[]; ,"), max_size=300)


@settings(max_examples=200, deadline=None)
@given(clauses=st.lists(_CLAUSE, min_size=1, max_size=6), limit=st.integers(40, 800))
def test_conclusion_kept_is_bounded_and_keeps_a_short_conclusion(clauses: list[str], limit: int) -> None:
    text = "; ".join(clauses)
    said = conclusion_kept(text, limit)
    assert len(said) <= limit, (said, limit)
    if len(text) <= limit:
        assert said == text
    last = _split_top(text, "; ")[-1]
    if len(text) > limit and len(_split_top(text, "; ")) > 1 and len(last) <= limit // 2:
        assert said.endswith("; " + last), (said, last)


_WORDS = st.lists(st.sampled_from(["line", "tool", "(it offers: x)", "“quoted”", "fields,", "and"]),
                  min_size=1, max_size=40).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(heads=st.lists(_WORDS, min_size=2, max_size=4), last=_WORDS, limit=st.integers(200, 700))
def test_each_stop_before_the_conclusion_keeps_its_lead(heads: list[str], last: str, limit: int) -> None:
    """A stray line's stop joined to a tool-name stop (wild46's xd3an, philogicae): the cut head kept the
    first stop and lost the second ("…'Starting …'; and it…"). Each clause before the conclusion keeps its
    lead (64 characters) when the room holds every lead."""
    clauses = [f"STOP{n} {head}" for n, head in enumerate(heads)]
    text = "; ".join([*clauses, last])
    said = conclusion_kept(text, limit)
    assert len(said) <= limit, (said, limit)
    kept_last = last if len(last) <= limit // 2 else None
    room = limit - len(kept_last) - 2 if kept_last is not None else None
    leads = sum(min(len(clause), 64) for clause in clauses)
    if room is not None and len(text) > limit and room - 2 * (len(clauses) - 1) >= leads:
        assert said.endswith("; " + last), (said, last)
        assert all(f"STOP{n} " in said for n in range(len(clauses))), said


@pytest.mark.parametrize(("mode", "stop"), [
    ("renamed", "the tool-name check"), ("nested", "the argument check"), ("logger", "the stdout check"),
    ("hint", "start-up"),
])
def test_each_stop_is_named_by_the_check_that_made_it(tmp_path: Path, mode: str, stop: str) -> None:
    """The words every table of a stopped run uses: 'not checked (the run stopped at <stop>)'."""
    checked, _, _ = check_target(port(mode), tmp_path / "t.jsonl", 10)
    assert not checked.ok, checked
    assert stop_named(checked) == stop, checked


@pytest.mark.parametrize(("mode", "check", "said"), [
    ("brief", "test_directive_block", "the description has 15 lines, where the original's lines 25-54 hold"),
    ("oneline", "test_assertive_block and not delivered",
     "the description's 1 lines have no “When to use this tool:” and no “Key features:” line"),
])
def test_a_description_shorter_than_the_directive_block_is_said_as_such(
    tmp_path: Path, mode: str, check: str, said: str
) -> None:
    """chinng-py's tool is described in 15 lines (a FastMCP docstring), stopuncle-js' in one: OBJ-12's and
    OBJ-11's checks indexed lines past the end and their departures read "list index out of range", the
    harness's IndexError taken for the server's words. The real check, run by pytest against a port described
    so, fails with the description's length instead."""
    target = f"cmd:{sys.executable} {PORTS} {mode}"
    junit = tmp_path / "junit.xml"
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "conformance/suite/test_tool_spec.py", "-k", check,
         "-q", "-p", "no:cacheprovider", f"--basetemp={tmp_path / 'pt'}", f"--junitxml={junit}",
         "--target", target],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    failures = [case.find("failure") for case in ET.parse(junit).getroot().iter("testcase")]
    messages = [failure.get("message", "") for failure in failures if failure is not None]
    assert len(messages) == 1, ran.stdout[-2000:]
    assert said in messages[0], messages
    assert "list index out of range" not in messages[0], messages


def test_answers_written_out_of_order_are_each_their_calls(tmp_path: Path) -> None:
    """agiprolabs-ts' asynchronous handlers answered call 7 before call 6; compare's long probe wrote its
    calls at once, read the answers in order and said "does not accept the probe's call 6 (no answer:
    response id 8 does not match request id 7)". JSON-RPC matches answers by id: each exchange holds its own
    call's."""
    calls: list[tuple[str, JSON]] = [
        (TOOL, {"thought": f"t{n}", "thoughtNumber": n, "totalThoughts": 4, "nextThoughtNeeded": True})
        for n in (1, 2, 3, 4)]
    with WireDriver([sys.executable, str(PORTS), "unordered"], timeout=20.0) as driver:
        driver.initialize()
        exchanges, failure = driver.call_tools_pipelined(calls)
    assert failure is None, failure
    assert [e.response.get("id") for e in exchanges] == [
        e.request.get("id") if isinstance(e.request, dict) else None for e in exchanges]
    assert [json.loads(e.text or "")["thoughtNumber"] for e in exchanges] == [1, 2, 3, 4]


def _identity_failure(mode: str) -> str:
    """The identity check's failure line on a real process of the port in `mode` (it must fail there)."""
    from conformance.suite.test_identity import test_server_identity_and_capabilities

    with session_on(port(mode), 20.0) as session, pytest.raises(AssertionError) as raised:
        test_server_identity_and_capabilities(session)
    return str(raised.value)


def test_a_server_info_with_more_than_its_version_changed_says_every_change() -> None:
    """levalicious-ts keeps the original's name and adds icons beside its own version: the identity check
    stopped at the version's CMP-3/a1 expectation and `serverInfo.icons` was in no headline (round 13)."""
    said = _identity_failure("icons+named")
    assert said.startswith("serverInfo is not the original's: version: “0.2.0” on the original, “0.1.0” "
                           "here; icons: absent on the original"), said


def test_the_identity_is_compared_before_the_probe_call() -> None:
    """stopuncle-js answers `activeBranches`, not `branches`: the identity checks called the probe first, it
    contradicted OBJ-4, and CMP-3, CMP-3/a1 went under OBJ-4 with the fork's own name and version in no
    headline (round 14). serverInfo is initialize's: it is compared first."""
    said = _identity_failure("tracked")
    assert said.startswith("serverInfo.name is \"port-tracked\""), said


_SPELLED = {
    "kebab": ("kebab-case", "thought, next-thought-needed, thought-number, total-thoughts",
              "Invalid thought-number: must be a number",
              "thought-number, total-thoughts, next-thought-needed",
              '\\"thought-number\\":1'),
    "pascal": ("PascalCase", "Thought, NextThoughtNeeded, ThoughtNumber, TotalThoughts",
               "Invalid Thought: must be a string",
               "Thought, ThoughtNumber, TotalThoughts, NextThoughtNeeded",
               '\\"ThoughtNumber\\":1'),
    "lower": ("lowercase", "thought, nextthoughtneeded, thoughtnumber, totalthoughts",
              "Invalid thoughtnumber: must be a number", "thoughtnumber, totalthoughts, nextthoughtneeded",
              '\\"thoughtnumber\\":1'),
    "upper": ("UPPERCASE", "THOUGHT, NEXTTHOUGHTNEEDED, THOUGHTNUMBER, TOTALTHOUGHTS",
              "Invalid THOUGHT: must be a string", "THOUGHT, THOUGHTNUMBER, TOTALTHOUGHTS, NEXTTHOUGHTNEEDED",
              '\\"THOUGHTNUMBER\\":1'),
}


@pytest.mark.parametrize("mode", sorted(_SPELLED))
def test_a_port_spelling_the_names_otherwise_is_stopped_then_checked_through_its_spelling(
        tmp_path: Path, mode: str) -> None:
    """A kebab-case, PascalCase, lower or UPPER case port: the stop names both sides' fields and the
    spelling one call confirmed (only snake_case was looked for, so these were told to write a mapping file,
    which could not even hold `thought-number`); through `--arguments-map <spelling>` the original's call is
    accepted, every frame respelled."""
    spelling, required, refusal, shown, frame = _SPELLED[mode]
    checked, _, _ = check_target(port(mode), tmp_path / "stop.jsonl", 10)
    assert not checked.ok and checked.error is not None, checked
    assert checked.error.startswith(
        f"the server's `{TOOL}` requires {required}; the original's call (thought, thoughtNumber, "
        f"totalThoughts, nextThoughtNeeded) is refused: “"), checked.error
    assert refusal in checked.error, checked.error
    assert checked.error.endswith(
        f"; spelled {spelling} ({shown} and 5 more) it is accepted (one call confirmed it): rerun with "
        f"--arguments-map {spelling} to check everything else"), checked.error
    assert checked.arguments is not None and checked.arguments.spelling == {
        k: v for k, v in renames_of(spelling).items() if k in ARGUMENT_NAMES}, checked.arguments
    mapped, _, _ = check_target(port(mode, renames_of(spelling)), tmp_path / "mapped.jsonl", 10,
                                mapped_from=spelling)
    assert mapped.ok, mapped.error
    assert mapped.arguments is not None and mapped.arguments.accepted is True, mapped.arguments
    assert mapped.arguments.arguments_map_from == spelling, mapped.arguments
    sent = (tmp_path / "mapped.jsonl").read_text(encoding="utf-8")
    assert frame in sent and '\\"thoughtNumber\\"' not in sent, "the frame as written"


def test_a_kebab_case_mapping_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "map.json"
    path.write_text('{"arguments": {"thoughtNumber": "thought-number"}}', encoding="utf-8")
    assert load(path) == {"thoughtNumber": "thought-number"}


@pytest.mark.parametrize("mode", ["kebab", "snake"])
def test_a_mapped_ports_own_names_are_not_extra_arguments(mode: str) -> None:
    """Under --arguments-map the port's schema lists the original's nine names in its spelling: the checks of
    extra declared properties sent them beside the call as if a fork had added them (`branch-from-thought:
    101` drew a branch), so the mapped port departed for arguments the original has too."""
    from conformance.suite.test_absences import _declared_extras

    spelling = {"kebab": "kebab-case", "snake": SNAKE_CASE}[mode]
    target = port(mode, renames_of(spelling))
    with session_on(target, 20.0) as session:
        assert dict(_declared_extras(session)) == {}, list(_declared_extras(session))


def test_a_port_printing_its_import_error_to_stdout_and_exiting_is_said_to_have_exited(
    tmp_path: Path,
) -> None:
    """A port whose `except ImportError` print()s the message to stdout and exits 1 (a FastMCP port missing a
    package it never declared): the stop said only that stdout carried a line that is not JSON, as if the
    server ran on, and no start-up hint read the line. It now says the server exited, and the hint says
    what is missing."""
    checked, _, _ = check_target(port("died"), tmp_path / "t.jsonl", 10)
    assert not checked.ok and checked.error is not None, checked
    assert checked.error.startswith(NOT_JSON_RPC), checked.error
    assert "No module named 'toolkit_mcp'" in checked.error, checked.error
    assert checked.error.endswith("; and it exited with status 1 before answering initialize"), checked.error
    explained = preflight(port("died"), tmp_path, 10, None).preflight
    assert explained.known_case == "missing module", explained
    assert explained.hint is not None and "toolkit_mcp is not installed" in explained.hint, explained.hint
    harness = HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3")
    results = with_preflight_departure(None, checked, TargetIdentity(spec="cmd:x", kind="cmd", command=["x"]),
                                       harness, "2026-01-01T00:00:00Z")
    assert results is not None and [t.contradicted for t in results.tests] == [["CMP-4"]], results


def test_compares_stray_line_stop_says_the_server_exited_too() -> None:
    """compare's stop for the same port: the stray line, the exit, and the hint read from the line."""
    with pytest.raises(UnusableTarget) as stopped:
        _fresh(port("died"), 10, None)
    said = str(stopped.value)
    assert f"is not usable: {NOT_JSON_RPC}" in said, said
    assert "; and it exited with status 1 before answering initialize; hint (missing module): " in said, said


def test_a_stray_line_of_a_server_that_runs_on_says_no_exit(tmp_path: Path) -> None:
    """The exit clause is said only of a server that ended: a start line before a usable handshake is not."""
    checked, _, _ = check_target(port("started"), tmp_path / "t.jsonl", 10)
    assert checked.error is not None and "exited" not in checked.error, checked.error
    explained = preflight(port("started"), tmp_path, 10, None).preflight
    assert explained.known_case is None, explained


def test_a_name_the_installed_package_lacks_is_a_dependency_version_not_a_traceback() -> None:
    """deep-thinking's `from mcp.server import FastMCP` under mcp 2.x: CPython's ImportError for a name was
    said as "the server's Python code raised an exception", with nothing about the dependency's version."""
    ran = subprocess.run([sys.executable, str(PORTS), "importname"], capture_output=True, text=True,
                         check=False)
    failure = diagnose("server exited with status 1", ran.stderr)
    assert failure.case == "dependency version", failure
    said = failure.hint or ""
    assert said.startswith("toolkit.server is installed but has no Toolkit"), said


@given(st.integers(min_value=1, max_value=40), st.integers(min_value=0, max_value=40))
def test_a_look_alikes_fields_are_cut_with_a_count(extra: int, needed: int) -> None:
    """A port's look-alike tool with many fields (mcp-sequential-thinking 0.7.0's process_thought has 12):
    past the clause's first names, "and N more" says how many it leaves out, for its fields and for those it
    requires, where ", …" (fields) and nothing at all (required) were said before."""
    from conformance.compare.arguments import _FIELDS, lookalike

    names = ["thought", *(f"field_{i}" for i in range(extra))]
    required = names[: min(needed, len(names))]
    schema = {"type": "object", "properties": {n: {"type": "string"} for n in names}, "required": required}
    clause = lookalike({"tools": [{"name": "process_thought", "inputSchema": schema}]})
    takes = clause.split(" takes ")[1].split(", where the original")[0]
    fields, _, needs = takes.partition(" (requiring ")
    for said, listed in ((fields, names), (needs.rstrip(")"), required)):
        shown, _, left = said.partition(", and ")
        count = int(left.split(" ")[0]) if left else 0
        assert shown.split(", ") == listed[:_FIELDS] if listed else said == "", clause
        assert count == max(len(listed) - _FIELDS, 0), clause


def test_the_originals_fields_under_another_tool_name_are_said_at_once(tmp_path: Path) -> None:
    """xd3an-py lists the original's tool and schema as `sequential_thinking`: its stop said the nine fields
    on its side and the four on the original's to mean that only the name differs. Now it says so; a
    look-alike with one field more or one required less is still said field by field."""
    checked, _, _ = check_target(port("renamed+alias"), tmp_path / "t.jsonl", 10)
    assert not checked.ok and checked.error is not None, checked
    said = checked.error.split("; its ", 1)[1]
    assert said.startswith("sequential_thinking takes exactly the original's fields"), said
    assert said.endswith(f"only its name differs from the original's {TOOL}"), said
    assert "isRevision" not in said, said
    from conformance.compare.arguments import lookalike

    fields: dict[str, JSON] = {n: {} for n in ARGUMENT_NAMES}
    schema = {"type": "object", "properties": fields, "required": list(PROBE_ARGUMENTS)}
    for changed in ({**schema, "properties": {**fields, "stage": {}}},
                    {**schema, "required": list(PROBE_ARGUMENTS)[:3]}):
        clause = lookalike({"tools": [{"name": "sequential_thinking", "inputSchema": changed}]})
        assert "exactly" not in clause and "isRevision" in clause, clause
