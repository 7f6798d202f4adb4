"""The docs name what the code defines; the README is short and links into them."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Final

import interruption
import pytest
from interruption import InterruptionError, ProblemCode

_ROOT: Final = Path(__file__).resolve().parent.parent
_DOCS: Final = _ROOT / "docs"
_ADAPTERS: Final = sorted(
    path.stem
    for path in (_ROOT / "interruption" / "adapters").glob("*.py")
    if not path.stem.startswith("_")
)


def _page(name: str) -> str:
    return (_DOCS / name).read_text("utf-8")


def _table_codes(text: str) -> set[str]:
    """The codes in the first column of the page's Markdown tables."""
    return set(re.findall(r"^\| `([a-z_]+)` \|", text, re.MULTILINE))


def _errors() -> list[type[InterruptionError]]:
    found = (getattr(interruption, name) for name in dir(interruption))
    return [
        cls
        for cls in found
        if isinstance(cls, type) and issubclass(cls, InterruptionError)
    ]


class TestValidationPage:
    @pytest.mark.parametrize("code", [code.value for code in ProblemCode])
    def test_every_problem_code_has_a_row(self, code: str) -> None:
        """Each `ProblemCode` has its own row in the validation page's table."""
        assert code in _table_codes(_page("validation.md"))

    def test_no_row_names_a_code_that_does_not_exist(self) -> None:
        """The problem table lists only codes the library has."""
        page = _page("validation.md")
        problems = page.split("## Every problem code", 1)[1].split("\n## ", 1)[0]
        assert _table_codes(problems) == {code.value for code in ProblemCode}

    @pytest.mark.parametrize("error", _errors(), ids=lambda cls: cls.__name__)
    def test_every_public_error_has_a_row_with_its_code(
        self, error: type[InterruptionError]
    ) -> None:
        """Each public `InterruptionError` is listed with its stable code."""
        row = f"| `{error.__name__}` | `{error.code}` |"
        assert row in _page("validation.md")


class TestWirePage:
    @pytest.mark.parametrize(
        "schema", sorted(path.name for path in (_ROOT / "schemas").glob("*.json"))
    )
    def test_every_published_schema_is_described(self, schema: str) -> None:
        """Each file of schemas/ has a row on the wire page."""
        assert f"| `{schema}` |" in _page("wire.md")


class TestAdapterPages:
    @pytest.mark.parametrize("module", _ADAPTERS)
    def test_every_adapter_has_a_page_and_a_row(self, module: str) -> None:
        """Each adapter module has its page, linked from the adapters' table."""
        slug = module.replace("_", "-")
        page = _page(f"adapters/{slug}.md")
        assert f"interruption.adapters.{module}" in page
        assert f"({slug}.md)" in _page("adapters/index.md")

    @pytest.mark.parametrize("module", _ADAPTERS)
    def test_the_readme_links_every_adapter_page(self, module: str) -> None:
        """The README's adapter table links each adapter's page."""
        slug = module.replace("_", "-")
        readme = (_ROOT / "README.md").read_text("utf-8")
        assert f"docs/adapters/{slug}.md)" in readme

    @pytest.mark.parametrize("module", _ADAPTERS)
    def test_each_page_lists_what_it_cannot_promise(self, module: str) -> None:
        """Limits are a list of items, not a wall of text."""
        page = _page(f"adapters/{module.replace('_', '-')}.md")
        limits = page.split("## What it cannot promise", 1)[1].split("\n## ", 1)[0]
        items = [line for line in limits.splitlines() if line.startswith("- ")]
        assert len(items) >= 3


class TestReadme:
    def test_the_readme_is_short(self) -> None:
        """The README sells and links; the manual lives in docs/ (about 150 lines)."""
        lines = (_ROOT / "README.md").read_text("utf-8").splitlines()
        assert len(lines) <= 180

    def test_the_set_up_commands_come_first(self) -> None:
        """A fresh clone's first commands are `make test` and `make demo`."""
        readme = (_ROOT / "README.md").read_text("utf-8")
        blocks = re.findall(r"^```sh\n(.*?)^```", readme, re.MULTILINE | re.DOTALL)
        first = [line.split("#")[0].strip() for line in blocks[0].splitlines()]
        assert first[:2] == ["make test", "make demo"]

    def test_every_extra_has_an_install_line(self) -> None:
        """Each extra of pyproject.toml has its `pip install` line in the README."""
        project = tomllib.loads((_ROOT / "pyproject.toml").read_text("utf-8"))
        readme = (_ROOT / "README.md").read_text("utf-8")
        extras = project["project"]["optional-dependencies"]
        for extra, requirements in extras.items():
            if requirements and extra != "orjson":  # orjson: an alias of fast
                assert f'pip install "interruption[{extra}]"' in readme, extra


def test_the_serving_page_shows_the_official_status_table() -> None:
    """Every row of the page's status tables is `interruption.http`'s, and all are."""
    from interruption.http import ERROR_STATUS, PROBLEM_STATUS  # noqa: PLC0415

    text = (_ROOT / "docs" / "serving.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([a-z_]+)` \| (\d{3}) \|$", text, re.MULTILINE))
    official = {code.value: status for code, status in PROBLEM_STATUS.items()}
    official.update(ERROR_STATUS)
    assert {code: int(status) for code, status in rows.items()} == official
