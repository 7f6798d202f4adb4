"""What `make test` installs is what users install, within tested bounds."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Final

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

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
