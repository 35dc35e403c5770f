"""A server that dies at start: its meaningful stderr lines and the hint of a known case
(`catalog/startup_hints.py`, fixtures/startup/hints.yaml), the fork's package.json read as data, and the
preflight's words on the terminal and in report.md (the real broken forks: tests/e2e/test_start_failures.py).
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from conformance.catalog.startup_hints import (
    LAST_LINES,
    LINE_CHARS,
    StartupHintsError,
    default_hints,
    diagnose,
    hints_path,
    load_hints,
    meaningful_lines,
)
from conformance.cli.runner.preflight import explained, failure_clause
from conformance.core.identity import TargetIdentity
from conformance.core.inputs import PACKAGE_BYTES
from conformance.drivers.errors import TargetError
from conformance.drivers.listening import NODE_INSPECTOR_PORT, debugger_ports_in
from conformance.report.model import Preflight
from conformance.report.sections import preflight as preflight_section
from conformance.targets.project import node_engines
from conformance.targets.specs import Target, resolve_target

NODE_MISSING_ENTRY = """node:internal/modules/cjs/loader:1210
  throw err;
  ^

Error: Cannot find module '/work/fork/dist/index.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2
"""
"""Node.js v20's stderr for `node dist/index.js` with no dist/ (as tests/e2e/test_start_failures.py makes)."""


def test_the_shipped_hints_load_and_every_known_case_has_one() -> None:
    hints = load_hints()
    assert [h.id for h in hints] == [h.id for h in default_hints()]
    assert {"not built", "missing module", "wrong Node.js version", "Python exception", "not executable"} <= {
        h.case for h in hints
    }


def test_the_first_error_line_and_the_last_lines_not_nodes_version_alone() -> None:
    failure = diagnose("server exited with status 1", NODE_MISSING_ENTRY)
    assert failure.lines == ("Error: Cannot find module '/work/fork/dist/index.js'", "Node.js v20.20.2")
    assert failure.case == "not built"
    assert failure.hint is not None and failure.hint.startswith("/work/fork/dist/index.js does not exist")
    assert failure.clause() == (
        "; its stderr: Error: Cannot find module '/work/fork/dist/index.js' | Node.js v20.20.2"
        f"; hint (not built): {failure.hint}"
    )


def test_a_package_not_installed_is_not_a_missing_build() -> None:
    stderr = NODE_MISSING_ENTRY.replace("'/work/fork/dist/index.js'", "'chalk'")
    failure = diagnose("server exited with status 1", stderr)
    assert failure.case == "missing module"
    assert failure.hint is not None and "chalk" in failure.hint and "npm ci" in failure.hint


def test_engines_are_quoted_only_where_the_case_is_the_node_version() -> None:
    syntax = (
        "file:///f/dist/index.js:3\n{ using x = null; }\n        ^\n\n"
        "SyntaxError: Unexpected identifier 'x'\n"
        "    at compileSourceTextModule (node:internal/modules/esm/utils:346:16)\n\nNode.js v20.20.2\n"
    )
    wrong = diagnose("server exited with status 1", syntax, ">=24")
    assert wrong.case == "wrong Node.js version"
    assert wrong.hint is not None and "Node.js v20.20.2" in wrong.hint and "asks for node >=24" in wrong.hint
    assert wrong.lines[0] == "SyntaxError: Unexpected identifier 'x'"
    assert "asks for node" not in (diagnose("x", NODE_MISSING_ENTRY, ">=24").hint or "")


def test_an_unknown_failure_keeps_its_lines_and_gives_no_hint() -> None:
    failure = diagnose("server exited with status 3", "starting up\nsomething odd happened\n")
    assert failure.lines == ("starting up", "something odd happened")
    assert failure.case is None and failure.hint is None
    assert failure.clause() == "; its stderr: starting up | something odd happened"
    assert diagnose("server exited with status 3", "").clause() == ""


