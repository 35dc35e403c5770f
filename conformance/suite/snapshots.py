"""The suite's syrupy snapshots are the original's answers, shipped as package data: read by every run,
rewritten only in a checkout of the harness and only from the original itself."""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from conformance.core.differences import serialized_difference

if TYPE_CHECKING:
    from syrupy.assertion import SnapshotAssertion

SNAPSHOTS: Final = Path(__file__).resolve().parent / "__snapshots__"
SOURCE: Final = "npm:0.6.2"
"""The one target whose answers the snapshots hold."""


def in_checkout(snapshots: Path = SNAPSHOTS) -> bool:
    """Whether the snapshots sit in a source checkout of the harness (its pyproject.toml two folders up),
    rather than in an installed copy, where a rewrite would change every later run's expectations."""
    pyproject = snapshots.parent.parent.parent / "pyproject.toml"
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return isinstance(project, dict) and project.get("name") == "seqthink-conformance"


def update_refusal(targets: Sequence[str], snapshots: Path = SNAPSHOTS) -> str | None:
    """Why `--snapshot-update` must not run here, or None when it may."""
    if not in_checkout(snapshots):
        return (
            f"--snapshot-update refused: the suite's snapshots ({snapshots}) are package data of the "
            "installed harness; regenerate them in a checkout with "
            f"`python -m pytest conformance/suite --target {SOURCE} --snapshot-update`"
        )
    if list(targets) != [SOURCE]:
        return (
            f"--snapshot-update refused: the snapshots are {SOURCE}'s answers; update them with --target "
            f"{SOURCE} alone (asked: {', '.join(targets) or 'no target'})"
        )
    return None


def differs_from_original(snapshot: SnapshotAssertion, value: object) -> str | None:
    """None when `value` matches the original's snapshot, else the lines that differ under their keys (what
    a maintainer acts on, where syrupy's assertion says only that they differ)."""
    expected, _ = snapshot._recall_data(index=snapshot.index)
    if snapshot == value:
        return None
    if not isinstance(expected, str):
        return f"no snapshot of {SOURCE}'s answer for this check: regenerate the snapshots from {SOURCE}"
    return serialized_difference(expected, str(snapshot._serialize(value)))


_AMBER_STRING: Final = re.compile(r"^\s+('(?:[^'\\\n]|\\.)*'),$")


def original_lines(snapshot: SnapshotAssertion) -> list[str] | None:
    """The original's snapshot as the list of lines it holds (a check's list of description lines), so that
    a check can say how a served list differs item by item; None when the snapshot is no such list."""
    expected, _ = snapshot._recall_data(index=snapshot.index)
    if not isinstance(expected, str):
        return None
    rows = expected.strip().splitlines()
    if len(rows) < 2 or rows[0] != "list([" or rows[-1] != "])":
        return None
    found = [_AMBER_STRING.match(row) for row in rows[1:-1]]
    if not all(found):
        return None
    lines = [ast.literal_eval(match.group(1)) for match in found if match]
    return lines if all(isinstance(line, str) for line in lines) else None
