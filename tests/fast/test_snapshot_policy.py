"""The suite's snapshots are read-only package data: `--snapshot-update` runs only in a checkout and only
against the original (pytest refusing it: tests/e2e/test_snapshot_update.py; a wheel: scripts/check_wheel)."""

from __future__ import annotations

import shutil
from pathlib import Path

from conformance.suite import snapshots


def _installed_copy(tmp_path: Path) -> Path:
    """The snapshots laid out as in site-packages: conformance/suite/__snapshots__, no pyproject above."""
    copy = tmp_path / "site-packages" / "conformance" / "suite" / "__snapshots__"
    shutil.copytree(snapshots.SNAPSHOTS, copy)
    return copy


def test_the_checkout_may_update_from_the_original_alone() -> None:
    assert snapshots.in_checkout()
    assert snapshots.update_refusal(["npm:0.6.2"]) is None
    for targets in (["reference"], ["reference", "npm:0.6.2"], ["cmd:node dist/index.js"], []):
        refusal = snapshots.update_refusal(targets)
        assert refusal is not None and "npm:0.6.2" in refusal, targets


def test_an_installed_copy_refuses_every_update(tmp_path: Path) -> None:
    copy = _installed_copy(tmp_path)
    assert not snapshots.in_checkout(copy)
    refusal = snapshots.update_refusal(["npm:0.6.2"], copy)
    assert refusal is not None and "package data" in refusal


def test_another_project_above_is_no_checkout(tmp_path: Path) -> None:
    copy = _installed_copy(tmp_path)
    (tmp_path / "site-packages" / "pyproject.toml").write_text('[project]\nname = "a-fork"\n', "utf-8")
    assert not snapshots.in_checkout(copy)
    (tmp_path / "site-packages" / "pyproject.toml").write_text("not toml [", "utf-8")
    assert not snapshots.in_checkout(copy)
