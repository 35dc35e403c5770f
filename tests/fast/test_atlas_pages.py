"""What the atlas pages say about a pair and about themselves, without running one: a pair's causes are
compare's for the same observations, packaging changes read apart from behaviour, headlines cut at a
clause, and the page states its order (real atlases: tests/e2e/test_atlas.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from conformance.atlas import build, grid
from conformance.atlas.build import _SavedComparison, _stored_comparison, compare_pair
from conformance.atlas.model import Column, GridRow, PackageSnapshot, ToolSnapshot, VerdictChange
from conformance.atlas.sentences import cut_headline, negotiated, order_sentences
from conformance.atlas.write import load_atlas, render_markdown
from conformance.compare import explain_again
from conformance.core.identity import TargetIdentity
from conformance.report.json import load_report
from conformance.report.model import Difference, Report

COMMITTED = Path(__file__).resolve().parents[2] / "reports" / "atlas" / "atlas.json"
A, B = "npm:2026.7.4", "npm:2026.8.31"


def _schema_difference() -> Difference:
    """A tools/list difference whose `required` change lies past the atlas's frame trim (4,000 characters)."""
    properties = {f"field{i:02d}": {"description": "word " * 30, "type": "string"} for i in range(30)}
    before = {"properties": properties, "required": ["field00", "nextThoughtNeeded"], "type": "object"}
    after = {"properties": properties, "required": ["field00"], "type": "object"}
    return Difference(
        id="tools_list.inputSchema.changed",
        aspect="tools_list",
        summary="tools/list: the tool's `inputSchema` is different",
        records=["OBJ-7", "BAP-4"],
        cause="tool-spec",
        program=['{"jsonrpc":"2.0","id":2,"method":"tools/list"}'],
        a=json.dumps(before, sort_keys=True),
        b=json.dumps(after, sort_keys=True),
        field="inputSchema",
        detail="changed",
    )


def test_a_kept_pair_is_explained_from_whole_differences_as_compare_explains_it(tmp_path: Path) -> None:
    """The atlas's causes for a pair are `compare`'s for the same differences: explained before the page's
    trim (which once hid 2026.8.31's `required` change behind "…"), the trim applied to what is shown."""
    whole = _schema_difference()
    assert len(whole.a) > build.MAX_FRAME
    stored = _stored_comparison(tmp_path, A, B, "ci", 7, None)
    assert stored is not None
    stored.parent.mkdir(parents=True)
    stored.write_text(_SavedComparison(note="n", differences=[whole], calls=3).model_dump_json(), "utf-8")
    status, _, causes, differences, _ = compare_pair(A, B, profile="ci", seed=7, cache=tmp_path, timeout=1.0)
    assert status == "done"
    assert [c.summary for c in causes] == [c.summary for c in explain_again([whole], A, B)]
    assert '`required` on 2026.8.31 drops `nextThoughtNeeded`' in causes[0].summary
    assert len(differences[0].a) <= build.MAX_FRAME < len(whole.a)


def test_a_crossed_pair_keeps_what_the_crossed_target_showed(tmp_path: Path) -> None:
    """A kept crossed comparison brings each cause's code-or-dependencies sentence back as compare says it."""
    from conformance.report.model import Crossing

    identity = TargetIdentity(spec="npm:2026.7.4 on the tree of npm:2026.8.31", kind="npm", command=["node"])
    zod = ["zod 4.4.3 → 4.5.4"]
    label = "2026.7.4 on 2026.8.31's tree"
    crossing = Crossing(label=label, identity=identity, changes=zod, crossed_changes=zod)
    whole = _schema_difference().model_copy(update={"origin": "dependencies"})
    stored = _stored_comparison(tmp_path, A, B, "ci", 7, None, True)
    assert stored is not None
    stored.parent.mkdir(parents=True)
    saved = _SavedComparison(note="n", differences=[whole], calls=3, crossing=crossing)
    stored.write_text(saved.model_dump_json(), "utf-8")
    _, _, causes, _, _ = compare_pair(A, B, profile="ci", seed=7, cache=tmp_path, timeout=1.0, cross=True)
    assert causes[0].origin == explain_again([whole], A, B, crossing)[0].origin
    assert causes[0].origin.startswith("From the dependencies")


def test_packaging_changes_are_grouped_apart_from_behaviour() -> None:
    """A record judged on the shipped package (artifact channel) that no wire difference names is packaging;
    the same record named by a difference, or a wire-only record, is behaviour."""
    records = ("CMP-6", "CMP-7", "RTE-3", "CMP-3/a1")
    changes = [VerdictChange(record=r, a="holds", b="deviates") for r in records]
    quiet = grid.grouped(changes, True, [], [])
    assert [c.group for c in quiet] == ["packaging", "packaging", "behaviour", "packaging"]
    named = _schema_difference().model_copy(update={"records": ["CMP-3/a1"]})
    loud = grid.grouped(changes, True, [], [named])
    assert [c.group for c in loud] == ["packaging", "packaging", "behaviour", "behaviour"]
    uncompared = grid.grouped(changes, False, [], [])
    assert [c.group for c in uncompared] == ["packaging", "packaging", "behaviour", "behaviour"]


