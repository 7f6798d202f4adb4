"""Run the README's Python code blocks as tests (sybil).

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
    patterns=["README.md"],
).pytest()
