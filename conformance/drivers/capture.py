"""Bounds on what the harness keeps of what a server writes: stdout frames up to a limit, and stderr as its
first bytes (why it started badly) and its last (why it failed), the middle only counted, so a flood costs the
harness a fixed amount of memory."""

from __future__ import annotations

from typing import Final

DEFAULT_MAX_FRAME: Final = 16 << 20
"""The longest stdout frame read (bytes, without its newline); the suite's largest answers are far below."""

DEFAULT_STDERR_LIMIT: Final = 16 << 20
"""Bytes of stderr kept as the tail (the head is a sixteenth of it): per process and per call."""


def dropped_mark(dropped: int) -> bytes:
    """The visible mark standing where bytes were not kept."""
    return f"\n[{dropped} bytes of stderr not kept]\n".encode()


class HeadTail:
    """Bytes kept as their first `limit // 16` and (at least) their last `limit`; the rest counted."""

    def __init__(self, limit: int) -> None:
        self.tail_limit = max(limit, 1)
        self.head_limit = self.tail_limit // 16
        self.total = 0
        self._head = bytearray()
        self._tail = bytearray()
        self._tail_start = 0

    def append(self, chunk: bytes) -> None:
        room = self.head_limit - len(self._head)
        if room > 0 and not self._tail:
            taken = chunk[:room]
            self._head += taken
            self.total += len(taken)
            chunk = chunk[len(taken):]
        if not chunk:
            return
        if not self._tail:
            self._tail_start = self.total
        self._tail += chunk
        self.total += len(chunk)
        if len(self._tail) > self.tail_limit + (self.tail_limit >> 1):
            excess = len(self._tail) - self.tail_limit
            del self._tail[:excess]
            self._tail_start += excess

    @property
    def dropped(self) -> int:
        """Bytes written but not in `kept()`."""
        return self.total - len(self._head) - min(len(self._tail), self.tail_limit)

    def kept(self) -> bytes:
        """The head, a mark counting what was left out (if anything was), and the tail."""
        tail = bytes(self._tail[-self.tail_limit:])
        dropped = self.dropped
        return bytes(self._head) + (dropped_mark(dropped) if dropped else b"") + tail

    def since(self, offset: int) -> bytes:
        """What was written from absolute `offset` on, with a mark where bytes were not kept."""
        if not self._tail:
            return bytes(self._head[offset:])
        if offset >= self._tail_start:
            return bytes(self._tail[offset - self._tail_start:])
        head = bytes(self._head[offset:])
        lost = self._tail_start - max(offset, len(self._head))
        return head + (dropped_mark(lost) if lost > 0 else b"") + bytes(self._tail)

    def last(self, limit: int) -> bytes:
        """The last `limit` bytes kept (the tail, or the head while nothing went past it)."""
        if self._tail:
            return bytes(self._tail[-limit:])
        return bytes(self._head[-limit:])

    def last_lines(self, limit: int) -> bytes:
        """`last(limit)` from the start of a line: where the bytes before it were cut off inside a line (a
        server retrying for a minute wrote past the tail's limit), the fragment is dropped, as a reader takes
        a quoted line for one the server wrote whole. Kept when it holds no line break at all."""
        data = self._tail if self._tail else self._head
        chunk = bytes(data[-limit:])
        if len(data) > limit:
            whole = data[-limit - 1] == 0x0A
        elif self._tail and self._tail_start == len(self._head):
            whole = not self._head or self._head[-1] == 0x0A
        else:
            whole = not self._tail
        cut = chunk.find(b"\n")
        return chunk if whole or cut < 0 else chunk[cut + 1:]
