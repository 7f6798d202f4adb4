"""``python -m interruption``: the same as the ``interruption`` command."""

import sys

from interruption.cli import main

sys.exit(main())
