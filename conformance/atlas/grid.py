"""The records × columns grid, which column each is compared with, and where each record first changed.

A release column is compared with the release before it; a switch column with its own release. That
pairing is the atlas's notion of "adjacent", used by the grid's change marks and by the comparisons.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from conformance.atlas.model import Cell, Column, GridRow, PackageSnapshot, VerdictChange
from conformance.catalog.records import default_catalog
from conformance.report.model import Difference, Report, RootCause
from conformance.targets.specs import split_env


def predecessor(columns: Sequence[Column], index: int) -> int | None:
    """The column `columns[index]` is compared with: its release (switch column) or the previous release."""
    column = columns[index]
    if column.variant_of is not None:
        return next((i for i, c in enumerate(columns) if c.spec == column.variant_of), None)
    earlier = [i for i in range(index) if columns[i].variant_of is None]
    return earlier[-1] if earlier else None


def adjacent_pairs(columns: Sequence[Column]) -> list[tuple[Column, Column, str]]:
    """(a, b, kind) for every column with a predecessor: consecutive releases, then release → switch."""
    pairs = []
    for index, column in enumerate(columns):
        before = predecessor(columns, index)
        if before is not None:
            pairs.append((columns[before], column, "switch" if column.variant_of else "release"))
    return sorted(pairs, key=lambda p: p[2] == "switch")


UNOBSERVED: Final = ("not run", "absent")


def moved(before: Cell, after: Cell) -> bool:
    """A verdict changed: both sides observed and different (a skipped test is no behaviour change)."""
    return before != after and before not in UNOBSERVED and after not in UNOBSERVED


def build_grid(columns: Sequence[Column], reports: dict[str, Report | None]) -> list[GridRow]:
    records: dict[str, tuple[str, str]] = {}
    verdicts: dict[str, dict[str, Cell]] = {}
    for column in columns:
        report = reports.get(column.spec)
        row: dict[str, Cell] = {}
        for rv in report.records if report is not None else []:
            records.setdefault(rv.id, (rv.kind, rv.statement))
            row[rv.id] = rv.verdict
        verdicts[column.spec] = row
    grid = []
    for rid, (kind, statement) in records.items():
        cells: list[Cell] = [verdicts[c.spec].get(rid, "absent") for c in columns]
        changed = []
        for index in range(len(columns)):
            before = predecessor(columns, index)
            changed.append(before is not None and moved(cells[before], cells[index]))
        first = next(
            (c.label for c, moved in zip(columns, changed, strict=True) if moved and c.variant_of is None),
            None,
        )
        switches = [c.label for c, moved in zip(columns, changed, strict=True) if moved and c.variant_of]
        grid.append(
            GridRow(
                record=rid,
                kind=kind,
                statement=statement[:300],
                cells=cells,
                changed=changed,
                first_change=first,
                switch_changes=switches,
            )
        )
    return grid


def probe_changes(a: Column, b: Column) -> list[str]:
    """What the atlas probe saw change between two columns: the claims a release serves, and its answers."""
    out: list[str] = []
    if a.server_info != b.server_info:
        out.append(f"serverInfo {_kv(a.server_info)} → {_kv(b.server_info)}")
    if a.protocol_version != b.protocol_version:
        out.append(f"protocol version {a.protocol_version} → {b.protocol_version}")
    ta, tb = a.tool, b.tool
    if ta is not None and tb is not None and ta.ok and tb.ok:
        if ta.annotations != tb.annotations:
            out.append(f"tool annotations {_kv(ta.annotations) or 'none'} → {_kv(tb.annotations) or 'none'}")
        if ta.description_sha256 != tb.description_sha256:
            out.append(
                f"description rewritten ({ta.description_length} → {tb.description_length} UTF-16 units)"
            )
        if ta.title != tb.title:
            out.append(f"tool title {ta.title} → {tb.title}")
        if ta.output_schema != tb.output_schema:
            out.append(f"outputSchema {'added' if tb.output_schema else 'removed'}")
        if ta.proto_branch != tb.proto_branch:
            out.append(f"branchId __proto__ answer: {ta.proto_branch[:80]} → {tb.proto_branch[:80]}")
        if ta.thought_on_stderr != tb.thought_on_stderr:
            out.append(f"thought on stderr: {ta.thought_on_stderr} → {tb.thought_on_stderr}")
        if ta.history_after_repeat != tb.history_after_repeat:
            out.append(
                f"history after a repeated call: {ta.history_after_repeat} → {tb.history_after_repeat}"
            )
    ra, rb = a.readme, b.readme
    if ra is not None and rb is not None and b.variant_of is None:
        if ra.sha256 != rb.sha256:
            out.append(f"README rewritten ({ra.length} → {rb.length} characters)")
        if ra.switches != rb.switches:
            out.append(f"README switches {_kv(ra.switches) or 'none'} → {_kv(rb.switches) or 'none'}")
    if a.package is not None and b.package is not None and b.variant_of is None:
        out += package_changes(a.package, b.package)
    return out


def _licence(package: PackageSnapshot) -> str:
    """The licence as package.json states it, and, where it points at a file, whether the file ships."""
    said = package.license or "none"
    if said.upper().startswith("SEE LICEN") and package.license_file is False:
        said += " (no LICENSE file in the package)"
    return said


def package_changes(a: PackageSnapshot, b: PackageSnapshot) -> list[str]:
    """What package.json says differently about the package (each line starts "package ", packaging)."""
    out: list[str] = []
    if (a.license, a.license_file) != (b.license, b.license_file):
        out.append(f"package licence {_licence(a)} → {_licence(b)}")
    for name, x, y in (("author", a.author, b.author), ("repository", a.repository, b.repository),
                       ("mcpName", a.mcp_name, b.mcp_name)):
        if x != y:
            out.append(f"package {name} {x or 'none'} → {y or 'none'}")
    ranges = [f"{name} {a.dependencies.get(name, 'none')} → {b.dependencies.get(name, 'none')}"
              for name in sorted(set(a.dependencies) | set(b.dependencies))
              if a.dependencies.get(name) != b.dependencies.get(name)]
    if ranges:
        out.append(f"package dependency ranges {', '.join(ranges)}")
    return out


def _switch_columns(columns: Sequence[Column], a: Column, b: Column) -> list[tuple[str, Column, Column]]:
    """(switch, a's column with it, b's column with it) for every switch both releases were run with."""
    def variants(base: Column) -> dict[str, Column]:
        out = {}
        for column in columns:
            if column.variant_of == base.spec:
                env = split_env(column.spec)[0]
                own = split_env(base.spec)[0]
                out[_kv({k: v for k, v in env.items() if own.get(k) != v})] = column
        return out

    va, vb = variants(a), variants(b)
    return [(name, va[name], vb[name]) for name in va if name in vb]


def switch_probe_changes(columns: Sequence[Column], a: Column, b: Column) -> list[str]:
    """What the probe saw change between the two releases started with the same switch, where the plain
    releases did not change alike: the switch's arrival (0.6.2 still draws its box with
    DISABLE_THOUGHT_LOGGING=true, 2025.7.1 does not)."""
    plain = set(probe_changes(a, b))
    out = []
    for name, xa, xb in _switch_columns(columns, a, b):
        out += [f"with {name}: {change}" for change in probe_changes(xa, xb) if change not in plain]
    return out


def switch_arrivals(
    grid: Sequence[GridRow], columns: Sequence[Column], a: Column, b: Column,
    reports: Mapping[str, Report | None],
) -> list[VerdictChange]:
    """Verdict changes between the two releases' switch columns that the plain columns do not show: what a
    switch does from one release on (grouped by channel as the plain pair's changes are)."""
    plain = {(c.record, c.a, c.b) for c in verdict_changes(grid, columns, a, b)}
    out: list[VerdictChange] = []
    for name, xa, xb in _switch_columns(columns, a, b):
        changes = [c.model_copy(update={"under": name}) for c in verdict_changes(grid, columns, xa, xb)
                   if (c.record, c.a, c.b) not in plain]
        out += grouped(changes, False, [], [], (reports.get(xa.spec), reports.get(xb.spec)))
    return out


def _kv(mapping: Mapping[str, object]) -> str:
    return ", ".join(f"{k}={v}" for k, v in mapping.items())


def verdict_changes(
    grid: Sequence[GridRow], columns: Sequence[Column], a: Column, b: Column
) -> list[VerdictChange]:
    ia, ib = columns.index(a), columns.index(b)
    return [
        VerdictChange(record=row.record, a=row.cells[ia], b=row.cells[ib])
        for row in grid
        if moved(row.cells[ia], row.cells[ib])
    ]


def grouped(
    changes: Sequence[VerdictChange],
    compared: bool,
    causes: Sequence[RootCause],
    differences: Sequence[Difference],
    reports: tuple[Report | None, Report | None] = (None, None),
) -> list[VerdictChange]:
    """Each change marked `packaging` or `behaviour` by the channel its departure was observed on (issue 47):
    a record whose failing checks all read the package's files is packaging (EXT-1 failing on the
    package.json pin), one failing on the wire or on stderr is behaviour (CMP-2/a2's tools/list description,
    CLM-2's missing box). A report from a harness that did not record the channel falls back to the
    catalog: judged on the artifact and named by no difference the pair's comparison found."""
    channels = {record.id: set(record.channels) for record in default_catalog().records}
    on_wire = {r for c in causes for r in (*c.records, *c.explains)}
    on_wire |= {r for d in differences for r in d.records}
    out = []
    for change in changes:
        seen = _observed(change, reports)
        if seen:
            packaging = seen == {"package"}
        else:
            listed = channels.get(change.record, set())
            packaging = "artifact" in listed and (
                change.record not in on_wire if compared else listed == {"artifact"}
            )
        out.append(change.model_copy(update={"group": "packaging" if packaging else "behaviour"}))
    return out


def _observed(change: VerdictChange, reports: tuple[Report | None, Report | None]) -> set[str]:
    """The channels of the checks that failed the record on whichever side departs (empty when the reports
    do not say: an older harness, or no failing check)."""
    seen: set[str] = set()
    for cell, report in zip((change.a, change.b), reports, strict=True):
        if cell not in ("deviates", "error") or report is None:
            continue
        for verdict in report.records:
            if verdict.id != change.record:
                continue
            for test in verdict.tests:
                if test.status in ("failed", "error"):
                    if test.observed is None:
                        return set()
                    seen.add(test.observed)
    return seen


PACKAGING_SERVED: Final = ("README ", "package ")
"""Served changes that are packaging: the README and package.json as shipped (licence, author, repository,
mcpName, dependency ranges); the served tool's texts are behaviour."""
