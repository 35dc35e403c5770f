"""The suite's checks reach the shared processes only through fixtures, so the plugin can see which they take.

A run starts the spare's process, the fresh runs' three processes and the realistic host with the session when
it collects a test taking the `spare`, `fresh_runs` or `host` fixture (`suite/plugin.py`, `server`): their
start-up then overlaps the checks before them. A check that called `server.spare()` or built its own pool
would still pass, only slower, and no list by name would say so; these tests keep every route through the
fixtures.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conformance import suite

SUITE = Path(suite.__file__).resolve().parent
PROVIDERS = {"plugin.py", "session.py", "fresh_runs.py", "rawproc.py", "conftest.py"}
"""Where the spare, the fresh runs, the host and the raw pool are made and handed to fixtures."""
FORBIDDEN_METHODS = {"spare", "prestart_spare", "host", "prestart_host"}
FORBIDDEN_CONSTRUCTORS = {"RawPool", "RawServer", "FreshRunner"}


def _bypasses(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in FORBIDDEN_METHODS:
            found.append(f"{path.name}:{node.lineno} calls .{func.attr}()")
        elif isinstance(func, ast.Name) and func.id in FORBIDDEN_CONSTRUCTORS:
            found.append(f"{path.name}:{node.lineno} makes its own {func.id}")
    return found


def test_checks_take_the_spare_and_the_fresh_runs_through_their_fixtures() -> None:
    modules = [p for p in sorted(SUITE.glob("*.py")) if p.name not in PROVIDERS]
    assert any(p.name.startswith("test_") for p in modules)
    assert [bypass for path in modules for bypass in _bypasses(path)] == []


def test_the_checker_sees_a_check_going_around_the_fixtures(tmp_path: Path) -> None:
    module = tmp_path / "test_x.py"
    module.write_text(
        "def test_a(server, spare):\n"
        "    with spare() as driver:\n"
        "        pass\n"
        "    with server.spare() as driver:\n"
        "        pass\n"
        "def test_b(target):\n"
        "    with RawPool().lend(target) as raw:\n"
        "        pass\n"
    )
    assert _bypasses(module) == ["test_x.py:4 calls .spare()", "test_x.py:7 makes its own RawPool"]
