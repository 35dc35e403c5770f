"""How `python -m pytest -n 3 -m "not evidence"` deals test files to its workers (tests/conftest.py): the
costliest first, so the last dealt are short and neither worker idles long at the end while the other
finishes a long file."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import COSTLY, SHARED_RUN, _dealing_order

REPO = Path(__file__).resolve().parents[2]


def test_every_costly_scope_is_a_file_or_the_shared_run() -> None:
    """A renamed or removed file left in `COSTLY` would be dealt by its test count again, unnoticed."""
    missing = [scope for scope in COSTLY if scope != SHARED_RUN and not (REPO / scope).is_file()]
    assert missing == [], missing
    assert len(set(COSTLY)) == len(COSTLY), COSTLY


def test_costly_scopes_first_then_end_to_end_then_the_suite_then_the_fast_tier() -> None:
    scopes = {
        "tests/fast/test_many.py": 300,
        "tests/fast/test_few.py": 2,
        "conformance/suite/test_store.py": 40,
        "tests/e2e/test_one.py": 1,
        "tests/e2e/test_two.py": 2,
        COSTLY[1]: 30,
        COSTLY[0]: 4,
    }
    dealt = sorted(scopes, key=lambda scope: _dealing_order(scope, scopes[scope]))
    assert dealt == [COSTLY[0], COSTLY[1], "tests/e2e/test_two.py", "tests/e2e/test_one.py",
                     "conformance/suite/test_store.py", "tests/fast/test_many.py", "tests/fast/test_few.py"]
