"""A three-test suite for the CLI's own tests: real records, real server, seconds instead of a minute."""
