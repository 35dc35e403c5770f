"""That the target lists its tool under another name and was checked anyway: its tools/list lacks
`sequentialthinking`, but the original's call to that name is answered, so every record was checked on it and
the listing departs as CMP-2. A reader must know the run did not stop, and why."""

from __future__ import annotations

from conformance.core.protocol import TOOL
from conformance.report.escape import safe
from conformance.report.model import Preflight, Report
from conformance.report.sections.section import NOT_SHOWN, NotShown, notice
from conformance.report.text import is_comparison_only

_NAMES = 8
"""At most this many listed names said."""


def view(report: Report) -> Preflight | NotShown:
    preflight = report.preflight
    if is_comparison_only(report) or not preflight.ok or preflight.tool_offered is not False:
        return NOT_SHOWN
    return preflight


def said(preflight: Preflight) -> str:
    """One sentence: the names listed, and that the original's name is still answered."""
    names = ", ".join(safe(name, 64) for name in preflight.tools[:_NAMES])
    more = ", …" if len(preflight.tools) > _NAMES else ""
    return (f"tools/list offers {names or 'no tool'}{more}, not {TOOL}, but a call to {TOOL} is answered: "
            f"every record was checked on that name, and the listing departs as CMP-2")


SECTION = notice("listed tool", "Tool listed under another name", view, said)
