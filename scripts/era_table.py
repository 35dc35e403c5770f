"""The era table: each target met by a client of each protocol revision (and the SDK's `auto`).

Per target and era, one fresh process answers what the suite's spec checks read (`suite/era_meetings.py`);
the table says which revision the connection settled on, how many spec records hold, are not applicable,
and which depart (`suite/spec_checks.py`, the checks the suite's `test_spec_eras.py` runs).

    python -m scripts.era_table [--target SPEC ...] [--era NAME ...]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Final

from conformance.calls.meetings import meet
from conformance.core.eras import AUTO, ERA_NAMES, ERAS, era_named
from conformance.suite.spec_checks import verdicts
from conformance.targets.specs import resolve_target

TARGETS: Final = (
    "npm:0.6.2", "npm:2025.7.1", "npm:2025.11.25", "npm:2025.12.18", "npm:2026.7.4", "npm:2026.8.31",
    "reference",
)


def table(targets: Sequence[str], eras: Sequence[str], timeout: float = 20.0) -> list[str]:
    """Markdown rows: target, era, settled revision, holds / n/a / deviates counts, the departing records."""
    lines = ["| target | era | settled on | holds | n/a | deviates | departing (spec records) |",
             "|---|---|---|---:|---:|---:|---|"]
    for spec in targets:
        target = resolve_target(spec)
        for name in eras:
            meeting = meet(target, era_named(name), timeout=timeout)
            judged = verdicts(meeting)
            holds = sum(v == "holds" for v in judged.values())
            na = sum(v == "n/a" for v in judged.values())
            departing = [record for record, v in judged.items() if v.startswith("deviates")]
            settled = meeting.negotiated or ("failed: " + meeting.failure if meeting.failure else "none")
            lines.append(f"| {spec} | {name} | {settled} | {holds} | {na} | {len(departing)} | "
                         f"{', '.join(departing) or '-'} |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.era_table", description=__doc__.splitlines()[0])
    parser.add_argument("--target", action="append", default=None, help="target spec (repeatable)")
    parser.add_argument("--era", action="append", default=None, choices=ERA_NAMES, help="era (repeatable)")
    args = parser.parse_args(argv)
    eras = args.era or [*(era.name for era in ERAS), AUTO.name]
    for line in table(args.target or TARGETS, eras):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
