"""The atlas's documents without running one: the shipped schema is the model's, columns come in release
order, and a merge of a folder holding no atlas is refused in one line (real atlases:
tests/e2e/test_atlas.py)."""

from __future__ import annotations

import io
from pathlib import Path

from conformance.atlas.build import ordered
from conformance.atlas.model import Atlas
from conformance.atlas.write import generate_schema, shipped_schema
from conformance.cli.main import main


def test_shipped_schema_is_the_generated_one() -> None:
    assert shipped_schema() == generate_schema()


def test_order_puts_releases_oldest_first_after_other_targets() -> None:
    assert ordered(["npm:2025.7.1", "npm:2025.11.25", "reference", "npm:0.6.2", "A=1 npm:0.6.2"]) == [
        "reference",
        "npm:0.6.2",
        "A=1 npm:0.6.2",
        "npm:2025.7.1",
        "npm:2025.11.25",
    ]
    assert Atlas.model_fields["format"].default == "seqthink-conformance-atlas/4"


def test_merge_of_a_folder_without_an_atlas_fails_in_one_line(tmp_path: Path) -> None:
    err = io.StringIO()
    assert (
        main(
            ["atlas", "--merge", str(tmp_path), "--out", str(tmp_path / "o")],
            stdout=io.StringIO(),
            stderr=err,
        )
        == 4
    )
    assert err.getvalue().count("\n") == 1 and "atlas.json" in err.getvalue()
