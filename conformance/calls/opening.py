"""The fixed opening calls: what every run, every replay and every comparison sends before anything drawn.

A change a fork makes to the store shows in a few fixed calls on a fresh process (issue 43): two labels out
of key order (`zeta`, then `alpha`), a revision, a branch of a branch, a thoughtNumber above its total, a
label with a leading space, a revision of the revision and a revision filed on a branch (both pointers on
one call: held-out-multi-12's fork-strict-pointers refuses it; a baseline written under dev seed 1, whose
search never drew the pair, went red under ci seed 22, whose RTE-9 check did). The suite's store checks open
with them (suite/test_store.py), a departure's evidence replays them before it says "not reproduced"
(gate/evidence.py) and `compare` runs them before its search (compare/programs.py), so the three find the
same difference with the same calls, whatever the seed. The single calls every property about an accepted
answer sends first, on any process, are calls/probes.py's.
"""

from __future__ import annotations

from typing import Final

from conformance.core.jsontypes import JSON

OPENING_CALLS: Final[tuple[dict[str, JSON], ...]] = (
    {"thought": "branch zeta", "thoughtNumber": 1, "totalThoughts": 3, "nextThoughtNeeded": True,
     "branchFromThought": 1, "branchId": "zeta"},
    {"thought": "branch alpha", "thoughtNumber": 2, "totalThoughts": 3, "nextThoughtNeeded": True,
     "branchFromThought": 1, "branchId": "alpha"},
    {"thought": "a revision", "thoughtNumber": 3, "totalThoughts": 3, "nextThoughtNeeded": True,
     "isRevision": True, "revisesThought": 1},
    {"thought": "a branch of a branch", "thoughtNumber": 3, "totalThoughts": 4, "nextThoughtNeeded": True,
     "branchFromThought": 2, "branchId": "alpha-beta"},
    {"thought": "number above total", "thoughtNumber": 9, "totalThoughts": 5, "nextThoughtNeeded": True},
    {"thought": "a padded label", "thoughtNumber": 4, "totalThoughts": 5, "nextThoughtNeeded": True,
     "branchFromThought": 1, "branchId": " padded"},
    {"thought": "a revision of a revision", "thoughtNumber": 5, "totalThoughts": 5, "nextThoughtNeeded": True,
     "isRevision": True, "revisesThought": 3},
    {"thought": "a revision on a branch", "thoughtNumber": 5, "totalThoughts": 5, "nextThoughtNeeded": True,
     "isRevision": True, "revisesThought": 2, "branchFromThought": 1, "branchId": "zeta"},
)
"""In this order, each accepted by the original; the last files under `zeta` again, so no label is added.
(The suite names its labels fresh to its shared process, the
same words each run; a replay and `compare` start fresh processes and send them as written.)"""

PLAIN_TAIL: Final[tuple[dict[str, JSON], ...]] = tuple(
    {"thought": f"plain {n}", "thoughtNumber": n, "totalThoughts": 16, "nextThoughtNeeded": True}
    for n in range(7, 17))
"""What a replay sends after them: ten plain calls (seventeen retained thoughts on the original), past a store
capped at a small size."""

LABEL_TAIL: Final[tuple[dict[str, JSON], ...]] = tuple(
    {"thought": f"label {n}", "thoughtNumber": 16 + n, "totalThoughts": 64, "nextThoughtNeeded": True,
     "branchFromThought": 1, "branchId": f"label-{n:02d}"}
    for n in range(1, 49))
"""What a replay sends last: a branch on each of 48 more labels (52 with the opening's four), past a fork's
cap on labels (20, 50): a store that drops or refuses labels past a count shows on every fresh process, not
only when a seed's search happened to file that many on the shared process (issue 43)."""


FRESH_SEQUENCE: Final[tuple[tuple[str, JSON], ...]] = (
    ("tools/call", {"thought": "replayed one", "thoughtNumber": 1, "totalThoughts": 3,
                    "nextThoughtNeeded": True, "branchFromThought": 1, "branchId": "first"}),
    ("tools/call", {"thought": "replayed two", "thoughtNumber": 4, "totalThoughts": 3,
                    "nextThoughtNeeded": True, "branchFromThought": 1, "branchId": "replay"}),
    ("tools/call", {"thought": "t", "thoughtNumber": 0, "totalThoughts": 1, "nextThoughtNeeded": True}),
    ("tools/call", {"thought": "", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": True}),
    ("tools/call", {"thought": "replayed three", "thoughtNumber": 2, "totalThoughts": 3,
                    "nextThoughtNeeded": False, "isRevision": True, "revisesThought": 1}),
    ("tools/call", {"thought": "t", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": True,
                    "branchFromThought": 1, "branchId": "__proto__"}),
    ("tools/list", {}),
)
"""The sequence every fresh process of a run is sent (suite/fresh_runs.py), here so that the gate can replay
its calls too: accepted calls with and without branches and revisions, two refused ones, a prototype-key
label, and the listing. The first two answers tell the store's starting state; the first creates a label, so
the very first answer of a process must already list it."""
