"""The branch-depth fork: a branch of a branch of a branch refused, as round 10's blind fork did (issue 43).

A fork refusing branches nested more than 2 deep departs only when a call branches from a thought that was
itself filed two branches deep. The search draws such a call under some seeds and not others, and which
record's check meets it differs from seed to seed (RTE-3 under dev seed 1, CMP-1 under dev seed 33 in round
10): the case a baseline entry pinning only its record's canonical witness did not cover. Kept out of the
measured catalogue (modifications.yaml) so no measured set changes; benchmarks/flap.py and
tests/fast/test_pinned_pair.py build it with the same `materialize`.
"""

from __future__ import annotations

from typing import Final

from tests.modified_servers.servers import Modification, Patch

DEPTH_REFUSAL: Final = "Invalid branchFromThought: branches nest at most 2 deep"

BRANCH_DEPTH: Final = Modification(
    id="fork-branch-depth",
    set="tuning",
    change=("a thought branching from a thought filed two branches deep is refused with "
            f"\"{DEPTH_REFUSAL}\" (main-line thoughts are depth 0, a branch thought one deeper than the "
            "thought it branches from, the latest thought of a number deciding its depth)"),
    patches=(Patch(
        find="            this.thoughtHistory.push(validatedInput);\n",
        replace=(
            "            this.depthOf = this.depthOf || {};\n"
            "            const depth = validatedInput.branchFromThought && validatedInput.branchId\n"
            "                ? (this.depthOf[validatedInput.branchFromThought] || 0) + 1 : 0;\n"
            "            if (depth > 2) {\n"
            f"                throw new Error('{DEPTH_REFUSAL}');\n"
            "            }\n"
            "            this.depthOf[validatedInput.thoughtNumber] = depth;\n"
            "            this.thoughtHistory.push(validatedInput);\n")),),
    primary=("RTE-3",),
)
"""RTE-3: "otherwise it is accepted whatever the optional fields hold" (a third nesting is now refused)."""
