"""The import rules of ARCHITECTURE.md: each room imports only the rooms below it in that table."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "conformance"
GROUND = "core"
"""The ground floor: every room may import it, and it imports no room."""
ALLOWED: dict[str, set[str]] = {
    GROUND: set(),
    "catalog": set(),
    "drivers": set(),
    "targets": {"drivers"},
    "calls": {"catalog", "drivers"},
    "suite": {"catalog", "drivers", "targets", "calls"},
    "compare": {"catalog", "drivers", "targets", "calls", "report.model"},
    "gate": {"catalog", "drivers", "targets", "calls", "compare", "report.model"},
    "report": {"catalog", "targets"},
    "atlas": {"catalog", "drivers", "targets", "calls", "suite", "compare", "gate", "report"},
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
    allowed = ALLOWED[room] | ({GROUND} if room != GROUND else set())
    found = []
    for path in sorted((package / room).rglob("*.py")):
        for module in sorted(_imports(path)):
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


def test_the_checker_sees_the_ground_floor_reach_up(tmp_path: Path) -> None:
    """The ground floor imports no room, not even the drivers, which import nothing of ours but it."""
    room = tmp_path / "conformance" / GROUND
    room.mkdir(parents=True)
    (room / "js.py").write_text(
        "from conformance.core.jsontypes import JSON\n"
        "def truthy(value: JSON) -> bool:\n"
        "    from conformance.drivers.errors import DriverError\n"
        "    return bool(value)\n"
    )
    assert _violations(GROUND, tmp_path / "conformance") == [
        "conformance/core/js.py imports conformance.drivers.errors",
        "conformance/core/js.py imports conformance.drivers.errors.DriverError",
    ]


@pytest.mark.parametrize("room", ["compare", "gate"])
def test_the_checker_sees_compare_and_gate_reach_into_the_suite(tmp_path: Path, room: str) -> None:
    """Compare and gate drive targets beside the suite, not through it: what they share sits below both."""
    folder = tmp_path / "conformance" / room
    folder.mkdir(parents=True)
    (folder / "uses.py").write_text(
        "from conformance.calls.strategies import json_values\n"
        "from conformance.core.protocol import TOOL\n"
        "from conformance.suite.session import ServerSession\n"
    )
    assert _violations(room, tmp_path / "conformance") == [
        f"conformance/{room}/uses.py imports conformance.suite.session",
        f"conformance/{room}/uses.py imports conformance.suite.session.ServerSession",
    ]
