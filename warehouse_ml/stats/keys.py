"""The one rule for a key column: a column whose MD5 deals rows, into cross-validation folds
and hold-out splits (evaluation/splits.py), resamples (evaluation/resampling.py), a decision
tree's reduced-error pruning rows (models/learners/tree/pruning.py) or a linear SVM's Platt
folds (models/learners/linear/svm/platt.py).

A key must be:

* of an integer or string type: the rows are dealt by ``MD5(CAST(key AS VARCHAR))``, and a
  floating, decimal or temporal value is written differently by each engine;
* neither the target (its values repeat, and dealing by it puts whole classes on one side)
  nor a feature (a row's place would depend on what the model learns from);
* non-NULL and unique on the rows it deals (every labelled row, for a model's own key): a
  constant or few-valued key deals every row of a value to the same side, so a "split" by
  it holds out nothing or everything.

:func:`check_key_column` checks the first two from the source's schema (no statement);
:func:`count_keyed_rows` the last, in one statement (warehouse_ml/sql/stats/select_key_profile.sql);
:func:`check_key` both. Each refusal is a ColumnError naming the column, what deals by it and
what was expected.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow.types as pt
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import ColumnError
from warehouse_ml.sqlgen.templates import column, literal


def check_key_column(
    source: Source,
    key: str,
    deals: str,
    *,
    target: str | None = None,
    features: Sequence[str] = (),
) -> None:
    """``key`` is an integer or string column of ``source``, not ``target`` and not among
    ``features``; a ColumnError naming it and ``deals`` (what its MD5 deals, e.g. "the
    cross-validation folds") otherwise."""
    t = source.field(key).type
    if not (pt.is_integer(t) or pt.is_string(t) or pt.is_large_string(t) or pt.is_string_view(t)):
        raise ColumnError(
            f"key column {key!r} of {source.description} has type {t}; expected an integer or "
            f"string key ({deals} are dealt by the MD5 of CAST(key AS VARCHAR), which renders "
            "floating, decimal and temporal values differently per engine: cast the key in a "
            "view)"
        )
    if key == target:
        raise ColumnError(
            f"key column {key!r} of {source.description} is the target; expected a unique row "
            f"identifier other than the target (it deals {deals})"
        )
    if key in features:
        raise ColumnError(
            f"key column {key!r} of {source.description} is also a feature; expected a row "
            f"identifier the model does not learn from (it deals {deals}): leave it out of "
            "features"
        )


def count_keyed_rows(
    warehouse: Warehouse,
    source: Source,
    key: str | None,
    deals: str,
    rows: exp.Expression | None = None,
) -> int:
    """The number of ``rows`` (an aliased relation; default the source's), checking that
    ``key`` (if any) is non-NULL and unique on them; a ColumnError naming it and ``deals``
    otherwise."""
    value = column(key, "src") if key is not None else literal(1)
    found = warehouse.fetch(
        "select_key_profile", source=source.relation if rows is None else rows, key_value=value
    ).to_pylist()[0]
    n_rows, n_keys, n_distinct = found["n_rows"], found["n_keys"], found["n_distinct"]
    if key is not None and n_keys != n_rows:
        raise ColumnError(
            f"key column {key!r} of {source.description} is NULL in {n_rows - n_keys} of "
            f"{n_rows} rows; expected a non-NULL key on every row (it deals {deals})"
        )
    if key is not None and n_distinct != n_rows:
        raise ColumnError(
            f"key column {key!r} of {source.description} is not unique: {n_rows} rows, "
            f"{n_distinct} distinct keys; expected one row per key (it deals {deals}, and rows "
            "of one key all fall on the same side)"
        )
    return n_rows


def check_key(
    warehouse: Warehouse,
    source: Source,
    key: str,
    deals: str,
    *,
    rows: exp.Expression | None = None,
    target: str | None = None,
    features: Sequence[str] = (),
) -> int:
    """:func:`check_key_column` then :func:`count_keyed_rows`: the number of ``rows``."""
    check_key_column(source, key, deals, target=target, features=features)
    return count_keyed_rows(warehouse, source, key, deals, rows)
