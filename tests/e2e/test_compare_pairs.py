"""Generated pairs of servers whose one change is known: the original and a copy that converts strings for
a chosen set of fields before its own checks, compared in a chosen direction. The headline of the cause
that groups the acceptance differences must state that direction, name only fields of the set, name the
same fields its differences show, and say "behaves like upstream #3428" exactly when #3428's recorded
signature is met (headlines without servers: tests/fast/test_compare_explain.py). Three distinct pairs per
run, drawn at once and not shrunk: each is a comparison of two real servers, and the three are made side by
side. The acceptance differences are the fixed witnesses' (a numeric or boolean string for each field, the
search's second to fifth programs) and the coercion exploration's (no budget bounds it), so a 2 s search
budget shows them as a longer one does, as it does for `compare npm:2025.12.18 npm:2026.7.4`
(tests/e2e/test_compare_cli.py); the long probes, bounded by the same budget, check nothing here."""

from __future__ import annotations

import re
import tempfile
from functools import partial
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from conformance.compare import run_comparison
from conformance.compare.engine import ComparisonOutcome
from tests.e2e.test_compare_modified import ORIGINAL, PATCH_ANCHOR, patched_original
from tests.side_by_side import side_by_side

CONVERTIBLE = ("thoughtNumber", "totalThoughts", "nextThoughtNeeded")
"""The fields the original checks by type: a string given for one is refused before the change."""
REQUIRED_3428 = {"thoughtNumber", "totalThoughts", "nextThoughtNeeded"}


def converting(folder: Path, fields: frozenset[str]) -> str:
    """A copy of the original that converts decimal strings (numbers) and "true"/"false" (booleans) for
    `fields` before validating them."""
    lines = []
    for name in sorted(fields):
        if name == "nextThoughtNeeded":
            lines.append(f"        if (data.{name} === 'true' || data.{name} === 'false') "
                         f"{{ data.{name} = data.{name} === 'true'; }}\n")
        else:
            lines.append(f"        if (typeof data.{name} === 'string' && /^[0-9]+$/.test(data.{name})) "
                         f"{{ data.{name} = Number(data.{name}); }}\n")
    return patched_original(folder, "converts-" + "-".join(sorted(fields)), PATCH_ANCHOR, "".join(lines))


PAIR = st.tuples(st.frozensets(st.sampled_from(CONVERTIBLE), min_size=1), st.booleans())
"""The fields a copy converts, and whether it is the head (the second side)."""


def _compared(pair: tuple[frozenset[str], bool]) -> ComparisonOutcome:
    fields, head_converts = pair
    with tempfile.TemporaryDirectory(prefix="pair-") as tmp:
        changed = converting(Path(tmp), fields)
        a, b = (ORIGINAL, changed) if head_converts else (changed, ORIGINAL)
        return run_comparison(a, b, seed=11, budget_s=2, labels=("before", "after") if head_converts
                              else ("after", "before"))


@settings(max_examples=1, deadline=None, database=None, phases=(Phase.explicit, Phase.generate),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.nested_given])
@given(st.lists(PAIR, min_size=3, max_size=3, unique=True))
def test_the_headline_of_a_generated_change_states_it(pairs: list[tuple[frozenset[str], bool]]) -> None:
    """Three pairs drawn at once, compared side by side: each comparison waits on its servers and its
    search's clock, so three take about the wall time of one."""
    for (fields, head_converts), outcome in zip(pairs, side_by_side(*(partial(_compared, p) for p in pairs)),
                                                strict=True):
        _states_the_change(fields, head_converts, outcome)


def _states_the_change(fields: frozenset[str], head_converts: bool, outcome: ComparisonOutcome) -> None:
    accepting = [d for d in outcome.comparison.differences if d.aspect == "is_error"]
    assert accepting, outcome.comparison.differences
    refused_by = "a" if head_converts else "b"
    assert {d.detail for d in accepting} == {f"refused by {refused_by}"}, accepting
    shown = {d.field for d in accepting}
    assert shown <= fields, (shown, fields)
    causes = [c for c in outcome.root_causes if set(c.differences) & {d.id for d in accepting}]
    assert len(causes) == 1, causes
    headline = causes[0].summary
    clause = headline.split(";")[0]
    assert clause.startswith("after accepts "), headline
    assert "that before refuses" in clause, headline
    assert set(re.findall(r"`(\w+)`", clause)) == shown, headline
    assert set(re.findall(r"`(\w+)`", headline)) <= fields, headline
    named_3428 = head_converts and shown >= REQUIRED_3428
    assert ("behaves like upstream #3428" in headline) is named_3428, headline
    assert causes[0].upstream == (["#3428"] if named_3428 else [])
    rows = {r.field.strip("`"): (r.a, r.b) for r in causes[0].rows if r.field.strip("`") in shown}
    want = ("refused", "accepted") if head_converts else ("accepted", "refused")
    assert rows and set(rows.values()) == {want}, causes[0].rows
