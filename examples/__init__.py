"""Runnable examples (importable, so that the tests can run them)."""
