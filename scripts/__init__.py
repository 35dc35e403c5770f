"""Maintenance scripts, each run from the repository root as `python -m scripts.NAME` (usage in its
docstring)."""
