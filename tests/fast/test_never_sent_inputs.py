"""Inputs the harness never sent, and so changes it never saw (issue 42, held-out-multi-14): a request id that
is a string of digits, a thought in Hebrew and Arabic, calls written right behind a long one, a revision
carrying a label without a branch point. Each fork of tests/servers/reference_fork.py changes one of them;
the check that now sends the input departs on it, in the words of what changed. (The reference passes each
check in the suite's own run against it.)"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.servers import command, suite_outcomes

CASES = [
    ("digit-ids", "test_lifecycle.py", "test_one_response_per_request_and_nothing_else",
     'the request with the id "24" was answered with the id 24'),
    ("rtl-isolated", "test_render.py", "test_single_line_payload_verbatim",
     "where the thought \"probe: שלום עולם and مرحبا بالعالم\" was due verbatim"),
    ("deferred-long", "test_lifecycle.py", "test_calls_written_behind_a_long_one_are_processed_after_it",
     "LOOP-B contradicted: 2 calls written right behind one whose thought is 3023 UTF-16 units long were "
     "answered in the order loop-b-1, loop-b-2, loop-b-0"),
    ("revision-filed", "test_branches.py", "test_silent_branch_miss",
     'after a revision (isRevision true) carrying branchId "never-recorded" and no branchFromThought'),
]


@pytest.mark.parametrize(("fork", "suite_file", "check", "said"), CASES, ids=[case[0] for case in CASES])
def test_the_input_is_sent_and_its_change_said(tmp_path: Path, fork: str, suite_file: str, check: str,
                                               said: str) -> None:
    target = "cmd:" + shlex.join(command("reference_fork", fork))
    seen = suite_outcomes(suite_file, [check], target, tmp_path)
    status, message = seen[check]
    assert status == "failed", seen
    assert said in message, message
