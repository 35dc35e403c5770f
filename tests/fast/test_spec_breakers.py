"""Each new or changed spec check fails on a server built to break its requirement, and holds on the same
server unbroken (tests/servers/spec_breaker.py): a check that cannot fail, or that fails a correct server,
shows here. Real processes, met as each era's client meets them."""

from __future__ import annotations

import shlex
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Final

import pytest

from conformance.calls.meetings import Meeting, meet, meets
from conformance.core.eras import AUTO, ERAS, era_named
from conformance.suite.spec_checks import SpecDeparture, judge, verdicts
from conformance.targets.specs import resolve_target
from tests.servers import command

BREAKS = [
    # (the break, the record it breaks, the era whose client sees it)
    ("unknown-tool-result", "SPEC-12", "2024-11-05"),
    ("unknown-tool-result", "SPEC-12", "2026-07-28"),
    ("no-tools-capability", "SPEC-13", "2025-06-18"),
    ("validation-as-error", "SPEC-14", "2025-11-25"),
    ("no-cache-hints", "SPEC-15", "2026-07-28"),
    ("meta-unchecked", "SPEC-16", "2026-07-28"),
    ("log-always", "SPEC-17", "2026-07-28"),
    ("reserved-code", "SPEC-18", "2026-07-28"),
    ("bad-tool-name", "SPEC-19", "2025-11-25"),
    ("no-requested", "SPEC-3", "2026-07-28"),
    ("output-invalid", "SPEC-5", "2025-11-25"),
    ("array-output", "SPEC-8", "2025-11-25"),
    ("garbage-stdout", "SPEC-20", "2024-11-05"),
    ("garbage-stdout", "SPEC-20", "2026-07-28"),
    ("shuffled-tools", "SPEC-21", "2026-07-28"),
    ("ignore-eof", "SPEC-22", "2026-07-28"),
    ("process-history", "SPEC-23", "2026-07-28"),
    ("answer-cancelled", "SPEC-24", "2025-11-25"),
    ("answer-cancelled", "SPEC-25", "2026-07-28"),
    ("cancel-error", "SPEC-24", "2024-11-05"),
    ("cancel-error", "SPEC-25", "2026-07-28"),
]


UNBROKEN = {"output-invalid": ("draft07-output",)}
"""The same server with the requirement met, where that is not the plain server (it declares no schema)."""


WAITED_OUT: Final = frozenset({"ignore-eof"})
"""Breaks whose meeting waits out a whole end bound (the call timeout: the process never ends at the end of
its input): made ahead first, so the wait runs beside every other meeting instead of after most of them, and
at `WAITED_OUT_TIMEOUT`."""
TIMEOUT: Final = 20.0
WAITED_OUT_TIMEOUT: Final = 10.0
"""The call timeout, so the end bound, of a meeting whose end is waited out: half the others' 20 s, still the
10 s a start-up on a loaded machine stays within (tests/fast/test_slow_ends.py); a bound twice as long proves
nothing more about a process that never ends."""
Key = tuple[tuple[str, ...], str]
"""The breaks a server is started with, and the era whose client meets it."""
_MEETINGS: dict[Key, Future[Meeting]] = {}
_LOCK = threading.Lock()


def _meeting(breaks: tuple[str, ...], era: str) -> Meeting:
    args = [arg for name in breaks for arg in ("--break", name)]
    target = resolve_target("cmd:" + shlex.join(command("spec_breaker", *args)))
    waited_out = bool(WAITED_OUT.intersection(breaks))
    return meet(target, era_named(era), timeout=WAITED_OUT_TIMEOUT if waited_out else TIMEOUT)


def _met(breaks: tuple[str, ...], era: str) -> Meeting:
    """The meeting of this server and era, made once: ahead on the module's pool when a selected test was
    sure to ask for it, else here."""
    with _LOCK:
        future = _MEETINGS.get((breaks, era))
        if future is None:
            future = _MEETINGS[(breaks, era)] = Future()
            made = True
        else:
            made = False
    if made:
        try:
            future.set_result(_meeting(breaks, era))
        except BaseException as exc:
            future.set_exception(exc)
    meeting = future.result()
    assert meeting.failure is None, meeting.failure
    return meeting


