"""The conformance table: every adapter, and the core Session as reference."""
