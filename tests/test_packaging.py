"""What `make test` installs is what users install, within tested bounds."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Final

import interruption.runtime.store
import pytest
from interruption import ExtraMissing
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.adapters._common import import_error

_ROOT: Final = Path(__file__).resolve().parent.parent
_PYPROJECT: Final = tomllib.loads((_ROOT / "pyproject.toml").read_text("utf-8"))
_PROJECT: Final = _PYPROJECT["project"]

_EXTRAS: Final[dict[str, list[str]]] = _PROJECT["optional-dependencies"]
_DEV: Final[list[str]] = _PYPROJECT["dependency-groups"]["dev"]


def _requirements(*groups: list[str]) -> list[Requirement]:
    return [Requirement(line) for group in groups for line in group]


def _makefile_extras() -> set[str]:
    found = re.search(
        r"^EXTRAS := (.+)$", (_ROOT / "Makefile").read_text(), re.MULTILINE
    )
    assert found is not None, "the Makefile names the extras it installs"
    return set(found.group(1).split(","))


class TestWhatIsTested:
    def test_the_suite_installs_every_extra(self) -> None:
        """Every extra with a requirement of its own is installed by `make test`."""
        seen: set[frozenset[str]] = set()
        wanted = set()
        for name, lines in sorted(_EXTRAS.items()):
            key = frozenset(lines)
            if lines and key not in seen:
                seen.add(key)
                wanted.add(name)
        installed = _makefile_extras()
        assert installed <= set(_EXTRAS)
        missing = {
            name
            for name in wanted
            if frozenset(_EXTRAS[name])
            not in {frozenset(_EXTRAS[extra]) for extra in installed}
        }
        assert not missing

    def test_the_dev_group_repeats_no_extra(self) -> None:
        """A package users get from an extra is not pinned again for the tests."""
        extra_names = {
            canonicalize_name(req.name) for req in _requirements(*_EXTRAS.values())
        }
        dev_names = {canonicalize_name(req.name) for req in _requirements(_DEV)}
        assert not extra_names & dev_names

    @pytest.mark.parametrize(
        "requirement",
        [
            str(req)
            for req in _requirements(_PROJECT["dependencies"], *_EXTRAS.values())
        ],
    )
    def test_installed_within_bounds(self, requirement: str) -> None:
        """The installed release of every dependency is one its specifier allows."""
        req = Requirement(requirement)
        version = metadata.version(req.name)
        assert req.specifier.contains(version, prereleases=True), (req, version)

    @pytest.mark.parametrize(
        "requirement", [str(req) for req in _requirements(_PROJECT["dependencies"])]
    )
    def test_verdict_dependencies_are_bounded(self, requirement: str) -> None:
        """Each required dependency (each decides verdicts) has an upper bound."""
        req = Requirement(requirement)
        assert any(spec.operator in {"<", "<=", "==", "~="} for spec in req.specifier)

    @pytest.mark.parametrize(
        "requirement",
        [
            str(req)
            for name, group in _EXTRAS.items()
            if name != "testing"
            for req in _requirements(group)
        ],
    )
    def test_adapter_frameworks_are_bounded(self, requirement: str) -> None:
        """Each framework an adapter drives is bounded to the tested release line."""
        req = Requirement(requirement)
        assert any(spec.operator in {"<", "<=", "==", "~="} for spec in req.specifier)


_ADAPTER_EXTRAS: Final = {
    # adapter module: (a framework module it imports, the extra that installs it)
    "genkit": ("genkit", "genkit"),
    "google_adk": ("google.adk", "google-adk"),
    "langchain": ("langchain", "langgraph"),
    "langgraph": ("langgraph", "langgraph"),
    "mcp": ("mcp", "mcp"),
    "openai_agents": ("agents", "openai-agents"),
    "pydantic_ai": ("pydantic_ai", "pydantic-ai"),
}


class TestMissingExtras:
    def test_every_adapter_is_listed(self) -> None:
        """The table below names every adapter module, so none goes untested."""
        modules = {
            path.stem
            for path in (_ROOT / "interruption" / "adapters").glob("*.py")
            if not path.stem.startswith("_")
        }
        assert modules == set(_ADAPTER_EXTRAS)

    @pytest.mark.parametrize(("module", "missing"), sorted(_ADAPTER_EXTRAS.items()))
    def test_an_adapter_without_its_framework_names_its_extra(
        self, module: str, missing: tuple[str, str]
    ) -> None:
        """An adapter imported without its framework says which extra to install."""
        framework, extra = missing
        said = import_error(f"interruption.adapters.{module}", framework)
        assert f"interruption.adapters.{module} needs the [{extra}] extra" in said
        assert f"pip install 'interruption[{extra}]'" in said

    @pytest.fixture(name="without_psycopg")
    def _without_psycopg(self, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
        """`interruption.runtime.store` as installed without the [postgres] extra."""
        monkeypatch.setitem(sys.modules, "psycopg", None)
        postgres = "interruption.runtime.store._postgres"
        monkeypatch.delitem(sys.modules, postgres, raising=False)
        monkeypatch.delattr(interruption.runtime.store, "PostgresStore", raising=False)
        return interruption.runtime.store

    def test_postgres_store_can_be_probed_and_imported(
        self, without_psycopg: ModuleType
    ) -> None:
        """Without psycopg, hasattr and the import work: nothing is used yet."""
        assert hasattr(without_psycopg, "PostgresStore")
        from interruption.runtime.store import PostgresStore  # noqa: PLC0415

        assert PostgresStore.__module__ == "interruption.runtime.store"
        assert "[postgres] extra" in (PostgresStore.__doc__ or "")

    def test_postgres_store_names_its_extra_when_used(
        self, without_psycopg: ModuleType
    ) -> None:
        """Without psycopg, constructing PostgresStore raises ExtraMissing."""
        with pytest.raises(ExtraMissing) as caught:
            without_psycopg.PostgresStore("postgresql://localhost/app")
        error = caught.value
        assert isinstance(error, ImportError)
        assert (error.code, error.extra) == ("extra_missing", "postgres")
        assert error.needed_by == "interruption.runtime.store.PostgresStore"
        assert str(error).startswith(
            "interruption.runtime.store.PostgresStore needs the [postgres] extra: "
            "pip install 'interruption[postgres]' ("
        )
        assert isinstance(error.__cause__, ImportError)

    def test_another_import_failure_is_not_blamed_on_the_extra(
        self, without_psycopg: ModuleType, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A store whose own module fails to import raises that ImportError."""
        monkeypatch.setitem(sys.modules, "interruption.runtime.store._postgres", None)
        with pytest.raises(ImportError) as caught:
            _ = without_psycopg.PostgresStore
        assert not isinstance(caught.value, ExtraMissing)
        monkeypatch.delattr(interruption.runtime.store, "SqliteStore", raising=False)
        monkeypatch.setitem(sys.modules, "interruption.runtime.store._sqlite", None)
        with pytest.raises(ImportError):
            _ = without_psycopg.SqliteStore


