"""The era table: each target met by a client of each protocol revision (and the SDK's `auto`).

Per target and era, one fresh process answers what the suite's spec checks read (`suite/era_meetings.py`);
the table says which revision the connection settled on, what that client meets (`calls/meetings.py`
`meets`: for a 2026-07-28 client that settles on nothing, what the server does with its requests), how many
spec records hold, are not applicable, and which depart (`suite/spec_checks.py`, the checks the suite's
`test_spec_eras.py` runs). `--sdk` adds what the installed python-sdk's own client does pinned to 2026-07-28
(`mcp.Client(mode="2026-07-28")`: list the tools, call the tool once), a line per target.

    python -m scripts.era_table [--target SPEC ...] [--era NAME ...] [--sdk]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Final

import anyio

from conformance.calls.meetings import meet, meets
from conformance.core.eras import AUTO, ERA_NAMES, ERAS, era_named
from conformance.suite.spec_checks import verdicts
from conformance.targets.specs import resolve_target

TARGETS: Final = (
    "npm:0.6.2", "npm:2025.7.1", "npm:2025.11.25", "npm:2025.12.18", "npm:2026.7.4", "npm:2026.8.31",
    "reference",
)


def table(targets: Sequence[str], eras: Sequence[str], timeout: float = 20.0) -> list[str]:
    """Markdown rows: target, era, settled revision, what the client meets, holds / n/a / deviates counts,
    the departing records."""
    header = ("| target | era | settled on | the client meets | holds | n/a | deviates |"
              " departing (spec records) |")
    lines = [header, "|---|---|---|---|---:|---:|---:|---|"]
    for spec in targets:
        target = resolve_target(spec)
        for name in eras:
            meeting = meet(target, era_named(name), timeout=timeout)
            judged = verdicts(meeting)
            holds = sum(v == "holds" for v in judged.values())
            na = sum(v == "n/a" for v in judged.values())
            departing = [record for record, v in judged.items() if v.startswith("deviates")]
            settled = meeting.negotiated or ("failed: " + meeting.failure if meeting.failure else "none")
            lines.append(f"| {spec} | {name} | {settled} | {meets(meeting)} | {holds} | {na} | "
                         f"{len(departing)} | {', '.join(departing) or '-'} |")
    return lines


SDK_CALL: Final = {"thought": "sdk", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}


def sdk_pinned(spec: str, revision: str = "2026-07-28", timeout: float = 20.0) -> str:
    """What python-sdk's `Client(mode=revision)` does with `spec`: it adopts the revision without a probe,
    then lists the tools and calls the tool; each step's outcome, or the first line of what it raised.
    The SDK reads the server with its own stdio transport: bounded here by time only (known targets)."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    target = resolve_target(spec)
    params = StdioServerParameters(command=target.command[0], args=list(target.command[1:]),
                                   env=dict(target.env))
    steps: list[str] = []

    def failed(what: str, exc: BaseException) -> str:
        while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
            exc = exc.exceptions[0]
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        fields = [lines[i] for i in range(1, len(lines) - 1) if lines[i + 1].startswith("Field required")]
        said = f"{lines[0] if lines else ''}{': ' + ', '.join(fields) + ' missing' if fields else ''}"
        return f"{what}: {type(exc).__name__} ({said[:200]})"

    async def run() -> None:
        with anyio.fail_after(timeout):
            async with Client(params, mode=revision) as client:
                steps.append(f"adopts {client.protocol_version}")
                try:
                    listed = await client.list_tools()
                    steps.append(f"list_tools: {len(listed.tools)} tool(s)")
                except Exception as exc:  # what the SDK raised is the finding
                    steps.append(failed("list_tools", exc))
                try:
                    result = await client.call_tool("sequentialthinking", SDK_CALL)
                    steps.append(f"call_tool: isError {result.is_error}")
                except Exception as exc:
                    steps.append(failed("call_tool", exc))

    try:
        anyio.run(run)
    except Exception as exc:  # a failed connection is the finding too
        steps.append(failed("connect", exc))
    return "; ".join(steps)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.era_table", description=__doc__.splitlines()[0])
    parser.add_argument("--target", action="append", default=None, help="target spec (repeatable)")
    parser.add_argument("--era", action="append", default=None, choices=ERA_NAMES, help="era (repeatable)")
    parser.add_argument("--sdk", action="store_true",
                        help="add what python-sdk's own client pinned to 2026-07-28 does with each target")
    args = parser.parse_args(argv)
    eras = args.era or [*(era.name for era in ERAS), AUTO.name]
    for line in table(args.target or TARGETS, eras):
        print(line, flush=True)
    if args.sdk:
        print("\n| target | python-sdk Client(mode=\"2026-07-28\") |\n|---|---|")
        for spec in args.target or TARGETS:
            print(f"| {spec} | {sdk_pinned(spec)} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
