"""A Python reference implementation of the sequentialthinking MCP server (npm 0.6.2 behaviour)."""
