"""The modification catalogue's combined forks: each change keeps its own patches and primaries, and a fork
is refused when one change's patch text is not found exactly once in the original."""

from __future__ import annotations

from pathlib import Path

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import pytest
import yaml

from tests.modified_servers.servers import (
    CATALOGUE,
    Change,
    Modification,
    Patch,
    load_modifications,
    patched,
)


def _fork(*changes: tuple[str, str]) -> Modification:
    parts = tuple(Change(id=f"c{i}", change="a change", patches=(Patch(find, replace),), primary=("RTE-2",))
                  for i, (find, replace) in enumerate(changes))
    return Modification(id="fork", set="held-out-multi-1", change="a fork", primary=("RTE-2",),
                        patches=tuple(p for c in parts for p in c.patches), changes=parts)


def test_combined_entries_load_with_their_changes() -> None:
    forks = [m for m in load_modifications() if m.set.startswith("held-out-multi-")]
    assert len([m for m in forks if m.set == "held-out-multi-2"]) == 6
    assert len([m for m in forks if m.set == "held-out-multi-3"]) == 6
    assert len([m for m in forks if m.set == "held-out-multi-4"]) == 6
    assert len([m for m in forks if m.set == "held-out-multi-5"]) == 6
    assert len([m for m in forks if m.set == "held-out-multi-6"]) == 6
    assert len([m for m in forks if m.set == "held-out-multi-7"]) == 6
    assert len([m for m in forks if m.set == "held-out-multi-8"]) == 6
    assert len([m for m in forks if m.set == "held-out-multi-9"]) == 6
    assert len([m for m in forks if m.set == "held-out-multi-10"]) == 6
    assert len([m for m in forks if m.set == "held-out-multi-11"]) == 6
    assert len([m for m in forks if m.set == "held-out-multi-12"]) == 6
    assert len([m for m in forks if m.set == "held-out-multi-13"]) == 6
    assert len([m for m in forks if m.set == "held-out-multi-14"]) == 6
    assert len([m for m in forks if m.set == "held-out-multi-15"]) == 6
    assert len([m for m in forks if m.set == "held-out-multi-16"]) == 6
    assert len([m for m in forks if m.set == "held-out-multi-17"]) == 6
    assert len([m for m in forks if m.set == "held-out-multi-18"]) == 6
    assert len([m for m in forks if m.set == "held-out-multi-19"]) == 6
    assert len(forks) >= 114
    for fork in forks:
        assert 3 <= len(fork.changes) <= 4, fork.id
        assert fork.patches == tuple(p for c in fork.changes for p in c.patches)
        assert set(fork.primary) == {r for c in fork.changes for r in c.primary}
        assert all(c.primary for c in fork.changes)
    singles = [m for m in load_modifications() if not m.set.startswith("held-out-multi-")]
    assert singles and not any(m.changes for m in singles)


def test_a_fork_applies_all_its_changes() -> None:
    assert patched("alpha beta gamma", _fork(("alpha", "A"), ("gamma", "G"))) == "A beta G"


def test_a_change_must_find_its_text_once_in_the_original() -> None:
    """Applied in turn, "ab" would be found once after the first change; in the original it is not there."""
    with pytest.raises(ValueError, match="in the original"):
        patched("a b c", _fork(("a b", "ab"), ("ab", "x")))
    with pytest.raises(ValueError, match="2 times"):
        patched("a a b", _fork(("a", "x"), ("b", "y")))


def test_a_change_that_removes_another_ones_text_is_refused() -> None:
    with pytest.raises(ValueError, match="0 times"):
        patched("one two", _fork(("one two", "three"), ("two", "2")))


def test_an_entry_is_single_or_combined_not_both(tmp_path: Path) -> None:
    data = yaml.safe_load(CATALOGUE.read_text(encoding="utf-8"))
    fork = next(m for m in data["modifications"] if "changes" in m)
    both = dict(fork, patches=fork["changes"][0]["patches"], primary=["RTE-2"])
    data["modifications"] = [both]
    path = tmp_path / "modifications.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(jsonschema.ValidationError):
        load_modifications(path)


def test_the_catalogue_is_parsed_once_per_text(tmp_path: Path) -> None:
    """Collecting reads it three times in every test process: a second read hands back the first read's
    entries, and a file whose text changed is parsed and checked again."""
    first, again = load_modifications(), load_modifications()
    assert first == again and all(a is b for a, b in zip(first, again, strict=True))
    first.clear()
    assert load_modifications() == again, "a caller's list is its own"
    path = tmp_path / "modifications.yaml"
    path.write_text(CATALOGUE.read_text(encoding="utf-8"), encoding="utf-8")
    copy = load_modifications(path)
    assert copy == again
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["modifications"] = data["modifications"][:1]
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    assert [m.id for m in load_modifications(path)] == [again[0].id]
