"""Rebuild the real third-party sequentialthinking servers of `fixtures/third_party.yaml` from fetched copies
of their public sources, and gate each as its maintainer would (dev profile): the run's report, its size,
the pull-request comment a compare against the original would post, and what the run left behind.

    python -m scripts.third_party build --mirrors DIR [--work DIR] [ID ...]
    python -m scripts.third_party gate [--work DIR] [--out DIR] [--seed N] [ID ...]
    python -m scripts.third_party locked UV_LOCK OUT   (a build step: uv.lock's locked versions for pip)

Needs GitHub copies (DIR/<owner>+<name>/repo or DIR/<owner>+<name>, bare git directories, at the fixture's
commit), npm and PyPI: not run in CI, which has no GitHub access. Nothing of the third parties' sources is
kept in this repository; the work folder (default .cache/third) holds the exports and builds.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from packaging.markers import Marker
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "third_party.yaml"
SCHEMA = ROOT / "fixtures" / "schemas" / "third_party.schema.json"
WORK = ROOT / ".cache" / "third"
OUT = WORK / "runs"
MD_BUDGET = 60_000
"""report.md's budget as docs/reports.md states it."""
COMMENT_BUDGET = 65_536
"""GitHub's limit on a pull-request comment."""


@dataclass(frozen=True)
class Implementation:
    """One entry of fixtures/third_party.yaml."""

    id: str
    repo: str
    commit: str
    language: str
    licence: str
    build: tuple[tuple[str, ...], ...]
    launch: str
    env: dict[str, str]
    gate_args: tuple[str, ...]
    why: str
    exclude: tuple[str, ...] = ()

    def folder(self, work: Path) -> Path:
        return work / "build" / self.id

    def target(self, work: Path) -> str:
        """The `run --target` spec: the environment words, then cmd: and the launch with {dir} filled."""
        folder = str(self.folder(work))
        words = [f"{k}={v.replace('{dir}', folder)}" for k, v in sorted(self.env.items())]
        return " ".join([*words, "cmd:" + self.launch.replace("{dir}", folder)])


