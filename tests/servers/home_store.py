"""A server keeping its store under its HOME, made at start-up before any request: `~/.home-store/storage/`,
with one file more per tools/call, as a task orchestrator's `~/.task-orchestrator/storage/` is made by
whichever process starts first (the preflight's). Each call's answer says where the store is, how many files
it held before the call, and the launchers' homes it was pointed at (`npm_config_cache`, `PYTHONUSERBASE`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from mini import Message, reply, serve

STORE = Path(os.path.expanduser("~")) / ".home-store" / "storage"
STORE.mkdir(parents=True, exist_ok=True)


def answer_call(message: Message) -> None:
    held = sorted(path.name for path in STORE.iterdir())
    (STORE / f"call-{len(held) + 1}.json").write_text("{}")
    npm_cache = os.environ.get("npm_config_cache", "")  # noqa: SIM112 - npm's own spelling
    said = {"store": str(STORE), "held": len(held), "npm_config_cache": npm_cache,
            "PYTHONUSERBASE": os.environ.get("PYTHONUSERBASE", "")}
    reply(message, {"content": [{"type": "text", "text": json.dumps(said)}]})


if __name__ == "__main__":
    serve(answer_call)
