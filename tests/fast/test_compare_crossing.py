"""compare --cross: where a difference lies, read from what A's package on B's tree answered."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.crossing import NEEDS_NPM, classify_origin, origin_sentence, tree_changes
from conformance.core.identity import TargetIdentity
from conformance.core.jsontypes import JSON
from conformance.gate import exit_status
from conformance.report.model import Crossing, DependencySwap, Difference
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
    unusable = "2026.7.4 with @modelcontextprotocol/sdk 1.25.1 could not be installed or serve a valid call"
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


def _wording(field: str, origin: str, swaps: list[DependencySwap] | None = None) -> Difference:
    return _refusal(field, "1", origin).model_copy(update={
        "id": f"answer.{field}.error-text", "aspect": "answer", "detail": "error text", "cause": "validation",
        "a": '[{"code":"invalid_type"}]', "b": '[{"code":"too_small"}]', "swaps": swaps or []})


def test_one_code_edit_is_one_cause_across_the_rules_that_filed_it() -> None:
    """Issue 47: 2026.7.4's code coerces strings and so rewords the refusals of the same fields: the
    accepted strings (rule `coercion`) and the reworded refusals (rule `validation`), both placed in the code
    alone, are one cause; a wording moved by a zod swap stays its own (its own dependency change)."""
    from conformance.compare import explain_again
    from conformance.report.model import DependencySwap

    zod = "zod 4.2.1 → 4.4.3"
    coerced = [_refusal(f, '"1"', "code").model_copy(update={"cause": "coercion"})
               for f in ("thoughtNumber", "totalThoughts")]
    reworded = [_wording("thoughtNumber", "code"), _wording("revisesThought", "code")]
    by_zod = _wording("totalThoughts", "dependencies", [DependencySwap(change=zod, code="a", answers_as="b"),
                                                        DependencySwap(change=zod, code="b", answers_as="a")])
    causes = explain_again([*coerced, *reworded, by_zod], "npm:2025.12.18", "npm:2026.7.4", _crossing([zod]))
    assert [len(c.differences) for c in causes] == [4, 1], [(c.id, c.differences) for c in causes]
    assert set(causes[0].differences) == {d.id for d in [*coerced, *reworded]}
    assert causes[0].origin.startswith("From the server's code")
    assert causes[1].differences == [by_zod.id] and "zod 4.2.1 → 4.4.3 alone" in causes[1].origin


def test_causes_placed_without_evidence_are_never_joined() -> None:
    """Where the crossing is no evidence (2025.7.1 pins SDK 0.5.0) or answers like neither, nothing names
    one edit: the releases' separate wording changes stay separate causes (the rule reverted last round
    joined them)."""
    from conformance.compare import explain_again

    coerced = _refusal("thoughtNumber", '"1"', "code").model_copy(update={"cause": "coercion"})
    reworded = _wording("thoughtNumber", "code")
    unmoved = Crossing(label="2025.7.1 on 2025.11.25's tree", identity=_crossing([]).identity,
                       changes=["zod 3.25.76 → 4.2.1"], crossed_changes=[])
    assert len(explain_again([coerced, reworded], "npm:2025.7.1", "npm:2025.11.25", unmoved)) == 2
    unclear = [d.model_copy(update={"origin": "unclear"}) for d in (coerced, reworded)]
    assert len(explain_again(unclear, "npm:2026.7.4", "npm:2026.8.31", _crossing(["zod 4.4.3 → 4.5.4"]))) == 2
    apart = [coerced, _wording("revisesThought", "code")]  # placed alike, but no field in common
    assert len(explain_again(apart, "npm:2025.12.18", "npm:2026.7.4", _crossing(["zod 4.2.1 → 4.4.3"]))) == 2


def test_a_crossed_schema_change_is_one_difference_per_keyword_and_property() -> None:
    """Issue 47: 2026.8.31's inputSchema adds `required` back (zod) and changes three properties' types
    (code): crossed, each is its own difference, so each is attributed to what moves it; uncrossed, one
    difference with the id compare baselines name."""
    from conformance.compare.fresh import FreshSide, compare_fresh

    def side(required: list[JSON], kind: str) -> FreshSide:
        schema: JSON = {"type": "object", "required": required,
                  "properties": {"thought": {"type": "string"}, "isRevision": {"type": kind}}}
        return FreshSide(tools=[{"name": "sequentialthinking", "inputSchema": schema}])

    a, b = side(["thought"], "boolean"), side(["thought", "nextThoughtNeeded"], "string")
    whole = [f.found.signature for f in compare_fresh(a, b, "sequentialthinking")[0]]
    assert whole == ["tools_list.inputSchema.changed"]
    parts = compare_fresh(a, b, "sequentialthinking", split_schemas=True)[0]
    assert [f.found.signature for f in parts] == ["tools_list.inputSchema.properties-isRevision.changed",
                                                  "tools_list.inputSchema.required.changed"]
    import json

    from conformance.compare.listing import object_changes
    said = [object_changes(json.loads(f.found.a), json.loads(f.found.b), "B") for f in parts]
    assert "isRevision" in said[0][0] and "nextThoughtNeeded" not in " ".join(said[0])
    assert "nextThoughtNeeded" in said[1][0] and "isRevision" not in " ".join(said[1])


def test_a_swap_pins_the_whole_locked_tree_and_says_what_else_moved(tmp_path: Path) -> None:
    """Issue 47: the swap pinned only direct dependencies and zod, so 2026.7.4 with zod 4.5.4 also moved
    hono, jose, qs and eight more. Every package of the lockfile is pinned now, a nested copy under its
    parent, and what an install still moved is said beside the swap."""
    import json

    from conformance.compare.crossing import swap_sentence, tree_moves
    from conformance.report.model import DependencySwap
    from conformance.targets.npm import locked_tree, tree_pins

    lock = {"packages": {"": {}, "node_modules/@modelcontextprotocol/server-sequential-thinking": {
        "version": "2026.7.4"}, "node_modules/zod": {"version": "4.4.3"},
        "node_modules/hono": {"version": "4.12.29"},
        "node_modules/body-parser": {"version": "2.2.0"}, "node_modules/content-type": {"version": "1.0.5"},
        "node_modules/body-parser/node_modules/content-type": {"version": "2.0.0"},
        "node_modules/@scope/x/node_modules/@scope/y": {"version": "1.0.0"}}}
    (tmp_path / "package-lock.json").write_text(json.dumps(lock), encoding="utf-8")
    tree = locked_tree(tmp_path)
    assert tree == {"@scope/x/@scope/y": "1.0.0", "body-parser": "2.2.0", "body-parser/content-type": "2.0.0",
                    "content-type": "1.0.5", "hono": "4.12.29", "zod": "4.4.3"}
    pins = tree_pins({**tree, "zod": "4.5.4"})
    assert pins["zod"] == "4.5.4" and pins["hono"] == "4.12.29" and pins["content-type"] == "1.0.5"
    assert pins["body-parser"] == {".": "2.2.0", "content-type": "2.0.0"}
    assert tree_moves(tree, {**tree, "zod": "4.5.4", "hono": "4.13.5"}) == ["hono 4.12.29 → 4.13.5",
                                                                            "zod 4.4.3 → 4.5.4"]
    zod = "zod 4.4.3 → 4.5.4"
    swaps = [DependencySwap(change=zod, code="a", answers_as="a", also_moved=["hono 4.12.29 → 4.13.5"]),
             DependencySwap(change=zod, code="b", answers_as="b")]
    said = swap_sentence([_schema_listing("inputSchema").model_copy(update={"swaps": swaps})],
                         "2026.7.4", "2026.8.31")
    assert "its install also moved hono 4.12.29 → 4.13.5: not this package alone" in said
    assert "the rest of each side's locked tree pinned" in said


def test_a_difference_not_replayed_on_the_swaps_is_said_apart() -> None:
    """Audit F1: the protocolVersion difference (seen by one era's client) was never replayed on the swaps,
    yet "the SDK alone moves none of them" covered it; the SDK makes it. The sentence counts what was
    replayed and names what was not."""
    from conformance.compare.crossing import swap_sentence
    from conformance.report.model import DependencySwap

    sdk = "@modelcontextprotocol/sdk 0.5.0 → 1.25.1"
    swaps = [DependencySwap(change=sdk, code="a", answers_as="a"), DependencySwap(change=sdk, code="b",
                                                                                  answers_as="b")]
    caps = _schema_listing("listChanged").model_copy(update={"aspect": "capabilities", "swaps": swaps})
    era = _schema_listing("protocolVersion").model_copy(update={
        "id": "era.protocol_version", "aspect": "protocol_version", "eras": ["2025-03-26"]})
    said = swap_sentence([caps, era], "2025.7.1", "2025.11.25")
    assert "alone moves none of the one difference replayed" in said
    unreplayed = ("Not replayed on the swaps (seen by some eras' clients only): one difference on "
                  "`protocolVersion`")
    assert unreplayed in said


def test_a_swapped_tree_that_serves_no_valid_call_is_no_evidence() -> None:
    """Audit V3: 2025.7.1 with zod 4.2.1 answers every call -32603; its answers differ from both sides
    ("like neither") without saying anything of the difference."""
    from conformance.compare.crossing import serves
    from conformance.compare.fresh import FreshSide
    from conformance.compare.observe import Outcome

    ok, broken = Outcome(kind="result", text="{}"), Outcome(kind="protocol error", raw="-32603")
    both = (FreshSide(run=[ok]), FreshSide(run=[ok]))
    assert not serves(FreshSide(run=[broken, broken]), both)
    assert serves(FreshSide(run=[broken, ok]), both)
    assert serves(FreshSide(run=[broken]), (FreshSide(run=[broken]), FreshSide(run=[ok])))


def test_a_schema_part_and_the_refusals_one_swap_moves_on_its_property_are_one_cause() -> None:
    """zod 4's 2^53 bound at 2025.11.25 is listed as `properties.revisesThought.maximum` and refused on the
    call: moved by the same zod swap, on the same field, one cause; a schema part on another property stays
    apart."""
    from conformance.compare import explain_again
    from conformance.report.model import DependencySwap

    zod = "zod 3.25.76 → 4.2.1"
    swaps = [DependencySwap(change=zod, code="b", answers_as="a")]
    refused = _wording("revisesThought", "").model_copy(update={"swaps": swaps})
    bound = _schema_listing("inputSchema").model_copy(update={
        "id": "tools_list.inputSchema.properties-revisesThought.changed", "value_class":
        "properties.revisesThought", "swaps": swaps})
    other = bound.model_copy(update={"id": "tools_list.inputSchema.properties-thought.changed",
                                     "value_class": "properties.thought",
                                     "swaps": [DependencySwap(change=zod, code="b", answers_as="b")]})
    causes = explain_again([refused, bound, other], "npm:2025.7.1", "npm:2025.11.25", _crossing([zod]))
    assert sorted(len(c.differences) for c in causes) == [1, 2], [(c.id, c.differences) for c in causes]
    joined = next(c for c in causes if len(c.differences) == 2)
    assert set(joined.differences) == {refused.id, bound.id}


def test_the_packages_a_new_version_brings_are_not_a_second_move() -> None:
    """SDK 1.25.1 on 2025.7.1's tree brings ajv, hono and 77 more that SDK 0.5.0 never needed: its own
    dependencies, not another package moved; a pinned package at another version is."""
    from conformance.compare.crossing import swap_sentence
    from conformance.report.model import DependencySwap

    sdk = "@modelcontextprotocol/sdk 0.5.0 → 1.25.1"
    brought = [DependencySwap(change=sdk, code="a", answers_as="a", also_moved=["ajv none → 8.17.1"])]
    said = swap_sentence([_schema_listing("inputSchema").model_copy(update={"swaps": brought})],
                         "2025.7.1", "2025.11.25")
    assert "also moved" not in said
    moved = [brought[0].model_copy(update={"also_moved": ["ajv none → 8.17.1", "zod 3.25.76 → 3.25.0"]})]
    said = swap_sentence([_schema_listing("inputSchema").model_copy(update={"swaps": moved})],
                         "2025.7.1", "2025.11.25")
    assert "its install also moved zod 3.25.76 → 3.25.0: not this package alone" in said


def test_a_difference_either_side_makes_alone_is_said_either_suffices() -> None:
    """Audit V4: 2026.7.4 with zod 4.5.4 lists `required` again, and 2026.8.31's code lists it on zod 4.4.3
    too: zod 4.5.4 and 2026.8.31's code each make the re-add."""
    from conformance.compare.crossing import swap_sentence
    from conformance.report.model import DependencySwap

    zod = "zod 4.4.3 → 4.5.4"
    swaps = [DependencySwap(change=zod, code="a", answers_as="b"),
             DependencySwap(change=zod, code="b", answers_as="b")]
    said = swap_sentence([_schema_listing("inputSchema").model_copy(update={"swaps": swaps})],
                         "2026.7.4", "2026.8.31")
    assert ("Either suffices: 2026.7.4's code with zod 4.5.4 answers as 2026.8.31, and 2026.8.31's code with "
            "zod 4.4.3 still answers as 2026.8.31") in said
    assert "Needs both" not in said


def test_a_difference_one_swap_changes_and_the_crossing_does_not_settle_is_split_with_the_code() -> None:
    """Audit V5: 2026.8.31's boolean refusals: the SDK swap answers like neither on both sides' code and so
    does the crossing; zod's leaves each side as it was. SDK 1.30.0 makes part of it, the code the rest."""
    from conformance.compare.crossing import swap_sentence
    from conformance.report.model import DependencySwap

    sdk, zod = "@modelcontextprotocol/sdk 1.29.0 → 1.30.0", "zod 4.4.3 → 4.5.4"
    swaps = [DependencySwap(change=sdk, code="a", answers_as="neither"),
             DependencySwap(change=sdk, code="b", answers_as="neither"),
             DependencySwap(change=zod, code="a", answers_as="a"), DependencySwap(change=zod, code="b",
                                                                                  answers_as="b")]
    refusal = _wording("isRevision", "unclear", swaps)
    said = swap_sentence([refusal], "2026.7.4", "2026.8.31")
    assert ("Split between the code and @modelcontextprotocol/sdk 1.30.0" in said
            and "makes part of it and 2026.8.31's code the rest" in said), said
    assert "Split between" not in swap_sentence([refusal.model_copy(update={"origin": "dependencies"})],
                                                "2026.7.4", "2026.8.31")
