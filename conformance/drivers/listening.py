"""The TCP addresses a server's processes listen on, read from /proc: a server serving HTTP rather than stdio
(its default transport, a framework's) is told by its listening socket when nothing it writes says so
(lsekit-sequentialthinking printed its start to stdout in Chinese, its stderr empty)."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Final

from conformance.drivers.process import group_members

MAX_FDS: Final = 4096
"""Open files looked at per process: a hostile server holding a million descriptors is not read whole."""
MAX_TABLE_BYTES: Final = 4 << 20
"""Bytes of each /proc/<pid>/net/tcp table read: the machine's other sockets are listed there too."""
MAX_ADDRESSES: Final = 8
_LISTEN: Final = "0A"


def listening_addresses(pgid: int) -> list[str]:
    """`host:port` of every TCP socket in LISTEN state held by a live process of group `pgid` (IPv6 as
    `[host]:port`), in the order the kernel lists them, at most `MAX_ADDRESSES`; [] where /proc cannot say."""
    members = group_members(pgid)
    inodes: set[str] = set()
    for pid in members:
        inodes |= _socket_inodes(pid)
    if not inodes:
        return []
    found: list[str] = []
    for table, v6 in (("tcp", False), ("tcp6", True)):
        for line in _table(members[0], table):
            fields = line.split()
            if len(fields) > 9 and fields[3] == _LISTEN and fields[9] in inodes:
                address = _address(fields[1], v6)
                if address is not None and address not in found:
                    found.append(address)
    return found[:MAX_ADDRESSES]


def listening_clause(addresses: list[str]) -> str:
    """What a stop adds for a process listening on TCP: a server serving HTTP (or SSE) where a stdio client
    waits on its stdout, told by its socket when nothing it wrote says so ("" when it listens nowhere)."""
    if not addresses:
        return ""
    return (f"; its process listens on TCP {', '.join(addresses)}, as a server of HTTP does, "
            "not on stdio alone")


def _socket_inodes(pid: int) -> set[str]:
    inodes: set[str] = set()
    fd_dir = Path(f"/proc/{pid}/fd")
    try:
        with os.scandir(fd_dir) as entries:
            for n, entry in enumerate(entries):
                if n >= MAX_FDS:
                    break
                try:
                    target = os.readlink(entry.path)
                except OSError:
                    continue
                if target.startswith("socket:[") and target.endswith("]"):
                    inodes.add(target[8:-1])
    except OSError:
        return set()
    return inodes


def _table(pid: int, name: str) -> list[str]:
    """The lines of the process's network namespace's TCP table (its first line, the header, dropped)."""
    try:
        with open(f"/proc/{pid}/net/{name}", "rb") as table:
            text = table.read(MAX_TABLE_BYTES).decode("ascii", "replace")
    except OSError:
        return []
    return text.splitlines()[1:]


def _address(field: str, v6: bool) -> str | None:
    """`0100007F:0BB8` → `127.0.0.1:3000` (the kernel writes each 32-bit word little-endian)."""
    host, _, port = field.partition(":")
    try:
        number = int(port, 16)
        words = [bytes.fromhex(host[i:i + 8])[::-1] for i in range(0, len(host), 8)]
    except ValueError:
        return None
    raw = b"".join(words)
    if not v6 and len(raw) == 4:
        return f"{'.'.join(str(b) for b in raw)}:{number}"
    if v6 and len(raw) == 16:
        return f"[{ipaddress.IPv6Address(raw)}]:{number}"
    return None
