from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import types
import typing
from collections.abc import Mapping
from pathlib import Path

import interruption
import interruption.runtime.store
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


def _ours_after(statement: str) -> list[str]:
    check = (
        f"import sys; {statement}; "
        "print(*sorted(m for m in sys.modules if m.startswith('interruption')))"
    )
    found = subprocess.run(  # noqa: S603 - our own interpreter and code
        [sys.executable, "-c", check], capture_output=True, text=True, check=True
    )
    return found.stdout.split()


def _order(name: str) -> tuple[int, str]:
    """Where isort puts *name* in an import: constants, classes, then the rest."""
    if name.isupper():
        return 0, name
    return (1 if name[0].isupper() else 2), name


def _stub(package: types.ModuleType) -> list[tuple[str, list[str]]]:
    """The lines of *package*'s stub: each module, and the names it hands on.

    Fails unless every import is ``from .module import Name as Name``: the one
    form that mypy re-exports and lazy_loader reads.
    """
    path = Path(str(package.__file__)).with_suffix(".pyi")
    lines = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            assert isinstance(node, ast.ImportFrom), ast.unparse(node)
            assert node.level == 1, ast.unparse(node)
            assert node.module, ast.unparse(node)
            assert all(alias.asname == alias.name for alias in node.names)
            lines.append((node.module, [alias.name for alias in node.names]))
    return lines


def _names_each_once(package: types.ModuleType) -> None:
    """Fail unless *package*'s stub names each public name once, in order.

    One line per module, the modules sorted, the names sorted as isort does;
    ``__all__`` and ``dir()`` are exactly those names.
    """
    lines = _stub(package)
    modules = [module for module, _ in lines]
    assert modules == sorted(set(modules))
    names = [name for _, line in lines for name in line]
    assert len(names) == len(set(names))
    for _, line in lines:
        assert line == sorted(line, key=_order)
    assert package.__all__ == sorted(names)
    assert dir(package) == sorted(names)


def _is_its_homes(package: types.ModuleType, name: str) -> None:
    """Fail unless *package*'s *name* is its home module's object of that name.

    A type alias (a union, a literal, a callable type) has no home module of
    ours; it must be an alias of something. A constant (an upper-case name)
    must be an immutable value.
    """
    value = getattr(package, name)
    home = getattr(value, "__module__", None)
    defined = hasattr(value, "__qualname__")  # a class or a function, not a value
    if defined and isinstance(home, str) and home.startswith("interruption"):
        assert getattr(importlib.import_module(home), name) is value
    elif not typing.get_args(value):  # not an alias: then a constant
        assert name.isupper(), f"{name} is neither ours, an alias nor a constant"
        assert isinstance(value, int | float | str | tuple | frozenset | Mapping), name
        with pytest.raises(TypeError):  # immutable: no item can be set
            value[name] = None  # type: ignore[index]


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

    def test_import_leaves_every_module_for_first_use(self) -> None:
        """``import interruption`` loads the façade alone, none of our modules."""
        assert _ours_after("import interruption") == ["interruption"]

    def test_a_name_imports_its_own_module_and_what_it_needs(self) -> None:
        """Using ``Custom`` loads the kinds and what they import, not the loop."""
        found = _ours_after("from interruption import Custom")
        assert "interruption.kinds" in found
        assert "interruption.runtime.loop" not in found

    def test_the_stub_names_each_public_name_once(self) -> None:
        """``__init__.pyi`` lists each name once; ``__all__`` and ``dir()`` are it."""
        _names_each_once(interruption)

    def test_a_used_name_is_bound_on_the_package(self) -> None:
        """A name, once used, is the package's attribute: no second lookup."""
        value = interruption.Custom
        assert vars(interruption)["Custom"] is value

    def test_a_lazy_name_imports_its_module(self) -> None:
        """Using a name like ``Sealer`` imports what it needs, then."""
        assert "jwt" in _imported_after("from interruption import Sealer")

    @pytest.mark.parametrize("name", vars(interruption)["__all__"])
    def test_every_name_is_its_modules_object(self, name: str) -> None:
        """Every exported name is the object its home module defines, or an alias."""
        _is_its_homes(interruption, name)

    def test_unknown_names_raise_attribute_error(self) -> None:
        """A name the package does not export is an AttributeError."""
        with pytest.raises(AttributeError, match="interruption attribute Nope"):
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
        """``import interruption.runtime.store`` imports no asyncio and no driver."""
        found = _imported_after("import interruption.runtime.store")
        assert not {"asyncio", "sqlite3", "psycopg"} & set(found)

    @pytest.mark.parametrize("name", vars(interruption.runtime.store)["__all__"])
    def test_every_name_is_its_modules_object(self, name: str) -> None:
        """Every store and record name is the object its home module defines."""
        _is_its_homes(interruption.runtime.store, name)

    def test_the_audit_names_resolve(self) -> None:
        """The audit trail's bound and type aliases are exported as they are."""
        assert interruption.runtime.store.MAX_REJECTED == 100
        assert typing.get_args(interruption.runtime.store.Listed) == (
            "open",
            "expired",
            "consumed",
        )
        assert "rejected" in typing.get_args(interruption.runtime.store.AuditKind)

    def test_unknown_names_raise_attribute_error(self) -> None:
        """A name the store package does not export is an AttributeError."""
        with pytest.raises(
            AttributeError, match=r"interruption\.runtime\.store attribute Nope"
        ):
            getattr(interruption.runtime.store, "Nope")  # noqa: B009 - as above

    def test_the_stub_names_each_store_name_once(self) -> None:
        """``store/__init__.pyi`` lists each name once; ``__all__`` is it."""
        _names_each_once(interruption.runtime.store)

    def test_a_star_import_binds_every_store(self) -> None:
        """A star import of ``interruption.runtime.store`` binds every store."""
        _star_imports(interruption.runtime.store)
