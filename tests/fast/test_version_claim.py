"""A protocolVersion answered whatever the client offered is the departure, not the requirements judged at it
(issue 42): held-out-multi-18's fork-host-protocol answers 2025-03-26 to every initialize, the gate judged
it as a 2025-03-26 server and SPEC-10 (a batch of two pings answered [], the original SDK's batch handling)
headed a cause of its own, read as a change of batching, while the claim was only a bullet. Real processes
of tests/servers/reference_fork.py (`version-claimed:V`)."""

from __future__ import annotations

import shlex
from pathlib import Path

from conformance.calls.meetings import meet
from conformance.catalog.spec_records import default_spec_catalog
from conformance.core.eras import AUTO
from conformance.core.protocol import PROTOCOL_VERSION
from conformance.suite.spec_checks import claimed_revision, judged_by_claim
from conformance.targets.specs import resolve_target
from tests.cli import cli
from tests.servers import command, fork_target


def test_a_claimed_version_is_told_from_a_negotiated_one_by_the_original_revisions_offer() -> None:
    claiming = meet(fork_target("version-claimed:2025-03-26"), AUTO, timeout=20)
    assert claimed_revision(claiming) == "2025-03-26"
    spec = default_spec_catalog()
    said = judged_by_claim(spec.get("SPEC-10"), claiming)
    assert said is not None and said.startswith("judged at 2025-03-26 only because initialize offering "
                                                f"{PROTOCOL_VERSION} is answered protocolVersion 2025-03-26")
    assert judged_by_claim(spec.get("SPEC-11"), claiming) is None  # binds the original's revision too
    negotiating = meet(resolve_target("reference"), AUTO, timeout=20)
    assert claimed_revision(negotiating) is None
    assert judged_by_claim(spec.get("SPEC-10"), negotiating) is None


def test_the_claim_heads_one_cause_and_the_batch_judged_at_it_follows_from_it(tmp_path: Path) -> None:
    target = "cmd:" + shlex.join(command("reference_fork", "version-claimed:2025-03-26"))
    ran = cli("run", "--target", target, "--profile", "dev", "--seed", "1", "--select", "EXT-1,SPEC-10",
              out=tmp_path / "run")
    assert ran.code == 1, ran.stderr
    causes = ran.report["root_causes"]
    assert [cause["id"] for cause in causes] == ["EXT-1"], causes
    assert causes[0]["explains"] == ["SPEC-10"], causes
    assert "protocolVersion: “2024-11-05” on the original, “2025-03-26” here" in causes[0]["summary"], causes
