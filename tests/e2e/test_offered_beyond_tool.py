"""What a server offers beyond the tool, found by the whole command line (issue 42, held-out-multi-15):

- `compare` of the reference with a fork that warns when a call raises totalThoughts and serves its history as
  a listed resource (`raise-warned+history-resource`, fork-chatty-client's and fork-protocol-upgrade's
  changes): each is a difference of its own, said with what was sent or what the resource holds;
- `run --select ABS-2` on the fork serving its history as a resource: ABS-2 departs, and its line says the
  listed resource's read quotes the stored thought (the guessed uris alone never found it).
"""

from __future__ import annotations

import shlex
from pathlib import Path

from tests.cli import cli
from tests.servers import command

COMPARE_BUDGET = "1"
"""Seconds of the compare's search and of each long probe: the warning sent and the resource listed are
compare's `offered` pass's, on fresh processes before any search (5 s searched and probed for 15 s and found
nothing more this test reads)."""


def test_compare_says_a_warning_sent_and_a_resource_listed(tmp_path: Path) -> None:
    fork = "cmd:" + shlex.join(command("reference_fork", "raise-warned+history-resource"))
    ran = cli("compare", "reference", fork, "--seed", "1", "--budget", COMPARE_BUDGET, "--label-a", "base",
              "--label-b", "head", out=tmp_path / "out")
    assert ran.code == 1, ran.stdout[-3000:] + ran.stderr[-2000:]
    differences = {d["id"]: d for d in ran.report["comparison"]["differences"]}
    sent = differences.get("notifications.call-that-raises-totalThoughts.sent")
    assert sent is not None, sorted(differences)
    warned = "head sends notifications/message (warning) “totalThoughts raised from"
    assert sent["summary"].startswith(warned), sent
    assert sent["summary"].endswith("base sends none"), sent
    assert "LOOP-A" in sent["records"], sent
    listed = differences.get("resources.thoughts-history.listed")
    assert listed is not None, sorted(differences)
    holds = "head offers resource thoughts://history, which holds the stored thought"
    assert listed["summary"].startswith(holds), listed
    assert "ABS-2" in listed["records"], listed


def test_run_reads_the_resource_a_server_lists(tmp_path: Path) -> None:
    fork = "cmd:" + shlex.join(command("reference_fork", "history-resource"))
    ran = cli("run", "--target", fork, "--seed", "1", "--select", "ABS-2", out=tmp_path / "out")
    assert ran.code == 1, ran.stdout[-3000:] + ran.stderr[-2000:]
    assert ran.verdicts()["ABS-2"] == "deviates", ran.stdout[-3000:]
    cause = next(c for c in ran.report["root_causes"] if "ABS-2" in c["records"])
    assert "the resource 'thoughts://history' the server lists, read, quotes the stored thought" in \
        cause["summary"], cause["summary"]