_WORD = st.text(alphabet="abcdefghij`.()", min_size=1, max_size=12)
_CLAUSE = st.lists(_WORD, min_size=1, max_size=40).map(" ".join)


@given(clauses=st.lists(_CLAUSE, min_size=1, max_size=8), count=st.integers(1, 60),
       limit=st.integers(60, 400))
def test_a_headline_is_cut_at_a_clause_or_a_word_never_inside_one(
    clauses: list[str], count: int, limit: int
) -> None:
    tail = f" ({count} difference{'s' if count > 1 else ''})"
    text = "; ".join(clauses) + tail
    cut = cut_headline(text, limit)
    if len(text) <= limit:
        assert cut == text
        return
    assert cut.endswith(tail)
    body = cut[: -len(tail)]
    body = re.sub(r"; (?:more on .*|…)$", "", body)
    # One difference's clauses are each said, each cut at a word ("…; 0.6.2 sends none").
    kept = [clause.rstrip(" ,") for clause in body.split("; ")]
    words = set(" ".join(clauses).split(" "))
    for clause in kept:
        # A long bracketed aside between whole words is folded to "(…)" (report/escape._fold_asides); what a
        # cut left open is closed after its "…".
        said = [w if w == "(…)" else re.sub(r"…[`)\]}”\"]*$", "", w) for w in clause.split(" ") if w]
        # Clauses opening alike are said once as a list ("head adds `a` (1), `b` (2)"), cut with a count.
        counted = re.search(r", and \d+ more$", clause) is not None
        assert all(word in words or word.rstrip(",") in words or word == "(…)" or not word
                   or (counted and re.fullmatch(r"and|\d+|more", word)) for word in said), (clause, text)
    assert len(cut) <= max(limit, len(tail) + 20)


def test_the_page_states_its_order_publication_dates_and_capped_trees() -> None:
    """On the committed atlas: version order, 2025.11.25 published after 2026.7.4, and its capped tree."""
    atlas = load_atlas(COMMITTED)
    said = " ".join(order_sentences(atlas.columns))
    assert "version order" in said
    assert re.search(r"2025\.11\.25 was published 2026-08-22, after .*?2026\.7\.4 \(2026-07-10\)", said), said
    assert "2025.11.25 runs on a capped dependency tree" in said
    assert "2026.7.4 runs on a capped" not in said
    page = render_markdown(atlas)
    assert "version order" in page and "capped dependency tree" in page
    assert "upstrea…" not in page, "a headline cut inside a word by the page"
    cut = [cut_headline(c.summary) for p in atlas.pairs for c in p.root_causes]
    assert any(re.search(r"; (?:more on .+|…) \(\d+ differences?\)$", c) for c in cut), cut
    assert not any(re.search(r"; and \d+ more \(\d+ differences?\)$", c) for c in cut), cut


def test_the_protocol_column_says_what_each_offer_negotiated() -> None:
    column = Column(spec="npm:0.6.2", label="0.6.2", folder="targets/x", protocol_version="2024-11-05",
                    tool=ToolSnapshot(ok=True, negotiated={"2024-11-05": "2024-11-05",
                                                           "2025-11-25": "2024-11-05"}))
    assert negotiated(column) == "2025-11-25 → 2024-11-05, 2024-11-05 → 2024-11-05, auto → 2024-11-05"
    bare = column.model_copy(update={"tool": None})
    assert negotiated(bare) == "auto → 2024-11-05"
    assert negotiated(bare.model_copy(update={"protocol_version": None})) == "—"


def _observed_as(report: Report, record: str, observed: str) -> Report:
    """`report` with the failing checks of `record` marked as reading `observed`."""
    verdicts = []
    for verdict in report.records:
        if verdict.id == record:
            tests = [t.model_copy(update={"observed": observed}) if t.status == "failed" else t
                     for t in verdict.tests]
            verdict = verdict.model_copy(update={"tests": tests})
        verdicts.append(verdict)
    return report.model_copy(update={"records": verdicts})


def test_a_change_is_packaging_or_behaviour_by_the_channel_its_failing_check_read() -> None:
    """Issue 47: CMP-2/a2 failing on the tools/list description is behaviour though the catalog lists the
    artifact among its channels; EXT-1 failing on the package.json pin is packaging though a wire difference
    names it."""
    before = load_report(COMMITTED.parent / "targets" / "npm-2025.7.1" / "report.json")
    after = load_report(COMMITTED.parent / "targets" / "npm-2025.11.25" / "report.json")
    after = _observed_as(_observed_as(after, "CMP-2/a2", "process"), "EXT-1", "package")
    changes = [VerdictChange(record=r, a="holds", b="deviates") for r in ("CMP-2/a2", "EXT-1")]
    named = _schema_difference().model_copy(update={"records": ["EXT-1"]})
    found = grid.grouped(changes, True, [], [named], (before, after))
    assert [c.group for c in found] == ["behaviour", "packaging"]
    assert [c.group for c in grid.grouped(changes, True, [], [named])] == ["packaging", "behaviour"]


