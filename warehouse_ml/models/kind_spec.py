"""A model kind's declaration: :class:`KindSpec` (its catalog name, ``--kind`` spellings, class
path, summary and constructor parameters), and the parameters every kind shares. A family
declares its kinds with it; models/kinds.py registers them. Nothing here imports a learner,
DuckDB, Arrow, sqlglot or numpy."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from warehouse_ml.models.kind_parameters import CLASS_WEIGHT, COLUMNS, Parameter

if TYPE_CHECKING:
    from warehouse_ml.models.base import Classifier


CLASS_WEIGHT_PARAMETER = "class_weight"
"""The constructor parameter every kind takes and only a kind with a weighted form accepts a
value of (``KindSpec.weighted``)."""


@dataclass(frozen=True)
class KindSpec:
    """A model kind: ``kind`` (its catalog name, ``Classifier.kind``), ``aliases`` (other
    spellings of ``--kind``), ``cls`` (``"module.Class"``, imported by :meth:`load`), a one-line
    ``summary``, its constructor's ``parameters`` in order, and ``weighted``: whether the kind
    has a weighted form (its class declares ``WeightedFit``, models/capabilities.py, which
    tests/learners/test_conformance.py holds it to). A kind without one refuses weights
    everywhere: its ``class_weight`` takes only None and the command line refuses
    ``--class-weight`` and ``--sample-weight`` for it."""

    kind: str
    aliases: tuple[str, ...]
    cls: str
    summary: str
    parameters: tuple[Parameter, ...]
    weighted: bool = False

    @property
    def spellings(self) -> tuple[str, ...]:
        """Every ``--kind`` value naming this kind, in lower case (compared with the given
        value in lower case)."""
        return tuple(s.lower() for s in (*self.aliases, self.kind))

    @property
    def settable(self) -> tuple[Parameter, ...]:
        """The parameters a caller may give a value: every one, but ``class_weight`` of a kind
        without a weighted form (whose constructor refuses any value but None)."""
        return tuple(
            p for p in self.parameters if self.weighted or p.name != CLASS_WEIGHT_PARAMETER
        )

    def parameter(self, name: str) -> Parameter:
        """The settable parameter ``name``; ValueError otherwise (``class_weight`` of a kind
        without a weighted form says so)."""
        for parameter in self.settable:
            if parameter.name == name:
                return parameter
        if name == CLASS_WEIGHT_PARAMETER:
            raise ValueError(f"{self.kind} has no weighted form: it takes no {name}")
        raise ValueError(f"{self.kind} has no parameter {name!r}")

    def checked(self, **values: Any) -> dict[str, Any]:
        """``values`` (constructor arguments by name) as the model keeps them, each held to
        its parameter's constraint (:meth:`Parameter.check`), in the order given."""
        declared = {p.name: p for p in self.parameters}
        return {name: declared[name].check(value) for name, value in values.items()}

    def defaults(self) -> dict[str, Any]:
        """Each parameter's default, by name."""
        return {p.name: p.default for p in self.parameters}

    @property
    def class_name(self) -> str:
        """The name of the kind's class, also its public name (``warehouse_ml.<name>``)."""
        return self.cls.rpartition(".")[2]

    def load(self) -> type[Classifier]:
        """The kind's class (importing its module on first use)."""
        return getattr(importlib.import_module(self.cls.rpartition(".")[0]), self.class_name)


SHARED_PARAMETERS = (
    Parameter("categorical", COLUMNS, None, "columns to count as categories, whatever their type"),
    Parameter("numeric", COLUMNS, None, "integer or decimal columns to model as numbers"),
    Parameter(
        CLASS_WEIGHT_PARAMETER, CLASS_WEIGHT, None, "weigh every row of a class: balanced or JSON"
    ),
)
"""The parameters every kind takes, last in its declaration."""
