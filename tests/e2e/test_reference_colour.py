"""Colour in the stderr box: reference_server.colour against the original's own colour library.

The oracle is the supports-color module vendored in the installed npm:0.6.2 chalk, imported afresh
(cache-busting URL) for every question with the question's environment and argv in place. Then both
servers are started with colour-forcing environments and their boxes compared byte for byte.
"""

from __future__ import annotations

import json
import math
import os
import select
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conformance.drivers.errors import ServerExited
from conformance.drivers.wire import WireDriver
from conformance.targets.specs import Target, resolve_target
from reference_server.colour import supports_color_level
from reference_server.toolspec import BANNER

ORACLE: Final = r"""
import readline from 'node:readline';
import {pathToFileURL} from 'node:url';
const moduleUrl = pathToFileURL(process.argv[1]).href;
const baseArgv = [process.argv[0], 'dist/index.js'];
let counter = 0;
const rl = readline.createInterface({input: process.stdin, crlfDelay: Infinity});
for await (const line of rl) {
  const {env, argv, isTTY} = JSON.parse(line);
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, env);
  process.argv = [...baseArgv, ...argv];
  const mod = await import(`${moduleUrl}?n=${counter++}`);
  const verdict = mod.createSupportsColor({isTTY});
  process.stdout.write(JSON.stringify(verdict === false ? 0 : verdict.level) + '\n');
}
"""

ENV_KEYS: Final = [
    "FORCE_COLOR", "TERM", "CI", "GITHUB_ACTIONS", "GITEA_ACTIONS", "CIRCLECI", "TRAVIS", "APPVEYOR",
    "GITLAB_CI", "BUILDKITE", "DRONE", "CI_NAME", "TEAMCITY_VERSION", "COLORTERM", "TERM_PROGRAM",
    "TERM_PROGRAM_VERSION", "TF_BUILD", "AGENT_NAME",
]
ENV_VALUES: Final = [
    "", "0", "1", "2", "3", "4", "-1", "true", "false", "abc", " 2", "2x", "1.9", "+3", "\u00a02",
    "9999999999",
    "dumb", "xterm", "xterm-256color", "screen", "vt100", "linux", "ANSI", "xterm-kitty", "xterm-ghostty",
    "wezterm", "truecolor", "codeship", "9.1.2", "9.0.1", "10.0", "8.1", "iTerm.app", "Apple_Terminal",
    "3.4", "2.9", "foo-256", "x-256COLOR", "cygwin", "rxvt-unicode",
]
FLAGS: Final = [
    "--color", "--colors", "--no-color", "--no-colors", "--color=false", "--color=never", "--color=true",
    "--color=always", "--color=16m", "--color=full", "--color=truecolor", "--color=256", "--", "color", "-c",
]


def supports_color_path(target: Target) -> Path:
    """The vendored supports-color of the chalk the installed original resolves."""
    entry = Path(target.command[-1])
    node_modules = next(parent for parent in entry.parents if parent.name == "node_modules")
    path = node_modules / "chalk" / "source" / "vendor" / "supports-color" / "index.js"
    assert path.is_file(), path
    return path


@pytest.fixture(scope="module")
def original() -> Target:
    return resolve_target("npm:0.6.2")


