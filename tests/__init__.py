"""The harness's own tests: a package, so the shared test servers and stand-in suites import as `tests.…`
from the repository root, and tests/fast/ and tests/e2e/ may hold modules of the same name."""