UNPARAMETRIZED: dict[str, list[Key]] = {
    "test_guidance_records_are_not_weighed_where_their_revision_is_not_settled": [
        (("validation-as-error",), "2025-06-18")],
    "test_a_history_the_client_names_is_state_by_identifier": [
        (("history-by-id",), "2026-07-28"), (("process-history",), "2026-07-28"),
        (("process-history",), "2025-11-25")],
    "test_an_array_output_schema_is_any_json_schema_at_2026_07_28": [(("array-output",), "2026-07-28")],
}
"""The meetings the unparametrized tests read."""


def _asked(item: pytest.Item) -> list[Key]:
    """The meetings a selected test is sure to ask for."""
    if not isinstance(item, pytest.Function):
        return []
    if item.originalname in UNPARAMETRIZED:
        return UNPARAMETRIZED[item.originalname]
    if not hasattr(item, "callspec"):
        return []
    params = {name: str(value) for name, value in item.callspec.params.items()}
    if item.originalname == "test_each_break_fails_its_record_and_only_it":
        broken, era = params["broken"], params["era"]
        return [((broken,), era), (UNBROKEN.get(broken, ()), era)]
    if item.originalname == "test_the_unbroken_server_departs_from_nothing":
        return [((), params["era"])]
    if item.originalname == "test_structured_content_is_read_in_its_declared_dialect":
        return [(("draft07-output",), params["era"])]
    return []


