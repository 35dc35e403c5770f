"""A handshake server that accepts the revisions up to one given (`--newest`), answering the older ones with
themselves, and whose tool results carry `structuredContent` counting `--skew` thoughts more than the text
(`--no-state`: every call counts as the first):
two of them differ only where a client's revision negotiates or reads what the other's does not."""

from __future__ import annotations

import argparse
import json

from mini import TOOL, Message, reply, serve

REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--newest", default=REVISIONS[-1], choices=REVISIONS)
    parser.add_argument("--skew", type=int, default=0)
    parser.add_argument("--no-state", action="store_true", help="every call is the first")
    options = parser.parse_args()
    accepted = REVISIONS[: REVISIONS.index(options.newest) + 1]
    calls = 0

    def on_call(message: Message) -> None:
        nonlocal calls
        calls = 1 if options.no_state else calls + 1
        status = {"branches": [], "thoughtHistoryLength": calls}
        reply(message, {"content": [{"type": "text", "text": json.dumps(status)}],
                        "structuredContent": {**status, "thoughtHistoryLength": calls + options.skew}})

    def version(offered: str) -> str:
        return offered if offered in accepted else accepted[-1]

    serve(on_call, tool={**TOOL, "outputSchema": {"type": "object"}}, version=version)


if __name__ == "__main__":
    main()
