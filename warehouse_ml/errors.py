"""Typed errors raised by warehouse-ml.

Every message names the object it is about (table, column, model or template file) and says
what was expected and what was found, so that a user can fix the input without reading code.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def warn_user(message: str, category: type[Warning]) -> None:
    """``warnings.warn`` pointing at the nearest caller outside warehouse_ml (the user's call),
    however deep inside the package the warning is raised."""
    frame, level = sys._getframe(1), 2  # level 1 is this function
    while frame is not None and Path(frame.f_code.co_filename).resolve().is_relative_to(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


class WarehouseMLError(Exception):
    """Base class of every error raised on purpose by warehouse-ml (``warehouse_ml.Error``)."""


Error = WarehouseMLError
"""The short public name of :class:`WarehouseMLError`: ``except warehouse_ml.Error``."""


class TemplateError(WarehouseMLError):
    """A SQL template is missing, malformed, or was rendered with wrong placeholders."""


class SourceError(WarehouseMLError):
    """A source (table, view, Arrow object or file) cannot be read as expected."""


class ColumnError(SourceError):
    """A column is missing, duplicated, or of a type that cannot be used as asked."""


class DataError(WarehouseMLError):
    """The data cannot train a model (too few classes, no rows, non-finite numbers...)."""


class ModelError(WarehouseMLError):
    """A model cannot be learned from data that is otherwise valid: its equations have no
    unique solution (a singular system); the message says why and what setting or data
    change gives one."""


class ParameterError(WarehouseMLError, ValueError):
    """An argument is outside its documented range or of the wrong shape."""


class ModelNotFoundError(WarehouseMLError, LookupError):
    """No model of that name exists in the catalog."""


class IncompatibleModelError(WarehouseMLError):
    """A stored model was written by a version of warehouse-ml this one cannot read."""


class ConcurrentFitError(WarehouseMLError):
    """Another connection published a model of the same name while this fit was publishing its
    own; this fit was rolled back (its tables dropped) and may simply be run again."""


class NotFittedError(WarehouseMLError):
    """A method that needs a fitted model was called before `fit` or `load`."""


class NameConflictError(WarehouseMLError):
    """An object the call would create or replace resolves to an object warehouse-ml does not
    own (a user's table or view), to one of the call's own sources, or to an object of another
    kind; or a fit would replace a model of another kind, target or source without
    ``replace=True``, or a selection helper one it did not make; nothing was run."""


class ColumnConflictError(ColumnError):
    """A key or passed-through column has the name of an output column of the call (the two
    would be indistinguishable in its result)."""


class ConnectionStateError(WarehouseMLError):
    """The user's connection is in a state warehouse-ml must not work in (an open transaction of
    the user's, or a failed one); nothing was run."""


class CorruptModelError(WarehouseMLError):
    """A stored model's parameter tables or catalog row differ from what its fit recorded
    (rows edited, deleted or added; malformed catalog values)."""


class StaleModelError(WarehouseMLError):
    """A model object refers to a version of its model that a later fit of the same name (or a
    drop) has replaced; load the current one with ``warehouse_ml.load``."""


class BatchAppliedError(WarehouseMLError):
    """An update names a batch id the model has already applied (a retried job); the model is
    unchanged."""


class ViewRebuildError(WarehouseMLError):
    """A registered view of a model cannot be rebuilt over its source (its source changed)."""


class DependentObjectError(WarehouseMLError):
    """An object of the library cannot be dropped or redefined because an object the library
    does not own reads it (PostgreSQL: a user's view over a prediction view); nothing changed."""


class HighCardinalityWarning(UserWarning):
    """A categorical attribute has many distinct values (see
    :mod:`warehouse_ml.stats.validation`)."""


class AllNullColumnsWarning(UserWarning):
    """Columns without any value (every row NULL) are left out of the features they were
    chosen from (see :mod:`warehouse_ml.stats.column_profile`)."""


class IntegerColumnsWarning(UserWarning):
    """Integer columns nobody declared are modelled as numeric: they have many distinct values
    (see :mod:`warehouse_ml.stats.integer_rule`)."""


class HighCardinalityError(DataError):
    """A categorical attribute looks like an identifier or has too many distinct values to be
    learned; pass ``allow_high_cardinality=True`` to ``fit`` to learn it anyway."""


class NotSupportedError(ParameterError):
    """A call needs a capability (models/capabilities.py) that the model's kind does not
    declare; the message names the kind, the capability and what to use instead."""
