"""`run --shard I/N` deals whole tests by cost (suite/sharding.py, fixtures/shards/costs.yaml): for any test
list, count and cost table the deal is a partition in collection order, computed the same by every shard and
by the merge, with unknown tests dealt at the default cost; its slowest share is within the greedy bounds and
within 4/3 of round robin's. The shipped table, and its refresh from a run's report (scripts/
refresh_shard_costs.py) read as untrusted input.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from conformance.catalog.shard_costs import (
    Costs,
    ShardCostsError,
    cost_key,
    costs_for,
    costs_path,
    load_costs_file,
    shard_costs,
)
from conformance.core.identity import MAX_SHARDS, ShardIdentity
from conformance.gate import exit_status
from conformance.suite.profiles import PROFILES
from conformance.suite.sharding import share_of, split
from scripts import refresh_shard_costs
from tests.cli import cli_here
from tests.fast.test_shard_merge import RECORDS, SPEC, _outcome, write_run

SHIPPED = shard_costs("thorough")
KNOWN = sorted(SHIPPED.by_test)

_names = st.one_of(
    st.sampled_from(KNOWN),
    st.from_regex(r"conformance/suite/test_[a-z]{1,6}\.py::test_[a-z0-9_]{1,12}", fullmatch=True),
).flatmap(lambda key: st.sampled_from([f"{key}[{SPEC}]", f"{key}[reference]", key]))
_nodeids = st.lists(_names, max_size=60, unique=True)
_costs = st.builds(
    Costs,
    st.dictionaries(st.sampled_from(KNOWN), st.integers(1, 10**6), max_size=40),
    st.integers(1, 10**6),
)
_counts = st.integers(1, MAX_SHARDS)


def _loads(shares: list[list[str]], costs: Costs) -> list[int]:
    return [sum(costs.of(n) for n in share) for share in shares]


def _round_robin(nodeids: list[str], count: int) -> list[list[str]]:
    """The deal before costs were known: test k to share k mod count."""
    return [list(nodeids[index::count]) for index in range(count)]


@given(nodeids=_nodeids, count=_counts, costs=st.one_of(st.just(SHIPPED), _costs))
def test_the_deal_is_a_partition_in_collection_order(nodeids: list[str], count: int, costs: Costs) -> None:
    shares = split(nodeids, count, costs)
    assert len(shares) == count
    dealt = [n for share in shares for n in share]
    assert sorted(dealt) == sorted(nodeids), "every test in exactly one share, unknown ones too"
    positions = {n: k for k, n in enumerate(nodeids)}
    assert all([positions[n] for n in share] == sorted(positions[n] for n in share) for share in shares)
    assert sum(1 for share in shares if share) == min(count, len(nodeids)), "no share idles while one has two"


@given(nodeids=_nodeids, count=_counts, costs=_costs, data=st.data())
def test_every_shard_and_the_merge_compute_the_same_deal(nodeids: list[str], count: int, costs: Costs,
                                                        data: st.DataObject) -> None:
    """Each shard computes only its own share, in its own process, in any order; the table may be read with
    its entries in another order. All must agree with the merge's whole deal."""
    whole = split(nodeids, count, costs)
    order = data.draw(st.permutations(range(1, count + 1)))
    reread = Costs(dict(reversed(list(costs.by_test.items()))), costs.default)
    for index in order:
        assert share_of(list(nodeids), ShardIdentity(index=index, count=count), reread) == whole[index - 1]


@given(nodeids=_nodeids, count=_counts, costs=st.one_of(st.just(SHIPPED), _costs))
def test_the_slowest_share_is_within_the_greedy_bounds(nodeids: list[str], count: int, costs: Costs) -> None:
    """Graham's bound for any greedy deal (max ≤ mean + the dearest test) and for longest first against any
    deal, round robin's included (max ≤ (4/3 − 1/(3N)) × that deal's max), in integers."""
    slowest = max(_loads(split(nodeids, count, costs), costs))
    total = sum(costs.of(n) for n in nodeids)
    dearest = max((costs.of(n) for n in nodeids), default=0)
    assert count * slowest <= total + (count - 1) * dearest
    round_robin = max(_loads(_round_robin(nodeids, count), costs))
    assert 3 * count * slowest <= (4 * count - 1) * round_robin


