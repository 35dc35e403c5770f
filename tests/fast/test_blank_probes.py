"""A blank thought beside a field the original throws on after validation, sent by RTE-8/a1's checks before
their search (calls/probes.py's WHITESPACE_PROBES, issue 43): a fork refusing a blank thought first departs
there "in other words" under every seed, not only under the seeds whose search drew such a thought.

Round 11's held-out-multi-6 strict-schema fork: RTE-8/a1 ("both refuse this call, in other words: “Cannot
convert object to primitive value” on the original, “Invalid thought: must be a string” here") departed
under dev 44, 55 and ci 11, 22 only, matching no pinned pair. Real processes: tests/servers/reference_fork.py
`blank-refused` and the original, by the command line with the built-in suite's RTE-8/a1 checks.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from conformance.calls.probes import PROBES, WHITESPACE_PROBES
from conformance.report.model import Report
from tests.cli import cli
from tests.servers import command

ENVELOPE_CHECKS = ("test_error_answer_after_retention", "test_render_failure_after_retention",
                   "test_label_recorded_before_the_render_fails")


@pytest.mark.parametrize("seed", [1, 44])
def test_a_blank_thought_beside_a_throwing_field_is_reached_under_every_seed(
        tmp_path: Path, seed: int) -> None:
    spec = "cmd:" + shlex.join(command("reference_fork", "blank-refused"))
    ran = cli("run", "--target", spec, "--select", "RTE-8/a1", "--profile", "dev", "--seed", str(seed),
              out=tmp_path / "out")
    assert ran.code == 1, ran.stdout + ran.stderr
    [rv] = [r for r in Report.model_validate(ran.report).records if r.id == "RTE-8/a1"]
    assert rv.verdict == "deviates", rv.reason
    failed = {t.nodeid.split("::")[1].split("[")[0]: t for t in rv.tests if t.status == "failed"}
    assert set(ENVELOPE_CHECKS) <= set(failed), sorted(failed)
    for name in ENVELOPE_CHECKS:
        assert "must not be blank" in failed[name].message, failed[name].message
    # Each failing check failed on a probe, the first blank one its explicit examples send.
    first_blank = next(p for p in PROBES if p in WHITESPACE_PROBES)
    assert rv.probes == [first_blank.shape], (rv.probes, rv.counterexample)
    evidence = rv.evidence
    assert evidence is not None and evidence.reproduced, evidence
    assert "both refuse this call, in other words" in evidence.differences[0], evidence.differences
