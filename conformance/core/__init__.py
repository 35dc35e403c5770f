"""The ground floor every room stands on: the protocol's words, JavaScript value semantics, JSON types, the
error base, identities and run results. It imports nothing of `conformance` above it."""
