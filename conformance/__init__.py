"""Conformance and claim-audit harness for the sequentialthinking MCP server."""

__version__ = "0.2.0"
"""The harness's release: the one place it is written (the package metadata, reports' identity, the
`clientInfo` the harness sends and the release tag `v<version>` all read it)."""
