"""pytest-xdist support: each worker writes its results into its own folder, the runner merges them.

The conformance plugin writes `results-<target>.json` at session end, once per process; under xdist
every worker would write the same file. This plugin (loaded with `-p`) moves a worker's results
directory to `<results-dir>/worker-<id>` before the conformance plugin reads the option.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.core.collector import collect_less_often

WORKER_PREFIX = "worker-"


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    workerinput = getattr(config, "workerinput", None)
    if not isinstance(workerinput, dict):
        return
    collect_less_often()  # a worker is started by xdist, not by `python -m conformance`: set it here too
    results_dir = config.getoption("conformance_results_dir", None)
    if results_dir:
        config.option.conformance_results_dir = str(
            Path(results_dir) / f"{WORKER_PREFIX}{workerinput['workerid']}"
        )