@given(nodeids=_nodeids, count=_counts, default=st.integers(1, 10**6))
def test_equal_costs_deal_round_robin(nodeids: list[str], count: int, default: int) -> None:
    """A table that knows none of the tests deals them as before costs were known: test k to share k mod N."""
    assert split(nodeids, count, Costs({}, default)) == _round_robin(nodeids, count)


def test_the_shipped_table_deals_the_heaviest_tests_apart() -> None:
    """The suite's four dearest tests land in four different shards of 4, and the slowest share is no slower
    than round robin's."""
    collected = [f"{key}[{SPEC}]" for key in KNOWN]
    dearest = sorted(collected, key=lambda n: -SHIPPED.of(n))[:4]
    shares = split(collected, 4, SHIPPED)
    assert sorted(next(i for i, s in enumerate(shares) if n in s) for n in dearest) == [0, 1, 2, 3]
    loads = _loads(shares, SHIPPED)
    assert max(loads) <= max(_loads(_round_robin(collected, 4), SHIPPED))


def test_a_node_id_costs_what_its_test_costs_on_any_target() -> None:
    key = KNOWN[0]
    assert cost_key(f"{key}[npm:0.6.2]") == cost_key(f"{key}[cmd:node a[1].js]") == cost_key(key) == key
    assert cost_key("a.py::TestX::test_y[p]") == "a.py::TestX::test_y"
    assert SHIPPED.of(f"{key}[reference]") == SHIPPED.by_test[key]
    assert SHIPPED.of("conformance/suite/test_new.py::test_new[reference]") == SHIPPED.default


def test_the_shipped_table_deals_every_profile() -> None:
    document = load_costs_file()
    assert set(PROFILES) <= set(document.profiles)
    for name, table in document.tables.items():
        assert table.measured.tests == len(table.costs_ms) and table.measured.target, name
        assert min(table.costs_ms.values()) <= table.default_ms <= max(table.costs_ms.values())
    with pytest.raises(ShardCostsError, match="no shard cost table deals profile 'fast'"):
        costs_for("fast", document)


# -- the table as data ---------------------------------------------------------------------------------------


def _spoiled(tmp_path: Path, change: str) -> Path:
    document = yaml.safe_load(costs_path().read_text(encoding="utf-8"))
    table = document["tables"][document["profiles"]["ci"]]
    if change == "negative":
        table["costs_ms"][KNOWN[0]] = -1
    elif change == "code":
        table["costs_ms"]["conformance/suite/test_x.py::test_y; rm -rf /"] = 5
    elif change == "unmapped":
        document["profiles"]["ci"] = "nowhere"
    else:
        del table["measured"]
    path = tmp_path / "costs.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return path


@pytest.mark.parametrize(("change", "says"), [
    ("negative", "costs_ms"), ("code", "costs_ms"), ("unmapped", "nowhere"), ("provenance", "measured"),
])
def test_a_table_that_does_not_fit_its_schema_is_refused(tmp_path: Path, change: str, says: str) -> None:
    with pytest.raises(ShardCostsError, match=says) as refused:
        load_costs_file(_spoiled(tmp_path, change))
    assert "\n" not in str(refused.value)


# -- refreshing it from a run --------------------------------------------------------------------------------


def _run(tmp_path: Path, durations: list[float], **kwargs: object) -> Path:
    tests = [_outcome(i, [RECORDS[0]], [], "passed", 10).model_copy(update={"duration": d})
             for i, d in enumerate(durations)]
    out = tmp_path / "run"
    write_run(out, tests, [t.nodeid for t in tests], None, **kwargs)  # type: ignore[arg-type]
    return out


