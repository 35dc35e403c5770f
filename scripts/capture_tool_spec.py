"""Capture the original's tool (name, description, inputSchema) over the wire into reference_server/data.

The reference server lists exactly what this records, so the text stays upstream's: it is never
retyped. Provenance (package, version, sha256 of the entry file, node version, capture date) and
the upstream licence notice are stored beside it.

    python -m scripts.capture_tool_spec                 # the npm:0.6.2 target, installed by the harness
    python -m scripts.capture_tool_spec --check         # exit 1 if the stored capture is stale
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

from conformance.drivers.wire import WireDriver
from conformance.targets.specs import resolve_target

OUTPUT: Final = Path(__file__).resolve().parent.parent / "reference_server" / "data" / "tool_spec.json"
PACKAGE: Final = "@modelcontextprotocol/server-sequential-thinking"
ENTRY: Final = "dist/index.js"

MIT_BODY: Final = """Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""

UPSTREAM_COPYRIGHT: Final = "Copyright (c) 2024 Anthropic, PBC"
"""The copyright line of the upstream repository's LICENSE (modelcontextprotocol/servers), MIT."""


def licence_notice(package_json: dict[str, Any]) -> str:
    """The MIT notice the package declares (package.json `license`; the tarball ships no LICENSE file)."""
    declared = package_json.get("license")
    if declared != "MIT":
        raise SystemExit(f"{PACKAGE} declares licence {declared!r}, not MIT: review the notice by hand")
    return f"MIT License\n\n{UPSTREAM_COPYRIGHT}\n\n{MIT_BODY}"


def package_root(command: list[str]) -> Path:
    """The installed package directory, found from the entry file in the target's command line."""
    for part in command:
        path = Path(part)
        if path.name == "index.js" and path.parent.name == "dist" and path.is_file():
            return path.parent.parent
    raise SystemExit(f"cannot find {ENTRY} in the target command {command}")


def capture(target_spec: str) -> dict[str, Any]:
    target = resolve_target(target_spec)
    command = list(target.command)
    root = package_root(command)
    package_json = json.loads((root / "package.json").read_text(encoding="utf-8"))
    entry_sha256 = hashlib.sha256((root / ENTRY).read_bytes()).hexdigest()
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True)
    node_version = node.stdout.strip()
    with WireDriver(command) as wire:
        initialize = wire.initialize()
        listed = wire.list_tools().result
    if listed is None:
        raise SystemExit("tools/list was not answered with a result")
    tools = listed.get("tools")
    if not isinstance(tools, list) or len(tools) != 1 or not isinstance(tools[0], dict):
        raise SystemExit(f"expected exactly one tool, got {tools!r}")
    tool = tools[0]
    server_info = initialize.get("serverInfo")
    return {
        "provenance": {
            "package": package_json["name"],
            "version": package_json["version"],
            "entry": ENTRY,
            "entry_sha256": entry_sha256,
            "target": target_spec,
            "node_version": node_version,
            "server_info": server_info,
            "captured": datetime.date.today().isoformat(),
            "captured_by": "scripts/capture_tool_spec.py (tools/list over stdio)",
        },
        "license": licence_notice(package_json),
        "tool": {
            "name": tool["name"],
            "description": tool["description"],
            "inputSchema": tool["inputSchema"],
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--target", default="npm:0.6.2", help="target to capture from (default npm:0.6.2)")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--check", action="store_true", help="compare with the stored capture, write nothing")
    args = parser.parse_args(argv)
    captured = capture(args.target)
    if args.check:
        stored = json.loads(args.output.read_text(encoding="utf-8"))
        same = stored["tool"] == captured["tool"] and all(
            stored["provenance"].get(key) == captured["provenance"][key]
            for key in ("package", "version", "entry_sha256")
        )
        print("capture is current" if same else "capture differs from the stored tool_spec.json")
        return 0 if same else 1
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(captured, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
