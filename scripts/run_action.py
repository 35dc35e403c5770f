"""Run action.yml's steps here, as a runner would, to test the composite action without GitHub.

Each `run:` step runs under `bash --noprofile --norc -eo pipefail` with its `env:`, after `${{ … }}`
expressions (inputs, github.action_path, steps.<id>.outputs) are substituted; GITHUB_OUTPUT,
GITHUB_STEP_SUMMARY, GITHUB_ENV and GITHUB_PATH are files in a work folder. `uses:` steps stand in:
actions/setup-python is a fresh virtualenv of this interpreter with this environment's pip, put first
on PATH; actions/setup-node checks the `node` on PATH, actions/cache restores nothing,
actions/upload-artifact copies the path to <work>/artifacts/<name>. `if: always()` steps run after a
failure, others do not; an `if:` comparing an input with a quoted string (`inputs.x == 'v'`, `!=`) is
evaluated.
Exit status: the first failing step's (0 when all pass), as the job's would be.

    python -m scripts.run_action --input target=reference --input profile=dev [--work DIR] [--venv DIR]
        [--reuse-packages]

`--reuse-packages`: the setup-python stand-in's virtualenv sees this environment's installed packages after
its own (`fresh_venv.create_over_this_one`), so the install step resolves every requirement and constraint
but downloads and installs only what is missing or pinned otherwise, and builds and installs the harness
from the action's checkout into the job's virtualenv as always. Without it, every dependency is installed
from the index into an empty virtualenv, as on a new runner.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from scripts import fresh_venv

ROOT = Path(__file__).resolve().parent.parent
_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_COMPARISON = re.compile(r"(inputs\.[\w-]+)\s*(==|!=)\s*'([^']*)'")


class ActionError(Exception):
    """action.yml asks for something this stand-in runner does not do."""


def load_action(path: Path) -> dict[str, Any]:
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(loaded, dict) or loaded.get("runs", {}).get("using") != "composite":
        raise ActionError(f"{path} is not a composite action")
    return loaded


def inputs_of(action: dict[str, Any], given: dict[str, str]) -> dict[str, str]:
    """Given inputs over the declared defaults; a missing required input or an unknown one is an error."""
    declared: dict[str, Any] = action.get("inputs") or {}
    unknown = set(given) - set(declared)
    if unknown:
        raise ActionError(f"unknown input(s): {', '.join(sorted(unknown))}")
    values: dict[str, str] = {}
    for name, spec in declared.items():
        if name in given:
            values[name] = given[name]
        elif spec.get("required") and "default" not in spec:
            raise ActionError(f"input {name} is required")
        else:
            values[name] = str(spec.get("default", ""))
    return values


def substitute(text: str, context: dict[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        expression = match.group(1)
        if expression.startswith("steps.") and expression not in context:
            return ""  # a skipped step's output, or one it did not set, is empty on GitHub too
        if expression not in context:
            raise ActionError(f"unsupported expression: ${{{{ {expression} }}}}")
        return context[expression]

    return _EXPR.sub(value, text)


def condition_holds(condition: str, context: dict[str, str]) -> bool:
    """An `if:` of the form `inputs.x == 'v'` or `inputs.x != 'v'` (optionally inside `${{ }}`)."""
    expression = _EXPR.sub(lambda m: m.group(1), condition).strip()
    match = _COMPARISON.fullmatch(expression)
    if match is None or match.group(1) not in context:
        raise ActionError(f"unsupported condition: {condition}")
    equal = context[match.group(1)] == match.group(3)
    return equal if match.group(2) == "==" else not equal


def read_pairs(path: Path) -> dict[str, str]:
    """name=value lines (and name<<EOF blocks) as GitHub reads GITHUB_OUTPUT and GITHUB_ENV."""
    pairs: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, marker = line.split("<<", 1)
            block: list[str] = []
            i += 1
            while i < len(lines) and lines[i] != marker:
                block.append(lines[i])
                i += 1
            pairs[name] = "\n".join(block)
        elif "=" in line:
            name, val = line.split("=", 1)
            pairs[name] = val
        i += 1
    return pairs


def run_action(
    action_path: Path, given: dict[str, str], work: Path, venv_dir: Path | None = None,
    reuse_packages: bool = False,
) -> int:
    action = load_action(action_path / "action.yml")
    inputs = inputs_of(action, given)
    work.mkdir(parents=True, exist_ok=True)
    files = {name: work / f"{name.lower()}.txt" for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY",
                                                             "GITHUB_ENV", "GITHUB_PATH")}
    for path in files.values():
        path.touch()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update({name: str(path) for name, path in files.items()})
    env.update({"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(work), "CI": "true",
                "GITHUB_ACTION_PATH": str(action_path), "RUNNER_TEMP": str(work / "runner-temp"),
                "RUNNER_OS": "Linux"})
    (work / "runner-temp").mkdir(exist_ok=True)
    context = {f"inputs.{k}": v for k, v in inputs.items()}
    context["github.action_path"] = str(action_path)
    context["github.workspace"] = str(work)
    failed: int | None = None
    for index, step in enumerate(action["runs"]["steps"]):
        name = step.get("name") or step.get("uses") or f"step {index + 1}"
        condition = str(step.get("if", "success()")).strip()
        if failed is not None and condition not in ("always()", "${{ always() }}", "failure()"):
            print(f"-- skipped after a failure: {name}", flush=True)
            continue
        if failed is None and condition == "failure()":
            continue
        if condition not in ("success()", "always()", "${{ always() }}", "failure()") and not condition_holds(
            condition, context
        ):
            print(f"-- skipped, its condition is false: {name}", flush=True)
            continue
        step_env = {k: substitute(str(v), context) for k, v in (step.get("env") or {}).items()}
        if "uses" in step:
            with_ = {k: substitute(str(v), context) for k, v in (step.get("with") or {}).items()}
            code = _stand_in(step, with_, env, work, venv_dir, reuse_packages)
        else:
            if step.get("shell") != "bash":
                raise ActionError(f"step {name!r}: composite run steps need `shell: bash` here")
            script = work / f"step-{index + 1}.sh"
            script.write_text(substitute(step["run"], context), encoding="utf-8")
            for extra in read_pairs(files["GITHUB_ENV"]).items():
                env[extra[0]] = extra[1]
            paths = [p for p in files["GITHUB_PATH"].read_text(encoding="utf-8").splitlines() if p]
            run_env = {**env, **step_env}
            run_env["PATH"] = os.pathsep.join([*reversed(paths), env["PATH"]])
            print(f"-- {name}", flush=True)
            code = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                                  cwd=work, env=run_env, check=False).returncode
        if "id" in step:
            outputs = read_pairs(files["GITHUB_OUTPUT"])
            for key, val in outputs.items():
                context[f"steps.{step['id']}.outputs.{key}"] = val
        if code != 0 and failed is None:
            print(f"-- failed with exit status {code}: {name}", flush=True)
            failed = code
    return failed or 0


def _stand_in(step: dict[str, Any], with_: dict[str, str], env: dict[str, str], work: Path,
              venv_dir: Path | None, reuse_packages: bool) -> int:
    uses = str(step["uses"])
    if uses.startswith("actions/setup-python@"):
        wanted = with_.get("python-version", "")
        have = f"{sys.version_info.major}.{sys.version_info.minor}"
        seeing = ", this environment's packages after its own" if reuse_packages else ""
        print(f"-- setup-python stand-in: a fresh virtualenv of Python {have}{seeing} (asked: {wanted})",
              flush=True)
        target = venv_dir or work / "python"
        if not (target / "bin" / "python").exists():
            if reuse_packages:
                fresh_venv.create_over_this_one(target)
            else:
                fresh_venv.create(target)
        env["PATH"] = os.pathsep.join([str(target / "bin"), env["PATH"]])
        return 0
    if uses.startswith("actions/setup-node@"):
        node = shutil.which("node", path=env["PATH"])
        print(f"-- setup-node stand-in: the node on PATH, {node} (asked: {with_.get('node-version', '')})",
              flush=True)
        return 0 if node else 1
    if uses.startswith("actions/cache@"):
        print(f"-- cache stand-in: nothing restored for {with_.get('key', '')} ({with_.get('path', '')})",
              flush=True)
        return 0
    if uses.startswith("actions/upload-artifact@"):
        source = work / with_["path"]
        dest = work / "artifacts" / with_["name"]
        print(f"-- upload-artifact stand-in: {source} -> {dest}", flush=True)
        if source.exists():
            shutil.copytree(source, dest, dirs_exist_ok=True)
        elif with_.get("if-no-files-found", "warn") == "error":
            return 1
        return 0
    raise ActionError(f"no stand-in for `uses: {uses}`")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--action", type=Path, default=ROOT, help="folder holding action.yml")
    parser.add_argument("--work", type=Path, help="workspace folder (default: a temporary one)")
    parser.add_argument("--venv", type=Path, help="virtualenv the setup-python stand-in makes or reuses")
    parser.add_argument("--reuse-packages", action="store_true",
                        help="the stand-in's virtualenv sees this environment's packages after its own")
    options = parser.parse_args()
    given = dict(item.split("=", 1) for item in options.input)
    work = options.work or Path(tempfile.mkdtemp(prefix="seqthink-action-"))
    try:
        code = run_action(options.action.resolve(), given, work.resolve(), options.venv,
                          options.reuse_packages)
    except ActionError as exc:
        sys.exit(f"run_action: {exc}")
    print(f"run_action: exit status {code}; summary in {work / 'github_step_summary.txt'}")
    sys.exit(code)


if __name__ == "__main__":
    main()