@given(st.text(max_size=3000))
def test_meaningful_lines_are_unindented_nonblank_and_short(stderr: str) -> None:
    for line in meaningful_lines(stderr):
        assert line.strip() and not line[0].isspace() and len(line) <= LINE_CHARS
    failure = diagnose("server exited with status 1", stderr)
    assert len(failure.lines) <= LAST_LINES + 1
    assert failure.hint is None or len(failure.hint) <= LINE_CHARS


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d["hints"][0].update(match=["(unclosed"]), "bad pattern"),
        (lambda d: d["hints"][0].update(hint="see {nowhere}"), "names nowhere"),
        (lambda d: d["hints"][0].pop("case"), "'case' is a required property"),
        (lambda d: d.update(format="seqthink-startup-hints/9"), "format"),
    ],
    ids=["bad-regex", "unknown-placeholder", "no-case", "wrong-format"],
)
def test_a_broken_hints_file_is_refused_in_one_line(change: object, says: str, tmp_path: Path) -> None:
    document = yaml.safe_load(hints_path().read_text(encoding="utf-8"))
    assert callable(change)
    change(document)
    path = tmp_path / "hints.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    with pytest.raises(StartupHintsError) as refused:
        load_hints(path)
    assert says in str(refused.value) and str(path) in str(refused.value)


def _fork(tmp_path: Path, manifest: bytes) -> Target:
    """A fork's entry file under its package.json (not resolved: a package.json that is not valid data
    makes resolving the target fail, which test_targets checks)."""
    (tmp_path / "dist").mkdir(parents=True)
    (tmp_path / "dist" / "index.js").write_text("", encoding="utf-8")
    (tmp_path / "package.json").write_bytes(manifest)
    command = [sys.executable, str(tmp_path / "dist" / "index.js")]
    identity = TargetIdentity(spec=f"cmd:{' '.join(command)}", kind="cmd", command=command)
    return Target(identity.spec, tuple(command), identity)


@pytest.mark.parametrize(
    ("manifest", "engines"),
    [
        (json.dumps({"name": "fork", "engines": {"node": " >=22.5 "}}).encode(), ">=22.5"),
        (json.dumps({"name": "fork", "engines": {"node": "x" * 500}}).encode(), "x" * 100),
        (json.dumps({"name": "fork"}).encode(), None),
        (json.dumps({"engines": ["node"]}).encode(), None),
        (json.dumps({"engines": {"node": 22}}).encode(), None),
        (b'{"engines": {"node": "\xff>=22"}}', None),
        (b"[" * 100_000 + b"]" * 100_000, None),
        (b'{"engines": {"node": ">=22"}, "pad": "' + b"x" * PACKAGE_BYTES + b'"}', None),
    ],
    ids=["engines", "cut", "none", "not-a-map", "not-a-string", "not-utf8", "deep", "too-large"],
)
def test_the_forks_package_json_is_read_as_bounded_data(
    manifest: bytes, engines: str | None, tmp_path: Path
) -> None:
    assert node_engines(_fork(tmp_path, manifest)) == engines


def test_a_file_that_is_not_executable_is_told_apart_from_a_missing_command(tmp_path: Path) -> None:
    script = tmp_path / "index.js"
    script.write_text("#!/usr/bin/env node\n", encoding="utf-8")
    script.chmod(0o644)
    with pytest.raises(TargetError) as failure:
        resolve_target(f"cmd:{script}", cache_dir=tmp_path)
    assert str(failure.value) == f"not executable: {script}"
    preflight = explained(Preflight(ok=False, error=str(failure.value)))
    assert preflight.known_case == "not executable"
    assert preflight.hint == (
        f"{script} is not executable: chmod +x it, or name its interpreter (e.g. cmd:node {script})"
    )


