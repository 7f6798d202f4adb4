"""Type-check the Python examples of Markdown documents under mypy --strict.

Sybil runs each document's ``python`` code blocks in order, in one namespace
per document (the README, and every page of ``docs/``). This script writes
each document's blocks, in the same order, into modules and runs mypy once
on all of them with the project's configuration, reporting each error at its
document's line, so whoever wrote the block can find it::

    README.md:123: error: Unsupported operand types for > ... [operator]
    docs/sessions.md:40: error: Name "store" is not defined  [name-defined]

The blocks form one module, as they share one namespace at run time. A
self-contained example (an adapter's, which imports everything it uses)
starts a module of its own with a marker before its block, so that its names
may differ in type from the same names elsewhere (``pending``, ``resume``)::

    <!-- typecheck: own module -->

A block that cannot be type-checked on purpose is preceded by a marker, in
the README's source, that says why (keep this rare; a name the skipped block
defines is then unknown to the blocks after it)::

    <!-- typecheck: skip, the reason -->

``make typecheck`` runs ``python -m scripts.readme_typecheck README.md docs/...``;
it exits 0 when every block type-checks, 1 when mypy reports errors, and 2
when a document cannot be read (an unclosed block, a skip marker without a
reason). The configuration is the ``pyproject.toml`` nearest above the first
document.
"""

from __future__ import annotations

import re
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final, final

import attrs
from mypy import api

__all__ = [
    "Block",
    "Generated",
    "check",
    "check_all",
    "extract",
    "generate",
    "main",
    "relocate",
]

OPENING: Final = re.compile(r"^```python\s*$")
CLOSING: Final = re.compile(r"^```\s*$")
SKIP: Final = re.compile(r"^<!--\s*typecheck:\s*skip\b(?P<rest>.*?)-->\s*$")
OWN_MODULE: Final = re.compile(r"^<!--\s*typecheck:\s*own module\s*-->\s*$")
REASON: Final = re.compile(r"^\s*,\s*(?P<reason>\S.*?)\s*$")
ERROR_LINE: Final = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<rest>.*)$")
STEM: Final = "readme_examples_"


@final
@attrs.frozen
class Block:
    """One ``python`` code block of a Markdown document.

    Attributes:
        line: The document's line number (1-based) of the block's first code
            line.
        code: The block's lines, without their line ends.
        own_module: Whether the block starts a module of its own.
    """

    line: int
    code: tuple[str, ...]
    own_module: bool = False


@final
@attrs.frozen
class Generated:
    """A module written from a document's blocks.

    Attributes:
        text: The module's source.
        origins: For each line of the module (index 0 is line 1), the
            document's line it came from, or 0 for a line the script added.
    """

    text: str
    origins: tuple[int, ...]


def _marker_error(name: str, line: int, expected: str, got: str) -> ValueError:
    return ValueError(f"{name}:{line}: expected {expected}, got {got}")


def extract(text: str, name: str = "README.md") -> tuple[Block, ...]:
    """Return the ``python`` blocks of Markdown *text* that are not skipped.

    Args:
        text: The document.
        name: The document's name, for messages.

    Returns:
        The blocks, in the document's order.

    Raises:
        ValueError: if a block is never closed, or a skip marker gives no
            reason, or a marker is not followed by a ``python`` block.
    """
    blocks: list[Block] = []
    lines = text.splitlines()
    marker_line = 0  # the line of a marker waiting for its block
    skip = own = False
    index = 0
    while index < len(lines):
        line = lines[index]
        skipping = SKIP.match(line)
        if skipping is not None or OWN_MODULE.match(line):
            if skipping is not None and REASON.match(skipping["rest"]) is None:
                expected = "'<!-- typecheck: skip, <reason> -->'"
                raise _marker_error(name, index + 1, expected, repr(line.strip()))
            marker_line = index + 1
            skip = skip or skipping is not None
            own = own or skipping is None
        elif OPENING.match(line):
            end = index + 1
            while end < len(lines) and not CLOSING.match(lines[end]):
                end += 1
            if end == len(lines):
                got = "the end of the document"
                raise _marker_error(name, index + 1, "a closing ```", got)
            if not skip:
                blocks.append(Block(index + 2, tuple(lines[index + 1 : end]), own))
            marker_line, skip, own = 0, False, False
            index = end
        elif marker_line and line.strip():
            got = f"{line.strip()!r} at line {index + 1}"
            raise _marker_error(name, marker_line, "a ```python block", got)
        index += 1
    if marker_line:
        got = "the end of the document"
        raise _marker_error(name, marker_line, "a ```python block", got)
    return tuple(blocks)


