"""A learner's constructor arguments held to the one declaration of its kind's parameters
(its family's ``specs`` module, registered in models/kinds.py: type, default, constraint
and help, which the command line, ``--help`` and
the README read too)."""

from __future__ import annotations

from typing import Any

from warehouse_ml.models import kinds


def keep_checked(model: object, kind: str, **values: Any) -> None:
    """Set each of ``values`` (constructor arguments by name) as ``model``'s attribute of that
    name, as the registered kind ``kind`` declares it (:meth:`kinds.KindSpec.checked`: a
    ParameterError saying what a value must be, e.g. "max_iter must be an integer >= 1, got
    0"). ``kind`` is the class's own kind, not ``model.kind``: a subclass of another kind (a
    test's throwaway kind) keeps its base's checks."""
    spec = kinds.spec_of(kind)
    if spec is None:
        raise LookupError(f"model kind {kind!r} is not registered (models/kinds.py)")
    for name, value in spec.checked(**values).items():
        setattr(model, name, value)
