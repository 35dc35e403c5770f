"""The drift atlas: every release run as its users installed it, adjacent releases compared, claims judged."""
