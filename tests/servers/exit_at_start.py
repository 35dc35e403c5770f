"""Exits with status 3 before reading anything, after a last word on stderr."""

import sys

sys.stderr.write("exit_at_start: cannot start, giving up\n")
sys.exit(3)
