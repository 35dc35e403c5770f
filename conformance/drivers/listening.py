"""The TCP addresses a server's processes listen on, read from /proc: a server serving HTTP rather than stdio
(its default transport, a framework's) is told by its listening socket when nothing it writes says so
(lsekit-sequentialthinking printed its start to stdout in Chinese, its stderr empty). A debugger's port is
told apart (`DEBUGGER`): a stdio server slow under `node --inspect` listens on the inspector's 9229, which
says nothing of its transport. Its ports are read from the processes' own command lines and NODE_OPTIONS
(node's `--inspect[-brk|-wait][=[host:]port]` and `--inspect-port`, debugpy's `--listen`, a JVM's JDWP
`address=`) and from node's "Debugger listening on ws://…" line on stderr."""

from __future__ import annotations

import ipaddress
import os
import re
from pathlib import Path
from typing import Final

from conformance.drivers.process import group_members

MAX_FDS: Final = 4096
"""Open files looked at per process: a hostile server holding a million descriptors is not read whole."""
MAX_TABLE_BYTES: Final = 4 << 20
"""Bytes of each /proc/<pid>/net/tcp table read: the machine's other sockets are listed there too."""
MAX_ADDRESSES: Final = 8
_LISTEN: Final = "0A"
DEBUGGER: Final = " (a debugger's)"
"""How `listening_addresses` marks the address of a debugger's port."""
NODE_INSPECTOR_PORT: Final = 9229
MAX_ARGUMENT_BYTES: Final = 1 << 16
"""Bytes of a process's command line and environment read to find a debugger's port."""
_NODE_INSPECT: Final = re.compile(r"^--inspect(?:-brk|-wait)?(?:=(?:.*:)?(?P<port>\d+))?$")
_NODE_INSPECT_PORT: Final = re.compile(r"^--inspect-port=(?:.*:)?(?P<port>\d+)$")
_JDWP: Final = re.compile(r"^-(?:agentlib:jdwp=|Xrunjdwp:)\S*?address=(?:[^,]*:)?(?P<port>\d+)")
_PORT_GIVEN: Final = re.compile(r"^(?:.*:)?(?P<port>\d+)$")
_INSPECTOR_SAID: Final = re.compile(rb"Debugger listening on ws://[^/\s]*?:(?P<port>\d+)/")


def listening_addresses(pgid: int, said: bytes = b"") -> list[str]:
    """`host:port` of every TCP socket in LISTEN state held by a live process of group `pgid` (IPv6 as
    `[host]:port`), in the order the kernel lists them, at most `MAX_ADDRESSES`; [] where /proc cannot say.
    A debugger's port (`debugger_ports`, `said` its stderr) is marked with `DEBUGGER`."""
    members = group_members(pgid)
    debuggers = debugger_ports(members, said)
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
                if address is not None and int(address.rpartition(":")[2]) in debuggers:
                    address += DEBUGGER
                if address is not None and address not in found:
                    found.append(address)
    return found[:MAX_ADDRESSES]


def debugger_ports(pids: list[int], said: bytes = b"") -> set[int]:
    """The ports a debugger of these processes listens on, by their command lines and NODE_OPTIONS, and by
    node's own line on stderr (`said`)."""
    ports = {int(m.group("port")) for m in _INSPECTOR_SAID.finditer(said[-MAX_ARGUMENT_BYTES:])}
    for pid in pids:
        arguments = _read(f"/proc/{pid}/cmdline").split(b"\0")
        options = next((v for v in _read(f"/proc/{pid}/environ").split(b"\0")
                        if v.startswith(b"NODE_OPTIONS=")), b"").removeprefix(b"NODE_OPTIONS=").split()
        ports |= debugger_ports_in([a.decode("utf-8", "replace") for a in (*arguments, *options)])
    return ports


def debugger_ports_in(arguments: list[str]) -> set[int]:
    """The debugger ports a command line asks for: node's inspector (9229 unless given), debugpy's
    `--listen`, a JVM's JDWP agent."""
    ports: set[int] = set()
    for index, argument in enumerate(arguments):
        inspect = _NODE_INSPECT.match(argument) or _NODE_INSPECT_PORT.match(argument)
        if inspect is not None:
            port = inspect.group("port")
            ports.add(int(port) if port else NODE_INSPECTOR_PORT)
        elif (jdwp := _JDWP.match(argument)) is not None:
            ports.add(int(jdwp.group("port")))
        elif argument == "--listen" and "debugpy" in " ".join(arguments[:index]):
            given = _PORT_GIVEN.match(arguments[index + 1]) if index + 1 < len(arguments) else None
            if given is not None:
                ports.add(int(given.group("port")))
    return {port for port in ports if 0 < port < 65536}


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as file:
            return file.read(MAX_ARGUMENT_BYTES)
    except OSError:
        return b""


def listening_clause(addresses: list[str]) -> str:
    """What a stop adds for a process listening on TCP: a server serving HTTP (or SSE) where a stdio client
    waits on its stdout, told by its socket when nothing it wrote says so ("" when it listens nowhere); a
    debugger's port said as that, which tells nothing of the transport (a slow start under the debugger)."""
    debuggers = [a.removesuffix(DEBUGGER) for a in addresses if a.endswith(DEBUGGER)]
    servers = [a for a in addresses if not a.endswith(DEBUGGER)]
    debugged = (f"a debugger listens on TCP {', '.join(debuggers)} (an inspector its command line asks "
                "for, node's --inspect or its like: a debugger's port, which says nothing of the server's "
                "transport; a server slowed by its debugger may need a longer --call-timeout)"
                if debuggers else "")
    if not servers:
        return f"; {debugged}" if debugged else ""
    return (f"; its process listens on TCP {', '.join(servers)}, as a server of HTTP does, "
            f"not on stdio alone{'; ' + debugged if debugged else ''}")


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