class SupportsColorOracle:
    def __init__(self, module: Path) -> None:
        node = shutil.which("node")
        if node is None:
            pytest.fail("node is required")
        self.proc = subprocess.Popen(
            [node, "--input-type=module", "-e", ORACLE, str(module)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
        )

    def level(self, env: dict[str, str], argv: list[str], is_tty: bool) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write((json.dumps({"env": env, "argv": argv, "isTTY": is_tty}) + "\n").encode())
        line = bytearray()
        while not line.endswith(b"\n"):
            ready, _, _ = select.select([self.proc.stdout], [], [], 30)
            assert ready, "supports-color oracle did not answer"
            chunk = self.proc.stdout.read(4096)
            assert chunk, "supports-color oracle exited"
            line += chunk
        return json.loads(bytes(line))

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


@pytest.fixture(scope="module")
def oracle(original: Target) -> Iterator[SupportsColorOracle]:
    answering = SupportsColorOracle(supports_color_path(original))
    try:
        yield answering
    finally:
        answering.close()


environments = st.dictionaries(
    st.sampled_from(ENV_KEYS),
    st.sampled_from(ENV_VALUES) | st.text(st.characters(min_codepoint=32, max_codepoint=126)),
)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(environments, st.lists(st.sampled_from(FLAGS), max_size=3), st.booleans())
@example({}, [], False)
@example({}, [], True)
@example({"FORCE_COLOR": "abc"}, [], False)
@example({"FORCE_COLOR": "-1"}, [], False)
@example({"FORCE_COLOR": "0"}, ["--color"], True)
@example({"TF_BUILD": "", "AGENT_NAME": ""}, [], False)
@example({"FORCE_COLOR": "1", "CI": "", "GITHUB_ACTIONS": ""}, [], False)
@example({"TERM": "xterm-256color"}, ["--", "--color"], True)
def test_supports_color_level_matches_chalks(
    oracle: SupportsColorOracle, env: dict[str, str], argv: list[str], is_tty: bool
) -> None:
    expected = oracle.level(env, argv, is_tty)
    level = supports_color_level(env, argv, is_tty)
    assert (None if math.isnan(level) else level) == expected


@pytest.mark.parametrize("force", ["-1", " -2", "-99999999999999999999"])
def test_negative_forced_level_kills_both_at_start(original: Target, force: str) -> None:
    """chalk builds chalkStderr with an explicit level at import; a negative one throws, exit status 1.

    The original's stderr then carries node's trace of the throw (install paths included), the
    reference's only its message line: the shared part is compared.
    """
    reference = resolve_target("reference")
    for target in (original, reference):
        with WireDriver(clean_env_command(target, {"FORCE_COLOR": force}, []), timeout=20) as wire:
            with pytest.raises(ServerExited) as exited:
                wire.initialize()
            assert exited.value.returncode == 1
            assert "Error: The `level` option should be an integer from 0 to 3" in wire.stderr_tail()
            assert BANNER not in wire.stderr_bytes()


def clean_env_command(target: Target, env: dict[str, str], argv: list[str]) -> tuple[str, ...]:
    """`target` under `env -i` with only `env` set, so the parent's TERM or CI cannot decide colour."""
    clean = [f"{key}={os.environ[key]}" for key in ("PATH", "PYTHONPATH", "HOME") if key in os.environ]
    assignments = [f"{key}={value}" for key, value in env.items()]
    return ("env", "-i", *clean, *assignments, *target.command, *argv)


CALLS: Final = [
    {"thought": "plain", "thoughtNumber": 1, "totalThoughts": 2, "nextThoughtNeeded": True},
    {"thought": "rev", "thoughtNumber": 2, "totalThoughts": 2, "nextThoughtNeeded": True, "isRevision": True,
     "revisesThought": 1},
    {"thought": "br", "thoughtNumber": 3, "totalThoughts": 2, "nextThoughtNeeded": False,
     "branchFromThought": 1, "branchId": "b"},
]


@pytest.mark.parametrize(
    ("env", "argv", "coloured"),
    [
        ({"FORCE_COLOR": "1"}, [], True),
        ({"FORCE_COLOR": "3", "TERM": "xterm-256color"}, [], True),
        ({"FORCE_COLOR": "abc"}, [], False),
        ({"FORCE_COLOR": "abc", "TERM": "xterm"}, [], True),
        ({"FORCE_COLOR": "2", "CI": "true", "GITHUB_ACTIONS": "true"}, [], True),
        ({"FORCE_COLOR": ""}, [], True),
        ({"FORCE_COLOR": "false"}, ["--color"], False),
        ({"FORCE_COLOR": "0"}, [], False),
        ({}, ["--color=256"], True),
        ({}, ["--no-color", "--color=16m"], False),
    ],
)
def test_boxes_are_coloured_exactly_as_the_originals(
    original: Target, env: dict[str, str], argv: list[str], coloured: bool
) -> None:
    reference = resolve_target("reference")
    boxes: list[list[bytes]] = []
    for target in (original, reference):
        with WireDriver(clean_env_command(target, env, argv), timeout=20) as wire:
            wire.initialize()
            boxes.append([wire.call_tool("sequentialthinking", call).stderr for call in CALLS])
    original_boxes, reference_boxes = boxes
    assert reference_boxes == original_boxes
    assert all((b"\x1b[" in box) == coloured for box in original_boxes)
