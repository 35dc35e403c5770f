"""compare's headline for accepted calls answered with the original's keys under other spellings says them
renamed, values alike (issue 42, held-out-multi-11's toolkit-port: "answer otherwise in `branches`,
`nextThoughtNeeded`, `next_thought_needed`, … (`branches` [] on 0.6.2, [] on …)" listed an equal key and read
as keys dropped and added). A key differing beside the renames is still said; other values are no rename."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.compare.explain import explain
from conformance.compare.known_changes import default_known_changes
from conformance.core.arguments_map import snake_case
from conformance.report.model import Difference

LA, LB = "base", "head"
KEYS = ("thoughtNumber", "totalThoughts", "nextThoughtNeeded", "thoughtHistoryLength")


def _status(values: list[int], renamed: bool, extra: bool) -> Difference:
    a: dict[str, object] = {k: v for k, v in zip(KEYS, values, strict=True)} | {"branches": []}
    b: dict[str, object] = {snake_case(k): (v if renamed else v + 1000)
                            for k, v in zip(KEYS, values, strict=True)}
    b["branches"] = []
    if extra:
        b["timestamp"] = 7
    fields = sorted({*a, *b} - {"branches"})
    return Difference(id="answer.status", aspect="answer", summary="", field="+".join(["branches", *fields]),
                      a=json.dumps(a), b=json.dumps(b), detail="", cause="status",
                      program=[json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                          "name": "sequentialthinking", "arguments": {"thought": "a", "thoughtNumber": 1,
                                                                        "totalThoughts": 1,
                                                                        "nextThoughtNeeded": False}}})])


_VALUES = st.lists(st.integers(min_value=0, max_value=99), min_size=4, max_size=4)


@given(values=_VALUES, extra=st.booleans())
def test_keys_spelled_otherwise_with_their_values_are_renamed(values: list[int], extra: bool) -> None:
    line = explain([_status(values, renamed=True, extra=extra)], LA, LB, default_known_changes()).headline
    assert "keys renamed on head, values alike: `thoughtNumber` → `thought_number`" in line
    assert "`branches`" not in line  # equal on both sides
    assert ("`timestamp`" in line) is extra


@given(values=_VALUES)
def test_other_values_are_no_rename(values: list[int]) -> None:
    line = explain([_status(values, renamed=False, extra=False)], LA, LB, default_known_changes()).headline
    assert "renamed" not in line
