"""Which runs a module makes ahead (with the session's `ahead` pool, tests/e2e/conftest.py): those of its
selected tests only, so `-k` choosing one test makes one run."""

from __future__ import annotations

from collections.abc import Sequence

import pytest


def selected(request: pytest.FixtureRequest, argname: str) -> list[str]:
    """The values of parameter `argname` among the selected tests of the requesting module, in order: the
    runs made ahead are those of the tests that will run (`-k` picks one, one run is made)."""
    values = [
        str(item.callspec.params[argname])
        for item in request.session.items
        if isinstance(item, pytest.Function) and item.module is request.module
        and hasattr(item, "callspec") and argname in item.callspec.params
    ]
    return list(dict.fromkeys(values))


def used(request: pytest.FixtureRequest, names: Sequence[str]) -> list[str]:
    """Which of the fixtures `names` a selected test of the requesting module uses."""
    wanted = {
        name
        for item in request.session.items
        if isinstance(item, pytest.Function) and item.module is request.module
        for name in item.fixturenames
    }
    return [name for name in names if name in wanted]
