"""Code or dependencies (`compare --cross`): A's package installed with B's dependency tree, and each
difference replayed on it. Answering as B puts the difference in the dependencies, as A in the code.
Then one dependency at a time, on each side's own code (the rest of its tree pinned): the package and
versions that make a difference, and a difference that needs the new code and a new dependency together.
A swap that moves nothing (a pinned dependency resolving alike on both trees) is said to be no evidence."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from conformance.compare.fresh import FreshFound, FreshSide, compare_fresh, fresh_side
from conformance.compare.observe import Found, Outcome, compare_step
from conformance.compare.pair import run_on, start
from conformance.compare.programs import Program
from conformance.core.protocol import TOOL
from conformance.core.words import first_and_more
from conformance.drivers.errors import DriverError, TargetError
from conformance.report.model import Crossing, DependencySwap, Difference
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


@dataclass(frozen=True)
class Swapped:
    """One side's code with one dependency moved to the other side's version, the rest of its locked tree
    pinned as it was (npm `overrides`); `target` None when it could not be installed, or when npm did not
    move the dependency (`error` says why: no evidence); `also_moved`, what else resolved otherwise."""

    change: str
    code: Literal["a", "b"]
    target: Target | None
    error: str = ""
    also_moved: tuple[str, ...] = ()


def swapped_targets(
    a: Target, b: Target, cache: Path | None, progress: Callable[[str], None],
    packages: Collection[str] | None = None,
) -> list[Swapped]:
    """For each dependency the two trees resolve differently (present in both), A's release with only it
    moved to B's version and B's release with only it moved back to A's: the one-at-a-time swaps that name
    the package making a difference (issue 47). The side's whole locked tree is pinned (every package of its
    package-lock.json, nested copies under their parents), so a swap moves that one package; what still
    resolves otherwise is recorded (`also_moved`). `packages`: only those packages' swaps (each swap is an
    install, checked against its digests on every reuse)."""
    deps_a, deps_b = a.identity.dependencies, b.identity.dependencies
    cutoffs = [c for c in (a.identity.resolved_as_of, b.identity.resolved_as_of) if c]
    cutoff = max(cutoffs) if cutoffs else None
    out: list[Swapped] = []
    for name in sorted(set(deps_a) & set(deps_b)):
        if deps_a[name] == deps_b[name] or (packages is not None and name not in packages):
            continue
        change = f"{name} {deps_a[name]} → {deps_b[name]}"
        out.append(_swapped(a, "a", change, name, deps_b[name], cutoff, cache, progress))
        out.append(_swapped(b, "b", change, name, deps_a[name], cutoff, cache, progress))
    return out


def install_root(target: Target) -> Path | None:
    """The install folder an npm target runs from (the part of its entry's path before node_modules)."""
    command = target.identity.command
    if target.identity.kind != "npm" or len(command) < 2:
        return None
    parts = Path(command[1]).parts
    if "node_modules" not in parts:
        return None
    return Path(*parts[: parts.index("node_modules")])


def tree_moves(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Where two locked trees differ, `place a → b` (`none` for a package one of them lacks)."""
    return [f"{place} {before.get(place, 'none')} → {after.get(place, 'none')}"
            for place in sorted(set(before) | set(after)) if before.get(place) != after.get(place)]


def _swapped(
    side: Target, code: Literal["a", "b"], change: str, name: str, version: str, cutoff: str | None,
    cache: Path | None, progress: Callable[[str], None],
) -> Swapped:
    release = side.identity.package_version
    if side.identity.kind != "npm" or release is None:
        return Swapped(change, code, None, "not an npm target")
    root = install_root(side)
    tree = npm.locked_tree(root) if root is not None else {}
    pins: dict[str, npm.Pin] = (npm.tree_pins({**tree, name: version}) if tree else
                                {**side.identity.dependencies, name: version})
    try:
        swapped_root, manifest = npm.ensure_installed(
            release, cache if cache is not None else default_cache_dir(), progress=progress, before=cutoff,
            by_tarball=cutoff is not None, overrides=pins,
        )
        spec = f"{KIND.spec(release)} with {name} {version}"
        swapped = installed_target(spec, swapped_root, manifest, side.identity.resolution or "release")
    except TargetError as exc:
        return Swapped(change, code, None, str(exc)[:300])
    found = swapped.identity.dependencies.get(name)
    if found != version:
        return Swapped(change, code, None, f"npm resolved {name} to {found}, not {version}: the swap moves "
                       f"nothing and cannot be evidence")
    also = tuple(m for m in tree_moves(tree, npm.locked_tree(swapped_root)) if m.split(" ", 1)[0] != name)
    return Swapped(change, code, Target(spec, swapped.command, swapped.identity, side.env),
                   also_moved=also if tree else ())


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


def _runs(targets: list[Target | None], program: Program, timeout: float) -> list[list[Outcome] | None]:
    """`program` on a fresh process of each target (None for one not installed or that cannot be driven)."""
    out: list[list[Outcome] | None] = []
    for target in targets:
        if target is None:
            out.append(None)
            continue
        driver = None
        try:
            driver = start(target, timeout)
            out.append(run_on(driver, program))
        except DriverError:
            out.append(None)
        finally:
            if driver is not None:
                driver.close()
    return out


def _answers_as(program: Program, oa: list[Outcome], ob: list[Outcome], ox: list[Outcome] | None,
                signature: str) -> Literal["a", "b", "neither", "unusable"]:
    if ox is None:
        return "unusable"
    origin = classify_origin(_shows(program, oa, ox, signature), _shows(program, ox, ob, signature))
    return {"dependencies": "b", "code": "a"}.get(origin, "neither")  # type: ignore[return-value]


def cross_call(
    a: Target, b: Target, x: Target, program: Program, signature: str, timeout: float,
    swaps: Iterable[Swapped] = (),
) -> tuple[Origin, list[DependencySwap]]:
    """One call difference replayed on fresh A, B, crossed and swapped processes; no verdict unless A and B
    show it again."""
    swaps = list(swaps)
    runs = _runs([a, b, x, *(s.target for s in swaps)], program, timeout)
    oa, ob = runs[0], runs[1]
    if oa is None or ob is None or not _shows(program, oa, ob, signature):
        return "unclear", []
    ox = runs[2]
    origin: Origin = ("unclear" if ox is None else
                      classify_origin(_shows(program, oa, ox, signature), _shows(program, ox, ob, signature)))
    said = [DependencySwap(change=s.change, code=s.code, also_moved=list(s.also_moved),
                           answers_as=_answers_as(program, oa, ob, r, signature))
            for s, r in zip(swaps, runs[3:], strict=True)]
    return origin, said


def cross_fresh(seen_a: FreshSide, seen_b: FreshSide, seen_x: FreshSide, found: FreshFound) -> Origin:
    def signatures(p: FreshSide, q: FreshSide) -> set[str]:
        return {f.found.signature for f in compare_fresh(p, q, TOOL, split_schemas=True)[0]}

    signature = found.found.signature
    return classify_origin(signature in signatures(seen_a, seen_x), signature in signatures(seen_x, seen_b))


def cross_all(
    a: Target, b: Target, x: Target, seen: tuple[FreshSide, FreshSide], fresh: list[FreshFound],
    calls: Iterable[tuple[Program, Found]], timeout: float, swaps: Iterable[Swapped] = (),
) -> dict[str, tuple[Origin, list[DependencySwap]]]:
    """The origin of every fresh-process and call difference, by signature, with what each one-dependency
    swap answered as."""
    swaps = list(swaps)
    origins: dict[str, tuple[Origin, list[DependencySwap]]] = {}
    seen_x = _fresh_or_none(x, timeout)
    seen_swaps = [_fresh_or_none(s.target, timeout) if s.target is not None else None for s in swaps]
    for index, (swap, side) in enumerate(zip(swaps, seen_swaps, strict=True)):
        if side is not None and not serves(side, seen):  # a broken build is no evidence either way
            seen_swaps[index] = None
            swaps[index] = Swapped(swap.change, swap.code, None, "accepts none of the valid calls both sides "
                                   "accept", swap.also_moved)
    for item in fresh:
        origin: Origin = "unclear" if seen_x is None else cross_fresh(seen[0], seen[1], seen_x, item)
        said = [DependencySwap(change=s.change, code=s.code, also_moved=list(s.also_moved),
                               answers_as="unusable" if side is None else
                               {"dependencies": "b", "code": "a"}.get(  # type: ignore[arg-type]
                                   cross_fresh(seen[0], seen[1], side, item), "neither"))
                for s, side in zip(swaps, seen_swaps, strict=True)]
        origins[item.found.signature] = (origin, said)
    pending = list(calls)
    with ThreadPoolExecutor(max_workers=CROSS_WORKERS) as pool:
        verdicts = list(pool.map(
            lambda pf: cross_call(a, b, x, pf[0], pf[1].signature, timeout, swaps), pending))
    for (_, found), verdict in zip(pending, verdicts, strict=True):
        origins[found.signature] = verdict
    return origins


def serves(side: FreshSide, seen: tuple[FreshSide, FreshSide]) -> bool:
    """Whether a swapped tree can serve the tool at all: it accepts a valid call of the fresh run where both
    sides accept one. 2025.7.1 with zod 4.2.1 (SDK 0.5.0) answers every call -32603 "Cannot read properties
    of undefined (reading '_zod')": its answers differ from both sides, yet say nothing of the difference."""
    if not all(any(o.accepted for o in s.run) for s in seen):
        return True
    return any(o.accepted for o in side.run)


def _fresh_or_none(target: Target, timeout: float) -> FreshSide | None:
    try:
        return fresh_side(target, timeout)
    except (DriverError, TargetError):
        return None


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
        return (f"No evidence from the crossing: {label_a} resolves on {label_b}'s tree to its own versions "
                f"(its pins and ranges hold there), so the crossing moves none of what differs between the "
                f"trees{between}; its answering as {label_a} on {code} of the {_count(len(crossed))} crossed "
                f"is automatic.")
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


def moved_by(difference: Difference, crossing: Crossing | None = None) -> tuple[str, tuple[str, ...]] | None:
    """What a difference's crossing and swaps place it on: its origin (none when the crossing moved no
    dependency: no evidence) and the dependency changes whose swap alone moved it, either way; None when it
    was not crossed at all. Differences of one cause placed apart are separate root causes."""
    if not difference.origin and not difference.swaps:
        return None
    evidence = crossing is None or bool(crossing.crossed_changes)
    origin = difference.origin if evidence and difference.origin in ("code", "dependencies") else ""
    moved = sorted({s.change for s in difference.swaps if _moved(s)})
    return origin, tuple(moved)


def _moved(swap: DependencySwap) -> bool:
    """A swap that made its side's code answer as the other side."""
    return (swap.code == "a" and swap.answers_as == "b") or (swap.code == "b" and swap.answers_as == "a")


def swap_sentence(members: list[Difference], label_a: str, label_b: str) -> str:
    """What moving one dependency at a time did on a cause's differences: the package and versions that
    move it ("zod 4.2.1 → 4.4.3 alone: 2026.7.4 with zod 4.2.1 answers as 2025.12.18 on 1 of 1"), those
    that move none, and a difference that needs the new code and a new dependency together: B's code with
    A's version answers as A while A's code with B's version still answers as A (issue 47: 2026.7.4 drops
    `required` only with zod 4.4.3)."""
    swapped = [d for d in members if d.swaps]
    if not swapped:
        return ""
    unswapped = [d for d in members if not d.swaps]
    changes = list(dict.fromkeys(s.change for d in swapped for s in d.swaps))
    moving: list[str] = []
    still: list[str] = []
    unusable: list[str] = []
    needs_both: list[str] = []
    either: list[tuple[str, str, str]] = []
    for change in changes:
        name, versions = change.split(" ", 1)
        old, new = versions.split(" → ")
        parts = []
        moved_any = False
        for code, version, label, towards in (("a", new, label_a, label_b), ("b", old, label_b, label_a)):
            results = [s for d in swapped for s in d.swaps if s.change == change and s.code == code]
            usable = [r for r in results if r.answers_as != "unusable"]
            if not usable:
                unusable.append(f"{label} with {name} {version}")
                continue
            moved = sum(_moved(r) for r in usable)
            neither = sum(r.answers_as == "neither" for r in usable)
            moved_any = moved_any or moved > 0 or neither > 0
            partly = f" and like neither on {neither}" if neither else ""
            parts.append(f"{label} with {name} {version} answers as {towards} on {moved}{partly} of "
                         f"{len(usable)}{_also(usable)}")
        if moved_any:
            moving.append(f"{change} alone: {'; '.join(parts)}")
        else:
            still.append(change + _also([s for d in swapped for s in d.swaps if s.change == change]))
        both = [d for d in swapped
                if any(s.change == change and s.code == "b" and s.answers_as == "a" for s in d.swaps)
                and any(s.change == change and s.code == "a" and s.answers_as == "a" for s in d.swaps)]
        if both:
            needs_both.append(f"{name} {new}")
        alone = [d for d in swapped
                 if any(s.change == change and s.code == "a" and s.answers_as == "b" for s in d.swaps)
                 and any(s.change == change and s.code == "b" and s.answers_as == "b" for s in d.swaps)]
        if alone:
            either.append((name, old, new))
    said = list(moving)
    if still:
        them = f"of the {_count(len(swapped))} replayed" if unswapped else "of them"
        said.append(f"{' and '.join(still)} alone move{'s' if len(still) == 1 else ''} none {them}")
    if unusable:
        said.append(f"{', '.join(unusable)} could not be installed or serve a valid call (no evidence)")
    sentence = ("One dependency at a time, the rest of each side's locked tree pinned: "
                + "; ".join(said) + ".")
    if any(s.answers_as == "neither" for d in swapped for s in d.swaps):
        sentence += (" Like neither: the swap changes part of the difference (the rest stays with the code "
                     "or another dependency), or changes it otherwise.")
    if unswapped:
        names = list(dict.fromkeys(_named(d) for d in unswapped))
        named = first_and_more(names, 4)
        why = "seen by some eras' clients only" if all(d.eras for d in unswapped) else "not crossed"
        sentence += (f" Not replayed on the swaps ({why}): {_count(len(unswapped))} on {named}; the swaps "
                     f"say nothing of {'it' if len(unswapped) == 1 else 'them'}.")
    split = _split_with_code(swapped, changes)
    if split is not None:
        sentence += (f" Split between the code and {split}: it alone, on either side's code, changes the "
                     f"difference without making it the other side's, and the crossing (every dependency "
                     f"moved) answers like neither too: {split} makes part of it and {label_b}'s code the "
                     f"rest.")
    for name, old, new in either:
        sentence += (f" Either suffices: {label_a}'s code with {name} {new} answers as {label_b}, and "
                     f"{label_b}'s code with {name} {old} still answers as {label_b}: {name} {new} and "
                     f"{label_b}'s code each make the difference.")
    if needs_both:
        deps = ", ".join(needs_both)
        sentence += (f" Needs both: {label_b}'s code with its {deps} moved back answers as {label_a}, and "
                     f"{label_a}'s code with {deps} still answers as {label_a}: the difference needs "
                     f"{label_b}'s code together with {deps}.")
    return sentence


def _split_with_code(swapped: list[Difference], changes: list[str]) -> str | None:
    """The one dependency change whose swap, on both sides' code, answers like neither on every difference
    where the crossing answers like neither too and every other swap leaves each side as it was: that
    dependency makes part of the difference, the code the rest (2026.8.31's boolean refusals: SDK 1.30.0
    writes them as text, the code's union changes their message)."""
    if not swapped or any(d.origin != "unclear" for d in swapped):
        return None
    neither = [c for c in changes
               if all(s.answers_as == "neither" for d in swapped for s in d.swaps if s.change == c)
               and {s.code for d in swapped for s in d.swaps if s.change == c} == {"a", "b"}]
    rest_still = all(s.answers_as == s.code for d in swapped for s in d.swaps if s.change not in neither)
    if len(neither) != 1 or not rest_still:
        return None
    name, versions = neither[0].split(" ", 1)
    return f"{name} {versions.split(' → ')[1]}"


def _named(d: Difference) -> str:
    """A difference as a sentence names it: its field and aspect (`protocolVersion` of initialize)."""
    where = d.aspect.replace("_", " ")
    return f"`{d.field}` ({where})" if d.field else where


def _also(results: list[DependencySwap]) -> str:
    """What else a swap's install moved despite the pins: then it is not one package alone."""
    moved = next((r.also_moved for r in results if r.also_moved), [])
    # a package the side's tree held, at another version: what the new version brings along, or no longer
    # needs (`none → 1.19.7`), is that package's own and no second change
    also = [m for m in moved if " none → " not in m and not m.endswith(" → none")]
    if not also:
        return ""
    shown = first_and_more(also, 3)
    return f" (its install also moved {shown}: not this package alone)"


def _count(n: int) -> str:
    return "one difference" if n == 1 else f"{n} differences"


__all__ = ["Origin", "Swapped", "classify_origin", "cross_all", "crossed_target", "crossing_of",
           "moved_by", "origin_sentence", "swap_sentence", "swapped_targets", "tree_changes"]
