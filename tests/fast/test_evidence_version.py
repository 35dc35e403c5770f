"""The committed evidence was made by the release it ships with: every report.json under reports/ and the
atlas name, as the harness that wrote them, the version pyproject.toml builds (hatch reads it from the file
its `[tool.hatch.version]` names).
Regenerating reports/ (the commands are in REGENERATE) is part of changing the version.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Final

REPO = Path(__file__).resolve().parents[2]
REGENERATE: Final = (
    "reports/ was written by an earlier harness; regenerate it (docs/atlas.md 'The committed atlas', "
    "docs/reports.md, docs/development.md) and remove this marker"
)


def _built_version() -> str:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    source = REPO / pyproject["tool"]["hatch"]["version"]["path"]
    found = re.search(r'^__version__ = "([^"]+)"$', source.read_text(encoding="utf-8"), re.MULTILINE)
    assert found is not None, f"{source} writes no __version__"
    return found.group(1)


def _evidence() -> list[Path]:
    return [*sorted(REPO.glob("reports/**/report.json")), REPO / "reports" / "atlas" / "atlas.json"]


def test_the_evidence_files_are_there_and_name_a_harness() -> None:
    """What the version check reads exists, so it can fail for the right reason only."""
    files = _evidence()
    assert len(files) >= 4 and all(f.is_file() for f in files)
    for path in files:
        assert json.loads(path.read_text(encoding="utf-8"))["harness"]["version"], path


def test_the_committed_evidence_names_the_harness_version_it_ships_with() -> None:
    version = _built_version()
    stale = {
        str(path.relative_to(REPO)): written
        for path in _evidence()
        if (written := json.loads(path.read_text(encoding="utf-8"))["harness"]["version"]) != version
    }
    assert stale == {}, f"written by another harness than {version}: {stale}"
