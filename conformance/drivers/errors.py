"""Typed failures a driver raises; a report turns each into an `error` verdict, never a traceback."""

from __future__ import annotations

import re
from typing import Final

from conformance.core.errors import HarnessError

START_UNANSWERED: Final = re.compile(r"no answer to '?initialize'? within [0-9.]+ ?s$")
"""A failure that is only a process not answering `initialize` in time, as `ServerTimeout` and the suite's raw
processes (suite/rawproc `request`) say it: the first request waits for the process to start too, so under a
loaded machine (load 20, node starting) this is the machine's pace as often as the server's."""


class TargetError(HarnessError):
    """A target cannot be resolved, installed or started (missing node/npm, bad version, spawn failure)."""


class DriverError(HarnessError):
    """The server under test misbehaved on the pipe."""

    def __init__(self, message: str, *, stderr_tail: str = "") -> None:
        super().__init__(message)
        self.stderr_tail = stderr_tail
        self.listening: list[str] = []
        """The TCP addresses the process listened on when this was raised, where that was looked at."""


class ServerExited(DriverError):
    """The process ended while a request was outstanding (or before one could be sent)."""

    def __init__(self, returncode: int | None, *, stderr_tail: str = "") -> None:
        super().__init__(f"server exited with status {returncode}", stderr_tail=stderr_tail)
        self.returncode = returncode


class ServerTimeout(DriverError):
    """No answer to a request within its timeout."""

    def __init__(self, method: str, timeout: float, *, stderr_tail: str = "") -> None:
        super().__init__(f"no answer to {method!r} within {timeout:g}s", stderr_tail=stderr_tail)
        self.method = method
        self.timeout = timeout


class ProtocolViolation(DriverError):
    """The server wrote something on stdout that is not a JSON-RPC 2.0 message."""

    def __init__(self, message: str, *, line: bytes = b"", stderr_tail: str = "") -> None:
        super().__init__(message, stderr_tail=stderr_tail)
        self.line = line


class FrameTooLarge(ProtocolViolation):
    """A stdout frame grew past the driver's limit: reading stopped there, and the server was ended."""

    def __init__(self, limit: int, *, line: bytes = b"", stderr_tail: str = "") -> None:
        message = f"frame over {limit} bytes on stdout (the limit; reading stopped, the server was ended)"
        super().__init__(message, line=line, stderr_tail=stderr_tail)
        self.limit = limit


class WrongId(ProtocolViolation):
    """A response arrived whose id matches no outstanding request."""

    def __init__(self, expected: object, got: object, *, line: bytes = b"", stderr_tail: str = "") -> None:
        super().__init__(f"response id {got!r} does not match request id {expected!r}", line=line,
                         stderr_tail=stderr_tail)
        self.expected = expected
        self.got = got


class TargetFailed(BaseException):
    """A driver failure escalated out of a test: the target died, hung or broke the protocol.

    A BaseException on purpose: hypothesis catches `Exception` (and SystemExit) as a counterexample to shrink,
    and every shrink step would restart a dead server; this one passes through, so the test stops at its first
    failing exchange and the record gets `error`, not `deviates`.
    """

    def __init__(self, failure: DriverError) -> None:
        super().__init__(str(failure))
        self.failure = failure


class TooSlow(DriverError):
    """A process was still at what it owed (its end, a render still arriving) when a bound set by its own pace
    in the run ran out: slow, which tells nothing of whether it departs (an `error` verdict, never
    `deviates`)."""
