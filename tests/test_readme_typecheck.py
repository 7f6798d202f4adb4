from __future__ import annotations

from pathlib import Path

import pytest
from scripts.readme_typecheck import (
    Block,
    Generated,
    _config_for,
    check,
    check_all,
    extract,
    generate,
    main,
    relocate,
)

FENCE = "```"

DOCUMENT = f"""# Title

{FENCE}python
x: int = 1
{FENCE}

{FENCE}sh
make test
{FENCE}

<!-- typecheck: skip, shows a deliberate mistake -->
{FENCE}python
x = "one"
{FENCE}

<!-- typecheck: own module -->
{FENCE}python
y = 2
z = 3
{FENCE}

{FENCE}python
print(y)
{FENCE}
"""


class TestExtract:
    def test_blocks_in_order(self) -> None:
        """Python blocks come out in order, at their first code line; others not."""
        assert extract(DOCUMENT) == (
            Block(4, ("x: int = 1",)),
            Block(18, ("y = 2", "z = 3"), own_module=True),
            Block(23, ("print(y)",)),
        )

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            (
                f"<!-- typecheck: skip -->\n{FENCE}python\nx\n{FENCE}\n",
                (
                    r"^README\.md:1: expected '<!-- typecheck: skip, <reason> -->', "
                    r"got '<!-- typecheck: skip -->'$"
                ),
            ),
            (
                "<!-- typecheck: skip, why -->\ntext\n",
                r"^README\.md:1: expected a ```python block, got 'text' at line 2$",
            ),
            (
                "<!-- typecheck: own module -->\n",
                r"^README\.md:1: expected a ```python block, got the end",
            ),
            (
                f"intro\n{FENCE}python\nx = 1\n",
                r"^README\.md:2: expected a closing ```, got the end of the document$",
            ),
        ],
    )
    def test_malformed_documents_are_refused(self, text: str, message: str) -> None:
        """A skip without a reason, a stray marker or an open block is refused."""
        with pytest.raises(ValueError, match=message):
            extract(text)


class TestGenerate:
    def test_modules_and_origins(self) -> None:
        """Blocks join one module until one starts its own; lines map back."""
        first, second = generate(extract(DOCUMENT), "DOC.md")
        assert first == Generated(
            "# Generated from DOC.md; do not edit.\n# DOC.md:4\nx: int = 1\n",
            (0, 0, 4),
        )
        code = ["y = 2", "z = 3", "# DOC.md:23", "print(y)"]
        assert second.text.splitlines()[2:] == code
        assert second.origins == (0, 0, 18, 19, 0, 23)

    def test_nothing_to_check(self) -> None:
        """A document without python blocks makes no module."""
        assert generate(()) == ()


class TestRelocate:
    def test_lines_of_the_modules_are_moved_to_the_document(self) -> None:
        """The report's lines about a generated module name the document's lines."""
        output = (
            "gen/readme_examples_1.py:3: error: Bad  [misc]\n"
            "gen/readme_examples_1.py:2: error: Added line  [misc]\n"
            "gen/readme_examples_1.py:9: note: Past the end\n"
            "interruption/x.py:5: error: Elsewhere  [misc]\n"
            "Found 3 errors in 2 files (checked 1 source file)\n"
        )
        assert relocate(output, {"gen/readme_examples_1.py": (0, 0, 40)}) == (
            "README.md:40: error: Bad  [misc]",
            "README.md (generated line 2): error: Added line  [misc]",
            "README.md (generated line 9): note: Past the end",
            "interruption/x.py:5: error: Elsewhere  [misc]",
            "Found 3 errors in 2 files (checked 1 source file)",
        )

    def test_each_module_is_moved_to_its_own_document(self) -> None:
        """With several documents, each module's lines name its own document."""
        output = "a/m_0_1.py:2: error: One  [misc]\nb/m_1_1.py:1: error: Two  [misc]\n"
        modules = {"a/m_0_1.py": (0, 7), "b/m_1_1.py": (9,)}
        names = {"a/m_0_1.py": "README.md", "b/m_1_1.py": "docs/x.md"}
        assert relocate(output, modules, names=names) == (
            "README.md:7: error: One  [misc]",
            "docs/x.md:9: error: Two  [misc]",
        )


class TestCheck:
    def test_errors_at_document_lines(self, tmp_path: Path) -> None:
        """The check runs mypy with the given config; errors name document lines."""
        config = tmp_path / "pyproject.toml"
        cache = tmp_path / "cache"
        config.write_text(f'[tool.mypy]\nstrict = true\ncache_dir = "{cache}"\n')
        readme = tmp_path / "GUIDE.md"
        readme.write_text(
            DOCUMENT.replace('x = "one"', "").replace("print(y)", 'z = ""')
        )
        status, report = check(readme, config)
        assert status == 1
        assert report[0] == (
            "GUIDE.md:23: error: Incompatible types in assignment (expression has "
            'type "str", variable has type "int")  [assignment]'
        )
        assert "own module" in report[-1]

    def test_main_reports_an_unreadable_document(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A missing or malformed README exits 2 with the reason on stderr."""
        assert main([str(tmp_path / "MISSING.md")]) == 2
        bad = tmp_path / "BAD.md"
        bad.write_text("<!-- typecheck: skip -->\n")
        assert main([str(bad)]) == 2
        assert "BAD.md:1: expected '<!-- typecheck: skip, <reason> -->'" in (
            capsys.readouterr().err
        )

    def test_documents_are_checked_in_one_run_each_in_its_own_modules(
        self, tmp_path: Path
    ) -> None:
        """Names of one document are unknown in another; errors name each file."""
        config = tmp_path / "pyproject.toml"
        config.write_text(f'[tool.mypy]\nstrict = true\ncache_dir = "{tmp_path}/c"\n')
        first = tmp_path / "ONE.md"
        first.write_text(f"{FENCE}python\nx: int = 1\n{FENCE}\n")
        second = tmp_path / "TWO.md"
        second.write_text(f"{FENCE}python\ny: str = 'a'\nprint(x)\n{FENCE}\n")
        status, report = check_all([first, second], config, names=["ONE.md", "TWO.md"])
        assert status == 1
        assert report[0] == 'TWO.md:3: error: Name "x" is not defined  [name-defined]'

    def test_documents_without_blocks_need_no_run(self, tmp_path: Path) -> None:
        """Documents with no python block pass without running mypy."""
        page = tmp_path / "PAGE.md"
        page.write_text("# Nothing to run\n")
        assert check_all([page], tmp_path / "missing.toml") == (0, ())

    def test_the_nearest_configuration_is_used(self, tmp_path: Path) -> None:
        """A document's configuration is the pyproject.toml nearest above it."""
        (tmp_path / "pyproject.toml").write_text("")
        (tmp_path / "docs" / "adapters").mkdir(parents=True)
        page = tmp_path / "docs" / "adapters" / "x.md"
        assert _config_for(page) == tmp_path / "pyproject.toml"
        assert _config_for(Path("/no/such/x.md")) == Path("pyproject.toml")

    def test_main_passes_a_clean_document(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A document whose blocks type-check exits 0."""
        cache = tmp_path / "cache"
        (tmp_path / "pyproject.toml").write_text(
            f'[tool.mypy]\nstrict = true\ncache_dir = "{cache}"\n'
        )
        readme = tmp_path / "README.md"
        readme.write_text(f"{FENCE}python\nx: int = 1\n{FENCE}\n")
        assert main([str(readme)]) == 0
        assert "Success" in capsys.readouterr().out
