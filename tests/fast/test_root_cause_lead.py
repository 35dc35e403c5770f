"""The Root causes lead counts causes, never behaviour changes (issue 42): one change may lead two causes
(a schema property under CMP-2 and OBJ-13) and two changes may share one, so "N behaviour changes explain
every departure" was false on forks nobody tuned on."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.report.model import RootCause
from conformance.report.sections.root_causes import Causes, html, markdown, markdown_folded, terminal

_ids = st.lists(st.from_regex(r"[A-Z]{3}-[0-9]{1,2}", fullmatch=True), min_size=1, max_size=3, unique=True)


def _cause(i: int, records: list[str]) -> RootCause:
    return RootCause(id=f"c{i}", records=records, summary=f"{records[0]} departs — x", explains=[f"EXP-{i}"])


@given(st.lists(_ids, min_size=1, max_size=5), st.integers(min_value=0, max_value=4))
def test_lead_counts_causes_not_changes(records: list[list[str]], loose: int) -> None:
    """Every writer's lead says the number of causes and nothing about behaviour changes."""
    causes = Causes(tuple(_cause(i, r) for i, r in enumerate(records)),
                    tuple((f"LOOSE-{i}", "a line") for i in range(loose)))
    n = len(records)
    said = [markdown(causes, 1)[2], markdown_folded(causes, 1)[2], str(html(causes)[1])]
    for lead in said:
        assert f"{n} root cause{'s' if n != 1 else ''};" in lead, lead
        assert "behaviour change" not in lead, lead
        assert ("every other departure is explained by" in lead) == (loose == 0), lead
        if loose:
            assert f"{loose} departure{'s are' if loose != 1 else ' is'} not explained by a cause" in lead
    assert "below" not in markdown_folded(causes, 1)[2]
    assert f"root causes ({n})" in terminal(causes)[0]