def generate(blocks: Sequence[Block], name: str = "README.md") -> tuple[Generated, ...]:
    """Write *blocks* into modules, in order, as sybil runs them.

    A block marked `Block.own_module` starts a new module; the others join
    the module before them.

    Args:
        blocks: The blocks to join.
        name: The document's name, for the modules' comments.

    Returns:
        The modules, each with the document line of each of its lines.
    """
    modules: list[tuple[list[str], list[int]]] = []
    for block in blocks:
        if block.own_module or not modules:
            modules.append(([f"# Generated from {name}; do not edit."], [0]))
        text, origins = modules[-1]
        text.append(f"# {name}:{block.line}")
        origins.append(0)
        text.extend(block.code)
        origins.extend(range(block.line, block.line + len(block.code)))
    return tuple(
        Generated("\n".join(text) + "\n", tuple(origins)) for text, origins in modules
    )


def relocate(
    output: str,
    modules: Mapping[str, Sequence[int]],
    name: str = "README.md",
    names: Mapping[str, str] | None = None,
) -> tuple[str, ...]:
    """Rewrite mypy's report on the generated modules into document lines.

    Args:
        output: mypy's standard output.
        modules: Each generated module's path, as mypy names it, with the
            document line of each of its lines (`Generated.origins`).
        name: The document's name.
        names: The document of each module's path, where the modules come
            from several documents (a path it does not name is *name*'s).

    Returns:
        mypy's lines about the modules, each at its document line; other
        lines (about imported modules, the summary) as they were.
    """
    by_path = {
        Path(path): ((names or {}).get(path, name), origins)
        for path, origins in modules.items()
    }
    relocated: list[str] = []
    for line in output.splitlines():
        found = ERROR_LINE.match(line)
        module = None if found is None else by_path.get(Path(found["path"]))
        if found is None or module is None:
            relocated.append(line)
            continue
        document, origins = module
        number = int(found["line"])
        origin = origins[number - 1] if 0 < number <= len(origins) else 0
        where = (
            f"{document}:{origin}"
            if origin
            else f"{document} (generated line {number})"
        )
        relocated.append(f"{where}:{found['rest']}")
    return tuple(relocated)


HINT: Final = (
    "A block's names share one module with the blocks before it; a "
    "self-contained example can start its own with '<!-- typecheck: own "
    "module -->' before its block (see scripts/readme_typecheck.py)."
)


def check(readme: Path, config: Path) -> tuple[int, tuple[str, ...]]:
    """Type-check the ``python`` blocks of *readme* with mypy and *config*.

    Args:
        readme: The Markdown document.
        config: The mypy configuration (the project's ``pyproject.toml``).

    Returns:
        mypy's exit status (0 when every block type-checks) and its report,
        at the document's lines.

    Raises:
        ValueError: if the document's blocks cannot be read (`extract`).
    """
    return check_all((readme,), config, names=(readme.name,))


def check_all(
    documents: Sequence[Path], config: Path, names: Sequence[str] | None = None
) -> tuple[int, tuple[str, ...]]:
    """Type-check the ``python`` blocks of *documents* in one run of mypy.

    Each document's blocks make modules of their own (`generate`), as each
    document runs in a namespace of its own.

    Args:
        documents: The Markdown documents.
        config: The mypy configuration (the project's ``pyproject.toml``).
        names: Each document's name in the report (its path by default).

    Returns:
        mypy's exit status (0 when every block type-checks) and its report,
        at the documents' lines.

    Raises:
        ValueError: if a document's blocks cannot be read (`extract`).
    """
    labels = [str(path) for path in documents] if names is None else list(names)
    texts = [path.read_text(encoding="utf-8") for path in documents]
    with tempfile.TemporaryDirectory() as folder:
        modules: dict[str, Sequence[int]] = {}
        owners: dict[str, str] = {}
        for index, (label, text) in enumerate(zip(labels, texts, strict=True)):
            generated = generate(extract(text, label), label)
            for number, module in enumerate(generated, start=1):
                path = Path(folder) / f"{STEM}{index}_{number}.py"
                path.write_text(module.text, encoding="utf-8")
                modules[str(path)] = module.origins
                owners[str(path)] = label
        if not modules:
            return 0, ()
        stdout, stderr, status = api.run(["--config-file", str(config), *modules])
    report = relocate(stdout, modules, names=owners)
    hint = (HINT,) if status else ()
    return status, report + tuple(stderr.splitlines()) + hint


def _config_for(document: Path) -> Path:
    """The ``pyproject.toml`` nearest above *document*, else the current one."""
    for folder in document.absolute().parents:
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return Path("pyproject.toml")


def main(argv: Sequence[str] | None = None) -> int:
    """Check the documents named in *argv* (``README.md`` by default).

    Args:
        argv: The command line's arguments, without the program's name.

    Returns:
        0 when every block type-checks, 1 when mypy reports errors, 2 when
        a document cannot be read.
    """
    arguments = sys.argv[1:] if argv is None else list(argv)
    documents = [Path(argument) for argument in arguments or ["README.md"]]
    try:
        status, report = check_all(documents, _config_for(documents[0]))
    except (OSError, ValueError) as error:
        sys.stderr.write(f"{error}\n")
        return 2
    sys.stdout.write("".join(f"{line}\n" for line in report))
    return 0 if status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
