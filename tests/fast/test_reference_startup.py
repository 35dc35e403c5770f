"""reference_server.startup: the serving process skips the SDK's front doors, a library import never does."""

from __future__ import annotations

import subprocess
import sys

import mcp

from reference_server import startup

SERVING_IMPORTS = """
import sys
from reference_server import startup
startup.skip_front_doors()
from reference_server.server import build_server
from mcp.server.lowlevel import Server
unneeded = ("mcp.client", "mcp.server.mcpserver", "httpx2")
skipped = sorted(name for name in sys.modules if name.startswith(unneeded))
print(skipped, hasattr(sys.modules["mcp"], "Client"), Server.__module__)
"""


def test_the_serving_process_imports_the_low_level_server_without_the_client_or_mcpserver() -> None:
    command = [sys.executable, "-c", SERVING_IMPORTS]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "False", "mcp.server.lowlevel.server"]


def test_a_process_that_already_imported_mcp_keeps_the_whole_sdk() -> None:
    before = sys.modules["mcp"]
    startup.skip_front_doors()
    assert sys.modules["mcp"] is before is mcp
    assert hasattr(mcp, "Client") and hasattr(sys.modules["mcp.server"], "MCPServer")


NEEDS_A_FRONT_DOOR = """
import sys
from reference_server import startup
startup.skip_front_doors()
try:
    from mcp import ClientSession  # what a server module of a later SDK might import
except ImportError:
    startup.restore_front_doors()
from mcp import ClientSession
from reference_server.server import build_server
from mcp.server.lowlevel import Server
print(hasattr(sys.modules["mcp"], "Client"), Server.__module__)
"""


def test_a_front_door_import_after_the_skip_works_once_the_doors_are_restored() -> None:
    """The entry point's fallback: an SDK whose server side imports from `mcp` itself still starts."""
    command = [sys.executable, "-c", NEEDS_A_FRONT_DOOR]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "mcp.server.lowlevel.server"]
