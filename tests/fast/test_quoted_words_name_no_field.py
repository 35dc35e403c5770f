"""A field is named by a check's own words, not by a text it quotes in straight quotes (gate/evidence._tells,
issue 42, round 14): stopuncle-js' BAP-1 and BAP-6 quoted its description "… the ability to create branches
…" and went under OBJ-4, whose pair shows `branches` dropped from the answer, once that pair reproduced."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.evidence import _tells

DROPPED = "result.content[0].text → branches: [] on the original, absent here"
WORDS = st.lists(st.from_regex(r"[a-z]{2,9}", fullmatch=True), min_size=1, max_size=6)


@given(before=WORDS, after=WORDS, closed=st.booleans())
def test_a_quoted_description_names_no_field(before: list[str], after: list[str], closed: bool) -> None:
    quoted = f"{' '.join(before)} the ability to create branches {' '.join(after)}"
    end = '"' if closed else ""
    message = ("the description the official client got has no numbered rules under 'You should:': "
               f"\"{quoted}{end}")
    assert not _tells(DROPPED, message, strict=True)


@given(quote=st.sampled_from(["'branches'", "\"branches\"", "branches"]))
def test_the_checks_own_word_for_the_field_still_names_it(quote: str) -> None:
    message = (f"the status object has no {quote}, where the original answers thoughtHistoryLength "
               "and branches")
    assert _tells(DROPPED, message, strict=True)


ADDED = "result.content[0].text → tags: absent on the original, [\"6\"] here"


@given(keys=st.lists(st.from_regex(r"[a-z][A-Za-z]{2,12}", fullmatch=True), min_size=1, max_size=5,
                     unique=True),
       pretty=st.booleans(), thought=st.from_regex(r"#[a-z0-9]{1,8}", fullmatch=True))
def test_an_answer_quoted_as_json_still_names_its_keys(keys: list[str], pretty: bool, thought: str) -> None:
    # The gap after a quoted value (`", the answer has … { "`) and between a JSON answer's strings are not
    # quoted texts: the key the check names is named (held-out-multi-5's hashtags fork lost its `tags` cause).
    fields = [f'"{k}": {i}' for i, k in enumerate(k for k in keys if k != "tags")] + ['"tags": [ "6" ]']
    answer = ("{ " + ", ".join(fields) + " }") if pretty else ("{" + ",".join(fields) + "}")
    message = (f"for the call with thought \"{thought}\", the answer has 1 field(s) more than thoughtNumber: "
               f"tags: the answer {answer}")
    assert _tells(ADDED, message, strict=True)
