"""A full device, however it surfaces (raised bare, or wrapped in the harness's own error `from None`), is
one line saying so and exit status 3 (a real one: /dev/full; a whole run on a small device:
tests/e2e/test_disk_full.py)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from conformance.cli.main import _one_line
from conformance.core.errors import HarnessError, InputError, no_space
from conformance.gate import exit_status

FULL = Path("/dev/full")


def _full_device_error() -> OSError:
    try:
        with FULL.open("wb", buffering=0) as device:
            device.write(b"x")
    except OSError as exc:
        return exc
    raise AssertionError("/dev/full accepted a write")


@pytest.mark.skipif(not FULL.exists(), reason="no /dev/full")
def test_a_full_device_is_said_as_such_however_it_is_wrapped() -> None:
    bare = _full_device_error()
    wrapped: list[HarnessError] = []
    for kind in (HarnessError, InputError):
        try:
            try:
                raise bare
            except OSError as exc:
                raise kind(f"cannot write transcript: {exc.strerror}") from None
        except HarnessError as caught:
            wrapped.append(caught)
    failures: list[HarnessError | OSError] = [bare, *wrapped]
    for failure in failures:
        err = io.StringIO()
        assert _one_line(failure, err) == exit_status.NO_SPACE == 3
        said = err.getvalue()
        assert said.startswith("seqthink-conformance: error: no space left on device: "), said
        assert no_space(failure) is bare


def test_other_failures_keep_their_statuses() -> None:
    assert _one_line(InputError("bad"), io.StringIO()) == exit_status.USAGE
    assert _one_line(HarnessError("gone"), io.StringIO()) == exit_status.UNUSABLE
    missing = FileNotFoundError(2, "No such file or directory", "x")
    assert _one_line(missing, io.StringIO()) == exit_status.UNUSABLE
