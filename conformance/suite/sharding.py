"""Which tests one shard of a run runs (`run --shard I/N`): whole tests, dealt from the run's collection.

A test's examples depend on the seed alone (`--hypothesis-seed` gives every test the same seeded random,
whichever tests ran before it), and the suite's tests do not depend on each other's order (pytest-xdist
already runs them in any order), so a test runs the same examples in whichever shard it lands: the shards
together check what one run checks. Splitting a property's examples instead cannot give that: hypothesis
chooses each example from what the earlier ones did, inside the test's own run.

Every shard collects the whole run and computes the same split from it; `run --merge` computes it again
to check that each shard ran only its own share.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance.core.identity import ShardIdentity


def split(nodeids: Sequence[str], count: int) -> list[list[str]]:
    """`count` shares of the run's tests, each in collection order: test k goes to share k mod count.

    Dealt in collection order, each module's tests (which cost about the same) spread over every share.
    """
    shares: list[list[str]] = [[] for _ in range(count)]
    for position, nodeid in enumerate(nodeids):
        shares[position % count].append(nodeid)
    return shares


def share_of(nodeids: Sequence[str], shard: ShardIdentity) -> list[str]:
    """The tests shard `shard` runs, in collection order."""
    return split(nodeids, shard.count)[shard.index - 1]
