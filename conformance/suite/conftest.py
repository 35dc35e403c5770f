"""Suite-wide fixtures: the active profile, target-independent snapshots, the installed npm package."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.amber import AmberSnapshotExtension
from syrupy.location import PyTestLocation
from syrupy.types import SnapshotIndex

from conformance.core.inputs import PACKAGE_BYTES, read_json
from conformance.drivers.sdk import SdkDriver
from conformance.suite import snapshots
from conformance.suite.contradiction import brief
from conformance.suite.plugin import target_specs
from conformance.suite.profiles import GROWTH_CALLS, PROFILES, Profile, default_profile
from conformance.suite.session import ServerSession
from conformance.targets.project import package_dir_of
from conformance.targets.specs import Target


def pytest_configure(config: pytest.Config) -> None:
    """Snapshots are the original's answers, not run state: a run that skips or deselects their tests (a
    collect-only pass, a fork's subset) must not fail for leaving them unused."""
    if hasattr(config.option, "warn_unused_snapshots"):
        config.option.warn_unused_snapshots = True


def pytest_collection_modifyitems(config: pytest.Config) -> None:
    """A run that would rewrite the snapshots from anything but the original, or inside an installed harness,
    stops before any test runs (here, not at configure time: loaded by --pyargs, this file is read only
    while collecting, where a refusal would be a collection error rather than a usage error)."""
    if getattr(config.option, "update_snapshots", False):
        refusal = snapshots.update_refusal(target_specs(config))
        if refusal is not None:
            raise pytest.UsageError(refusal)


class TargetIndependentSnapshot(AmberSnapshotExtension):
    """Names snapshots by test function, not by target parameter: every target meets the original's."""

    @classmethod
    def get_snapshot_name(cls, *, test_location: PyTestLocation, index: SnapshotIndex = 0) -> str:
        base = test_location.methodname
        if test_location.classname is not None:
            base = f"{test_location.classname}.{base}"
        if isinstance(index, str):
            return f"{base}[{index}]"
        return f"{base}.{index}" if index else base


@pytest.fixture
def original_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    """A snapshot generated against npm:0.6.2 (`--snapshot-update`), compared whatever the target."""
    return snapshot.use_extension(TargetIndependentSnapshot)


@pytest.fixture(scope="session")
def profile(request: pytest.FixtureRequest) -> Profile:
    chosen = request.config.getoption("conformance_profile")
    for name in PROFILES:
        if chosen == name:
            return name
    return default_profile()


@pytest.fixture(scope="session")
def growth_calls(profile: Profile) -> int:
    return GROWTH_CALLS[profile]


@pytest.fixture(scope="session")
def host(server: ServerSession) -> Iterator[SdkDriver]:
    """One realistic host (the official mcp client) per target, shared by the host-side tests."""
    with server.host() as driver:
        yield driver



@pytest.fixture(scope="session")
def package_dir(target: Target) -> Path:
    """The installed package's directory (artifact checks); other targets skip."""
    found = package_dir_of(target)
    if found is None:
        pytest.skip("not an npm package target: the installed artifact is not observable")
    return found


@pytest.fixture(scope="session")
def package_json(package_dir: Path) -> dict[str, object]:
    loaded = read_json(package_dir / "package.json", what="package.json", limit=PACKAGE_BYTES)
    assert isinstance(loaded, dict), f"the target's package.json is not a JSON object: {brief(loaded)}"
    return loaded