def test_the_preflight_shows_its_stderr_lines_and_hint_on_the_terminal_and_in_markdown() -> None:
    died = Preflight(ok=False, error="server exited with status 1", stderr_tail=NODE_MISSING_ENTRY)
    preflight = explained(died)
    assert preflight.stderr_lines == [
        "Error: Cannot find module '/work/fork/dist/index.js'", "Node.js v20.20.2"
    ]
    assert failure_clause(preflight).startswith("; its stderr: Error: Cannot find module")
    terminal = preflight_section.terminal(preflight)
    assert terminal[:3] == [
        "  the target could not be checked: server exited with status 1",
        "    its stderr: Error: Cannot find module '/work/fork/dist/index.js'",
        "                Node.js v20.20.2",
    ]
    assert terminal[3].startswith("    hint (not built): /work/fork/dist/index.js does not exist")
    markdown = "\n".join(preflight_section.markdown(preflight, 2))
    assert "Error: Cannot find module '/work/fork/dist/index.js'\nNode.js v20.20.2" in markdown
    assert "**Hint (not built):**" in markdown


def test_a_server_that_listed_its_tools_is_not_explained_by_its_stderr() -> None:
    offered = Preflight(ok=False, error="it does not offer the sequentialthinking tool (it offers: other)",
                        tool_offered=False, stderr_tail=NODE_MISSING_ENTRY)
    assert explained(offered).stderr_lines == [] and explained(offered).hint is None


