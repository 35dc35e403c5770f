"""The drift atlas as data: what `atlas.json` holds, versioned; the Markdown and HTML pages render it.

`schema.json` beside this module is generated from `Atlas` (`python -m scripts.generate_atlas_schema`)
and a test keeps the two equal; `atlas.json` is validated against it on write and on read.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from conformance.core.identity import HarnessIdentity, TargetIdentity
from conformance.report.model import Difference, RootCause, Verdict

ATLAS_FORMAT: Final = "seqthink-conformance-atlas/4"
"""/2: the pairs' root causes carry derived headlines, change tables and origins; /3: verdict changes are
grouped (wire behaviour, or packaging and identity) and the probe records the protocol revision each
release negotiates; /4: a pair's differences name the eras whose clients alone see them (compare's era
pass). /1 to /3 atlases are still read (every field a later format added has a default)."""

Cell = Verdict | Literal["absent"]
"""A record's verdict in one column; `absent` when that column's report has no such record (or no report)."""

JudgementVerdict = Literal["supported", "contradicted", "unsupported", "not declared", "not observed"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolSnapshot(_Frozen):
    """What one target says about its tool and what a few calls on a fresh process show (the atlas probe)."""

    ok: bool
    error: str | None = None
    transcript: str | None = Field(default=None, description="the probe's transcript, relative to the atlas")
    description_length: int | None = Field(
        default=None, description="in UTF-16 code units, as JavaScript counts"
    )
    description_sha256: str | None = None
    description_head: str = Field(default="", description="the description's first 200 characters")
    title: str | None = None
    annotations: dict[str, JsonValue] = Field(
        default_factory=dict, description="tools/list annotations as served"
    )
    output_schema: bool = False
    history_after_repeat: list[int] = Field(
        default_factory=list,
        description="thoughtHistoryLength after the same call sent twice on a fresh process",
    )
    thought_on_stderr: bool | None = Field(default=None, description="the probe's thought appeared on stderr")
    proto_branch: str = Field(default="", description="how a branchId of __proto__ was answered")
    proto_branch_retained: bool | None = Field(
        default=None, description="the store kept the __proto__-branch call although it was answered isError"
    )
    anchors: dict[str, str] = Field(default_factory=dict, description="probe step → transcript anchor")
    negotiated: dict[str, str] = Field(
        default_factory=dict,
        description="protocol revision offered at initialize → the revision the release answered, one fresh "
        "process per offer (an error text when it answered none)",
    )


class ReadmeSnapshot(_Frozen):
    sha256: str | None = None
    length: int = 0
    switches: dict[str, str] = Field(
        default_factory=dict, description="environment switches it documents, with the documented value"
    )


class PackageSnapshot(_Frozen):
    """What the installed package.json says about the package itself, and whether the licence file it names
    is shipped: packaging, compared release to release beside the README (issue 47)."""

    license: str | None = None
    license_file: bool | None = Field(
        default=None, description="a LICENSE file ships beside package.json (null: not looked at)"
    )
    author: str | None = None
    repository: str | None = None
    mcp_name: str | None = Field(default=None, description="package.json's `mcpName`")
    dependencies: dict[str, str] = Field(default_factory=dict, description="declared ranges, as written")


class Column(_Frozen):
    """One target of the atlas: a release, or a release started with a documented environment switch."""

    spec: str
    label: str = Field(
        description="short name for the grid, e.g. 2026.7.4 or 2026.7.4 +DISABLE_THOUGHT_LOGGING"
    )
    folder: str = Field(description="where its run report is, relative to the atlas")
    variant_of: str | None = Field(default=None, description="the column it is a switch variant of")
    exit_code: int | None = Field(default=None, description="the run's exit status; 2 = unusable")
    error: str | None = None
    identity: TargetIdentity | None = None
    server_info: dict[str, str] = Field(default_factory=dict)
    protocol_version: str | None = None
    published: str | None = Field(default=None, description="the registry's publish time of the release")
    report: str | None = Field(default=None, description="link to its report.html, relative to the atlas")
    counts: dict[str, int] = Field(default_factory=dict)
    tool: ToolSnapshot | None = None
    readme: ReadmeSnapshot | None = None
    package: PackageSnapshot | None = None


class GridRow(_Frozen):
    record: str
    kind: str
    statement: str = ""
    cells: list[Cell] = Field(description="one verdict per column, in column order")
    changed: list[bool] = Field(
        description="differs from the column it is compared with (previous release or base)"
    )
    first_change: str | None = Field(
        default=None, description="the first release (label) where the verdict changed"
    )
    switch_changes: list[str] = Field(
        default_factory=list, description="switch columns whose verdict differs"
    )


Group = Literal["behaviour", "packaging"]
"""A verdict change's kind: `packaging` when the record is judged on the shipped artifact (version strings,
README, package metadata) and no difference the pair's comparison found on the wire names it."""


class VerdictChange(_Frozen):
    record: str
    a: Cell
    b: Cell
    group: Group = "behaviour"
    under: str | None = Field(
        default=None,
        description="a change between the two releases' columns started with this switch (`NAME=value`), "
        "where the plain columns do not change alike: a switch that arrives or leaves with a release",
    )


class Pair(_Frozen):
    """An adjacent pair: consecutive releases, or a release and its switch column."""

    a: str
    b: str
    kind: Literal["release", "switch"]
    comparison: Literal["done", "skipped", "unavailable", "failed"]
    note: str = ""
    verdict_changes: list[VerdictChange] = Field(default_factory=list)
    probe_changes: list[str] = Field(
        default_factory=list, description="what the served tool, README, serverInfo or probe answers changed"
    )
    root_causes: list[RootCause] = Field(default_factory=list, description="from the compare API")
    differences: list[Difference] = Field(default_factory=list, description="from the compare API, trimmed")
    calls: int = 0


class Judgement(_Frozen):
    """One claim of one target judged against what was observed."""

    column: str
    claim: str = Field(
        description="readOnlyHint, idempotentHint, …, description, README switch, or a CLM record"
    )
    declared: str
    observed: str
    verdict: JudgementVerdict | str
    anchor: str = ""


class Location(_Frozen):
    column: str
    present: bool | None = Field(description="null when this column could not show it either way")
    evidence: list[str] = Field(
        default_factory=list, description="anchors: transcripts, report records, findings"
    )
    detail: str = ""


class UpstreamProblem(_Frozen):
    id: str
    title: str
    url: str
    records: list[str] = Field(default_factory=list)
    located: list[Location] = Field(default_factory=list)
    first_seen: str | None = None
    last_seen: str | None = None


class Atlas(_Frozen):
    format: Literal[
        "seqthink-conformance-atlas/1", "seqthink-conformance-atlas/2", "seqthink-conformance-atlas/3",
        "seqthink-conformance-atlas/4",
    ] = ATLAS_FORMAT
    generated: str
    harness: HarnessIdentity
    profile: str
    seed: int | None
    duration_s: float = 0.0
    jobs: int = 1
    columns: list[Column]
    grid: list[GridRow]
    pairs: list[Pair] = Field(default_factory=list)
    claims: list[Judgement] = Field(default_factory=list)
    upstream: list[UpstreamProblem] = Field(default_factory=list)
    merged_from: list[str] = Field(default_factory=list, description="atlas folders this one merges")
    interrupted: str | None = Field(
        default=None,
        description="why the atlas stopped before it finished (\"cancelled by SIGTERM\"); pairs it did not "
        "compare say so in their note",
    )
