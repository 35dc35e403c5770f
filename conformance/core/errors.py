"""The one base of every failure the harness reports in one line; each room derives its own from it."""

from __future__ import annotations

import errno
from typing import Final

NO_SPACE_ERRNOS: Final = frozenset({errno.ENOSPC, errno.EDQUOT})
"""A full device and a full quota: both say there is no room left to write."""


class HarnessError(Exception):
    """Base of every failure the harness reports in one line (CLI exit status 2 when fatal)."""


class InputError(HarnessError):
    """The command line or a file the user named cannot be used: missing, unreadable, too large, not valid,
    or an output folder the harness may not write (CLI exit status 4, nothing written)."""


class NoSpaceError(HarnessError):
    """No room left to write (a full device or quota): said as such, with its own CLI exit status (3), not as
    an unusable target (2) or input (4)."""


def no_space(exc: BaseException | None) -> OSError | None:
    """The full-device error behind `exc`, if any: itself, or its cause or context however it was wrapped."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in NO_SPACE_ERRNOS:
            return exc
        exc = exc.__cause__ or exc.__context__
    return None
