"""Run the Python code blocks of the README and the docs as tests (sybil).

Each document runs its blocks in order, in a namespace of its own.

With ``INTERRUPTION_WITHOUT_ORJSON=1`` the tests run as on an install
without the ``[fast]`` extra: importing orjson fails, as if it were absent.
"""

import os
import sys

if os.environ.get("INTERRUPTION_WITHOUT_ORJSON") == "1":
    sys.modules["orjson"] = None  # type: ignore[assignment]  # import fails

from sybil import Sybil
from sybil.parsers.markdown import PythonCodeBlockParser, SkipParser

pytest_collect_file = Sybil(
    parsers=[PythonCodeBlockParser(), SkipParser()],
    patterns=["README.md", "docs/*.md", "docs/*/*.md"],
).pytest()
