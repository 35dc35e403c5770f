"""compare --cross on real releases: 2025.12.18 installed with 2026.7.4's dependency tree. The refusal text
gaining `"inclusive": true` comes with zod 4.2.1 → 4.4.3 (the crossed package answers as 2026.7.4), while
the numeric-string coercion is 2026.7.4's own code (the crossed package answers as 2025.12.18). The two
minimal programs are those `compare npm:2025.12.18 npm:2026.7.4` reports for these differences. Both tests
check the same two releases and crossed install, resolved once (each resolution checks the install against
its digests)."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from conformance.compare.crossing import cross_call, crossed_target, crossing_of, swapped_targets
from conformance.compare.programs import Program, Step, valid
from conformance.targets.specs import Target, default_cache_dir, resolve_target

TOO_BIG: Program = (Step(arguments=valid() | {"thoughtNumber": 9007199254740994}),)
AS_STRING: Program = (Step(arguments=valid() | {"thoughtNumber": "1"}),)


class Crossed(NamedTuple):
    a: Target
    b: Target
    crossed: Target


@pytest.fixture(scope="module")
def releases() -> Crossed:
    """2025.12.18, 2026.7.4, and 2025.12.18 installed with 2026.7.4's tree."""
    cache = default_cache_dir()
    a = resolve_target("npm:2025.12.18", cache_dir=cache)
    b = resolve_target("npm:2026.7.4", cache_dir=cache)
    return Crossed(a, b, crossed_target(a, b, cache, lambda _line: None))


def test_crossing_puts_the_refusal_text_in_the_dependencies_and_the_coercion_in_the_code(
    releases: Crossed
) -> None:
    a, b, crossed = releases
    assert crossed.identity.package_version == "2025.12.18"
    assert crossed.identity.dependencies == b.identity.dependencies
    crossing = crossing_of(a, b, crossed, "2025.12.18", "2026.7.4")
    assert "zod 4.2.1 → 4.4.3" in crossing.crossed_changes
    assert cross_call(a, b, crossed, TOO_BIG, "answer.thoughtNumber.error-text", 10.0)[0] == "dependencies"
    assert cross_call(a, b, crossed, AS_STRING, "is_error.thoughtNumber.numeric-string.refused-by-a",
                      10.0)[0] == "code"


def test_one_dependency_at_a_time_names_zod_for_the_refusal_text(releases: Crossed) -> None:
    """Issue 47: zod alone, moved either way (the rest of each side's locked tree pinned), moves the
    `"inclusive": true` refusal; the SDK alone does not. Each swap moves that one package: its install's
    lockfile differs from its side's in the swapped package and in no package both hold."""
    a, b, crossed = releases
    swaps = swapped_targets(a, b, default_cache_dir(), lambda _line: None,
                            packages={"zod", "@modelcontextprotocol/sdk"})
    assert sorted((s.change.split(" ")[0], s.code) for s in swaps) == [
        ("@modelcontextprotocol/sdk", "a"), ("@modelcontextprotocol/sdk", "b"), ("zod", "a"), ("zod", "b")]
    assert all(s.target is not None for s in swaps), [s.error for s in swaps]
    assert [m for s in swaps for m in s.also_moved if " none → " not in m and not m.endswith(" → none")] == []
    origin, said = cross_call(a, b, crossed, TOO_BIG, "answer.thoughtNumber.error-text", 10.0, swaps)
    assert origin == "dependencies"
    found = {(s.change.split(" ")[0], s.code): s.answers_as for s in said}
    assert found[("zod", "a")] == "b" and found[("zod", "b")] == "a", found
    assert found[("@modelcontextprotocol/sdk", "a")] == "a", found
