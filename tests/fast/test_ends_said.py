"""A cause's check of another way than its headline's (one that ended or signalled the process, or none
beside a signal's) is said after the headline (gate/ends_said.py, issue 42: held-out-multi-14's
background-worker, its JSON banner and SIGHUP not ending the process, both RTE-10's, headed by one of them
alone, "(2 checks fail)")."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.gate.ends_said import with_ends_said
from conformance.report.model import RecordVerdict, RootCause, TestRef

BANNER = ("stderr reads “{\"level\":\"info\",\"msg\":\"Sequential Thinking MCP Server running on stdio\"} "
          "⏎ ” before any request, where the original writes the banner alone")
STDIN = "RTE-10 contradicted: exit status 75 after stdin ended, where the original ends with status 0"


def _signalled(signal: str) -> str:
    return (f"{signal} sent: the process was still running 10 s later (it did not exit), where the original "
            f"is ended by the signal")


def _record(tests: list[tuple[str, str | None]]) -> RecordVerdict:
    refs = [TestRef(nodeid=f"t::check{i}", status="failed", examples=1, contradicted=[], message=message,
                    ends_a_process=how) for i, (message, how) in enumerate(tests)]
    return RecordVerdict(id="RTE-10", kind="rte", aliases=[], anchors=[], statement="statement of RTE-10",
                         channels=["wire"], verdict="deviates", evidence_before="implemented",
                         evidence_after="observed", tests=refs, reason=tests[0][0])


@given(signal=st.sampled_from(["SIGHUP", "SIGTERM", "SIGINT"]), marked=st.booleans())
def test_a_signal_the_headline_does_not_name_is_said(signal: str, marked: bool) -> None:
    """Whether the suite marked the check's kind or only its words name the signal."""
    record = _record([(BANNER, ""), (_signalled(signal), signal if marked else "")])
    cause = RootCause(id="RTE-10", records=["RTE-10"], explains=[], summary=f"RTE-10 departs — {BANNER} "
                      "(2 checks fail)")
    [said] = with_ends_said([cause], [record])
    assert said.summary.startswith(cause.summary)
    assert f"; and another check: {signal} sent: the process was still running" in said.summary
    assert len(said.summary) <= 400


@given(signal=st.sampled_from(["SIGHUP", "SIGTERM"]))
def test_an_end_the_headline_names_is_not_said_again(signal: str) -> None:
    """A headline of the stdin end with a second stdin check, or headed by the signal: nothing added."""
    record = _record([(STDIN, "stdin"),
                      ("RTE-10 contradicted: stdout carried a line after stdin ended", "stdin")])
    cause = RootCause(id="RTE-10", records=["RTE-10"], explains=[],
                      summary="RTE-10 departs — exit status 75 after stdin ended (2 checks fail)")
    assert with_ends_said([cause], [record]) == [cause]
    signalled = _record([(_signalled(signal), signal)])
    cause = RootCause(id="RTE-10", records=["RTE-10"], explains=[],
                      summary=f"RTE-10 departs — {_signalled(signal)}")
    assert with_ends_said([cause], [signalled]) == [cause]


@given(signal=st.sampled_from(["SIGHUP", "SIGTERM"]))
def test_a_check_of_no_end_beside_a_signals_headline_is_said(signal: str) -> None:
    """The same two checks, the signal's heading the cause (its example the smaller in another run): the
    banner, a check that ended no process, is said after it."""
    record = _record([(BANNER, ""), (_signalled(signal), signal)])
    cause = RootCause(id="RTE-10", records=["RTE-10"], explains=[],
                      summary=f"RTE-10 departs — {_signalled(signal)} (2 checks fail)")
    [said] = with_ends_said([cause], [record])
    assert said.summary.startswith(cause.summary)
    assert "; and another check: stderr reads" in said.summary
