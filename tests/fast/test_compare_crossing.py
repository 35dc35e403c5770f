"""compare --cross: where a difference lies, read from what A's package on B's tree answered."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.crossing import NEEDS_NPM, classify_origin, origin_sentence, tree_changes
from conformance.core.identity import TargetIdentity
from conformance.gate import exit_status
from conformance.report.model import Crossing, Difference
from tests.cli import cli_here

versions = st.from_regex(r"[0-9]\.[0-9]{1,2}\.[0-9]", fullmatch=True)
trees = st.dictionaries(st.sampled_from(["zod", "@modelcontextprotocol/sdk", "chalk", "yargs"]), versions)
origins = st.sampled_from(["code", "dependencies", "unclear"])


@given(st.booleans(), st.booleans())
def test_answering_as_one_side_names_that_sides_part(shown_a_x: bool, shown_x_b: bool) -> None:
    """The crossed target has A's code and B's tree: differing from A alone is B's tree showing, differing
    from B alone is A's code showing; both or neither decides nothing."""
    origin = classify_origin(shown_a_x, shown_x_b)
    if shown_a_x == shown_x_b:
        assert origin == "unclear"
    else:
        assert origin == ("dependencies" if shown_a_x else "code")


@given(trees, trees)
def test_tree_changes_name_every_differing_version_and_no_other(a: dict[str, str], b: dict[str, str]) -> None:
    changes = tree_changes(a, b)
    named = {line.split(" ", 1)[0] for line in changes}
    assert named == {n for n in set(a) | set(b) if a.get(n) != b.get(n)}
    for line in changes:
        name, rest = line.split(" ", 1)
        assert rest == f"{a.get(name, 'none')} → {b.get(name, 'none')}"


def _crossing(changes: list[str]) -> Crossing:
    identity = TargetIdentity(spec="npm:2025.12.18 on the tree of npm:2026.7.4", kind="npm", command=["node"])
    return Crossing(label="2025.12.18 on 2026.7.4's tree", identity=identity, changes=changes,
                    crossed_changes=changes)


def _difference(index: int, origin: str) -> Difference:
    return Difference.model_validate({"id": f"answer.d{index}", "aspect": "answer", "summary": "s",
                                      "origin": origin})


@given(st.lists(st.sampled_from(["", "code", "dependencies", "unclear"]), max_size=8),
       st.lists(st.sampled_from(["zod 4.2.1 → 4.4.3", "@modelcontextprotocol/sdk 1.24.0 → 1.26.0"]),
                unique=True))
def test_a_causes_sentence_counts_what_was_observed(said: list[str], changes: list[str]) -> None:
    members = [_difference(i, o) for i, o in enumerate(said)]
    sentence = origin_sentence(members, _crossing(changes), "2025.12.18", "2026.7.4")
    crossed = [o for o in said if o]
    if not crossed:
        assert sentence == ""
        return
    for change in changes:
        assert change in sentence
    if not changes:
        assert sentence.startswith("No evidence from the crossing") and "automatic" in sentence
        return
    if set(crossed) == {"dependencies"}:
        assert sentence.startswith("From the dependencies") and "answers as 2026.7.4" in sentence
    elif set(crossed) == {"code"}:
        assert sentence.startswith("From the server's code") and "answers as 2025.12.18" in sentence
    else:
        assert sentence.startswith("Mixed or unclear")
        unclear = crossed.count("unclear")
        neither = f", and like neither (or they did not show again) on {unclear}" if unclear else ""
        assert (f"answers as 2026.7.4 on {crossed.count('dependencies')} and as 2025.12.18 on "
                f"{crossed.count('code')}{neither}.") in sentence


def test_a_swap_that_moves_no_dependency_is_said_to_be_no_evidence() -> None:
    """2025.7.1 pins SDK 0.5.0: on 2025.11.25's tree it resolves to its own versions, so answering as
    2025.7.1 there is automatic (issue 47), never "from the server's code"."""
    identity = TargetIdentity(spec="npm:2025.7.1 on the tree of npm:2025.11.25", kind="npm", command=["node"])
    apart = ["@modelcontextprotocol/sdk 0.5.0 → 1.25.1", "zod 3.25.76 → 4.2.1"]
    pinned = Crossing(label="2025.7.1 on 2025.11.25's tree", identity=identity, changes=apart,
                      crossed_changes=[])
    sentence = origin_sentence([_difference(0, "code")], pinned, "2025.7.1", "2025.11.25")
    assert sentence.startswith("No evidence") and "From the server's code" not in sentence
    assert all(change in sentence for change in apart)
    partly = pinned.model_copy(update={"crossed_changes": ["zod 3.25.76 → 4.2.1"]})
    sentence = origin_sentence([_difference(0, "code")], partly, "2025.7.1", "2025.11.25")
    assert sentence.startswith("From the server's code")
    assert "@modelcontextprotocol/sdk 0.5.0 → 1.25.1 did not move" in sentence


@given(st.sampled_from(["reference", "cmd:node dist/index.js", "npm:0.6.2"]),
       st.sampled_from(["reference", "cmd:python server.py"]))
def test_cross_on_a_target_that_is_not_npm_is_refused_before_anything_starts(a: str, b: str) -> None:
    ran = cli_here("compare", a, b, "--cross", "--out", "/nonexistent/never-written")
    assert ran.code == exit_status.USAGE, ran.stderr
    assert ran.stderr.strip() == f"seqthink-conformance: error: {NEEDS_NPM}"
    assert not Path("/nonexistent/never-written").exists()