def test_a_target_without_a_package_json_asks_nothing_of_node(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text("", encoding="utf-8")
    identity = TargetIdentity(spec=f"cmd:python {script}", kind="cmd", command=["python", str(script)])
    assert node_engines(Target(identity.spec, ("python", str(script)), identity)) is None
    assert node_engines(resolve_target("reference", cache_dir=tmp_path)) is None


def _built_fork(root: Path) -> Path:
    """A fork checkout whose entry file exists (a Python server that exits at once: it only has to start)."""
    (root / "fork" / "dist").mkdir(parents=True)
    (root / "fork" / "dist" / "server.py").write_text("import sys\nsys.exit(1)\n", encoding="utf-8")
    (root / "elsewhere").mkdir()
    return root / "fork"


def test_a_path_taken_from_another_folder_is_said_resolved_not_called_a_missing_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conformance.cli.runner.preflight import preflight

    _built_fork(tmp_path)
    monkeypatch.chdir(tmp_path / "elsewhere")
    target = resolve_target(f"cmd:{sys.executable} dist/server.py", cache_dir=tmp_path)
    seen = preflight(target, tmp_path / "transcripts", 10, None).preflight
    resolved = tmp_path / "elsewhere" / "dist" / "server.py"
    assert seen.error is not None and f"{resolved} does not exist" in seen.error, seen.error
    assert seen.known_case == "path from another folder", seen
    assert seen.hint is not None and f"{tmp_path / 'elsewhere'} has no dist" in seen.hint

    monkeypatch.chdir(tmp_path / "fork")  # the same command from the checkout: the file is found
    seen = preflight(target, tmp_path / "transcripts", 10, None).preflight
    assert seen.error is not None and "does not exist" not in seen.error, seen.error
    assert seen.known_case != "path from another folder"


def test_a_missing_file_inside_the_start_folder_keeps_its_own_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folder is there but not the file (`dist/` not built): the resolved path is said, and the start
    folder is not blamed."""
    from conformance.cli.runner.preflight import preflight

    fork = _built_fork(tmp_path)
    monkeypatch.chdir(fork)
    target = resolve_target(f"cmd:{sys.executable} dist/index.py", cache_dir=tmp_path)
    seen = preflight(target, tmp_path / "transcripts", 10, None).preflight
    assert seen.error is not None and f"{fork / 'dist' / 'index.py'} does not exist (" in seen.error
    assert seen.known_case != "path from another folder"


def test_a_relative_program_from_another_folder_names_its_resolved_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _built_fork(tmp_path)
    monkeypatch.chdir(tmp_path / "elsewhere")
    with pytest.raises(TargetError) as failure:
        resolve_target("cmd:./dist/server.py", cache_dir=tmp_path)
    assert f"{tmp_path / 'elsewhere' / 'dist' / 'server.py'} does not exist" in str(failure.value)
    preflight = explained(Preflight(ok=False, error=str(failure.value)))
    assert preflight.known_case == "path from another folder"


def test_the_node_not_built_case_reads_the_resolved_path_node_says() -> None:
    """Node.js prints the path it resolved: the "not built" hint quotes it as it is, with no start folder."""
    failure = diagnose("server exited with status 1", NODE_MISSING_ENTRY)
    assert failure.case == "not built"
    assert failure.hint is not None and failure.hint.startswith("/work/fork/dist/index.js does not exist")


NODE_MISSING_EXPORT = ("""file:///work/fork/dist/index.js:1
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
         ^^^^^^
SyntaxError: The requested module '@modelcontextprotocol/sdk/server/index.js' """
                       """does not provide an export named 'Server'
    at ModuleJob._instantiate (node:internal/modules/esm/module_job:213:21)
    at async ModuleJob.run (node:internal/modules/esm/module_job:320:5)

Node.js v20.20.2
""")
"""Node.js v20's ES module loader for a named import the installed package does not export (its words as
node printed them for such an import, the module's name put in)."""

NODE_SUBPATH_NOT_EXPORTED = ("""node:internal/modules/esm/resolve:322
  return new ERR_PACKAGE_PATH_NOT_EXPORTED(
         ^

Error [ERR_PACKAGE_PATH_NOT_EXPORTED]: Package subpath './server/mcp.js' is not defined by "exports" in """
    """/work/fork/node_modules/@modelcontextprotocol/sdk/package.json imported from """
    """/work/fork/dist/index.js
    at exportsNotFound (node:internal/modules/esm/resolve:314:10) {
  code: 'ERR_PACKAGE_PATH_NOT_EXPORTED'
}

Node.js v20.20.2
""")


def test_an_export_the_installed_package_lacks_is_a_dependency_version_not_new_syntax() -> None:
    """Node.js says SyntaxError for a named import its installed dependency does not export: the hint said
    "Node.js v20 cannot parse the code … needs a newer Node.js", which is false; the dependency's version is
    the case, as for a subpath its exports do not define (no hint at all before)."""
    failure = diagnose("server exited with status 1", NODE_MISSING_EXPORT, engines=">=18")
    assert failure.case == "dependency version", failure
    assert failure.hint is not None and failure.hint.startswith(
        "@modelcontextprotocol/sdk/server/index.js as installed exports no Server"), failure.hint
    assert "newer Node.js" not in failure.hint, failure.hint
    subpath = diagnose("server exited with status 1", NODE_SUBPATH_NOT_EXPORTED)
    assert subpath.case == "dependency version", subpath
    assert subpath.hint is not None and subpath.hint.startswith(
        "/work/fork/node_modules/@modelcontextprotocol/sdk as installed has no ./server/mcp.js"), subpath.hint


def test_a_server_silent_past_the_call_timeout_is_told_how_to_wait_longer(tmp_path: Path) -> None:
    """A FastMCP port importing numpy and scikit-learn took 20-25 s at load 27 before its own traceback: the
    stop said "no answer to 'initialize' within 10s" and nothing else, as if it hung. The hint says it may
    be starting and how to give it longer; a case its stderr explains keeps its own hint."""
    from conformance.cli.runner.preflight import preflight

    never = Path(__file__).resolve().parent.parent / "servers" / "never_answers.py"
    target = resolve_target(f"cmd:{sys.executable} {never}")
    seen = preflight(target, tmp_path, 1.0, None).preflight
    assert not seen.ok and seen.error == "no answer to 'initialize' within 1s", seen
    assert seen.known_case == "slow start", seen
    assert seen.hint is not None and "--call-timeout 60" in seen.hint and "within 1s" in seen.hint, seen.hint
    explained_by_stderr = diagnose("no answer to 'initialize' within 10s", NODE_MISSING_ENTRY)
    assert explained_by_stderr.case == "not built", explained_by_stderr


@given(st.integers(min_value=1, max_value=59), st.integers(min_value=60, max_value=100_000),
       st.sampled_from(["", ".5"]))
def test_only_a_timeout_under_a_minute_is_told_to_rerun_with_60(short: int, long: int, fraction: str) -> None:
    """enhanced-mcp-memory 2.6.1, rerun with `--call-timeout 60` as the slow-start hint said, was told
    again to rerun with `--call-timeout 60`: past 60 s the case is "no start", and no hint repeats that
    advice."""
    under = diagnose(f"no answer to 'initialize' within {short}{fraction}s", "")
    over = diagnose(f"no answer to 'initialize' within {long}{fraction}s", "")
    assert under.case == "slow start" and under.hint is not None and "--call-timeout 60" in under.hint, under
    assert over.case == "no start" and over.hint is not None, over
    assert "--call-timeout" not in over.hint and f"within {long}{fraction}s" in over.hint, over.hint


@pytest.mark.parametrize("said", [
    "'[Errno -2] Name or service not known' thrown while requesting HEAD https://models.invalid/m/modules.json",
    "urllib3.exceptions.NameResolutionError: Failed to resolve 'x.invalid' ([Errno -3] Temporary failure in "
    "name resolution)",
    "Error: getaddrinfo ENOTFOUND registry.invalid",
    "curl: (6) Could not resolve host: x.invalid",
    "OSError: [Errno 101] Network is unreachable",
])
@pytest.mark.parametrize("error", ["no answer to 'initialize' within 60s",
                                   "no answer to 'initialize' within 10s", "server exited with status 1"])
def test_a_server_that_cannot_reach_the_network_at_start_is_told_so(said: str, error: str) -> None:
    """A server fetching at start (a model, a package) on a machine that cannot connect: its stderr's words
    for an unresolved or unreachable host name the case, however the start ended."""
    failure = diagnose(error, f"starting\n{said}\nRetrying in 8s [Retry 5/5].\n")
    assert failure.case == "network at start", failure
    assert failure.hint is not None and "reach the network" in failure.hint and "(" in failure.hint, failure


def test_a_server_retrying_a_fetch_past_a_minute_is_said_to_be_offline(tmp_path: Path) -> None:
    """The preflight on a real process retrying a network fetch (tests/servers/never_answers.py --offline):
    its stop names the network, not a slow start to rerun longer."""
    from conformance.cli.runner.preflight import preflight

    never = Path(__file__).resolve().parent.parent / "servers" / "never_answers.py"
    target = resolve_target(f"cmd:{sys.executable} {never} --offline")
    seen = preflight(target, tmp_path, 2.0, None).preflight
    assert not seen.ok and seen.known_case == "network at start", seen
    assert seen.hint is not None and "Name or service not known" in seen.hint, seen.hint


def _serves_http(*flags: str) -> Target:
    served = Path(__file__).resolve().parent.parent / "servers" / "serves_http.py"
    return resolve_target(f"cmd:{sys.executable} {served} {' '.join(flags)}")


@pytest.mark.parametrize("flags", [(), ("--child",), ("--v6",)])
def test_a_server_listening_on_tcp_is_said_to_serve_http_not_stdio(tmp_path: Path,
                                                                   flags: tuple[str, ...]) -> None:
    """A server serving HTTP by default and writing nothing (tests/servers/serves_http.py, lsekit-
    sequentialthinking's case; its socket held by a launcher's child, or on IPv6): the stop said a slow start
    to rerun with --call-timeout 60, which would wait as long again. Its listening socket now says it."""
    from conformance.cli.runner.preflight import preflight

    seen = preflight(_serves_http(*flags), tmp_path, 2.0, None).preflight
    assert not seen.ok and seen.known_case == "not stdio", seen
    host = "[::1]" if "--v6" in flags else "127.0.0.1"
    assert seen.error is not None and f"its process listens on TCP {host}:" in seen.error, seen.error
    assert seen.hint is not None and f"listens on {host}:" in seen.hint and "stdio" in seen.hint, seen.hint


@pytest.mark.parametrize("how", ["argument", "stderr"])
def test_a_slow_server_under_a_debugger_is_not_said_to_serve_http(tmp_path: Path, how: str) -> None:
    """A stdio server too slow to answer under `node --inspect` listens on the inspector's port only: the stop
    said "its process listens on TCP 127.0.0.1:9229 … not stdio". The debugger's port is told by the command
    line asking for it, or by node's own line on stderr, and said as a debugger's."""
    from conformance.cli.runner.preflight import preflight

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    flag = f"--inspect=127.0.0.1:{port}" if how == "argument" else "--inspect-said"
    seen = preflight(_serves_http(flag), tmp_path, 2.0, None).preflight
    assert not seen.ok and seen.error is not None and seen.known_case != "not stdio", seen
    assert "its process listens on TCP" not in seen.error, seen.error
    assert "a debugger listens on TCP 127.0.0.1:" in seen.error, seen.error
    if how == "argument":
        assert f"127.0.0.1:{port}" in seen.error, seen.error


_HOSTS = st.sampled_from(["", "127.0.0.1:", "0.0.0.0:", "localhost:", "[::1]:"])


@given(port=st.integers(1, 65535), host=_HOSTS,
       flag=st.sampled_from(["--inspect", "--inspect-brk", "--inspect-wait", "--inspect-port"]))
def test_a_debugger_s_port_is_read_from_the_command_line(port: int, host: str, flag: str) -> None:
    """node's inspector flags with and without an address, 9229 when none is given; debugpy's --listen; a
    JVM's JDWP agent; a server's own --port is none."""
    assert debugger_ports_in(["node", f"{flag}={host}{port}", "dist/index.js"]) == {port}
    if flag != "--inspect-port":
        assert debugger_ports_in(["node", flag, "dist/index.js"]) == {NODE_INSPECTOR_PORT}
    assert debugger_ports_in(["python", "-m", "debugpy", "--listen", f"{host}{port}", "server.py"]) == {port}
    assert debugger_ports_in(["java", f"-agentlib:jdwp=transport=dt_socket,server=y,address={host}{port}",
                              "-jar", "s.jar"]) == {port}
    assert debugger_ports_in(["node", "dist/index.js", "--port", str(port), "--listen", str(port)]) == set()


def test_a_stdio_server_with_a_dashboard_on_tcp_is_not_said_to_serve_http(tmp_path: Path) -> None:
    """A server that answers on stdio and also listens (a dashboard of its own) is stopped for its tool's name
    alone: its socket is looked at only when initialize went unanswered."""
    from conformance.cli.runner.preflight import preflight

    seen = preflight(_serves_http("--stdio", "--said"), tmp_path, 2.0, None).preflight
    assert not seen.ok and seen.error is not None and "think_step" in seen.error, seen
    assert "listens on TCP" not in seen.error and seen.known_case != "not stdio", seen


def test_a_server_printing_its_start_to_stdout_and_listening_is_said_to_serve_http(tmp_path: Path) -> None:
    """lsekit-sequentialthinking's default: a start line on stdout, HTTP served, stderr empty: the stop named
    the stray line only."""
    from conformance.cli.runner.preflight import preflight

    seen = preflight(_serves_http("--stdout"), tmp_path, 2.0, None).preflight
    assert not seen.ok and seen.error is not None, seen
    assert "its process listens on TCP 127.0.0.1:" in seen.error, seen.error
    assert seen.known_case == "not stdio", (seen.known_case, seen.hint)


@given(st.sampled_from(["running on", "listening on", "Uvicorn running on", "Server started and available at",
                        "ready, serving at"]),
       st.sampled_from(["http://127.0.0.1:3000", "http://0.0.0.0:8000/mcp", "https://localhost:8443",
                        "http://[::1]:9000"]))
def test_a_server_saying_it_serves_an_address_gets_the_http_hint(said: str, url: str) -> None:
    """What Express, uvicorn and hand-written servers write once listening: the hint names the address and
    stdio, where it had read "slow start: rerun with --call-timeout 60"."""
    failure = diagnose("no answer to 'initialize' within 10s", f"MCP server {said} {url}\nother line\n")
    assert failure.case == "not stdio", failure
    assert failure.hint is not None and url.split("/")[2] in failure.hint, failure.hint


def test_a_stdio_server_naming_a_url_is_not_said_to_serve_http() -> None:
    """A stdio server's banner that mentions a link is no HTTP server."""
    failure = diagnose("no answer to 'initialize' within 10s",
                       "Sequential Thinking MCP server running on stdio (docs: http://example.invalid)\n")
    assert failure.case == "slow start", failure


def test_compares_stop_on_a_server_listening_on_tcp_says_it_serves_http() -> None:
    """compare's stop on the same server (its fresh process, `compare/fresh.py`) said "slow start" as run's
    did; it now says the socket and the hint, as run's does."""
    from conformance.compare.engine import UnusableTarget, _fresh

    with pytest.raises(UnusableTarget) as stopped:
        _fresh(_serves_http(), 2.0, None)
    said = str(stopped.value)
    assert "its process listens on TCP 127.0.0.1:" in said and "hint (not stdio)" in said, said


@given(st.from_regex(r"[a-z][a-z0-9_]{1,15}(\.[a-z][a-z0-9_]{1,10})?", fullmatch=True))
@example("a" * 16 + "." + "b" * 11)
def test_a_missing_python_module_may_be_one_the_package_does_not_declare(module: str) -> None:
    """iflow-mcp-sequential-thinking 0.3.0 imports portalocker, which its wheel does not declare (as
    iflow-mcp-vitalymalakanov's imports fastmcp): "install the server's dependencies" was done already and
    does not help. The hint also says the package may not declare the module."""
    stderr = ("Traceback (most recent call last):\n  File \"/v/bin/server\", line 5, in <module>\n"
              f"ModuleNotFoundError: No module named '{module}'\n")
    failure = diagnose("server exited with status 1", stderr)
    assert failure.case == "missing module", failure
    assert failure.hint is not None and f"its package does not declare {module}" in failure.hint, failure.hint


@given(st.lists(st.from_regex(r"[A-Z][a-z]{2,12}( [a-z0-9:/.]{1,12}){0,4}", fullmatch=True), min_size=1,
                max_size=12))
def test_a_stop_with_no_error_line_quotes_the_servers_first_words(said: list[str]) -> None:
    """thecryingman818181's HTTP fork wrote four lines, none an error, its banner first ("… (Streamable HTTP)
    running on http://127.0.0.1:3000"): the stop quoted the last three only, its banner left out. The first
    line is now quoted before the last few, none twice."""
    failure = diagnose("no answer to 'initialize' within 10s", "\n".join(said) + "\n")
    if len(said) <= LAST_LINES:
        assert failure.lines == tuple(said), failure.lines
    else:
        assert failure.lines[0] == said[0] and len(failure.lines) == LAST_LINES + 1, failure.lines
        later = [line for line in said if line != said[0]][-LAST_LINES:]
        assert list(failure.lines[1:]) == later, failure.lines


def test_an_http_forks_banner_is_quoted_at_its_stop(tmp_path: Path) -> None:
    from conformance.cli.runner.preflight import preflight

    seen = preflight(_serves_http("--said"), tmp_path, 2.0, None).preflight
    banner = "(Streamable HTTP) running on http://127.0.0.1:"
    assert seen.stderr_lines and banner in seen.stderr_lines[0], seen
