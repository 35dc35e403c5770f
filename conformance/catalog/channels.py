"""The channels a record is observable through: a name list of its own, so the command line offers them
without loading the catalog."""

from __future__ import annotations

from typing import Literal

Channel = Literal["wire", "stderr", "artifact", "process"]
