"""The registry of model kinds: each kind's catalog name, the spellings the command line
accepts for it, the dotted path of its class (imported on first use) and its constructor's
parameters (type, default, one-line help), as its family declares them
(models/kind_spec.py's :class:`KindSpec`). ``warehouse_ml.load``, the command line (its
``--kind``, ``--param`` and ``--help``) and the conformance tests read it (the public names of
``warehouse_ml`` are written there, for type checkers, and held to it by
tests/cli/test_cli_startup.py); nothing here imports a learner, DuckDB, Arrow, sqlglot or numpy, so
``warehouse-ml --help`` can.

Each family package under models/learners/ declares its kinds in its own ``specs`` module
(``SPECS``, a tuple of :class:`KindSpec`), which imports only the declarations; the registry
finds them (:func:`register_families`, families in name order, each one's kinds in its order),
so a new family edits no shared file. :func:`register` adds a kind at run time (a test's
throwaway kind; ``tests/learners/test_conformance.py`` checks that every kind's parameters are
its class's constructor's)."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import pkgutil
from collections.abc import Iterator
from typing import TYPE_CHECKING

from warehouse_ml.errors import IncompatibleModelError
from warehouse_ml.models.kind_spec import SHARED_PARAMETERS, KindSpec
from warehouse_ml.version import VERSION

if TYPE_CHECKING:
    from warehouse_ml.models.base import Classifier


_REGISTRY: dict[str, KindSpec] = {}


def register(spec: KindSpec) -> KindSpec:
    """Add ``spec`` to the registry (a ValueError if its kind or a spelling is taken)."""
    taken = {s for other in _REGISTRY.values() for s in other.spellings}
    clash = sorted(taken & set(spec.spellings))
    if clash:
        raise ValueError(f"model kind {spec.kind!r}: spelling {clash[0]!r} is already taken")
    _REGISTRY[spec.kind] = spec
    return spec


def unregister(kind: str) -> None:
    """Remove the kind ``kind`` from the registry."""
    del _REGISTRY[kind]


@contextlib.contextmanager
def registered(spec: KindSpec) -> Iterator[KindSpec]:
    """``spec`` registered for the duration of a ``with`` block (a test's throwaway kind)."""
    register(spec)
    try:
        yield spec
    finally:
        unregister(spec.kind)


def specs() -> list[KindSpec]:
    """Every registered kind, in registration order."""
    return list(_REGISTRY.values())


def by_class_name() -> dict[str, KindSpec]:
    """Every registered kind by its class's name (``KindSpec.class_name``), the public name
    ``warehouse_ml`` gives the class."""
    return {spec.class_name: spec for spec in _REGISTRY.values()}


def spec_of(kind: str) -> KindSpec | None:
    """The registered kind whose catalog name is ``kind``, or None."""
    return _REGISTRY.get(kind)


def class_of(kind: str, model: str) -> type[Classifier]:
    """The class of model ``model``'s ``kind``; an IncompatibleModelError listing the known
    kinds when it is not registered here."""
    spec = spec_of(kind)
    if spec is None:
        raise IncompatibleModelError(
            f"model {model!r} is of kind {kind!r}, unknown to warehouse-ml {VERSION} (known "
            f"kinds: {sorted(s.kind for s in specs())})"
        )
    return spec.load()


def parameters_table() -> str:
    """Every registered kind's own parameters (not those every kind shares: ``categorical``,
    ``numeric``, ``class_weight``) as a Markdown table: columns kind (its ``--kind``
    spellings), parameter, default (as Python writes it), meaning and what the value must be
    (its constraint; "see the kind's section" when the constructor checks it itself). The
    README's table is this text (tests/package/test_readme.py)."""
    rows = ["| kind | parameter | default | meaning | takes |", "|---|---|---|---|---|"]
    for spec in specs():
        for parameter in (p for p in spec.settable if p not in SHARED_PARAMETERS):
            takes = (
                "see the kind's section"
                if parameter.constraint is None
                else parameter.constraint.expected
            )
            cells = [
                "/".join(f"`{s}`" for s in spec.spellings), f"`{parameter.name}`",
                f"`{parameter.default!r}`", parameter.help, takes,
            ]  # fmt: skip
            rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows) + "\n"


def named(text: str) -> KindSpec:
    """The kind a ``--kind`` value names (any case); ValueError listing the spellings."""
    for spec in _REGISTRY.values():
        if text.lower() in spec.spellings:
            return spec
    spellings = [s for spec in _REGISTRY.values() for s in spec.spellings]
    raise ValueError(f"unknown model kind {text!r}; expected one of {', '.join(spellings)}")


FAMILIES = "warehouse_ml.models.learners"
"""The package holding one subpackage per model family."""
SPEC_MODULE = "specs"
"""The module of a family package that declares its kinds (``SPECS``)."""


def register_families(package: str = FAMILIES) -> list[KindSpec]:
    """Register every kind each family subpackage of ``package`` declares in its
    :data:`SPEC_MODULE` module, families in name order (a subpackage without one, such as
    ``shared``, declares none); returns them. Only the declaring modules are imported, not the
    learners. The library's own families are registered when this module is first imported."""
    found = []
    parent = importlib.import_module(package)
    for family in sorted(m.name for m in pkgutil.iter_modules(parent.__path__) if m.ispkg):
        name = f"{package}.{family}.{SPEC_MODULE}"
        if importlib.util.find_spec(name) is None:
            continue
        found += [register(spec) for spec in importlib.import_module(name).SPECS]
    return found


register_families()
