"""A list answered longer, its items of another type added at the end beside changes in the first items, is
said item by item (core/differences.py `_items_added_at_the_end`, issue 42: held-out-multi-14's
rich-results answered a final thought with a second, `resource`, content item beside its nested count, said
only as one dump of both lists)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.differences import json_differences

KINDS = st.sampled_from(["resource", "image", "resource_link", "audio"])


@given(count=st.integers(1, 2000), kinds=st.lists(KINDS, min_size=1, max_size=3),
       uri=st.text("abc:/", min_size=1, max_size=12))
def test_items_of_another_type_added_at_the_end_are_said_beside_the_first_items_changes(
        count: int, kinds: list[str], uri: str) -> None:
    theirs = [{"type": "text", "text": json.dumps({"thoughtHistoryLength": count, "branches": []})}]
    nested = json.dumps({"session": {"thoughtHistoryLength": count, "branches": []}})
    ours = [{"type": "text", "text": nested}, *({"type": kind, "resource": {"uri": uri}} for kind in kinds)]
    said = [d.said() for d in json_differences({"content": theirs}, {"content": ours})]
    assert any(line.startswith("content[0].text → session: absent on the original") for line in said), said
    assert said[-1].startswith(f"content: 1 item(s) on the original, {1 + len(kinds)} here: "
                               f"{len(kinds)} item(s) of type "), said
    assert all(f"`{kind}`" in said[-1] for kind in kinds)


def test_items_of_the_same_type_are_left_to_the_list_rules() -> None:
    """A text item added beside a changed text item is no item of another kind: not said so."""
    said = [d.said() for d in json_differences({"content": [{"type": "text", "text": "a"}]},
                                               {"content": [{"type": "text", "text": "b"},
                                                            {"type": "text", "text": "c"}]})]
    assert not any("added at the end" in line for line in said)
