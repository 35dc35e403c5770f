"""A server that keeps a journal (argument 1, a file path): its history and labels are saved after every
accepted call and restored by the next process, as the blind fork fork-disk-journal does (issue 43). A
"fresh" process is not fresh: its first call continues the saved count and labels. With `--labels-only`
(argument 2) only the labels are restored, as fork-remembered-labels (held-out-multi-13) does: its probe,
filing no label, answers alike on two fresh processes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mini import BANNER, Message, reply, serve

JOURNAL = Path(sys.argv[1])
LABELS_ONLY = sys.argv[2:3] == ["--labels-only"]
try:
    _saved = json.loads(JOURNAL.read_text(encoding="utf-8"))
    _count: int = 0 if LABELS_ONLY else int(_saved["count"])
    _labels: list[str] = [str(label) for label in _saved["labels"]]
except (OSError, ValueError, KeyError, TypeError):
    _count, _labels = 0, []


def answer_call(message: Message) -> None:
    global _count
    arguments = message.get("params", {}).get("arguments", {})
    if not isinstance(arguments, dict):
        arguments = {}
    _count += 1
    label = arguments.get("branchId")
    if arguments.get("branchFromThought") and label and str(label) not in _labels:
        _labels.append(str(label))
    JOURNAL.write_text(json.dumps({"count": _count, "labels": _labels}), encoding="utf-8")
    status = {key: arguments.get(key) for key in ("thoughtNumber", "totalThoughts", "nextThoughtNeeded")}
    status |= {"branches": list(_labels), "thoughtHistoryLength": _count}
    reply(message, {"content": [{"type": "text", "text": json.dumps(status, indent=2)}]})


if __name__ == "__main__":
    serve(answer_call, banner=BANNER)
