"""Live progress of a conformance run on the terminal: records checked of total, the current test.

Loaded with `-p conformance.cli.progress` in every pytest process (so xdist workers tag their reports with
the records a test evidences); the `Progress` object is added on the controller by the runner.
Nothing a server wrote ever reaches the terminal: every string shown goes through `terminal.safe`.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Generator, Sequence
from typing import TextIO

import pytest

from conformance.core.failure_text import check_name
from conformance.report.escape import encodable, safe

RECORDS_PROPERTY = "conformance_records"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    ids: list[str] = []
    for mark in item.iter_markers("records"):
        ids.extend(str(arg) for arg in mark.args)
    if ids and report.when != "teardown":
        report.user_properties.append((RECORDS_PROPERTY, list(dict.fromkeys(ids))))
    return report


class Progress:
    """One status line on a terminal (a line per tenth of the run elsewhere), then a newline at the end."""

    def __init__(self, stream: TextIO, *, records_total: int, canonical: dict[str, str]) -> None:
        self.stream = stream
        self.records_total = records_total
        self.canonical = canonical
        self.tty = stream.isatty()
        self.tests_total = 0
        self.tests_done = 0
        self.failed = 0
        self.records_seen: set[str] = set()
        self.current = ""
        self._last_decile = -1
        self._last_draw = 0.0

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.tests_total = len(session.items)
        self._draw(force=True)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: Sequence[str]) -> None:
        self.tests_total = max(self.tests_total, len(ids))

    def pytest_runtest_logstart(self, nodeid: str, location: object) -> None:
        self.current = nodeid
        self._draw()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        finished = report.when == "call" or (report.when == "setup" and not report.passed)
        if not finished:
            return
        self.tests_done += 1
        if report.failed:
            self.failed += 1
        for name, value in report.user_properties:
            if name == RECORDS_PROPERTY and isinstance(value, list):
                self.records_seen.update(self.canonical.get(str(v), str(v)) for v in value)
        self._draw()

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.current = ""
        self._draw(force=True)
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()

    def _line(self) -> str:
        checked = len(self.records_seen & set(self.canonical.values())) if self.canonical else 0
        total = self.tests_total or "?"
        head = (
            f"records checked {checked}/{self.records_total}  tests {self.tests_done}/{total}"
            f"{f'  failing {self.failed}' if self.failed else ''}"
        )
        return f"{head}  {safe(check_name(self.current))}" if self.current else head

    def _draw(self, *, force: bool = False) -> None:
        line = self._line()
        if self.tty:
            now = time.monotonic()
            if not force and now - self._last_draw < 0.1:
                return
            self._last_draw = now
            width = shutil.get_terminal_size((100, 20)).columns - 1
            self.stream.write("\r" + encodable(safe(line, width).ljust(width), self.stream))
            self.stream.flush()
            return
        decile = (10 * self.tests_done) // self.tests_total if self.tests_total else 0
        if force or decile > self._last_decile:
            self._last_decile = decile
            self.stream.write(encodable(safe(line, 200), self.stream) + "\n")
            self.stream.flush()
