"""What the server process leaves out of its start: the SDK's package front doors and the collector's passes.

`import mcp.server.lowlevel` first runs `mcp/__init__.py` and `mcp/server/__init__.py`, whose re-exports
import the client side (`mcp.client`, httpx2) and the high-level `MCPServer` framework: about a sixth
of the start, none of it on the stdio server's path (no server module imports from either package's
front door). The process that serves therefore registers those two packages as bare package modules
with their real search path, so their submodules import normally and the two `__init__`s never run.
Only the entry point does this, and only before anything imported `mcp`: a program that imports
`reference_server` as a library gets the SDK whole. Likewise the low-level server's streamable HTTP side
imports sse_starlette, which imports uvicorn (and click) when it can, only to patch uvicorn's exit handler:
another sixth of the start on a path stdio never takes, so the serving process lets that optional import
fail, as sse_starlette expects where uvicorn is not installed.

The low-level server module also imports its streamable HTTP app's and OAuth's pieces (starlette, the auth
routes and middleware, the HTTP session manager), used only when it is asked for an HTTP app: about a tenth
of the start. For the import of the server module only, those modules are stand-ins whose names are
`Deferred`: the real module is imported when a name is first called or read through (never on the stdio
path; `DEFERRED_RESOLVED` records it if it is). The stand-ins leave `sys.modules` once the server module is
imported, so any later import gets the real modules; only the low-level server module keeps the deferred
names.

`mcp_types.methods` maps each (method, revision) to the revision's own models, two generated modules of
~270 models each (`_v2025_11_25`, `_v2026_07_28`): about a quarter of the start. They are read only to
validate a request, notification or result against its revision, which the original's answers never do
(`server._OriginalRunner`: its own zod checks, and a notification without a handler dropped unread). For
the import of the server module they are stand-ins too: the maps hold `Deferred` names, each imported for
real on first use (never on the stdio path), and the two modules are imported by no one.

The SDK's modules define ~520 pydantic models and six module-level TypeAdapters over its unions, and
pydantic builds each one's validator and serializer as it is defined: a third of the start, for a session
that uses a dozen. The serving process turns on pydantic's own `defer_build` for every model and adapter,
so each is built on its first use, by the same code, into the same validator (what a client sees does not
change; the first answer that uses a model pays for it once).

The SDK's model module also rebuilds four request-params models by hand once the models they name are
defined (`CallToolRequestParams.model_rebuild()` ...), which builds them, deferral or not, with the models
they hold: they are the models a stdio session never validates (its tools/call is answered from the
arguments as parsed). During the start, such a call on a model still waiting for its build leaves it
waiting: its first use rebuilds it from its module's names, as it does for every other deferred model.

Defining those models evaluates every string annotation through `typing.ForwardRef`, which compiles its
text afresh each time: ~2,200 compilations of ~520 distinct texts ("str | None", "list[ContentBlock]" …).
For the start only, typing's `compile` is a memo of the built-in (a code object is immutable, so the same
text's code serves every ForwardRef alike); the built-in is back once the server module is imported.

Building the rest still allocates enough to trigger the cyclic collector hundreds of times over objects
that live as long as the process; it is paused for the start and the survivors are frozen out of later
passes, so a long session's collections scan only what the calls created.
"""

from __future__ import annotations

import builtins
import gc
import importlib
import importlib.util
import sys
import types
import typing
from collections.abc import Callable
from typing import Any, Final

SKIPPED_FRONT_DOORS: Final = ("mcp", "mcp.server")
SKIPPED_OPTIONAL: Final = ("uvicorn",)
"""Imported by the SDK's dependencies inside `try: ... except ImportError`, for HTTP serving only."""


HTTP_ONLY: Final = (
    "starlette.applications",
    "starlette.middleware",
    "starlette.middleware.authentication",
    "starlette.routing",
    "mcp.server.auth.middleware.auth_context",
    "mcp.server.auth.middleware.bearer_auth",
    "mcp.server.auth.provider",
    "mcp.server.auth.routes",
    "mcp.server.auth.settings",
    "mcp.server.streamable_http",
    "mcp.server.streamable_http_manager",
    "mcp.server.transport_security",
)
"""What `mcp.server.lowlevel.server` imports for `streamable_http_app` (and its annotations) only."""

