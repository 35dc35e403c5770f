"""A pair's headline names the other keys of its first difference's object that differ too
(report/model.Evidence.headline, issue 42, round 14): levalicious-ts' CMP-3 said only the version,
"serverInfo.version: “0.2.0” on the original, “0.0.3” here", where the fork had added icons beside it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.report.model import Evidence

KEY = st.from_regex(r"[a-z][A-Za-z]{1,10}", fullmatch=True)


def _headline(differences: list[str]) -> str:
    return Evidence(reproduced=True, at="on the example's initialize (request 1)",
                    differences=differences).headline()


@given(keys=st.lists(KEY, min_size=2, max_size=6, unique=True))
def test_siblings_are_named_after_the_first(keys: list[str]) -> None:
    said = _headline([f"result.serverInfo.{key}: absent on the original, \"x\" here" for key in keys])
    more = len(keys) - 1
    assert f"; and {more} more beside it: " in said, said
    assert all(key in said for key in keys[1:4]), said
    assert (f" and {more - 3} more (reproduced" in said) == (more > 3), said


@given(first=KEY, other=KEY)
def test_a_difference_of_another_object_is_not_beside_it(first: str, other: str) -> None:
    said = _headline([f"result.serverInfo.{first}: “a” on the original, “b” here",
                      f"result.capabilities.tools.{other}: absent on the original, true here"])
    assert "beside it" not in said, said


def test_the_levalicious_pair() -> None:
    said = _headline(["result.serverInfo.version: “0.2.0” on the original, “0.0.3” here",
                      'result.serverInfo.icons: absent on the original, [{"src": "data:image/svg"}] here'])
    assert said.startswith("serverInfo.version: “0.2.0” on the original, “0.0.3” here; "
                           "and 1 more beside it: icons (reproduced at initialize"), said