class TestDistribution:
    def test_the_sdist_ships_the_repository(self) -> None:
        """The sdist includes every tracked top-level path, so its tests run."""
        if not (_ROOT / ".git").exists():
            pytest.skip("not a git checkout (an unpacked sdist): nothing to compare")
        tracked = subprocess.run(
            ["git", "ls-files"],  # noqa: S607 - git from PATH, a fixed command
            cwd=_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        top = {path.split("/", 1)[0] for path in tracked} - {".gitignore"}
        included = set(
            _PYPROJECT["tool"]["hatch"]["build"]["targets"]["sdist"]["include"]
        )
        assert included | {"pyproject.toml"} == top

    def test_project_urls_are_declared(self) -> None:
        """The metadata links the docs, the source, the changelog and the issues."""
        assert set(_PROJECT["urls"]) == {
            "Documentation",
            "Source",
            "Changelog",
            "Issues",
        }
        assert all(url.startswith("https://") for url in _PROJECT["urls"].values())

    def test_docs_tools_are_in_the_dev_group(self) -> None:
        """`make docs` and `make package` tools are declared, each bounded."""
        names = {canonicalize_name(req.name): req for req in _requirements(_DEV)}
        for tool in ("mkdocs-material", "mkdocstrings", "build", "twine"):
            specifier = names[canonicalize_name(tool)].specifier
            assert any(spec.operator == "<" for spec in specifier), tool


def test_every_gate_make_test_names_has_a_rule() -> None:
    """`make test` and `make check` name only targets the Makefile defines."""
    text = (_ROOT / "Makefile").read_text(encoding="utf-8")
    rules = set(re.findall(r"^([a-z]+):", text, re.MULTILINE))
    for gate in ("test", "check"):
        (line,) = re.findall(rf"^{gate}:(.*)$", text, re.MULTILINE)
        names = {name for name in line.split() if not name.startswith("$")}
        assert names <= rules, f"{gate} names {names - rules}, which no rule makes"


def test_lint_holds_the_import_contract() -> None:
    """`make lint` runs ruff and the import contract of pyproject's importlinter."""
    text = (_ROOT / "Makefile").read_text(encoding="utf-8")
    (body,) = re.findall(r"^lint:.*\n((?:\t.*\n)+)", text, re.MULTILINE)
    assert "ruff check" in body
    assert "lint-imports" in body
    config = tomllib.loads((_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    assert {contract["id"] for contract in contracts} == {
        "layers",
        "error-tree",
        "adapters-public",
        "runtime-public",
    }


def test_the_runtime_and_the_adapters_are_kept_off_every_private_core_module() -> None:
    """Every private core module is forbidden to the runtime and the adapters."""
    config = tomllib.loads((_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = {c["id"]: c for c in config["tool"]["importlinter"]["contracts"]}
    core = contracts["layers"]["layers"][-1].split(" : ")
    private = {module for module in core if module.startswith("interruption._")}
    on_disk = {
        f"interruption.{path.stem}"
        for path in (_ROOT / "interruption").glob("_*.py")
        if not path.stem.startswith("__") and path.stem != "_demo"
    }
    assert private == on_disk  # the core layer names every private core module
    assert "interruption._json" in private
    for contract in ("runtime-public", "adapters-public"):
        assert private <= set(contracts[contract]["forbidden_modules"]), contract
