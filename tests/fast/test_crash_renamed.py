"""Two crashes whose words differ only in an identifier are one crash in code whose variable was renamed, not
a refusal re-worded (upstream #3014: “this.branches[validatedInput.branchId].push is not a function” on base,
“this.branches[input.branchId].push is not a function” on head was "Refusals of `branchId` are worded
otherwise … both refuse this call, in other words")."""

from __future__ import annotations

import json

from hypothesis import assume, given
from hypothesis import strategies as st

from conformance.compare.explain import explain
from conformance.compare.known_changes import default_known_changes
from conformance.report.model import Difference

NAMES = st.from_regex(r"[a-z_$][A-Za-z0-9_$]{0,11}", fullmatch=True)
TEMPLATES = st.sampled_from(["this.branches[{}.branchId].push is not a function",
                             "{}.thoughtHistory.push is not a function",
                             "{}.branches is not iterable"])


def _difference(a: str, b: str, key: str) -> Difference:
    frame = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "sequentialthinking", "arguments": {"thought": "a", "thoughtNumber": 1, "totalThoughts": 1,
                                                    "nextThoughtNeeded": False, "branchFromThought": 1,
                                                    "branchId": key}}})
    return Difference(id="answer.branchId.error-text", aspect="answer", detail="error text", field="branchId",
                      value_class="prototype key", program=[frame], summary="worded differently",
                      a=f'isError {{ "error": "{a}", "status": "failed" }}',
                      b=f'isError {{ "error": "{b}", "status": "failed" }}')


@given(TEMPLATES, NAMES, NAMES, st.sampled_from(["constructor", "toString"]),
       st.sampled_from([("base", "head"), ("a", "b")]))
def test_a_crash_naming_another_variable_is_no_re_wording(template: str, x: str, y: str, key: str,
                                                          labels: tuple[str, str]) -> None:
    assume(x != y)
    la, lb = labels
    headline = explain([_difference(template.format(x), template.format(y), key)], la, lb,
                       default_known_changes()).headline
    assert f"both crash alike, the crash's words naming another variable (`{x}` on {la}, `{y}` on {lb})" \
        in headline, headline
    assert "worded otherwise" not in headline and "in other words" not in headline, headline


@given(st.integers(0, 99), st.integers(0, 99))
def test_crashes_differing_in_a_number_are_not_said_renamed(m: int, n: int) -> None:
    assume(m != n)
    template = "Maximum call stack size exceeded at depth {}"
    headline = explain([_difference(template.format(m), template.format(n), "toString")], "base", "head",
                       default_known_changes()).headline
    assert "naming another variable" not in headline, headline
