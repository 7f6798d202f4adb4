"""The exit statuses of the ``interruption`` command, in one place."""

from typing import Final

ACCEPTED: Final = 0
"""The resume was accepted; the demo ran to its end or stopped at a pause."""
REJECTED: Final = 1
"""The resume was rejected; the demo's ``--resume`` found nothing to resume."""
USAGE: Final = 2
"""A usage error: an unknown option, a missing or bad argument (argparse's)."""
UNREADABLE: Final = 3
"""Input that cannot be used: unreadable, malformed, too large or too deep,
or carrying an unusable JSON Schema; the demo's database cannot be opened."""
STOPPED: Final = 130
"""The demo was stopped with Ctrl-C (128 + SIGINT, as shells report it)."""
