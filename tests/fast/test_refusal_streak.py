"""The refusal-streak probe (calls/probes.py REFUSAL_STREAK, issue 43): four refused calls in a row then a
valid call, sent by OBJ-2's append check before its search. Held-out-multi-9's fork-model-guard refuses any
call after three refusals in a row; only some seeds' search drew such a streak, so OBJ-2 was new under six of
eight seeds. Here: a real reference fork with the lockout (tests/servers/reference_fork.py `lockout`) departs
from OBJ-2 on the probe itself, and its cause says no cap and what the re-test found."""

from __future__ import annotations

import shlex
from pathlib import Path

from conformance.calls.probes import REFUSAL_STREAK, STREAK_END, probe_of
from conformance.gate.caps import cap_seen
from conformance.report.model import Report
from conformance.suite import test_store
from tests.cli import cli
from tests.servers import command


def test_the_append_check_sends_the_streak_first_under_every_seed() -> None:
    explicit = [dict(e.kwargs) for e in getattr(test_store.test_one_append_per_accepted_call,
                                                 "hypothesis_explicit_examples", [])]
    assert {"steps": list(REFUSAL_STREAK)} in explicit
    assert probe_of(REFUSAL_STREAK[-1][1]) == STREAK_END


def test_a_fork_locking_out_after_refusals_departs_from_obj2_on_the_probe(tmp_path: Path) -> None:
    """Seed 5, OBJ-2's checks only: the fork departs, and the failing check failed on the probe's call."""
    spec = "cmd:" + shlex.join(command("reference_fork", "lockout"))
    ran = cli("run", "--target", spec, "--select", "OBJ-2", "--profile", "dev", "--seed", "5",
              out=tmp_path / "out")
    assert ran.code == 1, ran.stdout + ran.stderr
    records = {r.id: r for r in Report.model_validate(ran.report).records}
    assert records["OBJ-2"].verdict == "deviates", records["OBJ-2"].reason
    assert records["OBJ-2"].probes == [STREAK_END.shape], (records["OBJ-2"].probes, records["OBJ-2"].reason)
    # The count was one short because the locked-out call was not retained, every accepted call appended: no
    # cap (it read "the history stops growing at N"), and the pair, re-tested, needs the calls before it (it
    # read "a rule between numbered fields": re-sent alone at 3 of 3 the lockout was gone).
    assert cap_seen(records["OBJ-2"].reason) == "", records["OBJ-2"].reason
    summary = next(c.summary for c in Report.model_validate(ran.report).root_causes if "OBJ-2" in c.records)
    assert "stops growing" not in summary and "numbered fields" not in summary, summary
    assert "only after the calls before it" in summary, summary
