"""Which tests one shard of a run runs (`run --shard I/N`): whole tests, dealt from the run's collection by
what each costs (fixtures/shards/costs.yaml, `catalog/shard_costs.py`).

A test's examples depend on the seed alone (`--hypothesis-seed` gives every test the same seeded random,
whichever tests ran before it), and the suite's tests do not depend on each other's order (pytest-xdist
already runs them in any order), so a test runs the same examples in whichever shard it lands: the shards
together check what one run checks. Splitting a property's examples instead cannot give that: hypothesis
chooses each example from what the earlier ones did, inside the test's own run.

Every shard collects the whole run and computes the same deal from it and the harness's own cost table;
`run --merge` computes it again to check that each shard ran only its own share.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from conformance.catalog.shard_costs import Costs
from conformance.core.identity import ShardIdentity


def split(nodeids: Sequence[str], count: int, costs: Costs) -> list[list[str]]:
    """`count` shares of the run's tests, each in collection order, dealt longest first: the tests by falling
    cost (equal costs in collection order), each to the share with the least cost so far (the lowest index
    among equals). Greedy longest-first keeps the slowest share within 4/3 of the best possible deal's."""
    owner = [0] * len(nodeids)
    cost = [costs.of(nodeid) for nodeid in nodeids]
    by_cost = sorted(range(len(nodeids)), key=lambda position: (-cost[position], position))
    loads = [(0, index) for index in range(count)]  # a heap of (cost so far, share index)
    for position in by_cost:
        load, index = heapq.heappop(loads)
        owner[position] = index
        heapq.heappush(loads, (load + cost[position], index))
    shares: list[list[str]] = [[] for _ in range(count)]
    for position, nodeid in enumerate(nodeids):
        shares[owner[position]].append(nodeid)
    return shares


def share_of(nodeids: Sequence[str], shard: ShardIdentity, costs: Costs) -> list[str]:
    """The tests shard `shard` runs, in collection order."""
    return split(nodeids, shard.count, costs)[shard.index - 1]
