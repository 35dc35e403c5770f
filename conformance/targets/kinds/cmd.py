"""`cmd:<command line>`: any fork, started by the command line given (split as a POSIX shell would, never
run through one)."""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
from pathlib import Path
from typing import Final

from conformance.core.errors import InputError
from conformance.core.identity import TargetIdentity
from conformance.core.inputs import PACKAGE_BYTES, read_json
from conformance.drivers.errors import TargetError
from conformance.targets.kinds.kind import Progress, TargetKind
from conformance.targets.specs import Target


class CmdKind(TargetKind):
    prefix = "cmd:"
    identity_kind = "cmd"
    syntax = short_syntax = "cmd:<command line>"

    def check(self, base: str) -> None:
        self._argv(base)

    def _argv(self, base: str) -> list[str]:
        line = base.removeprefix(self.prefix)
        try:
            argv = shlex.split(line)
        except ValueError as exc:
            raise TargetError(f"cannot parse the command line {line!r}: {exc}") from None
        if not argv:
            raise TargetError("cmd: target needs a command line, e.g. cmd:node dist/index.js")
        return argv

    def resolve(self, base: str, cache_dir: Path, progress: Progress | None) -> Target:
        argv = self._argv(base)
        program = argv[0]
        if os.sep in program and os.path.isfile(program) and not os.access(program, os.X_OK):
            raise TargetError(f"not executable: {program}")
        found = os.access(program, os.X_OK) if os.sep in program else shutil.which(program) is not None
        if not found and os.sep in program and not os.path.lexists(program):
            raise TargetError(f"command not found: {program} ({not_there(program, Path.cwd())})")
        if not found:
            raise TargetError(f"command not found: {program}")
        identity = TargetIdentity(spec=base, kind="cmd", command=argv, package_name=_project(argv))
        return Target(base, tuple(argv), identity)

    def unresolved(self, base: str) -> TargetIdentity:
        command: list[str] = []
        with contextlib.suppress(ValueError):
            command = shlex.split(base.removeprefix(self.prefix))
        return TargetIdentity(spec=base, kind="cmd", command=command)

    def manifest(self, target: Target) -> Path | None:
        """The package.json nearest above the script it starts."""
        return next(filter(None, (_manifest_above(Path(part)) for part in target.identity.command[1:])), None)


    def missing_path(self, target: Target, said: str) -> str | None:
        """An argument of the command naming a file that does not exist, when the server's or the harness's
        words name it (node's "Cannot find module '/abs/path'", Python's "can't open file"): resolved against
        the folder the server was started in, the run's own."""
        cwd = Path.cwd()
        for part in target.identity.command[1:]:
            if part.startswith("-") or os.sep not in part:
                continue
            resolved = os.path.abspath(os.path.join(cwd, os.path.expanduser(part)))
            if not os.path.lexists(resolved) and (resolved in said or part in said):
                return not_there(part, cwd)
        return None


def not_there(part: str, cwd: Path) -> str:
    """Why the path `part` names nothing: its absolute form, and the start folder it was taken from when that
    folder has not even its first component (the run started in another folder than the fork's checkout)."""
    resolved = Path(os.path.abspath(os.path.join(cwd, os.path.expanduser(part))))
    if os.path.isabs(os.path.expanduser(part)):
        return f"{resolved} does not exist"
    first = Path(part).parts[0]
    if not (cwd / first).exists():
        return (f"{resolved} does not exist: cmd: paths are resolved against the folder the run started in, "
                f"{cwd}, which has no {first}")
    return f"{resolved} does not exist (cmd: paths are resolved against the folder the run started in, {cwd})"


def _project(argv: list[str]) -> str | None:
    """The `name` of the package.json nearest above the script it starts (a fork's checkout), read when the
    target is resolved: the report records it, so nothing later reads paths a report names."""
    for part in argv[1:]:
        found = _package_name_above(Path(part))
        if found is not None:
            return found
    return None


def _manifest_above(path: Path) -> Path | None:
    try:
        resolved = path.resolve()
        if not resolved.is_file():
            return None
    except OSError:
        return None
    return next((p / "package.json" for p in resolved.parents if (p / "package.json").is_file()), None)


def _package_name_above(path: Path) -> str | None:
    manifest = _manifest_above(path)
    if manifest is None:
        return None
    try:
        meta = read_json(manifest, what="package.json", limit=PACKAGE_BYTES)
    except InputError as exc:
        raise TargetError(f"the target's {exc}") from None
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) and name else None


KIND: Final = CmdKind()
