"""reference_server.startup: the serving process skips the SDK's front doors, a library import never does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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


WITHOUT_UVICORN = """
import sys
from reference_server import startup
startup.skip_front_doors()
startup.skip_optional_imports()
from reference_server.server import build_server
import sse_starlette
served = sorted({name.partition(".")[0] for name in sys.modules if sys.modules[name] is not None})
print("uvicorn" in served, "click" in served, "sse_starlette" in served)
startup.restore_front_doors()
import uvicorn
print(uvicorn.__name__)
"""


def test_the_serving_process_leaves_out_uvicorn_until_the_doors_are_restored() -> None:
    """sse_starlette's optional uvicorn (and click with it) is not imported; the fallback imports it again."""
    command = [sys.executable, "-c", WITHOUT_UVICORN]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "True", "uvicorn"]


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


DEFERRED_MODELS = """
import sys
from reference_server import startup
startup.skip_front_doors()
took = startup.defer_model_builds()
from reference_server.server import build_server
import mcp_types, mcp_types._types as monolith
from pydantic import BaseModel
models = [m for m in vars(mcp_types).values() if isinstance(m, type) and issubclass(m, BaseModel)]
built = [m.__name__ for m in models if m.__pydantic_complete__]
print(took, len(models), len(built), monolith.client_request_adapter.pydantic_complete)
"""


def test_the_serving_process_builds_no_sdk_model_at_import() -> None:
    """Deferred: the SDK's union adapters and all but a few of its models (those the SDK's own modules use
    at import) wait for a message that needs them; eagerly, every one of them is built."""
    command = [sys.executable, "-c", DEFERRED_MODELS]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    took, models, built, adapter_built = done.stdout.split()
    assert (took, adapter_built) == ("True", "False")
    assert int(models) > 100 and int(built) < int(models) // 10, done.stdout


def test_pydantic_imported_before_the_start_is_left_as_it_is() -> None:
    """In this process pydantic is loaded already (a library use): its settings are not touched."""
    from pydantic._internal._config import config_defaults

    assert startup.defer_model_builds() is False
    assert config_defaults["defer_build"] is False