REVISION_SURFACES: Final = ("mcp_types._v2025_11_25", "mcp_types._v2026_07_28")
"""What `mcp_types.methods` imports for its per-revision maps, read only when a message is validated."""

DEFERRED_RESOLVED: Final[list[tuple[str, str]]] = []
"""(module, name) of every deferred name resolved in this process, in order: empty on the stdio path."""


_UNRESOLVED: Final = object()


class Deferred:
    """A name from an `HTTP_ONLY` module, imported for real when first called or read through."""

    def __init__(self, module: str, name: str) -> None:
        self._where = (module, name)
        self._real: Any = _UNRESOLVED

    def resolve(self) -> Any:
        """The real object, imported (and recorded in `DEFERRED_RESOLVED`) the first time only."""
        if self._real is _UNRESOLVED:
            DEFERRED_RESOLVED.append(self._where)
            self._real = getattr(importlib.import_module(self._where[0]), self._where[1])
        return self._real

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.resolve(), name)

    def __repr__(self) -> str:
        return f"<deferred {'.'.join(self._where)}>"


class _DeferredModule(types.ModuleType):
    def __getattr__(self, name: str) -> Deferred:
        if name.startswith("__"):
            raise AttributeError(name)
        return Deferred(self.__name__, name)


def defer_http_side() -> Callable[[], None]:
    """Stand in for the `HTTP_ONLY` modules until the returned undo; nothing changes if the low-level server
    or any of them is imported already."""
    return _stand_in(HTTP_ONLY, "mcp.server.lowlevel.server")


def defer_revision_surfaces() -> Callable[[], None]:
    """Stand in for the `REVISION_SURFACES` until the returned undo; nothing changes if `mcp_types.methods`
    or either of them is imported already."""
    return _stand_in(REVISION_SURFACES, "mcp_types.methods")


def _stand_in(names: tuple[str, ...], importer: str) -> Callable[[], None]:
    if any(name in sys.modules for name in (*names, importer)):
        return _nothing
    stand_ins = {name: _DeferredModule(name) for name in names}
    sys.modules.update(stand_ins)

    def undo() -> None:
        for name, module in stand_ins.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]

    return undo


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


def skip_optional_imports() -> None:
    """Make each import of `SKIPPED_OPTIONAL` fail (ModuleNotFoundError), unless it is imported already."""
    for name in SKIPPED_OPTIONAL:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]  # None: "not importable", by design


def restore_front_doors() -> None:
    """Forget every SDK and server module imported behind the bare front doors, and the optional imports
    skipped, so the next import runs the SDK's own `__init__`s (an SDK release whose server side imports
    from them or needs uvicorn still starts, only slower)."""
    for name in SKIPPED_OPTIONAL:
        if name in sys.modules and sys.modules[name] is None:
            del sys.modules[name]
    ours = ("mcp", "mcp.", "reference_server.")
    keep = {__name__, "reference_server.__main__"}
    for name in [n for n in sys.modules if n.startswith(ours) and n not in keep]:
        del sys.modules[name]


def defer_model_builds() -> bool:
    """Build every pydantic model and TypeAdapter on first use (pydantic's `defer_build`), not at import;
    whether it took. Unless pydantic was imported already, or its settings moved (then nothing changes)."""
    if "pydantic" in sys.modules:
        return False
    try:
        from pydantic import TypeAdapter
        from pydantic._internal._config import config_defaults
    except ImportError:
        return False
    if config_defaults.get("defer_build") is not False or not isinstance(
        vars(TypeAdapter).get("_defer_build"), property
    ):
        return False
    config_defaults["defer_build"] = True
    # A TypeAdapter reads `defer_build` from its own config or its model's only, never the defaults.
    TypeAdapter._defer_build = property(_always)  # type: ignore[method-assign,assignment]
    return True


