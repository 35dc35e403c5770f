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


FORBIDDEN: list[tuple[str, str, list[str]]] = [
    (
        "report",
        "from conformance.gate.verdicts import judge\nfrom conformance.report.model import Report\n",
        ["conformance.gate.verdicts", "conformance.gate.verdicts.judge"],
    ),
    (
        GROUND,
        "from conformance.core.jsontypes import JSON\n"
        "def truthy(value: JSON) -> bool:\n"
        "    from conformance.drivers.errors import DriverError\n"
        "    return bool(value)\n",
        ["conformance.drivers.errors", "conformance.drivers.errors.DriverError"],
    ),
    *(
        (
            room,
            "from conformance.calls.strategies import json_values\n"
            "from conformance.core.protocol import TOOL\n"
            "from conformance.suite.session import ServerSession\n",
            ["conformance.suite.session", "conformance.suite.session.ServerSession"],
        )
        for room in ("compare", "gate")
    ),
]
"""A writer reaching into the gate, the ground floor reaching up (even to the drivers, which import nothing
of ours but it, and from inside a function), compare and gate reaching into the suite instead of what sits
below both: exactly what the rule is for."""


@pytest.mark.parametrize(("room", "source", "imported"), FORBIDDEN, ids=[case[0] for case in FORBIDDEN])
def test_the_checker_sees_a_forbidden_import(
    tmp_path: Path, room: str, source: str, imported: list[str]
) -> None:
    folder = tmp_path / "conformance" / room
    folder.mkdir(parents=True)
    (folder / "module.py").write_text(source)
    assert _violations(room, tmp_path / "conformance") == [
        f"conformance/{room}/module.py imports {module}" for module in imported
    ]
