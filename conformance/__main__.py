"""`python -m conformance` and the `seqthink-conformance` console script."""

from __future__ import annotations

import sys

from conformance.cli.main import main as _main
from conformance.drivers.process import exit_on_sigterm


def main() -> None:
    """Entry point: a cancelled CI job (SIGTERM) still closes every server the run started."""
    exit_on_sigterm()
    sys.exit(_main())


if __name__ == "__main__":
    main()
