"""Single-behaviour modifications of the original server: the measurement set for root causes."""
