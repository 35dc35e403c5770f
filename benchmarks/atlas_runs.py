"""Wall time of `python -m conformance atlas`, serial and with `--jobs N`, over the same targets and seed.

Each atlas is its own process (as a user runs it); the figures come from its atlas.json, and the two
atlases' grids are compared, since a parallel atlas must say exactly what the serial one says.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from figures import AtlasRun

from conformance.atlas.write import load_atlas

REPO = Path(__file__).resolve().parent.parent


def measure(
    targets: Sequence[str],
    profile: str,
    seed: int,
    jobs: Sequence[int],
    scratch: Path,
    say: Callable[[str], None],
) -> tuple[list[AtlasRun], bool]:
    runs: list[AtlasRun] = []
    grids = []
    for n in jobs:
        out = scratch / f"atlas-jobs-{n}"
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
    identical = len(grids) > 1 and grids[0] is not None and all(g == grids[0] for g in grids)
    return runs, identical