def _refusal(field: str, value: str, origin: str) -> Difference:
    frame = ('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sequentialthinking",'
             f'"arguments":{{"thought":"a","thoughtNumber":1,"totalThoughts":1,"nextThoughtNeeded":false,'
             f'"{field}":{value}}}}}}}')
    return Difference.model_validate({
        "id": f"is_error.{field}.{value}", "aspect": "is_error", "summary": f"{field} refused",
        "records": ["RTE-3"], "cause": "validation", "program": [frame], "field": field,
        "detail": "refused by b", "value_class": "numeric string", "origin": origin, "a": "ok",
        "b": "refused"})


def test_a_cause_the_crossing_places_apart_is_one_cause_per_origin() -> None:
    """Issue 47: coercion split in the code and in the dependencies is two causes, each with its sentence."""
    from conformance.compare import explain_again

    members = [_refusal("isRevision", '"true"', "code"), _refusal("thoughtNumber", '"1"', "dependencies"),
               _refusal("totalThoughts", '"1"', "dependencies")]
    zod = ["zod 4.2.1 → 4.4.3"]
    crossing = _crossing(zod)
    causes = explain_again(members, "npm:2025.12.18", "npm:2026.7.4", crossing)
    assert len(causes) == 2
    assert [len(c.differences) for c in causes] == [2, 1]
    assert causes[0].origin.startswith("From the dependencies")
    assert causes[1].origin.startswith("From the server's code")
    whole = explain_again([members[1], members[2]], "npm:2025.12.18", "npm:2026.7.4", crossing)
    assert [c.id for c in whole] == ["validation"]


def test_a_causes_example_sends_the_field_it_names() -> None:
    """The example is a call carrying the field the headline speaks of, never a call with no arguments."""
    from conformance.compare import explain_again

    bare = _refusal("arguments", "1", "").model_copy(update={
        "program": ['{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sequentialthinking"}}'],
        "aspect": "answer", "detail": "error text", "field": "arguments"})
    named = _refusal("thought", '""', "")
    cause = explain_again([bare, named], "npm:2025.7.1", "npm:2025.11.25")[0]
    assert '"thought":""' in cause.example[-1]


def test_one_dependency_at_a_time_names_the_package_and_a_change_that_needs_both() -> None:
    """Issue 47: 2025.12.18 on 2026.7.4's tree keeps `required` (answers as 2025.12.18: "code"), yet
    2026.7.4 with zod 4.2.1 keeps it too: the drop needs 2026.7.4's code with zod 4.4.3."""
    from conformance.compare import explain_again
    from conformance.report.model import DependencySwap

    zod, sdk = "zod 4.2.1 → 4.4.3", "@modelcontextprotocol/sdk 1.25.1 → 1.29.0"
    swaps = [DependencySwap(change=zod, code="a", answers_as="a"),
             DependencySwap(change=zod, code="b", answers_as="a"),
             DependencySwap(change=sdk, code="a", answers_as="a"),
             DependencySwap(change=sdk, code="b", answers_as="unusable")]
    required = _schema_listing("inputSchema").model_copy(update={"origin": "code", "swaps": swaps})
    plain = [DependencySwap(change=c, code=side, answers_as="a" if side == "a" else "b")
             for c in (zod, sdk) for side in ("a", "b")]
    annotations = _schema_listing("annotations").model_copy(update={"origin": "code", "swaps": plain})
    causes = explain_again([required, annotations], "npm:2025.12.18", "npm:2026.7.4", _crossing([zod, sdk]))
    assert len(causes) == 2, [c.id for c in causes]
    said = {c.differences[0]: c.origin for c in causes}
    assert f"{zod} alone: 2025.12.18 with zod 4.4.3 answers as 2026.7.4 on 0 of 1; 2026.7.4 with zod 4.2.1 " \
           "answers as 2025.12.18 on 1 of 1" in said[required.id]
    unusable = "2026.7.4 with @modelcontextprotocol/sdk 1.25.1 could not be installed or driven"
    assert unusable in said[required.id]
    assert "needs 2026.7.4's code together with zod 4.4.3" in said[required.id]
    assert "Needs both" not in said[annotations.id]


def _schema_listing(field: str) -> Difference:
    return Difference.model_validate({
        "id": f"tools_list.{field}.changed", "aspect": "tools_list", "summary": f"{field} differs",
        "records": ["RTE-1"], "cause": "tool-spec", "field": field, "detail": "changed",
        "program": ['{"jsonrpc":"2.0","id":2,"method":"tools/list"}'], "a": "{}", "b": '{"x": 1}'})


def test_a_swap_that_changes_part_of_a_difference_is_said_like_neither() -> None:
    """2026.8.31's inputSchema difference bundles zod 4.5.4's `required` with the code's type changes: the
    zod swap answers like neither side, never "moves none"."""
    from conformance.compare.crossing import swap_sentence
    from conformance.report.model import DependencySwap

    zod = "zod 4.4.3 → 4.5.4"
    swaps = [DependencySwap(change=zod, code="a", answers_as="neither"),
             DependencySwap(change=zod, code="b", answers_as="neither")]
    said = swap_sentence([_schema_listing("inputSchema").model_copy(update={"swaps": swaps})],
                         "2026.7.4", "2026.8.31")
    assert "2026.7.4 with zod 4.5.4 answers as 2026.8.31 on 0 and like neither on 1 of 1" in said
    assert "moves none" not in said and "Like neither" in said
