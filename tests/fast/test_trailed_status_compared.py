"""A status object with text after it (stopuncle-js' "---" section) is compared field by field, the trail
apart (core/differences.json_differences, issue 42, round 14): read as one text, the evidence replay found no
status field's change in it and said OBJ-4 "not reproduced … no difference of this cause's"."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.differences import explain
from conformance.core.jsontypes import JSON

KEYS = st.from_regex(r"[a-z][A-Za-z]{1,12}", fullmatch=True)


def _answer(text: str) -> JSON:
    return {"jsonrpc": "2.0", "result": {"content": [{"type": "text", "text": text}]}}


@given(added=KEYS, value=st.text(min_size=1, max_size=20), lines=st.lists(
    st.from_regex(r"[A-Za-z:][A-Za-z :]{0,30}", fullmatch=True), min_size=1, max_size=5))
def test_a_trailed_status_shows_its_fields(added: str, value: str, lines: list[str]) -> None:
    """The added field is said by its key, and the trail by its line count (the "---" one of them); the
    plain status on the original."""
    status: dict[str, JSON] = {"thoughtNumber": 1, "totalThoughts": 3, "nextThoughtNeeded": True}
    theirs = json.dumps(status, indent=2)
    ours = json.dumps({**status, added: value} if added not in status else status, indent=2)
    ours += "\n\n---\n" + "\n".join(lines)
    said = [d.said() for d in explain(_answer(theirs), _answer(ours))]
    if added not in status:
        assert any(s.startswith(f"result.content[0].text → {added}: absent on the original") for s in said)
    assert said[-1] == (f"result.content[0].text: a JSON object followed by {len(lines) + 1} more line(s) of "
                        "text here where the original has a JSON object")


@given(number=st.integers(min_value=1, max_value=99))
def test_alike_trails_say_only_the_fields(number: int) -> None:
    """Both sides trailing the same section: only the changed field differs, no trail difference."""
    trail = "\n\n---\nNext: keep going"
    theirs = json.dumps({"thoughtNumber": 1, "totalThoughts": 3}) + trail
    ours = json.dumps({"thoughtNumber": number + 1, "totalThoughts": 3}) + trail
    said = [d.said() for d in explain(_answer(theirs), _answer(ours))]
    assert said == [f"result.content[0].text → thoughtNumber: 1 on the original, {number + 1} here"]
