"""Where the harness's data lives: installed package data first, else the repository checkout."""

from __future__ import annotations

from pathlib import Path

_MARKER = "records.yaml"


def fixture_candidates() -> tuple[Path, ...]:
    """Installed wheels carry `fixtures/` as `conformance/_fixtures`; a checkout has it at the top level."""
    package_dir = Path(__file__).resolve().parent.parent
    return (package_dir / "_fixtures", package_dir.parent / "fixtures")


def fixtures_dir() -> Path:
    """The first candidate that holds the records catalog."""
    candidates = fixture_candidates()
    for candidate in candidates:
        if (candidate / _MARKER).is_file():
            return candidate
    searched = ", ".join(str(c) for c in candidates)
    raise FileNotFoundError(f"no fixtures directory with {_MARKER} found (searched {searched})")