def test_a_run_refreshes_its_profiles_table_and_keeps_the_others(tmp_path: Path) -> None:
    costs = tmp_path / "costs.yaml"
    shutil.copy(costs_path(), costs)
    before = load_costs_file(costs)
    run = _run(tmp_path, [0.25, 3.0, 0.0004, 1.5], profile="thorough")
    assert refresh_shard_costs.main([str(run), "--costs", str(costs), "--table", "fresh"]) == 0
    after = load_costs_file(costs)
    table = after.tables["fresh"]
    report = json.loads((run / "report.json").read_text(encoding="utf-8"))
    keys = sorted({cost_key(t["nodeid"]) for r in report["records"] for t in r["tests"]})
    assert sorted(table.costs_ms) == keys and sorted(table.costs_ms.values()) == [1, 250, 1500, 3000]
    assert table.default_ms == 250 and table.measured.profile == "thorough" and table.measured.tests == 4
    assert table.measured.command == report["run"]["rerun"]
    assert table.measured.seed == report["harness"]["seed"]
    assert after.profiles == {**before.profiles, "thorough": "fresh"}
    assert {n: t for n, t in after.tables.items() if n != "fresh"} == before.tables
    assert costs.read_text(encoding="utf-8").startswith("# What each test of the suite costs")


@pytest.mark.parametrize(("spoil", "says"), [
    (lambda d: d["records"][0]["tests"][0].update(duration=1e12), "is not a test's"),
    (lambda d: d["records"][0]["tests"][0].update(duration="slow"), "report"),
    (lambda d: d["harness"].update(shard={"index": 1, "count": 2}), "shard 1/2's report"),
    (lambda d: d["run"].update(interrupted="SIGTERM"), "was stopped"),
])
def test_a_run_that_cannot_describe_the_suite_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         spoil: object, says: str) -> None:
    costs = tmp_path / "costs.yaml"
    shutil.copy(costs_path(), costs)
    before = costs.read_bytes()
    run = _run(tmp_path, [0.5, 1.0])
    document = json.loads((run / "report.json").read_text(encoding="utf-8"))
    assert callable(spoil)
    spoil(document)
    (run / "report.json").write_text(json.dumps(document), encoding="utf-8")
    assert refresh_shard_costs.main([str(run), "--costs", str(costs)]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1, err
    assert costs.read_bytes() == before, "a refused refresh writes nothing"


def test_a_huge_report_is_refused_unread(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    run.mkdir()
    with (run / "report.json").open("wb") as handle:
        handle.truncate(64 * 2**20)
    assert refresh_shard_costs.main([str(run), "--costs", str(tmp_path / "costs.yaml")]) == 2
    assert "larger than" in capsys.readouterr().err and not (tmp_path / "costs.yaml").exists()


def test_the_merge_refuses_shards_dealt_round_robin(tmp_path: Path) -> None:
    """Shards dealt k mod N (as before costs were known) where the cost deal differs ran tests outside their
    share: the merge computes the cost deal itself and refuses them (exit 4, one line, nothing written)."""
    tests = [_outcome(i, [RECORDS[i % len(RECORDS)]], [], "passed", 10) for i in range(0, 12, 2)]
    collected = [t.nodeid for t in tests]
    dealt = _round_robin(collected, 2)
    assert dealt != split(collected, 2, shard_costs("dev")), "the two deals must differ for this to test"
    folders = []
    for index, share in enumerate(dealt, start=1):
        folder = tmp_path / f"shard-{index}"
        mine = [t for t in tests if t.nodeid in share]
        write_run(folder, mine, collected, ShardIdentity(index=index, count=2))
        folders.append(folder)
    ran = cli_here("run", "--merge", *map(str, folders), "--out", str(tmp_path / "merged"))
    lines = ran.stderr.strip().splitlines()
    assert ran.code == exit_status.USAGE and len(lines) == 1, ran.stderr
    assert "is not in shard" in lines[0] and not (tmp_path / "merged").exists()