def test_package_metadata_changes_are_packaging_lines() -> None:
    """2026.7.4's licence, author, repository and mcpName changed with its README (issue 47)."""
    old = PackageSnapshot(license="MIT", license_file=False, author="Anthropic, PBC (https://anthropic.com)",
                          dependencies={"@modelcontextprotocol/sdk": "^1.25.1"})
    new = PackageSnapshot(license="SEE LICENSE IN LICENSE", license_file=False,
                          author="Model Context Protocol a Series of LF Projects, LLC.",
                          repository="https://github.com/modelcontextprotocol/servers.git",
                          mcp_name="io.github.modelcontextprotocol/server-sequential-thinking",
                          dependencies={"@modelcontextprotocol/sdk": "^1.29.0"})
    lines = grid.package_changes(old, new)
    assert lines[0] == "package licence MIT → SEE LICENSE IN LICENSE (no LICENSE file in the package)"
    assert any(line.startswith("package author Anthropic") for line in lines)
    assert any(line.startswith("package mcpName none → io.github") for line in lines)
    assert "package dependency ranges @modelcontextprotocol/sdk ^1.25.1 → ^1.29.0" in lines
    assert all(line.startswith(grid.PACKAGING_SERVED) for line in lines)
    assert grid.package_changes(old, old) == []


def test_a_switch_arriving_with_a_release_is_reported_on_the_release_pair() -> None:
    """0.6.2 draws its box with DISABLE_THOUGHT_LOGGING=true, 2025.7.1 does not: the release pair says so
    (the plain columns do not change alike), from the two switch columns."""
    def column(spec: str, variant_of: str | None, on_stderr: bool) -> Column:
        tool = ToolSnapshot(ok=True, thought_on_stderr=on_stderr)
        return Column(spec=spec, label=spec, folder="targets/x", variant_of=variant_of, tool=tool)

    switch = "DISABLE_THOUGHT_LOGGING=true"
    columns = [column("npm:0.6.2", None, True), column(f"{switch} npm:0.6.2", "npm:0.6.2", True),
               column("npm:2025.7.1", None, True), column(f"{switch} npm:2025.7.1", "npm:2025.7.1", False)]
    assert grid.switch_probe_changes(columns, columns[0], columns[2]) == [
        f"with {switch}: thought on stderr: True → False"]
    row = GridRow(record="RTE-9", kind="requirement", cells=["holds", "holds", "holds", "deviates"],
                  changed=[False, False, False, True])
    arrivals = grid.switch_arrivals([row], columns, columns[0], columns[2], {})
    assert [(c.record, c.under, c.a, c.b) for c in arrivals] == [("RTE-9", switch, "holds", "deviates")]


def test_a_pair_with_no_difference_but_a_switch_arrival_says_its_counts_leave_it_out() -> None:
    """Audit M2: "0 root cause(s), 0 difference(s)" for 0.6.2 → 2025.7.1 read as "nothing changed", while
    the switch's arrival (same trees, so the code's) shows only with the switch set."""
    from conformance.atlas.model import Atlas, Pair
    from conformance.atlas.write import switch_note

    deps = {"@modelcontextprotocol/sdk": "0.5.0", "zod": "3.25.76"}

    def column(spec: str) -> Column:
        return Column(spec=spec, label=spec, folder="targets/x",
                      identity=TargetIdentity(spec=spec, kind="npm", command=["node"], dependencies=deps))

    served = "with DISABLE_THOUGHT_LOGGING=true: thought on stderr: True → False"
    columns = [column("npm:0.6.2"), column("npm:2025.7.1")]
    atlas = load_atlas(COMMITTED).model_copy(update={"columns": columns})
    pair = Pair(a="npm:0.6.2", b="npm:2025.7.1", kind="release", comparison="done", probe_changes=[served])
    said = switch_note(atlas, pair)
    assert "these counts leave out the behaviour change seen with it" in said and served in said
    alike = ("Both trees resolve alike (@modelcontextprotocol/sdk 0.5.0, zod 3.25.76), so it is the server's "
             "code")
    assert alike in said
    readme = pair.model_copy(update={"probe_changes": ["README rewritten (1 → 2 characters)"]})
    assert switch_note(atlas, readme) == ""
    assert isinstance(atlas, Atlas)


def test_the_releases_table_says_what_auto_is() -> None:
    """Audit V1: "auto → 2024-11-05" was not explained; both pages say what `auto` offered."""
    from conformance.atlas.write import render_html

    atlas = load_atlas(COMMITTED)
    for page in (render_markdown(atlas), render_html(atlas)):
        assert "official SDK client" in page and "falls back to" in page
