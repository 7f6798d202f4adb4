from __future__ import annotations

import importlib
import subprocess
import sys
import types
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


def _is_its_homes(package: types.ModuleType, name: str) -> None:
    """Fail unless *package*'s *name* is its home module's object of that name.

    A type alias (a union, a literal, a callable type) has no home module of
    ours; it must be an alias of something. A constant (an upper-case name)
    must be an immutable value.
    """
    value = getattr(package, name)
    home = getattr(value, "__module__", None)
    if isinstance(home, str) and home.startswith("interruption"):
        assert getattr(importlib.import_module(home), name) is value
    elif not typing.get_args(value):  # not an alias: then a constant
        assert name.isupper(), f"{name} is neither ours, an alias nor a constant"
        assert isinstance(value, int | float | str | tuple | frozenset), name


def _star_imports(package: types.ModuleType) -> None:
    """Fail unless a star import of *package* binds exactly ``__all__``."""
    names: dict[str, object] = {}
    exec(f"from {package.__name__} import *", names)  # noqa: S102 - a fixed import
    del names["__builtins__"]
    assert sorted(names) == sorted(package.__all__)
    for name, value in names.items():
        assert value is getattr(package, name), name
    assert set(package.__all__) <= set(dir(package))


class TestPackage:
    def test_import_leaves_heavy_modules_for_first_use(self) -> None:
        """``import interruption`` imports no async, schema, JWT or database module."""
        assert _imported_after("import interruption") == []

    def test_a_lazy_name_imports_its_module(self) -> None:
        """Using a name like ``Sealer`` imports what it needs, then."""
        assert "jwt" in _imported_after("from interruption import Sealer")

    @pytest.mark.parametrize("name", interruption.__all__)
    def test_every_name_is_its_modules_object(self, name: str) -> None:
        """Every exported name is the object its home module defines, or an alias."""
        _is_its_homes(interruption, name)

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

    def test_a_star_import_binds_every_name(self) -> None:
        """``from interruption import *`` binds every name of ``__all__``."""
        _star_imports(interruption)


class TestStorePackage:
    def test_import_leaves_the_stores_for_first_use(self) -> None:
        """``import interruption.store`` imports neither asyncio nor a driver."""
        found = _imported_after("import interruption.store")
        assert not {"asyncio", "sqlite3", "psycopg"} & set(found)

    @pytest.mark.parametrize("name", interruption.store.__all__)
    def test_every_name_is_its_modules_object(self, name: str) -> None:
        """Every store and record name is the object its home module defines."""
        _is_its_homes(interruption.store, name)

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

    def test_a_star_import_binds_every_store(self) -> None:
        """``from interruption.store import *`` binds every store, lazy or not."""
        _star_imports(interruption.store)
