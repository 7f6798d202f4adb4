"""A small agent service that pauses for approvals, with the inbox mounted."""
