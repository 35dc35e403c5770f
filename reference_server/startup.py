"""What the server process leaves out of its start: the SDK's package front doors and the collector's passes.

`import mcp.server.lowlevel` first runs `mcp/__init__.py` and `mcp/server/__init__.py`, whose re-exports
import the client side (`mcp.client`, httpx2) and the high-level `MCPServer` framework: about a sixth
of the start, none of it on the stdio server's path (no server module imports from either package's
front door). The process that serves therefore registers those two packages as bare package modules
with their real search path, so their submodules import normally and the two `__init__`s never run.
Only the entry point does this, and only before anything imported `mcp`: a program that imports
`reference_server` as a library gets the SDK whole.

Building the SDK's ~550 pydantic models allocates enough to trigger the cyclic collector hundreds of
times over objects that live as long as the process; it is paused for the start and the survivors are
frozen out of later passes, so a long session's collections scan only what the calls created.
"""

from __future__ import annotations

import gc
import importlib.util
import sys
import types
from typing import Final

SKIPPED_FRONT_DOORS: Final = ("mcp", "mcp.server")


def skip_front_doors() -> None:
    """Register the SDK packages as bare modules, unless one is imported already (then nothing changes)."""
    if any(name in sys.modules for name in SKIPPED_FRONT_DOORS):
        return
    for name in SKIPPED_FRONT_DOORS:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.submodule_search_locations is None:
            return
        module = types.ModuleType(name)
        module.__spec__ = spec
        module.__path__ = list(spec.submodule_search_locations)
        module.__file__ = spec.origin
        sys.modules[name] = module
        if "." in name:
            parent, _, child = name.rpartition(".")
            setattr(sys.modules[parent], child, module)


def restore_front_doors() -> None:
    """Forget every SDK and server module imported behind the bare front doors, so the next import runs the
    SDK's own `__init__`s (an SDK release whose server side imports from them still starts, only slower)."""
    ours = ("mcp", "mcp.", "reference_server.")
    keep = {__name__, "reference_server.__main__"}
    for name in [n for n in sys.modules if n.startswith(ours) and n not in keep]:
        del sys.modules[name]


def pause_collector() -> None:
    """No cyclic collection while the modules and the server are built (reference counting still frees)."""
    gc.disable()


def resume_collector() -> None:
    """Move everything alive now out of the collector's view, then collect as usual."""
    gc.freeze()
    gc.enable()
