"""The import rules of ARCHITECTURE.md: each room imports only the rooms below it in that table."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "conformance"
SHARED = {"conformance.results", "conformance.jsontypes", "conformance.drivers.errors", "conformance"}
ALLOWED: dict[str, set[str]] = {
    "catalog": set(),
    "drivers": set(),
    "targets": {"drivers"},
    "suite": {"catalog", "drivers", "targets"},
    "compare": {"catalog", "drivers", "targets", "suite", "report.model"},
    "gate": {"catalog", "drivers", "targets", "suite", "compare", "report.model"},
    "report": {"catalog", "targets"},
    "atlas": {"catalog", "drivers", "targets", "suite", "compare", "gate", "report"},
}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return {name for name in names if name.startswith("conformance")}


def _room_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else None


def _violations(room: str, package: Path = PACKAGE) -> list[str]:
    allowed = ALLOWED[room]
    found = []
    for path in sorted((package / room).rglob("*.py")):
        for module in sorted(_imports(path)):
            if module in SHARED or any(module.startswith(s + ".") for s in SHARED - {"conformance"}):
                continue
            other = _room_of(module)
            if other is None or other == room:
                continue
            if other in allowed or any(module.startswith(f"conformance.{a}") for a in allowed if "." in a):
                continue
            found.append(f"{path.relative_to(package.parent)} imports {module}")
    return found


@pytest.mark.parametrize("room", sorted(ALLOWED))
def test_room_imports_only_what_the_architecture_allows(room: str) -> None:
    if not (PACKAGE / room).is_dir():
        pytest.skip(f"no {room}/ room yet")
    assert _violations(room) == []


def test_every_room_is_in_the_table() -> None:
    rooms = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert rooms - {"cli"} <= set(ALLOWED), rooms - set(ALLOWED) - {"cli"}


def test_the_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    """A writer that reaches into the gate is exactly what the rule is for."""
    room = tmp_path / "conformance" / "report"
    room.mkdir(parents=True)
    (room / "writer.py").write_text(
        "from conformance.gate.verdicts import judge\nfrom conformance.report.model import Report\n"
    )
    assert _violations("report", tmp_path / "conformance") == [
        "conformance/report/writer.py imports conformance.gate.verdicts",
        "conformance/report/writer.py imports conformance.gate.verdicts.judge",
    ]
