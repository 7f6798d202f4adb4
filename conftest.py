"""Run the Python code blocks of the README and the docs as tests (sybil).

Each document runs its blocks in order, in a namespace of its own, in a
scratch directory of its own (a block that opens ``app.sqlite`` writes it
there, never into the checkout).

With ``INTERRUPTION_WITHOUT_ORJSON=1`` the tests run as on an install
without the ``[fast]`` extra: importing orjson fails, as if it were absent.
"""

import os
import sys
import tempfile
from pathlib import Path

if os.environ.get("INTERRUPTION_WITHOUT_ORJSON") == "1":
    sys.modules["orjson"] = None  # type: ignore[assignment]  # import fails

from sybil import Sybil
from sybil.parsers.markdown import PythonCodeBlockParser, SkipParser

_SCRATCH = "__scratch_directory__"


def _into_scratch(namespace: dict[str, object]) -> None:
    """Run the document in a fresh temporary directory."""
    scratch = tempfile.TemporaryDirectory(prefix="interruption-docs-")
    namespace[_SCRATCH] = (scratch, Path.cwd())
    os.chdir(scratch.name)


def _out_of_scratch(namespace: dict[str, object]) -> None:
    """Go back where the run was, and delete the document's directory."""
    kept = namespace.pop(_SCRATCH)
    assert isinstance(kept, tuple)
    scratch, home = kept
    assert isinstance(scratch, tempfile.TemporaryDirectory)
    assert isinstance(home, Path)
    os.chdir(home)
    scratch.cleanup()


pytest_collect_file = Sybil(
    parsers=[PythonCodeBlockParser(), SkipParser()],
    patterns=["README.md", "docs/*.md", "docs/*/*.md"],
    setup=_into_scratch,
    teardown=_out_of_scratch,
).pytest()
