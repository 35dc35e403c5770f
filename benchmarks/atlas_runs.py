"""Wall time of `python -m conformance atlas`, serial and with `--jobs N`, over the same targets and seed.

Each atlas is its own process (as a user runs it); the figures come from its atlas.json, and the two
atlases' grids are compared, since a parallel atlas must say exactly what the serial one says. Each run
gets a target cache of its own that shares the npm installs but no stored comparison: otherwise the second
run would reuse the first one's comparisons and time only the runs.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from benchmarks.figures import AtlasRun
from conformance.atlas.write import load_atlas
from conformance.targets.specs import default_cache_dir

REPO = Path(__file__).resolve().parent.parent


def measure(
    targets: Sequence[str],
    profile: str,
    seed: int,
    jobs: Sequence[int],
    scratch: Path,
    say: Callable[[str], None],
    keep: Path | None = None,
) -> tuple[list[AtlasRun], bool]:
    """Each `jobs` count in turn; `keep`: copy the last run's output there (the committed atlas)."""
    runs: list[AtlasRun] = []
    grids = []
    for n in jobs:
        out = scratch / f"atlas-jobs-{n}"
        cache = _cache_without_comparisons(scratch / f"cache-jobs-{n}")
        command = [
            sys.executable,
            "-m",
            "conformance",
            "atlas",
            *targets,
            "--profile",
            profile,
            "--seed",
            str(seed),
            "--jobs",
            str(n),
            "--out",
            str(out),
            "--target-cache",
            str(cache),
        ]
        say(f"atlas: --jobs {n} over {', '.join(targets) or 'every published release'}")
        started = time.perf_counter()
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        atlas = load_atlas(out / "atlas.json") if (out / "atlas.json").is_file() else None
        grids.append([row.cells for row in atlas.grid] if atlas is not None else None)
        runs.append(
            AtlasRun(
                jobs=n,
                wall_s=wall,
                exit_code=done.returncode,
                columns=len(atlas.columns) if atlas is not None else 0,
                pairs=len(atlas.pairs) if atlas is not None else 0,
                compared=sum(1 for p in atlas.pairs if p.comparison == "done") if atlas is not None else 0,
            )
        )
        say(f"atlas: --jobs {n}: {wall:.0f} s, exit {done.returncode}")
    if keep is not None and (out / "atlas.json").is_file():
        shutil.rmtree(keep, ignore_errors=True)
        shutil.copytree(out, keep)
        say(f"atlas: the --jobs {jobs[-1]} output copied to {keep}")
    identical = len(grids) > 1 and grids[0] is not None and all(g == grids[0] for g in grids)
    return runs, identical


def _cache_without_comparisons(folder: Path) -> Path:
    """A target cache linking every entry of the real one except its stored comparisons."""
    real = default_cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    if real.is_dir():
        for entry in real.iterdir():
            if entry.name != "atlas-comparisons" and not (folder / entry.name).exists():
                (folder / entry.name).symlink_to(entry.resolve())
    return folder
