"""A pair's headline names the other keys of its first difference's object that differ too
(report/model.Evidence.headline, issue 42, round 14): levalicious-ts' CMP-3 said only the version,
"serverInfo.version: “0.2.0” on the original, “0.0.3” here", where the fork had added icons beside it."""

from __future__ import annotations

from hypothesis import assume, example, given
from hypothesis import strategies as st

from conformance.gate.evidence import beside_apart
from conformance.report.model import Evidence
from tests.verdicts import cause

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


@given(first=KEY, other=KEY, third=KEY)
@example(first="bA", other="be", third="aA")
def test_a_sibling_another_cause_leads_with_is_not_beside_it(first: str, other: str, third: str) -> None:
    # agiprolabs-ts: CMP-2 said "; and 1 more beside it: description", the change CMP-2/a2's pair leads with.
    assume(len({first, other, third}) == 3)
    assume(other not in first and other not in third)  # "bA" is read inside "bAA": no key inside another
    mine = [f"result.tools[0].{first}: absent on the original, \"x\" here",
            f"result.tools[0].{other}: “a” on the original, “b” here",
            f"result.tools[0].{third}: absent on the original, 1 here"]
    theirs = [f"result.tools[0].{other}: “a” on the original, “b” here"]
    both = [cause(rid, [], "").model_copy(update={"evidence": Evidence(
        reproduced=True, at="on the example's tools/list (request 2)", differences=differences)})
        for rid, differences in (("CMP-2", mine), ("CMP-2/a2", theirs))]
    both = [c.model_copy(update={"summary": f"{c.id} departs — {c.evidence.headline()}"})
            for c in both if c.evidence is not None]
    said = beside_apart(both, [])[0][0].summary
    # The siblings named, not any word of the sentence: a key "be" is in "beside".
    named = said.partition(" beside it: ")[2].partition(" (reproduced")[0].split(", ")
    assert f"; and 1 more beside it: {third} (reproduced" in said and other not in named, said
    alone = beside_apart(both[:1], [])[0][0].summary  # no other cause: both siblings named, as before
    assert f"; and 2 more beside it: {other}, {third}" in alone, alone
