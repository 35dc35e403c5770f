"""The run's hypothesis phases: shrinking on (a minimal counterexample is evidence), the explain phase off,
since the report drops every line it writes (`core/failure_text.readable_example`) and it costs a red run a
line tracer on every example after the first failure (issue 46)."""

from __future__ import annotations

import pytest
from hypothesis import Phase, settings

from conformance.core.failure_text import readable_example
from conformance.suite.profiles import PROFILES, SHRINK_ENV, register_profiles


@pytest.mark.parametrize("name", PROFILES)
def test_every_profile_shrinks_and_does_not_explain(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SHRINK_ENV, raising=False)
    register_profiles()
    phases = set(settings.get_profile(f"conformance-{name}").phases)
    assert Phase.explain not in phases, phases
    assert {Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink} <= phases, phases


def test_what_the_explain_phase_writes_is_not_shown() -> None:
    """Were the phase on, nothing it adds would reach the report: the comment on a value and its
    Explanation block are both dropped from the counterexample."""
    text = ("Falsifying example: test_x(\n    server=<session>,\n"
            "    value=3,  # or any other generated value\n)\n"
            "Explanation:\n    These lines were always and only run by failing examples:\n        /x.py:4")
    assert readable_example(text) == "Falsifying example:\n    value=3", readable_example(text)
