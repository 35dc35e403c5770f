"""compare drives hypothesis in its own process; hypothesis keeps its tables (`unicode_data/`, `constants/`)
in a `.hypothesis/` of the current folder unless told otherwise, and a compare of npm:0.6.2 with a fork left
one in the folder a maintainer started it in. `run` points hypothesis at the target cache's `hypothesis`
folder; compare now does the same before its search, and keeps a storage folder the environment names."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis.configuration import set_hypothesis_home_dir, storage_directory

from conformance.compare.engine import hypothesis_home


@pytest.fixture
def restored() -> Iterator[None]:
    """Hypothesis' home for this process as it was before the test."""
    before = storage_directory(intent_to_write=False).home_directory
    try:
        yield
    finally:
        set_hypothesis_home_dir(before)


def test_compare_keeps_hypothesis_storage_in_the_target_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, restored: None
) -> None:
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    monkeypatch.chdir(tmp_path)
    hypothesis_home(tmp_path / "cache")
    assert storage_directory("unicode_data").path == tmp_path / "cache" / "hypothesis" / "unicode_data"
    assert (tmp_path / "cache" / "hypothesis").is_dir() and not (tmp_path / ".hypothesis").exists()


def test_a_storage_folder_the_environment_names_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, restored: None
) -> None:
    set_hypothesis_home_dir(tmp_path / "named")
    monkeypatch.setenv("HYPOTHESIS_STORAGE_DIRECTORY", str(tmp_path / "named"))
    hypothesis_home(tmp_path / "cache")
    assert storage_directory("x", intent_to_write=False).path == tmp_path / "named" / "x"
    assert not (tmp_path / "cache").exists()
