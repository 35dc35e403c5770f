"""The command line's exit statuses: what a fork's CI branches on."""

from __future__ import annotations

from typing import Final

OK: Final = 0
"""The gate passed (observed departures are exactly the baseline's); `diff`: no record differs."""
GATE_FAILED: Final = 1
"""A departure not in the baseline, or a baseline entry that did not depart; `diff`: records differ."""
UNUSABLE: Final = 2
"""The target cannot be started or driven."""
NO_SPACE: Final = 3
"""No room left to write: the device (or the quota) holding `--out`, the target cache or the temporary folder
is full. Said as such: neither the target (2) nor the input (4) is at fault."""
USAGE = 4
"""The command line is wrong, or a file it names cannot be used, or `--out` may not be written."""
INTERRUPTED: Final = 130
