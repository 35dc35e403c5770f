"""The sdist build never walks a folder it leaves out: the tests install npm releases into .cache/ while CI's
wheel check builds beside them, and a scratch folder renamed away mid-walk once stopped the build."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_the_sdist_walk_skips_ignored_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hatch_utils = pytest.importorskip("hatchling.builders.utils")
    from hatchling.builders.sdist import SdistBuilder

    for name in ("pyproject.toml", ".gitignore", "README.md", "LICENSE"):
        shutil.copy(REPO / name, tmp_path / name)
    for package in ("conformance", "reference_server"):
        (tmp_path / package).mkdir()
        shutil.copy(REPO / package / "__init__.py", tmp_path / package / "__init__.py")
    scratch = tmp_path / ".cache" / "targets" / "npm" / ".0.6.2.tmp-x" / "node_modules" / "hono" / "dist"
    scratch.mkdir(parents=True)
    (scratch / "index.js").write_text("", encoding="utf-8")
    (tmp_path / ".artifacts" / "screenshots").mkdir(parents=True)

    walked: list[str] = []
    real_walk = os.walk

    def recording_walk(top: str, followlinks: bool = False) -> Iterator[tuple[str, list[str], list[str]]]:
        for root, dirs, files in real_walk(top, followlinks=followlinks):
            walked.append(os.path.relpath(root, tmp_path))
            yield root, dirs, files

    monkeypatch.setattr(hatch_utils.os, "walk", recording_walk)
    selected = {f.distribution_path for f in SdistBuilder(str(tmp_path)).recurse_selected_project_files()}

    assert "conformance/__init__.py" in selected, selected
    entered = [path for path in walked if path.split(os.sep)[0] in {".cache", ".artifacts"}]
    assert not entered, f"the sdist build walked ignored folders: {entered}"
