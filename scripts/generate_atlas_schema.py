"""Regenerate conformance/atlas/schema.json from the atlas model (a test checks they are equal).

    python -m scripts.generate_atlas_schema
"""

from __future__ import annotations

from pathlib import Path

from conformance.atlas.write import schema_text

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    path = ROOT / "conformance" / "atlas" / "schema.json"
    path.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
