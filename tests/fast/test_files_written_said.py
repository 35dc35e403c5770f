"""A record whose check found files its server's processes wrote is "not replayed", never "not reproduced …
it needs state the shared process built up, or timing": a replay compares answers and stderr, and sees no
file (held-out-multi-12's fork-thought-log: ABS-1 found the log a thought over 200 characters writes on any
process, and its replay of the shared process's probe call "did not reproduce" it)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.core.failure_text import FILES_WRITTEN
from conformance.core.results import TestOutcome
from conformance.gate.evidence import unreplayable
from conformance.report.model import RecordVerdict
from tests.verdicts import assembled

CHECK = "conformance/suite/test_store.py::test_fresh_process_remembers_nothing_and_writes_nothing[cmd:fork]"
OTHER = "conformance/suite/test_identity.py::test_code_imports_no_persistence_module[cmd:fork]"


def _abs1(outcomes: list[TestOutcome]) -> RecordVerdict:
    return assembled("ABS-1", outcomes)


paths = st.lists(st.from_regex(r"(tmpdir|home|xdg_state_home)/[a-z0-9-]{1,12}/[a-z]{1,8}\.(log|json)",
                               fullmatch=True), min_size=1, max_size=4)


@given(paths)
def test_files_written_are_not_replayed(written: list[str]) -> None:
    rv = _abs1([TestOutcome(nodeid=CHECK, records=["ABS-1"], status="failed", examples=1,
                            message=f"{FILES_WRITTEN}: {', '.join(written)}", contradicted=[])])
    said = unreplayable(rv)
    assert said.startswith("not replayed: its check reads the files the server's processes wrote"), said
    assert "state" not in said and "timing" not in said, said


def test_a_failure_a_replay_can_show_beside_it_is_replayed() -> None:
    """Only when every failing check read files: a check failing on an answer beside it is replayable."""
    rv = _abs1([
        TestOutcome(nodeid=CHECK, records=["ABS-1"], status="failed", examples=1,
                    message=f"{FILES_WRITTEN}: tmpdir/a/thoughts.log", contradicted=[]),
        TestOutcome(nodeid=OTHER, records=["ABS-1"], status="failed", examples=1,
                    message="a fresh process's first accepted call reports thoughtHistoryLength 3",
                    contradicted=[]),
    ])
    assert unreplayable(rv) == ""