@pytest.fixture(scope="module", autouse=True)
def meetings_ahead(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each meeting waits on its server process (its start, its answers, the end of its input: a couple of
    seconds, a few hundredths of them on a core), so those the selected tests ask for are made ahead, four
    at a time. Meetings still queued when the module ends are dropped."""
    wanted = [key for item in request.session.items
              if isinstance(item, pytest.Function) and item.module is request.module for key in _asked(item)]
    pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="spec-meeting")
    with _LOCK:
        for key in sorted(dict.fromkeys(wanted), key=lambda key: not WAITED_OUT.intersection(key[0])):
            if key not in _MEETINGS:
                _MEETINGS[key] = pool.submit(_meeting, *key)
    try:
        yield
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("era", [e.name for e in (*ERAS, AUTO)])
def test_the_unbroken_server_departs_from_nothing(era: str) -> None:
    departing = {r: v for r, v in verdicts(_met((), era)).items() if v.startswith("deviates")}
    assert not departing


@pytest.mark.parametrize(("broken", "record", "era"), BREAKS)
def test_each_break_fails_its_record_and_only_it(broken: str, record: str, era: str) -> None:
    meeting = _met((broken,), era)
    with pytest.raises(SpecDeparture, match=rf"^{record} \("):
        judge(record, meeting)
    judge(record, _met(UNBROKEN.get(broken, ()), era))
    others = {r for r, v in verdicts(meeting).items() if v.startswith("deviates")} - {record}
    assert not others, others  # a stray stdout line is read past, as stdio clients do: SPEC-20 alone says it


def test_guidance_records_are_not_weighed_where_their_revision_is_not_settled() -> None:
    """SPEC-14 (2025-11-25 on) does not bind a 2025-06-18 client: not applicable there."""
    assert verdicts(_met(("validation-as-error",), "2025-06-18"))["SPEC-14"] == "n/a"


@pytest.mark.parametrize("era", ["2025-06-18", "2025-11-25", "2026-07-28"])
def test_structured_content_is_read_in_its_declared_dialect(era: str) -> None:
    """{"n": 1} against a draft-07 schema whose `$ref` has a sibling `type: string`: valid in draft-07 (which
    ignores siblings of `$ref`), invalid if read as 2020-12. The check reads it as its `$schema` says."""
    meeting = _met(("draft07-output",), era)
    judge("SPEC-5", meeting)
    judge("SPEC-6", meeting)


def test_an_array_output_schema_is_any_json_schema_at_2026_07_28() -> None:
    """2026-07-28 loosens outputSchema to any JSON Schema and structuredContent to any JSON value."""
    judge("SPEC-8", _met(("array-output",), "2026-07-28"))
    judge("SPEC-5", _met(("array-output",), "2026-07-28"))


@pytest.mark.parametrize(("server", "era", "said"), [
    ("mini", "2025-06-18", "initialize settles on 2025-06-18"),
    ("mini", "2026-07-28", "server/discover refused (-32601); serves 2026-07-28 requests the old way (results"
                           " without resultType, even one naming version 1999-01-01)"),
    ("mini", "auto", "server/discover refused (-32601); initialize settles on 2025-11-25"),
    ("modern", "2026-07-28", "served statelessly at 2026-07-28"),
    ("spec_breaker", "auto", "served statelessly at 2026-07-28"),
])
def test_what_each_era_s_client_meets(server: str, era: str, said: str) -> None:
    """The line the era table and the report's Eras table print: how the client settled, and for a
    2026-07-28 client that settled on nothing, what the server does with its requests."""
    meeting = meet(resolve_target("cmd:" + shlex.join(command(server))), era_named(era), timeout=20)
    assert meets(meeting) == said


def test_python_sdk_pinned_to_2026_07_28_meets_the_breaker_and_fails_on_an_old_way_server() -> None:
    """The era table's `--sdk` line: python-sdk's own client agrees with the checks, a server meeting the
    2026-07-28 records serves it, one answering the old way (mini.py, as every release) fails every call."""
    from scripts.era_table import sdk_pinned

    modern = sdk_pinned("cmd:" + shlex.join(command("spec_breaker")))
    assert modern == "adopts 2026-07-28; list_tools: 1 tool(s); call_tool: isError False"
    old = sdk_pinned("cmd:" + shlex.join(command("mini")))
    assert "list_tools: ValidationError" in old and "cacheScope, resultType, ttlMs missing" in old, old
    assert "call_tool: ValidationError" in old and "CallToolResult.resultType" in old, old


def test_a_history_the_client_names_is_state_by_identifier() -> None:
    """SPEC-23 holds on a server keeping a history per `historyId` the client passes, and that server does
    keep state across requests (the same identifier twice: lengths 1, then 2), so the check weighs what
    reaches the state, not whether there is any; one history per process departs."""
    from conformance.drivers.wire import WireDriver

    judge("SPEC-23", _met(("history-by-id",), "2026-07-28"))
    target = resolve_target("cmd:" + shlex.join(command("spec_breaker", "--break", "history-by-id")))
    with WireDriver(target.command, timeout=60, era=era_named("2026-07-28")) as driver:
        driver.connect()
        named = {"thought": "t", "historyId": "h"}
        texts = [driver.call_tool("sequentialthinking", named).text for _ in "ab"]
    assert texts == ['{"thoughtHistoryLength": 1}', '{"thoughtHistoryLength": 2}'], texts
    with pytest.raises(SpecDeparture, match="thoughtHistoryLength"):
        judge("SPEC-23", _met(("process-history",), "2026-07-28"))
    assert verdicts(_met(("process-history",), "2025-11-25"))["SPEC-23"] == "n/a"


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
def test_an_answer_before_the_cancel_is_read_is_no_departure(era: str) -> None:
    """No false alarm: mini.py answers each line before reading the next, so it answers the cancelled call
    before it reads the notification, which every revision allows (SPEC-24/25 not applicable: nothing shown).
    The unbroken breaker reads the chunk whole, applies the cancel and answers nothing: the record holds."""
    record = "SPEC-25" if era == "2026-07-28" else "SPEC-24"
    mini = meet(resolve_target("cmd:" + shlex.join(command("mini"))), era_named(era), timeout=20)
    if era == "2026-07-28":  # mini settles on no 2026-07-28: the check is read past applicability
        from conformance.suite.spec_checks import CHECKS, NotApplicable
        with pytest.raises(NotApplicable, match="the race"):
            CHECKS[record](mini)
    else:
        assert [f.get("id") for f in mini.cancellation if isinstance(f, dict)] == [9020, 9021]
        assert verdicts(mini)[record] == "n/a"
    assert verdicts(_met((), era))[record] == "holds"
    assert [f.get("id") for f in _met((), era).cancellation if isinstance(f, dict)] == [9021]
