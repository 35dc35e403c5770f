"""Stand-in suite for `run --example-db`: one property whose failure depends on `REPLAY_FAILS_ON`. Unset,
every large enough number fails (generation finds one at once, the run saves it); set to a number, only
that number fails, which a fresh run's 20 examples out of a million values do not draw, so a run fails
only by replaying what an earlier run saved."""

from __future__ import annotations

import os

from hypothesis import given
from hypothesis import strategies as st

from conformance.catalog.records import evidences
from conformance.suite.session import ServerSession


@evidences("RTE-2")
@given(number=st.integers(0, 10**6))
def test_a_number_is_small(server: ServerSession, number: int) -> None:
    fails_on = os.environ.get("REPLAY_FAILS_ON")
    if fails_on is None:
        assert number < 1000, number
    else:
        assert number != int(fails_on), number
