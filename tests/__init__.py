"""The test suite: one module per library module."""
