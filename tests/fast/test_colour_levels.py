"""reference_server.colour's rules for chalk's level on their own (against chalk's own module, and the boxes
of both servers: tests/e2e/test_reference_colour.py)."""

from __future__ import annotations

import math

from reference_server.colour import chalk_accepts_level, chalk_colours


def test_chalk_accepts_only_integer_levels_up_to_three() -> None:
    assert chalk_accepts_level(0.0) and chalk_accepts_level(3.0) and chalk_accepts_level(math.nan)
    assert not chalk_accepts_level(-1.0)
    assert not chalk_accepts_level(4.0)


def test_chalk_styles_unless_level_is_at_most_zero() -> None:
    assert not chalk_colours(0.0)
    assert not chalk_colours(-1.0)
    assert chalk_colours(1.0)
    assert chalk_colours(math.nan)
