"""A check's channel (issue 47): `package` only for a check that takes the installed package and no server,
nor the target to start one of its own; every other reads a process. The atlas groups packaging by it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from conformance.suite.plugin import observed_by


def _item(closure: set[str], direct: set[str]) -> pytest.Item:
    info = SimpleNamespace(argnames=tuple(direct))
    return SimpleNamespace(fixturenames=sorted(closure), _fixtureinfo=info)  # type: ignore[return-value]


@pytest.mark.parametrize(("closure", "direct", "channel"), [
    ({"package_dir", "package_json", "target", "target_spec"}, {"package_dir", "package_json"}, "package"),
    ({"package_dir", "evidence", "target", "target_spec"}, {"package_dir", "evidence"}, "package"),
    ({"server", "target", "target_spec", "evidence"}, {"server", "evidence"}, "process"),
    ({"server", "package_dir", "target", "target_spec"}, {"server", "package_dir"}, "process"),
    ({"target", "target_spec", "profile"}, {"target", "profile"}, "process"),
    ({"package_dir", "target", "target_spec"}, {"package_dir", "target"}, "process"),
    ({"fresh_runs", "target", "target_spec"}, {"fresh_runs", "target"}, "process"),
])
def test_a_check_reads_the_package_only_without_a_server(
    closure: set[str], direct: set[str], channel: str
) -> None:
    assert observed_by(_item(closure, direct)) == channel
