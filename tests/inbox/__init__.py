"""Tests of interruption.inbox."""
