"""`python -m reference_server` and the `seqthink-reference-server` console script: serve on stdio."""

from __future__ import annotations

import sys

from reference_server import startup


def main() -> None:
    """Build the server with the collector paused, the SDK's front doors and the HTTP side's optional imports
    skipped and its models built on first use, then serve."""
    startup.pause_collector()
    startup.skip_front_doors()
    startup.skip_optional_imports()
    startup.defer_model_builds()
    try:
        from reference_server.server import run  # imported here: after the start-up settings above
    except ImportError:
        startup.restore_front_doors()
        from reference_server.server import run
    startup.resume_collector()
    sys.exit(run())


if __name__ == "__main__":
    main()
