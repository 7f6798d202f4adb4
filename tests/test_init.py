from __future__ import annotations

import importlib
import subprocess
import sys
import typing

import interruption
import interruption.store
import pytest

HEAVY = ["asyncio", "cattrs", "jsonschema_rs", "jwt", "psycopg", "sqlite3"]
"""Modules that `import interruption` must leave for first use."""


def _imported_after(statement: str) -> list[str]:
    loaded = f"sorted(m for m in {HEAVY!r} if m in sys.modules)"
    check = f"import sys; {statement}; print(*{loaded})"
    found = subprocess.run(  # noqa: S603 - our own interpreter and code
        [sys.executable, "-c", check], capture_output=True, text=True, check=True
    )
    return found.stdout.split()


class TestPackage:
    def test_import_leaves_heavy_modules_for_first_use(self) -> None:
        """``import interruption`` imports no async, schema, JWT or database module."""
        assert _imported_after("import interruption") == []

    def test_a_lazy_name_imports_its_module(self) -> None:
        """Using a name like ``Sealer`` imports what it needs, then."""
        assert "jwt" in _imported_after("from interruption import Sealer")

    @pytest.mark.parametrize("name", interruption.__all__)
    def test_every_name_is_its_modules_object(self, name: str) -> None:
        """Every exported name resolves to the object its module defines."""
        value = getattr(interruption, name)
        home = getattr(value, "__module__", None)
        if isinstance(home, str) and home.startswith("interruption."):
            defined = getattr(importlib.import_module(home), name, value)
            assert value is defined

    def test_unknown_names_raise_attribute_error(self) -> None:
        """A name the package does not export is an AttributeError."""
        with pytest.raises(AttributeError, match="no attribute 'Nope'"):
            getattr(interruption, "Nope")  # noqa: B009 - a name mypy would refuse

    def test_version_is_the_installed_release(self) -> None:
        """``interruption.__version__`` is the installed distribution's version."""
        from importlib.metadata import version  # noqa: PLC0415

        assert interruption.__version__ == version("interruption")
        check = "import interruption, sys; print('importlib.metadata' in sys.modules)"
        found = subprocess.run(  # noqa: S603 - our own interpreter and code
            [sys.executable, "-c", check], capture_output=True, text=True, check=True
        )
        assert found.stdout.strip() == "False"  # read when asked, not on import

    def test_dir_lists_every_name(self) -> None:
        """``dir()`` shows the lazy names too."""
        assert set(interruption.__all__) <= set(dir(interruption))


class TestStorePackage:
    def test_import_leaves_the_stores_for_first_use(self) -> None:
        """``import interruption.store`` imports neither asyncio nor a driver."""
        found = _imported_after("import interruption.store")
        assert not {"asyncio", "sqlite3", "psycopg"} & set(found)

    @pytest.mark.parametrize("name", [*interruption.store._LAZY, "Store", "AuditEvent"])
    def test_every_store_resolves(self, name: str) -> None:
        """Every store and record name resolves to a class of that name."""
        assert getattr(interruption.store, name).__name__ == name

    def test_the_audit_names_resolve(self) -> None:
        """The audit trail's bound and type aliases are exported as they are."""
        assert interruption.store.MAX_REJECTED == 100
        assert typing.get_args(interruption.store.Listed) == (
            "open",
            "expired",
            "consumed",
        )
        assert "rejected" in typing.get_args(interruption.store.AuditKind)

    def test_unknown_names_raise_attribute_error(self) -> None:
        """A name the store package does not export is an AttributeError."""
        with pytest.raises(AttributeError, match="no attribute 'Nope'"):
            getattr(interruption.store, "Nope")  # noqa: B009 - as above

    def test_dir_lists_every_store(self) -> None:
        """``dir()`` shows the lazy stores too."""
        assert set(interruption.store.__all__) <= set(dir(interruption.store))
