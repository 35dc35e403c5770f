"""The distribution says one thing everywhere: one version, the Pythons it supports, bounded runtime
dependencies and a constraints file inside those bounds (the wheel itself: scripts/check_wheel.py)."""

from __future__ import annotations

import configparser
import re
import tomllib
from pathlib import Path
from typing import Any

import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

import conformance

REPO = Path(__file__).resolve().parents[2]
PYTHONS = ("3.11", "3.12", "3.13")


def _project() -> dict[str, Any]:
    project: dict[str, Any] = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project


def _pins() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not an exact pin"
            pins[canonicalize_name(name)] = Version(version)
    return pins


def test_the_version_is_written_once() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["hatch"]["version"]["path"] == "conformance/__init__.py"
    Version(conformance.__version__)  # a valid release number
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = re.search(r"^## \[?(\d[^\]\s]*)\]?", changelog, re.MULTILINE)
    assert newest is not None and newest.group(1) == conformance.__version__


def test_docs_name_the_current_release_tag() -> None:
    """A `uses: …@vX.Y.Z` or `@vX.Y.Z` install line in the docs names the version the package says."""
    tagged = re.compile(r"seqthink-conformance@v(\d+\.\d+\.\d+)")
    docs = sorted(p for p in (REPO / "docs").iterdir() if p.is_file())
    for doc in [REPO / "README.md", REPO / "action.yml", *docs]:
        for version in tagged.findall(doc.read_text(encoding="utf-8")):
            assert version == conformance.__version__, f"{doc.name} names v{version}"


def test_license_and_type_markers_ship() -> None:
    assert _project()["license"] == "MIT"
    assert (REPO / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    for package in ("conformance", "reference_server"):
        assert (REPO / package / "py.typed").is_file(), package
    assert {"Homepage", "Source", "Issues", "Changelog"} <= set(_project()["urls"])


def test_supported_pythons_agree() -> None:
    """requires-python, the classifiers, tox's environments and the action's input all say 3.11–3.13."""
    project = _project()
    requires = SpecifierSet(project["requires-python"])
    assert [p for p in ("3.10", *PYTHONS, "3.14") if Version(p) in requires] == list(PYTHONS)
    classified = {c.rsplit(" :: ", 1)[1] for c in project["classifiers"] if re.fullmatch(
        r"Programming Language :: Python :: 3\.\d+", c)}
    assert classified == set(PYTHONS)
    tox = configparser.ConfigParser()
    tox.read(REPO / "tox.ini", encoding="utf-8")
    envs = {e.strip() for e in tox["tox"]["env_list"].split(",")}
    assert {f"py3{p.split('.')[1]}" for p in PYTHONS} <= envs
    assert tox["tox"]["skip_missing_interpreters"] == "true"
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    assert action["inputs"]["python-version"]["default"] in PYTHONS


def test_runtime_dependencies_are_bounded_and_pinned_inside_their_bounds() -> None:
    pins = _pins()
    for line in _project()["dependencies"]:
        requirement = Requirement(line)
        operators = {s.operator for s in requirement.specifier}
        assert ">=" in operators and "<" in operators, f"{line}: needs a lower and an upper bound"
        name = canonicalize_name(requirement.name)
        assert name in pins, f"constraints.txt pins no {requirement.name}"
        assert requirement.specifier.contains(pins[name]), f"{requirement.name}=={pins[name]} outside {line}"


def test_the_action_installs_under_the_constraints() -> None:
    action = (REPO / "action.yml").read_text(encoding="utf-8")
    assert re.search(r"pip install[^\n]*--constraint \"\$ACTION_PATH/constraints.txt\"", action)
