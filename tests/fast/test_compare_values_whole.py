"""Values under 200 characters are never cut in what compare says (issue 42: `{"destructiveHint": false, "i…`
hid which hints a fork added); a longer one is still cut, so a hostile value cannot flood a headline."""

from __future__ import annotations

import json
import re

from hypothesis import assume, given
from hypothesis import strategies as st

from conformance.compare.explain import listing_clauses, outcomes
from conformance.compare.listing import object_changes, quote
from conformance.compare.wording import short
from conformance.report.model import Difference

ANNOTATIONS = {"destructiveHint": False, "idempotentHint": True, "openWorldHint": False, "readOnlyHint": True}


def test_an_added_key_of_the_listed_tool_is_shown_whole() -> None:
    value = json.dumps(ANNOTATIONS)
    d = Difference(id="tools_list.annotations.added", aspect="tools_list", summary="", field="annotations",
                   detail="added", a="no annotations", b=value)
    said = " ".join(listing_clauses(d, "base", "head", full=False))
    assert value in said, said


def test_a_schema_member_is_shown_whole() -> None:
    a = {"properties": {"n": {"type": "boolean"}}}
    union = [{"type": "boolean"}, {"enum": ["true", "false", "TRUE", "FALSE", "True", "False"]}]
    b = {"properties": {"n": {"anyOf": union}}}
    said = " ".join(object_changes(a, b, "head"))
    assert json.dumps(union, ensure_ascii=False) in said, said


def test_refusals_and_answers_under_200_characters_are_whole() -> None:
    text = ("Invalid input: expected string, received undefined; "
            "Invalid input: expected boolean, received undefined")
    assert short(text, 60) == text and quote(text, 40) == f"“{text}”"
    d = Difference(id="stderr.box", aspect="stderr", summary="", a=text, b=text[::-1])
    a, b, _ = outcomes(d, "base", "head")
    assert (a, b) == (text, text[::-1])


def test_a_value_over_200_characters_is_still_cut() -> None:
    long = "word " * 60
    assert len(short(long, 60)) == 60 and short(long, 60).endswith("…")
    assert len(quote(long, 60)) < 70


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(alphabet='ab "\\\\{}[],:é', max_size=30),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(alphabet='ab"{[', max_size=6), inner,
                                                                max_size=6),
    max_leaves=60)
_WHOLE_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _opened(text: str) -> list[str]:
    """The brackets a JSON text leaves open once its whole strings are blanked out (`"…"` left as `""`)."""
    bare = _WHOLE_STRING.sub('""', text)
    assert '"' not in bare.replace('""', ""), text  # no string left open
    still: list[str] = []
    for ch in bare:
        if ch in "[{":
            still.append(ch)
        elif ch in "]}":
            assert still and "[{"["]}".index(ch)] == still.pop(), text
    return still


@given(_JSON_VALUES, st.integers(20, 199))
def test_a_json_value_cut_short_is_closed(value: object, width: int) -> None:
    """A JSON value over 200 characters is cut as before, then its open string and brackets closed, so no
    headline shows it open (`{"content": [{"type": "text", "text": "{\\"error…`)."""
    text = json.dumps(value, ensure_ascii=False)
    assume(len(text) > 200)
    said = short(text, width)
    assert said.startswith(" ".join(text.split())[: width - 1] + "…"), said
    assert _opened(said) == [], said
