"""What the server says it is and what ships: server identity (CMP-3, CMP-3/a1), the package and its
README (CMP-6, CMP-6/a1, CMP-7), the pinned SDK (EXT-1) and no persistence path in the code (ABS-1)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import cast

from conformance.catalog.records import evidences, relies_on
from conformance.core.differences import json_differences, said
from conformance.core.jsontypes import JSON
from conformance.drivers.sdk import SdkDriver
from conformance.suite.answers import describe
from conformance.suite.contradiction import README_SHIPPED_LINES, brief, expect
from conformance.suite.documents import content_lines, content_text, lines_stating, section_under, where
from conformance.suite.plugin import Evidence
from conformance.suite.session import ServerSession
from conformance.targets.specs import Target

SERVER_INFO: dict[str, JSON] = {"name": "sequential-thinking-server", "version": "0.2.0"}
"""serverInfo per CMP-3 and CMP-3/a1 (SRC-1:237-241)."""
PACKAGE_NAME = "@modelcontextprotocol/server-sequential-thinking"
_IMPORT = re.compile(r"""(?:\bfrom\s+|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"']+)["']""")


def imports_of(source: str) -> set[str]:
    return set(_IMPORT.findall(source))


def offered_capabilities(capabilities: object) -> object:
    """Capabilities with `listChanged: false` dropped: an SDK that spells out the default offers the same
    thing as one that omits it (docs/reference-server.md)."""
    if not isinstance(capabilities, dict):
        return capabilities
    return {name: ({k: v for k, v in value.items() if not (k == "listChanged" and v is False)}
                   if isinstance(value, dict) else value)
            for name, value in capabilities.items()}


_INITIALIZE_KEYS = frozenset({"protocolVersion", "capabilities", "serverInfo"})
"""What the original's initialize result holds: no instructions, no _meta."""


@evidences("CMP-3")
@relies_on("RTE-1")
def test_server_identity_and_capabilities(server: ServerSession) -> None:
    """serverInfo names sequential-thinking-server at 0.2.0, advertises only tools, and only the two
    registered methods are served."""
    # serverInfo and the capabilities are initialize's, read before the probe call: a status object the
    # probe finds wrong (OBJ-4) stopped this check before it compared serverInfo, and a fork's new identity
    # went under OBJ-4 in no headline (issue 42, round 14: stopuncle-js' CMP-3, CMP-3/a1).
    initialize = server.wire.initialize_result
    info = server.server_info
    assert info.get("name") == SERVER_INFO["name"], (
        f"serverInfo.name is {brief(info.get('name'))}, not {brief(SERVER_INFO['name'])}")
    # The version alone is CMP-3/a1's; beside other changes (levalicious-ts' icons) every one is said, here,
    # where stopping at the version left `serverInfo.icons` in no headline (round 13).
    others = {k for k in {*info, *SERVER_INFO} if k != "version" and info.get(k) != SERVER_INFO.get(k)}
    expect("CMP-3/a1", info.get("version") == SERVER_INFO["version"] or bool(others),
           lambda: f"serverInfo.version is {brief(info.get('version'))}, not {brief(SERVER_INFO['version'])}")
    assert info == SERVER_INFO, (
        f"serverInfo is not the original's: {said(json_differences(SERVER_INFO, info))}")
    assert initialize is not None, "the server answered initialize without a result"
    capabilities = offered_capabilities(initialize.get("capabilities"))
    assert capabilities == {"tools": {}}, (
        f"initialize advertises capabilities {brief(initialize.get('capabilities'))}, where the original "
        f"advertises only tools: {said(json_differences({'tools': {}}, cast(JSON, capabilities)))}")
    extra = sorted(set(initialize) - _INITIALIZE_KEYS)
    assert not extra, (
        f"initialize also answers {', '.join(extra)} ({brief({k: initialize[k] for k in extra})}); the "
        f"original answers only {', '.join(sorted(_INITIALIZE_KEYS))}")
    server.probe()
    for method in ("resources/list", "prompts/list"):
        error = server.wire.request(method, {}).error
        assert error is not None and error.get("code") == -32601, (
            f"{method} was answered {'with a result' if error is None else f'with error {brief(error)}'}, "
            f"where the original answers JSON-RPC error -32601, \"Method not found\"")
        assert error.get("message") == "Method not found", (
            f"{method} was refused with the message {brief(error.get('message'))}, where the original says "
            f"\"Method not found\"")
    listed = server.wire.list_tools()
    assert listed.result is not None, f"tools/list failed after the other list methods: {describe(listed)}"


@evidences("CMP-3/a1")
@relies_on("CMP-3")
def test_server_info_advertises_0_2_0(server: ServerSession, host: SdkDriver) -> None:
    """To a raw caller and to a real host the server identifies itself as version 0.2.0."""
    server.wire  # noqa: B018 - started and initialized: serverInfo is read before the probe (see above)
    assert server.server_info.get("version") == SERVER_INFO["version"], (
        f"serverInfo.version is {brief(server.server_info.get('version'))} to a raw caller, not "
        f"{brief(SERVER_INFO['version'])}")
    server.probe()
    result = host.initialize_result
    assert result is not None, "the host's initialize gave no result"
    assert result.server_info.version == SERVER_INFO["version"], (
        f"serverInfo.version is {brief(result.server_info.version)} to a host, not "
        f"{brief(SERVER_INFO['version'])}")


@evidences("CMP-3/a1")
@relies_on("CMP-3")
def test_advertised_version_differs_from_the_package(
    server: ServerSession, target: Target, package_json: dict[str, object]
) -> None:
    """The installed package declares a version other than the one served (artifact check): the defect is
    the disagreement, so a later release with its own version string still shows it, and one that serves
    its package's version has fixed it."""
    server.probe()
    assert isinstance(package_json.get("version"), str), (
        f"package.json's version is {brief(package_json.get('version'))}, not a string")
    assert server.server_info.get("version") != package_json.get("version"), (
        f"serverInfo.version is {brief(server.server_info.get('version'))}, the package's own version: the "
        "served version no longer disagrees with package.json")


_DEPENDENCIES: JSON = {"@modelcontextprotocol/sdk": "0.5.0", "chalk": "^5.3.0", "yargs": "^17.7.2"}
"""The original's package.json dependencies (CMP-6)."""


@evidences("CMP-6")
def test_package_manifest(package_dir: Path, package_json: dict[str, object]) -> None:
    """One bin, files ["dist"], a tsc build, sdk 0.5.0 pinned beside chalk and yargs; nothing else shipped.
    The package's own version string is not part of the contract: every release has its own."""
    assert package_json.get("name") == PACKAGE_NAME, (
        f"package.json's name is {brief(package_json.get('name'))}, not {PACKAGE_NAME!r}")
    assert package_json.get("bin") == {"mcp-server-sequential-thinking": "dist/index.js"}, (
        f"package.json's bin is {brief(package_json.get('bin'))}, not "
        f"{{\"mcp-server-sequential-thinking\": \"dist/index.js\"}}")
    assert package_json.get("files") == ["dist"], (
        f"package.json's files is {brief(package_json.get('files'))}, not [\"dist\"]")
    scripts = package_json.get("scripts")
    build = scripts.get("build") if isinstance(scripts, dict) else scripts
    assert build == "tsc && shx chmod +x dist/*.js", (
        f"package.json's build script is {brief(build)}, not \"tsc && shx chmod +x dist/*.js\"")
    dependencies = cast(JSON, package_json.get("dependencies"))
    assert dependencies == _DEPENDENCIES, (
        f"package.json's dependencies are not the original's three: "
        f"{said(json_differences(_DEPENDENCIES, dependencies))}")
    shipped = sorted(
        str(p.relative_to(package_dir))
        for p in package_dir.rglob("*")
        if p.is_file() and "node_modules" not in p.relative_to(package_dir).parts
    )
    extra = sorted(set(shipped) - {"README.md", "dist/index.js", "package.json"})
    assert shipped == ["README.md", "dist/index.js", "package.json"], (
        f"the package ships {len(shipped)} files where the original ships 3 (README.md, dist/index.js, "
        f"package.json); adds {brief(extra[:5])}{' …' if len(extra) > 5 else ''}")


@evidences("CMP-6/a1")
@relies_on("CMP-6")
def test_yargs_declared_but_never_used(package_dir: Path, package_json: dict[str, object]) -> None:
    """yargs and @types/yargs are declared; the shipped code imports neither and never reads process.argv."""
    dependencies = package_json.get("dependencies")
    dev = package_json.get("devDependencies")
    assert isinstance(dependencies, dict) and "yargs" in dependencies, (
        "package.json's dependencies declare no yargs, where the original declares it: "
        f"{brief(dependencies)}")
    assert isinstance(dev, dict) and "@types/yargs" in dev, (
        "package.json's devDependencies declare no @types/yargs, where the original declares it: "
        f"{brief(dev)}")
    for name, source in shipped_sources(package_dir).items():
        yargs = [m for m in imports_of(source) if m == "yargs" or m.startswith("yargs/")]
        assert not yargs, f"{name} imports {', '.join(yargs)}, where the original's code never imports yargs"
        assert "process.argv" not in source, (
            f"{name} reads process.argv (line {source[:source.find('process.argv')].count(chr(10)) + 1}), "
            "where "
            f"the original's code never reads its command line")


def npx_launches(text: str) -> list[dict[str, object]]:
    """The mcpServers entries of the README's ```json blocks that launch the package with npx (a block that is
    not JSON, or holds no such entry, is skipped)."""
    found: list[dict[str, object]] = []
    for block in re.findall(r"```json\n(.*?)```", text, re.S):
        try:
            config = json.loads(block)
        except ValueError:
            continue
        servers = config.get("mcpServers") if isinstance(config, dict) else None
        for server in servers.values() if isinstance(servers, dict) else ():
            args = server.get("args") if isinstance(server, dict) else None
            if isinstance(server, dict) and server.get("command") == "npx" and isinstance(args, list) \
                    and PACKAGE_NAME in args:
                found.append(server)
    return found


@evidences("CMP-7")
def test_shipped_readme(package_dir: Path, evidence: Evidence) -> None:
    """README.md describes the features (a Features list), the inputs, the situations the tool suits (the two
    usage lines) and an npx launch configuration. The original's 63 lines and the list at lines 8-12 are
    provenance, said beside the verdict, not the check (issue 47)."""
    text = content_text((package_dir / "README.md").read_text(encoding="utf-8"))
    lines = content_lines(text)
    features = [line for line in section_under(lines, "Features") if line.startswith("- ")]
    assert features, "README.md has no Features heading with a \"- \" list under it"
    assert re.search(r"^- `thought`", text, re.M), "README.md lists no inputs (no \"- `thought`\" line)"
    usages = {usage: lines_stating(lines, usage) for usage in (
        "Tasks that need to maintain context over multiple steps",
        "Situations where irrelevant information needs to be filtered out",
    )}
    missing = [usage for usage, found in usages.items() if not found]
    assert not missing, f"README.md states no line {brief(missing)}"
    launches = npx_launches(text)
    assert launches, f"README.md has no ```json configuration launching {PACKAGE_NAME} with npx"
    first = lines_stating(lines, features[0])
    used = "; ".join(where(found, None) for found in usages.values())
    evidence.note(f"CMP-7: README.md has {text.count(chr(10))} line breaks (the original "
                  f"{README_SHIPPED_LINES}); {len(features)} features from {where(first[:1], 8)}; usage "
                  f"lines at {used}; {len(launches)} npx launch(es)")


@evidences("EXT-1")
def test_sdk_pinned_and_installed_at_0_5_0(package_dir: Path, package_json: dict[str, object]) -> None:
    """The manifest pins @modelcontextprotocol/sdk 0.5.0 and the SDK resolved beside the package is 0.5.0."""
    dependencies = package_json.get("dependencies")
    pinned = dependencies.get("@modelcontextprotocol/sdk") if isinstance(dependencies, dict) else None
    assert isinstance(dependencies, dict) and pinned == "0.5.0", (
        f"package.json pins @modelcontextprotocol/sdk at {brief(pinned)}, not \"0.5.0\" "
        f"(dependencies {brief(dependencies)})")
    candidates = [
        package_dir / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json",
        package_dir.parent / "sdk" / "package.json",
    ]
    found = next((c for c in candidates if c.is_file()), None)
    assert found is not None, (
        f"no @modelcontextprotocol/sdk is installed beside the package (neither "
        f"{' nor '.join(str(c.relative_to(package_dir.parent)) for c in candidates)}), where the original "
        f"resolves it at 0.5.0")
    installed = json.loads(found.read_text(encoding="utf-8")).get("version")
    assert installed == "0.5.0", (
        f"the SDK installed beside the package ({found}) is {brief(installed)}, not \"0.5.0\"")


_PERSISTENCE_MODULES = frozenset(
    {
        "fs",
        "fs/promises",
        "net",
        "http",
        "https",
        "http2",
        "child_process",
        "dgram",
        "tls",
        "sqlite",
        "sqlite3",
        "better-sqlite3",
        "pg",
        "mysql",
        "mysql2",
        "mongodb",
        "redis",
        "ioredis",
        "level",
        "lmdb",
    }
)
"""Node built-ins and packages through which a server could write a file, a socket or a database."""


def shipped_sources(package_dir: Path) -> dict[str, str]:
    """Every JavaScript file the package ships (its own files, not its dependencies)."""
    return {
        str(p.relative_to(package_dir)): p.read_text(encoding="utf-8")
        for p in sorted(package_dir.rglob("*"))
        if p.suffix in {".js", ".mjs", ".cjs"} and "node_modules" not in p.relative_to(package_dir).parts
    }


@evidences("ABS-1")
def test_code_imports_no_persistence_module(package_dir: Path, package_json: dict[str, object]) -> None:
    """No shipped file imports a filesystem, network, subprocess or database module, and no dependency
    is one."""
    sources = shipped_sources(package_dir)
    assert sources, "no shipped JavaScript found"
    found = {
        name: sorted(m for m in imports_of(text) if m.removeprefix("node:") in _PERSISTENCE_MODULES)
        for name, text in sources.items()
    }
    assert not any(found.values()), (
        "the shipped code imports a filesystem, network, subprocess or database module, where the original's "
        "imports none: "
        "" + "; ".join(f"{name} imports {', '.join(mods)}" for name, mods in found.items() if mods))
    dependencies = package_json.get("dependencies")
    assert isinstance(dependencies, dict), (
        f"package.json's dependencies are {brief(dependencies)}, not an object")
    assert not set(dependencies) & _PERSISTENCE_MODULES, (
        f"package.json depends on {', '.join(sorted(set(dependencies) & _PERSISTENCE_MODULES))}, a "
        "filesystem, "
        f"network, subprocess or database module, where the original depends on none")