def load(path: Path = FIXTURE) -> list[Implementation]:
    """The fixture, validated against its schema; ids are unique."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    jsonschema.validate(data, json.loads(SCHEMA.read_text(encoding="utf-8")))
    entries = [
        Implementation(
            id=e["id"], repo=e["repo"], commit=e["commit"], language=e["language"], licence=e["licence"],
            build=tuple(tuple(step) for step in e["build"]), launch=e["launch"], env=dict(e.get("env", {})),
            gate_args=tuple(e.get("gate_args", ())), why=e["why"], exclude=tuple(e.get("exclude", ())),
        )
        for e in data["implementations"]
    ]
    ids = [e.id for e in entries]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path}: an id is used twice: {ids}")
    return entries


def locked_requirements(lock_text: str, environment: dict[str, str] | None = None) -> list[str]:
    """`name==version` for every package of a uv.lock that the project's own (non-dev) dependencies reach on
    this platform, extras followed: what `uv sync --no-dev` installs, in the form pip takes."""
    lock = tomllib.loads(lock_text)
    packages: dict[str, Any] = {str(canonicalize_name(p["name"])): p for p in lock.get("package", [])}
    roots = [p for p in packages.values()
             if isinstance(p.get("source"), dict) and ({"editable", "virtual"} & set(p["source"]))]
    if len(roots) != 1:
        raise ValueError(f"uv.lock: expected one project (an editable or virtual source), found {len(roots)}")
    wanted: dict[str, str] = {}
    todo: list[tuple[str, tuple[str, ...]]] = [(str(canonicalize_name(roots[0]["name"])), ())]
    seen: set[tuple[str, tuple[str, ...]]] = set()

    def follow(deps: list[dict[str, Any]]) -> None:
        for dep in deps:
            marker = dep.get("marker")
            if marker and not Marker(marker).evaluate(environment):
                continue
            todo.append((str(canonicalize_name(dep["name"])), tuple(dep.get("extra", ()))))

    while todo:
        key = todo.pop()
        if key in seen:
            continue
        seen.add(key)
        name, extras = key
        package = packages[name]
        if package is not roots[0]:
            wanted[name] = package["version"]
        follow(package.get("dependencies", []))
        for extra in extras:
            follow(package.get("optional-dependencies", {}).get(extra, []))
    return [f"{name}=={version}" for name, version in sorted(wanted.items())]


def _git_dir(mirrors: Path, repo: str) -> Path:
    base = mirrors / repo.replace("/", "+")
    return base / "repo" if (base / "repo").is_dir() else base


def build(impl: Implementation, mirrors: Path, work: Path) -> None:
    """Export the fixture's commit into a clean folder and run its build steps there."""
    folder = impl.folder(work)
    if folder.exists():
        subprocess.run(["rm", "-rf", str(folder)], check=True)
    folder.mkdir(parents=True)
    paths = ["--", ".", *(f":(exclude){path}" for path in impl.exclude)] if impl.exclude else []
    archive = subprocess.run(["git", "--git-dir", str(_git_dir(mirrors, impl.repo)), "archive", impl.commit,
                              *paths], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    log = (work / "logs")
    log.mkdir(parents=True, exist_ok=True)
    with (log / f"{impl.id}.build.log").open("w", encoding="utf-8") as out:
        for step in impl.build:
            argv = [part.replace("{python}", sys.executable).replace("{dir}", str(folder)) for part in step]
            out.write(f"$ {shlex.join(argv)}\n")
            out.flush()
            subprocess.run(argv, cwd=folder, stdout=out, stderr=subprocess.STDOUT, check=True, timeout=1800)


def _leftovers(marker: str) -> list[str]:
    """Processes still running whose command line names the built folder (a server the run left behind)."""
    found = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout.splitlines()
    return [line.strip() for line in found if marker in line and "ps -eo" not in line]


def gate(impl: Implementation, work: Path, out: Path, seed: int) -> dict[str, Any]:
    """`run` as the maintainer would (dev profile), then `compare` against the original for the
    pull-request comment; sizes, exit statuses, wall times and leftovers."""
    from conformance.gate.run_options import RunOptions

    run_dir = out / impl.id / "run"
    target = impl.target(work)
    options = RunOptions(target=target, profile="dev", seed=seed, out=run_dir)
    argv = [*options.command(sys.executable, local=True), *impl.gate_args]
    started = time.monotonic()
    ran = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    run_seconds = time.monotonic() - started
    (out / impl.id).mkdir(parents=True, exist_ok=True)
    (out / impl.id / "run.terminal.txt").write_text(ran.stdout + "\n--- stderr ---\n" + ran.stderr, "utf-8")
    compare_dir = out / impl.id / "compare"
    started = time.monotonic()
    compared = subprocess.run(
        [sys.executable, "-m", "conformance", "compare", "npm:0.6.2", target, "--profile", "dev",
         "--seed", str(seed), "--out", str(compare_dir)],
        cwd=ROOT, capture_output=True, text=True, timeout=1800)
    compare_seconds = time.monotonic() - started
    (out / impl.id / "compare.terminal.txt").write_text(
        compared.stdout + "\n--- stderr ---\n" + compared.stderr, "utf-8")
    comment = out / impl.id / "comment.md"
    commented = subprocess.run(
        [sys.executable, "-m", "scripts.pr_comment", str(compare_dir / "report.json"),
         "--summary", str(out / impl.id / "summary.md"), "--comment", str(comment)],
        cwd=ROOT, capture_output=True, text=True)
    md = run_dir / "report.md"
    md_chars = len(md.read_text("utf-8")) if md.is_file() else None
    comment_chars = len(comment.read_text("utf-8")) if commented.returncode == 0 else None
    result: dict[str, Any] = {
        "id": impl.id, "target": target, "gate_args": list(impl.gate_args), "seed": seed,
        "run_exit": ran.returncode, "run_seconds": round(run_seconds, 1),
        "report_md_chars": md_chars,
        "compare_exit": compared.returncode, "compare_seconds": round(compare_seconds, 1),
        "comment_chars": comment_chars,
        "traceback": "Traceback (most recent call last)" in ran.stderr + compared.stderr,
        "leftovers": _leftovers(str(impl.folder(work))),
    }
    result["within_budgets"] = (md_chars or 0) <= MD_BUDGET and (comment_chars or 0) <= COMMENT_BUDGET
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="export each implementation's commit and build it")
    b.add_argument("--mirrors", type=Path, required=True,
                   help="folder of bare git copies, <owner>+<name>[/repo]")
    g = sub.add_parser("gate", help="gate each built implementation and write summary.json")
    g.add_argument("--out", type=Path, default=OUT)
    g.add_argument("--seed", type=int, default=1)
    for p in (b, g):
        p.add_argument("--work", type=Path, default=WORK)
        p.add_argument("ids", nargs="*", help="implementation ids (default: all)")
    lk = sub.add_parser("locked", help="write uv.lock's locked versions as pip requirements")
    lk.add_argument("lock", type=Path)
    lk.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    if args.command == "locked":
        args.out.write_text("\n".join(locked_requirements(args.lock.read_text("utf-8"))) + "\n", "utf-8")
        return 0
    chosen = [i for i in load() if not args.ids or i.id in args.ids]
    if args.command == "build":
        for impl in chosen:
            print(f"building {impl.id} ({impl.repo}@{impl.commit[:12]})", file=sys.stderr)
            build(impl, args.mirrors, args.work)
        return 0
    results = []
    for impl in chosen:
        print(f"gating {impl.id}", file=sys.stderr)
        results.append(gate(impl, args.work, args.out, args.seed))
        print(json.dumps(results[-1]), file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "summary.json").write_text(json.dumps(results, indent=2) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUTF8", "1")
    sys.exit(main())
