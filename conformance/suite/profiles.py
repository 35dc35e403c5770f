"""Hypothesis profiles of a conformance run: how many generated examples each property gets."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

if TYPE_CHECKING:
    from hypothesis import HealthCheck, Phase

Profile = Literal["dev", "ci", "thorough"]
PROFILES: Final[tuple[Profile, ...]] = ("dev", "ci", "thorough")

EXAMPLES: Final[dict[Profile, int]] = {"dev": 20, "ci": 60, "thorough": 1000}
"""Examples per property; stateful machines get a tenth as many runs of up to `STEPS` steps."""

STEPS: Final[dict[Profile, int]] = {"dev": 15, "ci": 25, "thorough": 60}

SHRINK_BUDGET: Final[dict[Profile, tuple[float, float]]] = {
    "dev": (1.0, 8.0),
    "ci": (2.0, 15.0),
    "thorough": (20.0, 300.0),
}
"""Seconds of shrinking per failing test and per run (`suite/shrinking.py`): a target that deviates
everywhere costs at most this on top of generation, and its first counterexamples are the most minimized."""

GROWTH_CALLS: Final[dict[Profile, int]] = {"dev": 300, "ci": 1500, "thorough": 12000}
"""Accepted calls the unbounded-counter test makes on one process (the thorough profile passes 10,000)."""

SHRINK_ENV: Final = "SEQTHINK_CONFORMANCE_SHRINK"
"""`0` reports each failing test's first counterexample unshrunk: for batch measurements that need which
tests fail, not their smallest example (`python -m scripts.measure_modified_servers`); shrinking is on
otherwise."""


def _suppressed() -> list[HealthCheck]:
    from hypothesis import HealthCheck

    return [
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ]


def _phases() -> tuple[Phase, ...]:
    """Every phase but `explain`: its lines ("Explanation: these lines were always and only run by failing
    examples", "# or any other generated value") are dropped from every counterexample the report shows
    (`core/failure_text.readable_example`), and it costs a red run a line tracer on every example after the
    first failure (sys.settrace on this Python) and replays of each minimal example besides (issue 46)."""
    from hypothesis import Phase

    if os.environ.get(SHRINK_ENV, "1") == "0":
        return (Phase.explicit, Phase.reuse, Phase.generate, Phase.target)
    return tuple(phase for phase in Phase if phase.name != "explain")


def register_profiles() -> None:
    """Register `conformance-<name>` profiles; the server fixture is shared across examples on purpose.
    Hypothesis is imported here, not with the module: the command line reads the profiles' names."""
    from hypothesis import settings

    for name in PROFILES:
        settings.register_profile(
            f"conformance-{name}",
            max_examples=EXAMPLES[name],
            phases=_phases(),
            stateful_step_count=STEPS[name],
            deadline=None,
            suppress_health_check=_suppressed(),
            print_blob=True,
            derandomize=False,
            database=None,
            report_multiple_bugs=False,
        )


def load_profile(name: Profile, example_db: Path | None = None) -> None:
    """Make `conformance-<name>` the settings of every test; with `example_db`, hypothesis' directory
    database there: each failing example found is saved, and every later run replays the saved ones of a
    test before generating new ones (a nightly `thorough` run's counterexamples replayed by every pull
    request's run when a CI cache carries the folder)."""
    from hypothesis import settings
    from hypothesis.database import DirectoryBasedExampleDatabase

    if example_db is None:
        settings.load_profile(f"conformance-{name}")
        return
    parent = settings.get_profile(f"conformance-{name}")
    settings.register_profile(f"conformance-{name}-remembered", parent=parent,
                              database=DirectoryBasedExampleDatabase(example_db))
    settings.load_profile(f"conformance-{name}-remembered")


def default_profile() -> Profile:
    """`CONFORMANCE_PROFILE` if set, `ci` under CI, else `dev`."""
    chosen = os.environ.get("CONFORMANCE_PROFILE")
    if chosen in PROFILES:
        return chosen
    return "ci" if os.environ.get("CI") else "dev"
