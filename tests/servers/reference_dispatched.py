"""The reference with every request served by the SDK's dispatcher: the transport answers nothing at once
(`reference_server.server.answered_at_once` answers None), as before the transport's fast path. The oracle
of tests/fast/test_reference_fast_path.py: the same frames must get the same bytes from both."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

from reference_server import startup


def _dispatched(call_tool: Callable[[Mapping[str, Any]], dict[str, Any]], method: str,
                params: Mapping[str, Any] | None) -> dict[str, Any] | None:
    return None


def main() -> None:
    server = startup.server_module()
    server.answered_at_once = _dispatched  # type: ignore[attr-defined]
    sys.exit(server.run())


if __name__ == "__main__":
    main()
