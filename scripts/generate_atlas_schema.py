"""Regenerate conformance/atlas/schema.json from the atlas model (a test checks they are equal)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from conformance.atlas.write import schema_text  # noqa: E402


def main() -> None:
    path = ROOT / "conformance" / "atlas" / "schema.json"
    path.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
