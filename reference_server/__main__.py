"""`python -m reference_server` and the `seqthink-reference-server` console script: serve on stdio."""

from __future__ import annotations

import sys

from reference_server.server import run


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
