"""A fork refusing a revision that also branches departs on the fixed opening calls, under every seed.

Found on held-out-multi-12 (round 17's flap table): fork-strict-pointers refuses `isRevision` beside
`branchFromThought`; a baseline written under dev seed 1, whose search never drew both on one call, went
red under ci seed 22 ("new RTE-9"), whose check did. The opening calls (calls/opening.py), sent by the store
checks, the evidence replay and `compare` before anything drawn, now carry that shape, so the departure is
met under every seed. Real processes: the reference server and tests/servers/reference_fork.py
`revise-or-branch`.
"""

from __future__ import annotations

import json
import shlex
import sys
from typing import Final

from conformance.calls.opening import OPENING_CALLS
from conformance.gate.evidence import _opening_frames, _replay_both
from conformance.targets.specs import Target, resolve_target
from tests.servers import command

REFUSAL: Final = "a thought cannot both revise and branch"


def _target(argv: list[str]) -> Target:
    return resolve_target("cmd:" + shlex.join(argv))


def _refused(response: str) -> bool:
    return bool(json.loads(response).get("result", {}).get("isError"))


def test_the_opening_calls_meet_a_refused_revision_on_a_branch() -> None:
    """On fresh processes, the opening replay shows the fork refusing a call the reference accepts."""
    reference = _target([sys.executable, "-m", "reference_server"])
    fork = _target(command("reference_fork", "revise-or-branch"))
    theirs, ours = _replay_both(reference, fork, _opening_frames(), timeout=30)
    assert isinstance(theirs, list) and isinstance(ours, list), (theirs, ours)
    pairs = [(a, b) for a, b in zip(theirs, ours, strict=True) if a.method == "tools/call"]
    assert pairs
    differing = [b.response for a, b in pairs if not _refused(a.response) and _refused(b.response)]
    assert differing and all(REFUSAL in text for text in differing), differing


def test_the_revision_on_a_branch_files_under_a_label_already_opened() -> None:
    """The call adds no label: the replay's 52 labels (the opening's four, 48 more) stay what caps meet."""
    opened: list[object] = []
    both = 0
    for call in OPENING_CALLS:
        if call.get("isRevision") is True and "branchFromThought" in call:
            both += 1
            assert call.get("branchId") in opened, call
        if "branchId" in call:
            opened.append(call["branchId"])
    assert both == 1
