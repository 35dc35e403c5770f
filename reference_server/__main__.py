"""`python -m reference_server` and the `seqthink-reference-server` console script: serve on stdio."""

from __future__ import annotations

import sys

from reference_server import startup


def main() -> None:
    """Build the server the quick way (`startup.server_module`), then serve."""
    sys.exit(startup.server_module().run())


if __name__ == "__main__":
    main()
