"""Conformance and claim-audit harness for the sequentialthinking MCP server."""
