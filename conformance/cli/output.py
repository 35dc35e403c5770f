"""The terminal output of a command, which its reader may close (`run ... | head -3`): what a command makes is
its report and its exit status, so a closed stdout never stops it, nor reaches the suite as an error."""

from __future__ import annotations

import contextlib
import io
import os
from typing import TextIO, cast

from conformance.core.printable import writable


class PipeSafe:
    """`stream`, every code point its encoding cannot carry (a server's lone surrogate) written as a visible
    escape, until its reader goes away (a broken pipe): from then on what is written goes nowhere, and
    the file descriptor under it is pointed at the null device, so the interpreter's last flush at exit
    does not fail either. Anything else is asked of `stream`."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.encoding: str = getattr(stream, "encoding", None) or "utf-8"
        self.gone = False
        """Whether the reader went away: nothing written since reached it."""

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)

    def isatty(self) -> bool:
        return not self.gone and self._stream.isatty()

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                self._stream.write(writable(text, self.encoding))
            except BrokenPipeError:
                self._went_away()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._went_away()

    def _went_away(self) -> None:
        self.gone = True
        with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)


def pipe_safe(stream: TextIO) -> TextIO:
    """`stream` as a command writes to it (a `TextIO`, as every command takes)."""
    return cast(TextIO, PipeSafe(stream))
