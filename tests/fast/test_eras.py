"""Eras as values: how each revision's client connects (`core/eras.py`), the wire driver connecting as it
(against the small servers `mini.py`, a handshake server, and `modern.py`, a stateless one), `--era`'s
values, and the spec records paired with their checks."""

from __future__ import annotations

import argparse
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.calls.meetings import Meeting
from conformance.catalog.records import default_catalog
from conformance.catalog.spec_records import default_spec_catalog
from conformance.cli.arguments import eras
from conformance.core.eras import (
    AUTO,
    ERA_NAMES,
    ERAS,
    LATEST_HANDSHAKE,
    LEGACY,
    PROTOCOL_VERSION_KEY,
    STATELESS,
    era_named,
)
from conformance.drivers.sdk import SdkDriver
from conformance.drivers.wire import WireDriver
from conformance.suite.era_meetings import eras_of
from conformance.suite.spec_checks import CHECKS, NotApplicable, SpecDeparture, judge
from tests.servers import command

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
params = st.dictionaries(st.text(max_size=8).filter(lambda k: k != "_meta"), json_values, max_size=4)


@given(st.sampled_from([*ERAS, AUTO]), params)
def test_only_a_stateless_client_stamps_its_envelope(client: Any, given_params: dict[str, Any]) -> None:
    stamped = client.stamped(given_params)
    assert {k: v for k, v in stamped.items() if k != "_meta"} == given_params
    if client.connects != "initialize":
        assert stamped["_meta"][PROTOCOL_VERSION_KEY] == client.revision == "2026-07-28"
    else:
        assert "_meta" not in stamped


@given(st.dictionaries(st.sampled_from(["progressToken", "x"]), st.integers(), max_size=2))
def test_the_envelope_keeps_the_request_meta(meta: dict[str, int]) -> None:
    stamped = STATELESS.stamped({"name": "t", "_meta": meta})
    assert {k: stamped["_meta"][k] for k in meta} == meta


def test_five_revisions_oldest_first_and_auto() -> None:
    assert [e.name for e in ERAS] == ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
    assert [era.connects for era in ERAS] == ["initialize"] * 4 + ["stateless"]
    assert LEGACY.revision == "2024-11-05" and AUTO.connects == "auto"
    assert [era_named(name) for name in ERA_NAMES] == [*ERAS, AUTO]
    with pytest.raises(KeyError):
        era_named("2023-01-01")


@given(st.lists(st.sampled_from(ERA_NAMES), min_size=1, max_size=4))
def test_era_option_accepts_revisions_and_auto(names: list[str]) -> None:
    chosen = eras(",".join(names))
    assert chosen.split(",") == list(dict.fromkeys(names))
    assert [era.name for era in eras_of(chosen)] == list(dict.fromkeys(names))


@pytest.mark.parametrize("text", ["", "2023-01-01", "auto,nope", "default,all", ","])
def test_era_option_refuses_what_is_not_an_era(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        eras(text)


def test_default_and_all() -> None:
    assert eras_of("default") == eras_of(None) == (AUTO,)
    assert eras_of("all") == (*ERAS, AUTO)


@pytest.mark.parametrize("handshake_era", ERAS[:4], ids=lambda era: era.name)
def test_a_handshake_client_initializes_offering_its_revision(handshake_era: Any) -> None:
    with WireDriver(command("mini"), era=handshake_era) as driver:
        assert driver.connect() == handshake_era.revision  # mini echoes the offer
        assert not driver.stateless
        assert driver.list_tools().result is not None


def test_auto_falls_back_to_initialize_when_discover_is_unknown() -> None:
    with WireDriver(command("mini"), era=AUTO) as driver:
        assert driver.connect() == LATEST_HANDSHAKE
        assert driver.initialize_result is not None and not driver.stateless


@pytest.mark.parametrize("modern_era", [STATELESS, AUTO], ids=lambda era: era.name)
def test_a_stateless_client_stamps_every_request(modern_era: Any) -> None:
    with WireDriver(command("modern"), era=modern_era) as driver:
        assert driver.connect() == "2026-07-28"
        assert driver.initialize_result is None and driver.stateless
        answer = driver.call_tool("sequentialthinking", {"thought": "x"}).result
        assert answer is not None and answer["_meta"][PROTOCOL_VERSION_KEY] == "2026-07-28"  # type: ignore[index]
        assert driver.request("ping").result is not None


def test_a_stateless_client_of_a_handshake_server_settles_on_nothing() -> None:
    with WireDriver(command("mini"), era=STATELESS) as driver:
        assert driver.connect() is None
        assert driver.stateless


def test_every_spec_record_has_one_check_and_sits_in_the_catalog() -> None:
    spec = default_spec_catalog()
    assert list(CHECKS) == [record.id for record in spec.records]
    catalog = default_catalog()
    for record in spec.records:
        folded = catalog.get(record.id)
        assert folded.kind == "spec" and folded.channels == ("wire",)
        assert folded.anchors[0].seed == "MCP" and record.level in folded.anchors[0].section


def _meeting(structured: Any, text: str, negotiated: str = "2025-11-25") -> Meeting:
    schema = {"type": "object"}
    result = {"content": [{"type": "text", "text": text}], "structuredContent": structured}
    return Meeting(
        STATELESS if negotiated == "2026-07-28" else era_named(negotiated),
        negotiated=negotiated,
        tools_list={"result": {"tools": [{"name": "sequentialthinking", "inputSchema": schema,
                                          "outputSchema": schema}]}},
        calls=[({}, {"result": result}), ({}, {"result": result})],
    )


@given(st.dictionaries(st.text(max_size=6), json_values, max_size=4))
def test_structured_content_mirrored_as_its_text_holds(structured: dict[str, Any]) -> None:
    judge("SPEC-6", _meeting(structured, json.dumps(structured)))


@given(st.dictionaries(st.text(max_size=6), st.integers(), min_size=1, max_size=4))
def test_structured_content_unlike_its_text_departs_citing_the_record(structured: dict[str, int]) -> None:
    key = next(iter(structured))
    text = json.dumps({**structured, key: structured[key] + 1})
    with pytest.raises(SpecDeparture, match=r"SPEC-6 \(2025-06-18\.\.2026-07-28 server/tools"):
        judge("SPEC-6", _meeting(structured, text))


def test_a_revision_the_server_did_not_settle_on_is_not_applicable() -> None:
    with pytest.raises(NotApplicable):
        judge("SPEC-6", _meeting({"a": 1}, '{"a": 2}', negotiated="2024-11-05"))


def test_the_official_client_in_auto_falls_back_on_a_handshake_server() -> None:
    with SdkDriver(command("mini"), era=AUTO) as host:
        assert host.negotiated == LATEST_HANDSHAKE and host.initialize_result is not None


def test_the_official_client_in_auto_connects_statelessly_to_a_modern_server() -> None:
    with SdkDriver(command("modern"), era=AUTO) as host:
        assert host.negotiated == "2026-07-28" and host.initialize_result is None
        assert [tool.name for tool in host.list_tools().tools] == ["sequentialthinking"]


def test_the_official_client_offers_only_its_newest_handshake_revision() -> None:
    with pytest.raises(ValueError, match="auto"):
        SdkDriver(command("mini"), era=LEGACY)
