"""The tool's calls and answers, shared by every room that drives a server: what callers send
(hypothesis strategies, `strategies.py`) and what an accepted answer says about the store (`store.py`)."""
