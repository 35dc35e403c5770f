"""The context-manager contract both drivers share."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Managed:
    """Start on enter and close on every exit path; a driver that fails half-way through starting is closed
    before the error propagates, so no server process outlives a failed `with`."""

    def start(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
