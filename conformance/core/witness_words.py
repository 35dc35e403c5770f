"""Words the gate writes into a witness or an entry and the writers look for: shared here so that the report
room reads them without importing the gate (core: no imports)."""

from __future__ import annotations

from typing import Final

CARRIED: Final = "not compared: carried across processes"
"""A witness answer's count or label list when two fresh processes started from different stores."""

NEVER_DEPARTED: Final = ("its pinned witness never departed from the original on a fresh process (the "
                         "search alone found it) and answers as pinned: it cannot tell this departure gone; "
                         "kept while other entries depart as pinned")
"""Why an entry the search missed is kept though no witness re-observed it (`gate/pinned.replay_pinned`)."""