def _always(adapter: Any) -> bool:
    return True


def defer_explicit_rebuilds() -> Callable[[], None]:
    """Make `model_rebuild()` called as a module calls it (no arguments; a deferred model's first use passes
    its own) on a model whose build is still deferred leave it deferred; returns the undo. Nothing changes
    if this pydantic keeps its mocks elsewhere (then every rebuild builds, as before)."""
    try:
        from pydantic import BaseModel
        from pydantic._internal._mock_val_ser import MockValSer
    except ImportError:
        return _nothing
    real = vars(BaseModel).get("model_rebuild")
    if not isinstance(real, classmethod):
        return _nothing
    rebuild = real.__func__

    def deferred_rebuild(
        cls: type[Any], *, force: bool = False, raise_errors: bool = True,
        _parent_namespace_depth: int = 2, _types_namespace: Any = None,
    ) -> bool | None:
        by_hand = (force, raise_errors, _parent_namespace_depth, _types_namespace) == (False, True, 2, None)
        if by_hand and isinstance(vars(cls).get("__pydantic_validator__"), MockValSer):
            return None
        return rebuild(  # type: ignore[no-any-return]
            cls, force=force, raise_errors=raise_errors,
            _parent_namespace_depth=_parent_namespace_depth + 1 if _parent_namespace_depth > 0 else 0,
            _types_namespace=_types_namespace,
        )

    BaseModel.model_rebuild = classmethod(deferred_rebuild)  # type: ignore[method-assign,assignment]

    def undo() -> None:
        if vars(BaseModel).get("model_rebuild") is not real:
            BaseModel.model_rebuild = real  # type: ignore[method-assign,assignment]

    return undo


def memoize_annotation_compiles() -> Callable[[], None]:
    """Make typing's `compile` (used by `ForwardRef` only) reuse the code of a text compiled before; returns
    the undo. Nothing changes if typing already has a `compile` of its own (someone else's patch)."""
    if "compile" in vars(typing):
        return _nothing
    compiled: dict[tuple[object, ...], types.CodeType] = {}
    real = builtins.compile

    def memo(source: Any, filename: Any, mode: str, *rest: Any, **options: Any) -> Any:
        if not isinstance(source, str) or rest or options:
            return real(source, filename, mode, *rest, **options)
        key = (source, filename, mode)
        code = compiled.get(key)
        if code is None:
            code = compiled[key] = real(source, filename, mode)
        return code

    typing.compile = memo  # type: ignore[attr-defined]  # a module global shadowing the built-in

    def undo() -> None:
        if vars(typing).get("compile") is memo:
            del typing.compile  # type: ignore[attr-defined]

    return undo


def _nothing() -> None:
    return None


def pause_collector() -> None:
    """No cyclic collection while the modules and the server are built (reference counting still frees)."""
    gc.disable()


def resume_collector() -> None:
    """Move everything alive now out of the collector's view, then collect as usual."""
    gc.freeze()
    gc.enable()


def server_module() -> types.ModuleType:
    """`reference_server.server` built the quick way (collector paused, the SDK's front doors and optional
    imports skipped, the HTTP side and the revision surfaces deferred, models built on first use, even those
    rebuilt by hand, annotation texts compiled once), for the console script and for test servers built on
    it."""
    pause_collector()
    skip_front_doors()
    skip_optional_imports()
    unrebuild = defer_explicit_rebuilds() if defer_model_builds() else _nothing
    unmemoize = memoize_annotation_compiles()
    undefers = (defer_http_side(), defer_revision_surfaces())
    try:
        try:
            server = importlib.import_module("reference_server.server")
        except ImportError:
            for undefer in undefers:
                undefer()
            restore_front_doors()
            server = importlib.import_module("reference_server.server")
    finally:
        for undefer in undefers:
            undefer()
        unmemoize()
        unrebuild()
    resume_collector()
    return server
