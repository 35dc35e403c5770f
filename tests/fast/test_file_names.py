"""Names the harness makes from a target spec are of bounded length: a `cmd:` line of any length gives a
results file, a transcript and a report folder a file system accepts, and two lines that share a long start
still get two names."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from conformance.suite.plugin import SLUG_CHARS, slug
from conformance.targets.specs import folder_name

LONG = "cmd:python -m reference_server " + "x" * 240


def test_a_long_cmd_line_names_a_short_file() -> None:
    name = f"results-{slug(LONG)}.json"
    assert len(slug(LONG)) <= SLUG_CHARS and len(name.encode()) < 128
    assert slug(LONG).startswith("cmd_python_-m_reference_server_xxx")
    assert slug(LONG) != slug(LONG + "y"), "a digest of the whole spec tells them apart"
    assert len(folder_name(LONG)) <= 96 and folder_name(LONG) != folder_name(LONG + "y")


def test_short_specs_keep_their_names() -> None:
    """The names reports already carry do not change."""
    assert slug("npm:0.6.2") == "npm_0.6.2"
    quiet = "DISABLE_THOUGHT_LOGGING=true npm:2025.7.1"
    assert folder_name(quiet) == "npm-2025.7.1+DISABLE_THOUGHT_LOGGING-true"


@given(st.text(min_size=1, max_size=2000))
@example(".")  # hypothesis found it: slug and folder name "."
@example("..")
@example("/.")
def test_any_spec_gives_a_bounded_plain_name(spec: str) -> None:
    for name in (slug(spec), folder_name(spec)):
        assert 0 < len(name) <= 120 and "/" not in name and name not in (".", "..")
