"""No false root-cause sentence (issue 42): a record's statement is quoted ("Why this record") only for the
very difference its own check failed on; the banner outside the box is never a box record's difference; a
departure no replay of requests can show is "not replayed", never "not reproduced"; the unknown-tool refusal
in other words is a change of its own, not a crash.

Real processes where a replay is involved: the original (npm:0.6.2, installed into the harness cache) against
a fork of held-out-multi-4 patched from it (tests/modified_servers/), and the counting servers of
tests/servers/."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.catalog.view import load_catalog_view
from conformance.core.differences import STDERR_BOX, STDERR_OUTSIDE, stderr_part, text_difference
from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.core.jsontypes import JSON
from conformance.core.results import RunResults
from conformance.gate.assemble import TargetSeen, assemble_report
from conformance.gate.evidence import (
    _about,
    _compared,
    _crash,
    _difference_key,
    _opening_frames,
    _replay_both,
    _tells,
    breaks,
    its_failure,
    original_target,
    with_evidence,
)
from conformance.report.evidence_parts import evidence_md
from conformance.report.model import Evidence, Preflight, RecordVerdict, Report, RootCause, RunInfo, TestRef
from conformance.suite.test_lifecycle import _status_answer
from conformance.targets.kinds.npm import installed_release
from conformance.targets.specs import Target, default_cache_dir
from tests.modified_servers.servers import load_modifications, materialize, target_spec
from tests.servers import command

CATALOG = load_catalog_view()
STATEMENTS = {r.id: r.statement for r in CATALOG.records}
HARNESS = HarnessIdentity(version="0", git_commit=None, profile="dev", seed="1", python="3.11")

# Both answers' stderr as npm:0.6.2 and a fork with French box labels draw them (the box lines verbatim).
BOX_ORIGINAL = ("\n┌─────────────────┐\n│ 💭 Thought 1/1 │\n├─────────────────┤\n│ probe           │\n"
                "└─────────────────┘\n")
BOX_FORK = BOX_ORIGINAL.replace("Thought", "Pensée")
BANNER = ("“Sequential Thinking MCP Server running on stdio ⏎ ” on the original, “Serveur MCP Sequential "
          "Thinking à l'écoute sur stdio ⏎ ” here")


def _record(rid: str, message: str, contradicted: list[str] | None = None) -> RecordVerdict:
    test = TestRef(nodeid=f"conformance/suite/test_x.py::test_{rid}", status="failed", examples=1,
                   message=message, contradicted=contradicted or [])
    return RecordVerdict(id=rid, kind="obj", aliases=[], anchors=[], statement=STATEMENTS[rid],
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", tests=[test])


@given(st.lists(st.from_regex(r"[A-Za-z]{3,9}", fullmatch=True), min_size=1, max_size=12),
       st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=6))
def test_a_statement_sharing_no_word_with_the_difference_is_never_quoted(words: list[str],
                                                                         numbers: list[int]) -> None:
    """Numbers alone share nothing ("0 to go" is not the "0" of "0.2.0"); no clause shared, nothing quoted
    (it was the whole statement)."""
    statement = " ".join(words) + "."
    differences = [f"{n}: {n} on the original, {n + 1} here" for n in numbers]
    assert breaks(statement, differences) == ""


def test_a_box_difference_does_not_quote_the_advertised_version() -> None:
    """fork-progress-meter: CMP-3/a1's own pair differed in the box and the answer's text; its statement
    ("advertises version 0.2.0") was quoted as what they break."""
    box = "stderr: " + text_difference(BOX_ORIGINAL, BOX_ORIGINAL.replace("1/1 │", "1/1 (100%) │"))
    content = ('result.content: [{"text": "{ \\"thoughtNumber\\": 1 }"}] on the original, '
               '[{"text": "Thought 1 of 1 recorded; 0 to go."}] here')
    assert breaks(STATEMENTS["CMP-3/a1"], [box, content]) == ""
    version = 'result.serverInfo.version: "0.2.0" on the original, "1.4.0" here'
    assert "advertises version" in breaks(STATEMENTS["CMP-3/a1"], [version])


def test_a_key_count_is_broken_only_by_a_key_added_or_dropped() -> None:
    """OBJ-4's "exactly five fields": not by a value inside `branches` (fork-team-board), nor by a refusal
    (fork-hardened-inputs); by a sixth key, yes."""
    inside = ('result.content[0].text → branches[0]: "zeta" on the original, {"id": "zeta", "thoughts": 1} '
              'here')
    refused = ("the original accepts this call and this server refuses it, naming `thoughtNumber` — “Invalid "
               "thoughtNumber: 4 skips ahead of 1 recorded thoughts” (isError)")
    added = 'result.content[0].text → status: absent on the original, "recorded" here'
    assert breaks(STATEMENTS["OBJ-4"], [inside]) == ""
    assert breaks(STATEMENTS["OBJ-4"], [refused]) == ""
    assert "exactly five fields" in breaks(STATEMENTS["OBJ-4"], [added])


@given(prefix=st.sampled_from(["current", "last", "active", "parent"]),
       word=st.sampled_from(["Branch", "Thought", "History", "Label"]),
       value=st.from_regex(r"[a-z0-9-]{1,12}", fullmatch=True), dropped=st.booleans())
def test_a_key_added_or_dropped_breaks_a_clause_only_by_its_whole_name(prefix: str, word: str, value: str,
                                                                       dropped: bool) -> None:
    """fork-branch-workflow: a new `currentBranch` key was said to contradict CLM-3's "The doctrine says
    reasoning can branch into alternative paths", sharing only "branch". A key present on one side is said by
    its name: a clause naming it whole is broken (and a clause counting the object's keys), one sharing a
    word of it or of its value is not."""
    key = f"{prefix}{word}"
    shown = f'"{value}"'
    said = (f"{shown} on the original, absent here" if dropped else f"absent on the original, {shown} here")
    difference = f"result.content[0].text → {key}: {said}"
    doctrine = f"The doctrine says reasoning can {word.lower()} into {value} paths. Nothing else is kept"
    assert breaks(doctrine, [difference]) == ""
    assert breaks(f"{doctrine}; the answer names {key} when asked", [difference]) == (
        f"the answer names {key} when asked")
    assert "exactly five fields" in breaks(STATEMENTS["OBJ-4"], [difference])


def test_the_explainers_own_words_share_nothing_with_a_statement() -> None:
    """fork-hardened-inputs: RTE-8/a1's "… return isError with the store already changed" was quoted for a
    refusal of another rule, through the explainer's "(isError)"."""
    other = ("both refuse this call, in other words: “Cannot convert object to primitive value” on the "
             "original, “Invalid thoughtNumber: 31 skips ahead of 1 recorded thoughts” here")
    assert breaks(STATEMENTS["RTE-8/a1"], [other]) == ""


def test_a_check_putting_its_failure_on_another_record_quotes_no_statement_of_its_own() -> None:
    """The status object's check saw the call refused and said RTE-3 is contradicted: the pair is its
    failure (its line), but OBJ-4's statement is not what the refusal breaks."""
    refused = ("the original accepts this call and this server refuses it, naming `thoughtNumber` — “Invalid "
               "thoughtNumber: 2147483648 skips ahead of 0 recorded thoughts” (isError)")
    message = ('RTE-3 contradicted: call was refused as invalid: isError { "error": "Invalid thoughtNumber: '
               '2147483648 skips ahead of 2214 recorded thoughts", "status": "failed" }')
    pair = Evidence(reproduced=True, at="on the example's tools/call 1", differences=[refused],
                    breaks=breaks(STATEMENTS["OBJ-4"], [refused]))
    out = its_failure(_record("OBJ-4", message, ["RTE-3"]), pair)
    assert out.differences == [refused] and not out.not_its_failure
    assert out.breaks == ""
    # The same failure on the record it names keeps the quote: its own statement is what it breaks.
    own = its_failure(_record("RTE-3", message, ["RTE-3"]), pair)
    assert own.breaks and own.breaks in STATEMENTS["RTE-3"]


def test_the_banner_is_its_own_key_and_tells_no_box_check() -> None:
    box = "stderr: " + text_difference(BOX_ORIGINAL, BOX_FORK)
    banner = f"stderr: {BANNER}"
    assert stderr_part(box) == STDERR_BOX and _difference_key(box) == STDERR_BOX
    assert stderr_part(banner) == STDERR_OUTSIDE and _difference_key(banner) == STDERR_OUTSIDE
    header = ("the box's header reads no n/m for thoughtNumber 9 and totalThoughts 5, where the original "
              "draws 9/9: \"💭 Pensée 9/9\"")
    assert _tells(box, header) and not _tells(banner, header)
    said = "stderr reads “Serveur MCP …” before any request, where the original writes the banner"
    assert _tells(banner, said) and not _tells(box, said)
    # A JSON parser's "line 1 column 1" is no box.
    assert not _tells(box, "tools/call text is not JSON: Expecting value: line 1 column 1 (char 0)")


def test_the_unknown_tool_refusal_in_other_words_is_no_crash() -> None:
    french = ("both refuse this call, in other words: “Unknown tool: SequentialThinking” on the original, "
              "“Outil inconnu : SequentialThinking” here")
    crash = ("both refuse this call, in other words: “Cannot read properties of undefined (reading "
             "'thought')” on the original, “TypeError: Cannot read properties of undefined (reading "
             "'thought')” here")
    assert not _crash(french) and _difference_key(french) == "re-worded name"
    assert _crash(crash)


@pytest.fixture(scope="module")
def french(tmp_path_factory: pytest.TempPathFactory) -> tuple[Target, Target]:
    if installed_release("0.6.2", default_cache_dir()) is None:
        pytest.skip("npm:0.6.2 is not in the harness cache (python -m conformance install npm:0.6.2)")
    mod = next(m for m in load_modifications() if m.id == "fork-french-messages")
    script = materialize(mod, tmp_path_factory.mktemp("french") / "server")
    spec = target_spec(script)
    argv = tuple(spec.removeprefix("cmd:").split(" "))
    fork = Target(spec, argv, TargetIdentity(spec=spec, kind="cmd", command=list(argv)))
    return original_target(default_cache_dir()), fork


def test_a_box_record_is_shown_the_box_not_the_banner(french: tuple[Target, Target]) -> None:
    """fork-french-messages rewords the banner and the box's labels: RTE-4 (a box header's n/m) was shown
    the banner at initialize, and put under RTE-10's cause; its own difference is the box's."""
    original, fork = french
    theirs, ours = _replay_both(original, fork, _opening_frames(), timeout=30)
    assert isinstance(theirs, list) and isinstance(ours, list)
    box = _compared(theirs, ours, _about(["RTE-4"]))
    assert box is not None and box[0] > 1, "not at initialize"
    assert _difference_key(box[1][0]) == STDERR_BOX and "Pensée" in box[1][0]
    banner = _compared(theirs, ours, _about(["RTE-10"]))
    assert banner is not None and banner[0] == 1
    assert _difference_key(banner[1][0]) == STDERR_OUTSIDE and "Serveur" in banner[1][0]


def _report(message: str) -> Report:
    target = TargetIdentity(spec="cmd:fork", kind="cmd", command=["fork"])
    results = RunResults(target=target, harness=HARNESS, started="t0", finished="t1", tests=[])
    report = assemble_report(
        catalog=CATALOG.records, canonical=CATALOG.canonical, results=results,
        seen=TargetSeen(target, Preflight(ok=True), {}, "2024-11-05"), harness=HARNESS,
        run=RunInfo(started="t0", finished="t1", duration_s=1.0, jobs=1, processes_started=1, calls_made=1,
                    tests=0, rerun="python -m conformance run"),
        generated="t1",
    )
    test = TestRef(nodeid="conformance/suite/test_lifecycle.py::test_signals", status="failed", examples=1,
                   message=message)
    records = [rv.model_copy(update={"verdict": "deviates", "reason": message, "tests": [test]})
               if rv.id == "RTE-10" else rv for rv in report.records]
    cause = RootCause(id="RTE-10", records=["RTE-10"], explains=[], summary=f"RTE-10 departs — {message}")
    return report.model_copy(update={"records": records, "root_causes": [cause]})


def _counting(offset: int, spec: str) -> Target:
    argv = command("counting", str(offset))
    return Target(spec, tuple(argv), TargetIdentity(spec=spec, kind="cmd", command=argv))


@pytest.mark.parametrize(("message", "said"), [
    ("SIGTERM sent: exit status 0, where the original is ended by the signal (-15)",
     "not replayed: its check sends SIGTERM to the process"),
    ("after stdin ended, the process wrote “” to stdout and “Client disconnected ⏎ ” to stderr, where the "
     "original writes nothing more", "not replayed: its check ends the process's stdin"),
    ("the answer to a repeated initialize differs: 3 where the original answers 0",
     "kept no call sequence to replay"),
    # held-out-multi-11's toolkit port never exits: RTE-10's opening check's words ("not reproduced … needs
    # state the shared process built up, or timing" was FALSE: no process of it exits)
    ("stdin ended before any initialize: the process was still running 5 s later (it did not exit), where "
     "the original ends with status 0 however far the session got",
     "not replayed: its check ends the process's stdin"),
])
def test_a_departure_no_replay_can_show_is_not_replayed_not_unreproduced(message: str, said: str) -> None:
    """fork-disk-journal's RTE-10: its check signals the process; the replay (requests only) never does, so
    "not reproduced … needs state … or timing" was false. A check that kept no sequence: the opening calls
    showing nothing is no finding either."""
    out = with_evidence(_report(message), _counting(1, "cmd:fork"), _counting(0, "npm:0.6.2"), timeout=20)
    evidence = out.root_causes[0].evidence
    assert evidence is not None and not evidence.reproduced and evidence.own_failure
    assert said in evidence.why and "needs state" not in evidence.why
    assert out.root_causes[0].summary.endswith(message)
    record = next(rv for rv in out.records if rv.id == "RTE-10").evidence
    assert record is not None and "needs state" not in record.why
    assert json.loads(out.model_dump_json())["root_causes"][0]["evidence"]["own_failure"] is True



def test_a_pair_not_its_checks_failure_is_not_said_to_be_another_change() -> None:
    """OBJ-3 (fork-team-board), ABS-1 (fork-disk-journal): their pairs were their own change, said to be
    "another change of this server" because their checks worded the failure otherwise."""
    pair = Evidence(reproduced=True, at="on the example's tools/call 1", not_its_failure=True,
                    differences=['result.content[0].text → branches: 0 item(s) on the original, 1 here'])
    said = "\n".join(evidence_md(pair, 0))
    assert "Its example differs elsewhere" in said and "may be another change" in said
    assert "another change of this server shows first" not in said


def test_a_box_or_banner_difference_quotes_only_a_clause_about_the_box_or_the_banner() -> None:
    """fork-french-messages: the relabelled box quoted RTE-6's "A thought is filed under its branchId …"
    (through "Thought" in the box's header), the banner LOOP-A's "… one stdio pipe …"."""
    box = "stderr: " + text_difference(BOX_ORIGINAL, BOX_FORK)
    assert breaks(STATEMENTS["RTE-6"], [box]) == ""
    assert breaks(STATEMENTS["RTE-4"], [box]) == ""
    assert "box" in breaks(STATEMENTS["CMP-5"], [box])
    banner = f"stderr: {BANNER}"
    assert "banner" in breaks(STATEMENTS["RTE-10"], [banner])
    assert breaks(STATEMENTS["CMP-5"], [banner]) == ""


def test_an_accepted_call_with_a_summary_block_first_counts_as_accepted(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """fork-progress-meter puts "Thought 1 of 3 recorded; 2 to go." before the status JSON: LOOP-A's check
    counted its calls as refused and said "stderr holds 4 boxes after 0 accepted calls" (FALSE)."""
    if installed_release("0.6.2", default_cache_dir()) is None:
        pytest.skip("npm:0.6.2 is not in the harness cache (python -m conformance install npm:0.6.2)")
    mod = next(m for m in load_modifications() if m.id == "fork-progress-meter")
    spec = target_spec(materialize(mod, tmp_path_factory.mktemp("meter") / "server"))
    argv = tuple(spec.removeprefix("cmd:").split(" "))
    fork = Target(spec, argv, TargetIdentity(spec=spec, kind="cmd", command=list(argv)))
    theirs, ours = _replay_both(original_target(default_cache_dir()), fork, _opening_frames(), timeout=30)
    assert isinstance(theirs, list) and isinstance(ours, list)
    calls = [(json.loads(a.response), json.loads(b.response)) for a, b in zip(theirs, ours, strict=False)
             if a.method == "tools/call"]
    assert calls
    for original, here in calls:
        blocks = here["result"]["content"]
        assert len(blocks) == 2 and "recorded" in blocks[0]["text"], blocks  # the fork's change, really there
        assert _status_answer(original["result"]) and _status_answer(here["result"])
    refused: JSON = {"isError": True, "content": [{"type": "text", "text": '{"thoughtNumber": 1}'}]}
    assert not _status_answer(refused)
