"""Code or dependencies (`compare --cross`): A's package installed with B's dependency tree, and each
difference replayed on it. Answering as B puts the difference in the dependencies, as A in the code."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Final, Literal

from conformance.compare.fresh import FreshFound, FreshSide, compare_fresh, fresh_side
from conformance.compare.observe import Found, Outcome, compare_step
from conformance.compare.pair import run_on, start
from conformance.compare.programs import Program
from conformance.core.protocol import TOOL
from conformance.drivers.errors import DriverError, TargetError
from conformance.report.model import Crossing, Difference
from conformance.targets import npm
from conformance.targets.kinds.npm import KIND, installed_target
from conformance.targets.specs import Target, default_cache_dir

Origin = Literal["code", "dependencies", "unclear"]
CROSS_WORKERS: Final = 3


def classify_origin(shown_a_x: bool, shown_x_b: bool) -> Origin:
    """Where a difference between A and B lies, from whether the crossed target (A's package on B's tree)
    shows it against A and against B: only against A means it answers as B (dependencies), only against B
    means it answers as A (code); both or neither is no verdict."""
    if shown_a_x and not shown_x_b:
        return "dependencies"
    if shown_x_b and not shown_a_x:
        return "code"
    return "unclear"


def tree_changes(a: dict[str, str], b: dict[str, str]) -> list[str]:
    """The dependencies the two trees resolve differently, `name a → b` (`none` where one lacks it)."""
    return [f"{name} {a.get(name, 'none')} → {b.get(name, 'none')}"
            for name in sorted(set(a) | set(b)) if a.get(name) != b.get(name)]


NEEDS_NPM: Final = "--cross needs two npm: targets (it installs one's package on the other's tree)"


def crossed_target(a: Target, b: Target, cache: Path | None, progress: Callable[[str], None]) -> Target:
    """A's release installed with its dependencies resolved as B's were (B's cutoff; today's for `@today`),
    into its own cache folder. Raises `TargetError` when either is not an `npm:` target."""
    release_a = a.identity.package_version
    if a.identity.kind != "npm" or b.identity.kind != "npm" or release_a is None:
        raise TargetError(NEEDS_NPM)
    before = b.identity.resolved_as_of
    root, manifest = npm.ensure_installed(
        release_a, cache if cache is not None else default_cache_dir(), progress=progress,
        before=before, by_tarball=before is not None,
    )
    spec = f"{KIND.spec(release_a)} on the tree of {b.identity.spec}"
    crossed = installed_target(spec, root, manifest, b.identity.resolution or "release")
    return Target(spec, crossed.command, crossed.identity, a.env)


def crossing_of(a: Target, b: Target, x: Target, label_a: str, label_b: str) -> Crossing:
    return Crossing(
        label=f"{label_a} on {label_b}'s tree",
        identity=x.identity,
        changes=tree_changes(a.identity.dependencies, b.identity.dependencies),
        crossed_changes=tree_changes(a.identity.dependencies, x.identity.dependencies),
    )


def _shows(program: Program, xs: list[Outcome], ys: list[Outcome], signature: str) -> bool:
    """Whether two runs of `program` show the difference `signature` (up to the first state change)."""
    for step, x, y in zip(program, xs, ys, strict=False):
        found = compare_step(step, x, y)
        if any(f.signature == signature for f in found):
            return True
        if any(f.affects_state for f in found):
            return False
    return False


def _three(a: Target, b: Target, x: Target, program: Program, timeout: float) -> list[list[Outcome]] | None:
    """`program` on a fresh process of each of the three targets, or None when one cannot be driven."""
    drivers = []
    try:
        for target in (a, b, x):
            drivers.append(start(target, timeout))
        return [run_on(d, program) for d in drivers]
    except DriverError:
        return None
    finally:
        for driver in drivers:
            driver.close()


def cross_call(a: Target, b: Target, x: Target, program: Program, signature: str, timeout: float) -> Origin:
    """One call difference replayed on fresh A, B and crossed processes; no verdict unless A and B show
    it again."""
    runs = _three(a, b, x, program, timeout)
    if runs is None or not _shows(program, runs[0], runs[1], signature):
        return "unclear"
    oa, ob, ox = runs
    return classify_origin(_shows(program, oa, ox, signature), _shows(program, ox, ob, signature))


def cross_fresh(seen_a: FreshSide, seen_b: FreshSide, seen_x: FreshSide, found: FreshFound) -> Origin:
    def signatures(p: FreshSide, q: FreshSide) -> set[str]:
        return {f.found.signature for f in compare_fresh(p, q, TOOL)[0]}

    signature = found.found.signature
    return classify_origin(signature in signatures(seen_a, seen_x), signature in signatures(seen_x, seen_b))


def cross_all(
    a: Target, b: Target, x: Target, seen: tuple[FreshSide, FreshSide], fresh: list[FreshFound],
    calls: Iterable[tuple[Program, Found]], timeout: float,
) -> dict[str, Origin]:
    """The origin of every fresh-process and call difference, by signature."""
    origins: dict[str, Origin] = {}
    try:
        seen_x: FreshSide | None = fresh_side(x, timeout)
    except (DriverError, TargetError):
        seen_x = None
    for item in fresh:
        origins[item.found.signature] = (
            "unclear" if seen_x is None else cross_fresh(seen[0], seen[1], seen_x, item)
        )
    pending = list(calls)
    with ThreadPoolExecutor(max_workers=CROSS_WORKERS) as pool:
        verdicts = list(pool.map(lambda pf: cross_call(a, b, x, pf[0], pf[1].signature, timeout), pending))
    for (_, found), verdict in zip(pending, verdicts, strict=True):
        origins[found.signature] = verdict
    return origins


def origin_sentence(members: list[Difference], crossing: Crossing, label_a: str, label_b: str) -> str:
    """What the crossed target showed on a cause's differences, one sentence (empty if none was crossed).

    A crossing tells code from dependencies only for the dependencies that moved on it: where A's package
    resolves on B's tree to the versions A already runs (A pins them), answering as A is automatic, not
    evidence (issue 47: 2025.7.1 pins SDK 0.5.0), and the sentence says so instead of naming the code."""
    crossed = [d for d in members if d.origin]
    if not crossed:
        return ""
    deps = sum(d.origin == "dependencies" for d in crossed)
    code = sum(d.origin == "code" for d in crossed)
    unclear = len(crossed) - deps - code
    moved = {line.split(" ", 1)[0] for line in crossing.crossed_changes}
    stayed = [line for line in crossing.changes if line.split(" ", 1)[0] not in moved]
    if not crossing.crossed_changes:
        between = f" ({', '.join(crossing.changes)})" if crossing.changes else ""
        return (f"No evidence of code or dependencies: {crossing.label} resolves the server's dependencies "
                f"to the versions {label_a} already runs on (its pins and ranges resolve there as on its own "
                f"tree), so the swap moves none of what differs between the two trees{between}; that it "
                f"answers as {label_a} on {code} of the {_count(len(crossed))} crossed is automatic.")
    on = f"{crossing.label} (the trees differ in {', '.join(crossing.crossed_changes)})"
    not_moved = (f" {', '.join(stayed)} did not move on the swap ({label_a}'s pins and ranges hold it), so "
                 f"it is not ruled out." if stayed else "")
    if deps == len(crossed):
        return f"From the dependencies: {on} answers as {label_b} on the {_count(deps)} crossed."
    if code == len(crossed):
        return f"From the server's code: {on} answers as {label_a} on the {_count(code)} crossed.{not_moved}"
    neither = f", and like neither (or they did not show again) on {unclear}" if unclear else ""
    return (f"Mixed or unclear: of the {_count(len(crossed))} crossed, {on} answers as {label_b} on {deps} "
            f"and as {label_a} on {code}{neither}.{not_moved}")


def _count(n: int) -> str:
    return "one difference" if n == 1 else f"{n} differences"


__all__ = ["Origin", "classify_origin", "cross_all", "crossed_target", "crossing_of", "origin_sentence",
           "tree_changes"]
