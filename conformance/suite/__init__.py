"""The conformance suite: tests that evidence the records (each names its IDs with `@evidences`)."""