def _frame(message: dict[str, object]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _call(request_id: object, name: str, arguments: object) -> bytes:
    return _frame({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                   "params": {"name": name, "arguments": arguments}})


THOUGHT = {"thought": "one", "thoughtNumber": 1, "totalThoughts": 2, "nextThoughtNeeded": True}
SESSION = b"".join([
    _frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
    _frame({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    _frame({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    _call(3, "sequentialthinking", THOUGHT),
    _call(4, "sequentialthinking", {**THOUGHT, "branchFromThought": 1, "branchId": "b", "thought": "\ud800"}),
    _call(5, "sequentialthinking", {"thoughtNumber": "x"}),
    _call(6, "other", {}),
    _frame({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": 7}}),
    _frame({"jsonrpc": "2.0", "id": 8, "method": "resources/list"}),
    _frame({"jsonrpc": "2.0", "id": 9.0, "method": "ping"}),
    _frame({"jsonrpc": "2.0", "id": 10, "method": "ping", "extra": 1}),
    b"{not json\n",
    _frame({"jsonrpc": "2.0", "id": 11, "method": "tools/list", "params": {"cursor": 3}}),
])
"""One chunk of frames touching every kind of answer: results, zod refusals, unknown methods and tools, a
lone surrogate, an id the original rewrites, frames it drops."""

EAGER = "from reference_server.server import run; raise SystemExit(run())"
"""The library import: every model built at import, as before the deferral."""


def test_deferred_builds_answer_byte_for_byte_as_eager_ones() -> None:
    """What the start leaves for later changes nothing a client sees: stdout, stderr and exit status."""
    served = [
        subprocess.run(command, input=SESSION, capture_output=True, timeout=120)
        for command in ([sys.executable, "-m", "reference_server"], [sys.executable, "-c", EAGER])
    ]
    deferred, eager = served
    assert deferred.stdout.count(b"\n") >= 10, deferred
    assert deferred.stdout == eager.stdout
    assert (deferred.returncode, deferred.stderr) == (eager.returncode, eager.stderr)


def test_annotation_texts_compile_once_during_the_start_and_afresh_after_it() -> None:
    """The memo shares one text's code among ForwardRefs while it is on; undone, typing compiles as before."""
    import typing

    undo = startup.memoize_annotation_compiles()
    try:
        first, second = typing.ForwardRef("int | None"), typing.ForwardRef("int | None")
        assert first.__forward_code__ is second.__forward_code__
        assert typing.ForwardRef("str").__forward_code__ is not first.__forward_code__
        assert eval(first.__forward_code__) == (int | None)
    finally:
        undo()
    assert "compile" not in vars(typing)
    assert typing.ForwardRef("int | None").__forward_code__ is not first.__forward_code__


def test_a_compile_patched_into_typing_by_someone_else_is_left_alone() -> None:
    import typing

    def theirs(*args: object) -> object:
        return compile(*args)  # type: ignore[call-overload]

    typing.compile = theirs  # type: ignore[attr-defined]
    try:
        startup.memoize_annotation_compiles()()
        assert vars(typing)["compile"] is theirs
    finally:
        del typing.compile  # type: ignore[attr-defined]


HTTP_DEFERRED = """
import atexit, json, sys
from reference_server import startup
server = startup.server_module()

def report() -> None:
    holders = sorted(name for name, module in list(sys.modules.items()) if module is not None
                     and any(isinstance(value, startup.Deferred) for value in vars(module).values()))
    left = [name for name in (*startup.HTTP_ONLY, *startup.REVISION_SURFACES) if name in sys.modules]
    import mcp_types
    built = [name for name in ("Tool", "ListToolsResult", "InitializeResult", "ServerCapabilities",
                               "CallToolRequestParams", "ReadResourceRequestParams", "GetPromptRequestParams")
             if getattr(mcp_types, name).__pydantic_complete__]
    with open(sys.argv[1], "w") as out:
        json.dump([startup.DEFERRED_RESOLVED, holders, "starlette" in sys.modules, left, built], out)

atexit.register(report)
raise SystemExit(server.run())
"""


def test_a_served_session_never_imports_the_http_side_or_the_revision_surfaces(tmp_path: Path) -> None:
    """Every kind of answer served (a notification among them), and no deferred name resolved: starlette and
    the per-revision models are never imported, only the low-level server module holds deferred names at
    its top level, and no stand-in module is left in `sys.modules`."""
    found = tmp_path / "found.json"
    command = [sys.executable, "-c", HTTP_DEFERRED, str(found)]
    done = subprocess.run(command, input=SESSION, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(b"\n") >= 10, done
    *deferred, built = json.loads(found.read_text())
    assert deferred == [[], ["mcp.server.lowlevel.server"], False, []]
    assert built == [], "no model built for initialize, tools/list or the params the SDK rebuilds by hand"


REBUILT_BY_HAND = """
import json, sys
if sys.argv[1] == "served":
    from reference_server import startup
    startup.server_module()
import mcp_types
before = mcp_types.CallToolRequestParams.__pydantic_complete__
params = {"name": "t", "arguments": {"a": [1, {"b": None}]}, "_meta": {"progressToken": 3}}
parsed = mcp_types.CallToolRequestParams.model_validate(params)
try:
    mcp_types.ReadResourceRequestParams.model_validate({"uri": 3})
except Exception as error:
    refused = str(error).splitlines()[:3]
schema = mcp_types.GetPromptRequestParams.model_json_schema()
print(json.dumps([before, parsed.model_dump(mode="json"), refused, schema]))
"""


def test_a_model_rebuilt_by_hand_is_left_for_its_first_use_and_then_the_same() -> None:
    """The SDK's own `model_rebuild()` calls wait in the serving process; used later, the models validate,
    refuse and describe themselves as in a process that built them at import."""
    found = [subprocess.run([sys.executable, "-c", REBUILT_BY_HAND, kind], capture_output=True, text=True,
                            timeout=120) for kind in ("served", "library")]
    assert [done.returncode for done in found] == [0, 0], [done.stderr for done in found]
    served, library = (json.loads(done.stdout) for done in found)
    assert (served[0], library[0]) == (False, True)
    assert served[1:] == library[1:]


def test_a_deferred_name_imports_its_module_when_called() -> None:
    """Outside the stdio path (an HTTP app asked for), the real object answers."""
    deferred = startup.Deferred("json", "dumps")
    assert deferred([1]) == "[1]" and deferred.__name__ == "dumps"
    assert deferred.resolve() is json.dumps
    assert startup.DEFERRED_RESOLVED.count(("json", "dumps")) == 1, "resolved once, then kept"


SURFACE_USED = """
import sys
from reference_server import startup
startup.server_module()
from pydantic import ValidationError
from mcp_types import methods
methods.validate_client_notification("notifications/initialized", "2024-11-05", None)
try:
    methods.validate_client_notification("notifications/cancelled", "2025-06-18", {"requestId": []})
except ValidationError:
    refused = True
print(startup.DEFERRED_RESOLVED, refused, methods.CLIENT_NOTIFICATIONS[
    ("notifications/cancelled", "2026-07-28")].resolve().__module__)
"""


def test_a_deferred_revision_model_validates_as_the_real_one_once_asked() -> None:
    """Off the stdio path (a handler registered for a notification, a later SDK's validation), the maps'
    deferred names import their revision and validate with its model, accepting and refusing alike."""
    done = subprocess.run([sys.executable, "-c", SURFACE_USED], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("] ")[1].split() == ["True", "mcp_types._v2026_07_28"], done.stdout
    assert "('mcp_types._v2025_11_25', 'InitializedNotification')" in done.stdout, done.stdout
