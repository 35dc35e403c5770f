"""The one base of every failure the harness reports in one line; each room derives its own from it."""

from __future__ import annotations


class HarnessError(Exception):
    """Base of every failure the harness reports in one line (CLI exit status 2 when fatal)."""


class InputError(HarnessError):
    """The command line or a file the user named cannot be used: missing, unreadable, too large, not valid,
    or an output folder the harness may not write (CLI exit status 4, nothing written)."""
