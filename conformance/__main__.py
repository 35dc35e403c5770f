"""`python -m conformance` and the `seqthink-conformance` console script."""

from __future__ import annotations

import sys

from conformance.core.collector import collect_less_often
from conformance.drivers.process import exit_on_sigterm


def main() -> None:
    """Entry point: a cancelled CI job (SIGTERM) still closes every server the run started. The collector is
    set before the command line is imported (`core/collector.py`: its imports are a run's fixed cost)."""
    collect_less_often()
    exit_on_sigterm()
    from conformance.cli.main import main as cli_main

    sys.exit(cli_main())


if __name__ == "__main__":
    main()
