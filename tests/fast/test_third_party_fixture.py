"""fixtures/third_party.yaml, the real third-party servers scripts/third_party.py rebuilds and gates: valid
against its schema, the set issues 42 and 46 ask for (TypeScript forks and Python ports), and the uv.lock
reader that builds a Python port with the versions its maintainer locked."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml

from scripts.third_party import FIXTURE, SCHEMA, Implementation, build, load, locked_requirements


def test_the_fixture_is_valid_and_holds_two_forks_and_two_ports() -> None:
    implementations = load()
    languages = [i.language for i in implementations]
    assert languages.count("typescript") >= 2 and languages.count("python") >= 2, languages
    for impl in implementations:
        assert "{dir}" in impl.launch, impl.id  # started from its build folder, wherever the run starts
        assert impl.build, impl.id


@pytest.mark.parametrize(("field", "value"), [("commit", "main"), ("language", "go"), ("why", "")])
def test_the_schema_refuses_an_entry_that_does_not_say_what_was_built(field: str, value: str) -> None:
    data = yaml.safe_load(FIXTURE.read_text(encoding="utf-8"))
    data["implementations"][0][field] = value
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, json.loads(SCHEMA.read_text(encoding="utf-8")))


def test_an_id_used_twice_is_refused(tmp_path: Path) -> None:
    data = yaml.safe_load(FIXTURE.read_text(encoding="utf-8"))
    data["implementations"][1]["id"] = data["implementations"][0]["id"]
    copy = tmp_path / "third_party.yaml"
    copy.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ValueError, match="used twice"):
        load(copy)


LOCK = """
version = 1
requires-python = ">=3.11"

[[package]]
name = "port"
version = "0.1.0"
source = { virtual = "." }
dependencies = [
    { name = "mcp", extra = ["cli"] },
    { name = "pywin32", marker = "sys_platform == 'win32'" },
]

[package.dev-dependencies]
dev = [{ name = "pytest" }]

[[package]]
name = "mcp"
version = "1.7.1"
source = { registry = "https://pypi.org/simple" }
dependencies = [{ name = "Pydantic" }]

[package.optional-dependencies]
cli = [{ name = "typer" }]

[[package]]
name = "pydantic"
version = "2.11.4"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "typer"
version = "0.15.3"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "pywin32"
version = "310"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "pytest"
version = "8.3.5"
source = { registry = "https://pypi.org/simple" }
"""


def test_the_locked_versions_are_what_the_project_reaches_here_extras_followed() -> None:
    linux = {"sys_platform": "linux", "platform_system": "Linux"}
    assert locked_requirements(LOCK, linux) == ["mcp==1.7.1", "pydantic==2.11.4", "typer==0.15.3"]
    windows = {"sys_platform": "win32", "platform_system": "Windows"}
    assert "pywin32==310" in locked_requirements(LOCK, windows)


def test_a_lock_without_its_project_is_refused() -> None:
    with pytest.raises(ValueError, match="expected one project"):
        locked_requirements(LOCK.replace('source = { virtual = "." }', 'source = { registry = "x" }'))


def test_excluded_paths_are_not_exported_and_the_rest_is(tmp_path: Path) -> None:
    """A commit holding its node_modules (whose largest blobs a fetched copy may lack) is exported without
    them; the build installs them anew."""
    source = tmp_path / "source"
    (source / "node_modules" / "pkg").mkdir(parents=True)
    (source / "node_modules" / "pkg" / "index.js").write_text("x", encoding="utf-8")
    (source / "index.ts").write_text("y", encoding="utf-8")
    git = ["git", "-C", str(source), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(source)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "c"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True,
                            text=True).stdout.strip()
    mirrors = tmp_path / "mirrors"
    (mirrors / "o+n").mkdir(parents=True)
    (mirrors / "o+n" / "repo").symlink_to(source / ".git")
    work = tmp_path / "work"

    def export(exclude: tuple[str, ...]) -> set[str]:
        impl = Implementation(id="x", repo="o/n", commit=commit, language="typescript", licence="MIT",
                              build=(("true",),), launch="node {dir}/i.js", env={}, gate_args=(), why="t",
                              exclude=exclude)
        build(impl, mirrors, work)
        return {str(p.relative_to(impl.folder(work))) for p in impl.folder(work).rglob("*") if p.is_file()}

    assert export(("node_modules",)) == {"index.ts"}
    assert export(()) == {"index.ts", "node_modules/pkg/index.js"}


def test_a_variable_may_name_the_built_folder(tmp_path: Path) -> None:
    """agiprolabs-ts keeps its store under DATA_PATH: `{dir}` there is the built folder, as in the launch, so
    the store stays beside the build, not in the folder the gate runs from."""
    impl = Implementation(id="x", repo="o/n", commit="0" * 40, language="typescript", licence="MIT",
                          build=(("true",),), launch="node {dir}/i.js", env={"DATA_PATH": "{dir}/data"},
                          gate_args=(), why="t")
    folder = impl.folder(tmp_path)
    assert impl.target(tmp_path) == f"DATA_PATH={folder}/data cmd:node {folder}/i.js"
