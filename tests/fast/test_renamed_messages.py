"""A runtime error renamed by a change's code is that change's departure (issue 42, held-out-multi-10's
fork-dashboard-display: "this.branches[label].push is not a function" led a cause of its own beside the cause
showing labels filed as slugs). Only one identifier path renamed inside `store[…]`, with one cause showing
that store's entries changed, moves it; words added, a value changed, or no such cause leave it alone."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import checked_explanations
from conformance.gate.renamed_messages import renamed_store, renamed_under_their_change
from conformance.report.model import Evidence, RecordVerdict, RootCause
from tests.verdicts import cause, departing

names = st.from_regex(r"[a-z][a-zA-Z]{0,8}(\.[a-z][a-zA-Z]{0,8})?", fullmatch=True)
stores = st.sampled_from(["branches", "thoughtHistory", "cache"])


def _reworded(original: str, here: str) -> str:
    return f"both refuse this call, in other words: “{original}” on the original, “{here}” here"


def _crash(store: str, key: str) -> str:
    return f"this.{store}[{key}].push is not a function"


@given(store=stores, old=names, new=names)
def test_one_key_renamed_names_its_store(store: str, old: str, new: str) -> None:
    said = renamed_store(_reworded(_crash(store, old), _crash(store, new)))
    assert said == (store if old != new else "")


@given(store=stores, key=names)
def test_words_added_or_a_rule_or_a_value_are_no_rename(store: str, key: str) -> None:
    crash = _crash(store, key)
    assert renamed_store(_reworded(crash, f"❌ {crash}")) == ""
    assert renamed_store(_reworded(f"Invalid {store}[{key}]", f"Invalid {store}[x]")) == ""
    assert renamed_store(_reworded(f"{store}[1] is gone", f"{store}[2] is gone")) == ""


def _pair(difference: str) -> Evidence:
    return Evidence(reproduced=True, at="on the example's tools/call 2", original_spec="npm:0.6.2",
                    differences=[difference])


def _run(slug_difference: str) -> tuple[list[RootCause], list[RecordVerdict]]:
    """A run's three causes: an added key, labels filed otherwise (`slug_difference`), a renamed crash."""
    renamed = _pair(_reworded(_crash("branches", "validatedInput.branchId"), _crash("branches", "label")))
    slug_cause = cause("OBJ-4/a1", [], "branches").model_copy(update={"evidence": _pair(slug_difference)})
    renamed_cause = cause("RTE-8/a1", [], "renamed").model_copy(update={"evidence": renamed})
    other = cause("OBJ-4", [], "percentComplete").model_copy(update={"evidence": _pair(
        "result.content[0].text → percentComplete: absent on the original, 100 here")})
    records = [departing(c.id, c.summary).model_copy(update={"evidence": c.evidence})
               for c in (other, slug_cause, renamed_cause)]
    return [other, slug_cause, renamed_cause], records


def test_a_renamed_crash_goes_under_the_cause_rekeying_its_store() -> None:
    causes, records = renamed_under_their_change(*_run(
        "result.content[0].text → branches[0]: “probe merge” on the original, “probe-merge” here"))
    assert [c.id for c in causes] == ["OBJ-4", "OBJ-4/a1"]
    assert causes[1].explains == ["RTE-8/a1"]
    assert {rv.id: rv.explained_by for rv in records}["RTE-8/a1"] == "OBJ-4/a1"


def test_no_cause_rekeying_the_store_leaves_it_a_cause() -> None:
    given_ = _run("result.content[0].text → thoughtNumber: 1 on the original, 2 here")
    assert renamed_under_their_change(*given_) == (given_[0], given_[1])


def test_checked_explanations_places_the_rename() -> None:
    causes, _ = checked_explanations(*_run(
        "result.content[0].text → branches[0]: “probe merge” on the original, “probe-merge” here"))
    assert "RTE-8/a1" not in {c.id for c in causes}
