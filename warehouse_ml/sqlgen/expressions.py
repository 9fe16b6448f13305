"""Typed one-line SQL expressions: casts and comparisons the query builders share.

A formula with meaning of its own (a smoothed log-probability, a scoring term) is a template
under ``warehouse_ml/sql/`` (``templates.expression``), where its header documents it; what is only
SQL syntax, a cast or an equality, is built here as a sqlglot node, with the same tree the
one-line template would have parsed to. Every argument is copied: a node may be placed in
several parts of a query.
"""

from __future__ import annotations

from sqlglot import exp

_TEXT = exp.DataType.build("VARCHAR", dialect="duckdb")  # as the templates' DuckDB SQL parses
_DOUBLE = exp.DataType.build("DOUBLE", dialect="duckdb")
_BIGINT = exp.DataType.build("BIGINT", dialect="duckdb")


def as_text(value: exp.Expression) -> exp.Expression:
    """``CAST(value AS VARCHAR)``: how values are compared with the stored parameter values."""
    return exp.cast(value.copy(), _TEXT)


def as_double(value: exp.Expression) -> exp.Expression:
    """``CAST(value AS DOUBLE)``."""
    return exp.cast(value.copy(), _DOUBLE)


def as_bigint(value: exp.Expression) -> exp.Expression:
    """``CAST(value AS BIGINT)``."""
    return exp.cast(value.copy(), _BIGINT)


BINARY_COLLATION = "C"
"""The collation :func:`byte_compared` names: DuckDB's binary one (also called POSIX),
rewritten per engine by sqlgen/dialects.py."""


def byte_compared(value: exp.Expression) -> exp.Expression:
    """``value COLLATE C``: a text value that compares, groups and sorts by its bytes, whatever
    collation its column or the session would give it (PostgreSQL: ``CAST(value AS TEXT)
    COLLATE "C"``, Spark: ``COLLATE UTF8_BINARY``, sqlgen/dialects.py)."""
    return exp.Collate(this=value.copy(), expression=exp.var(BINARY_COLLATION))


def equals(left: exp.Expression, right: exp.Expression) -> exp.Expression:
    """``left = right``."""
    return exp.EQ(this=left.copy(), expression=right.copy())


def all_equal(*pairs: tuple[exp.Expression, exp.Expression]) -> exp.Expression:
    """``left_1 = right_1 AND left_2 = right_2 ...``, in the given order."""
    return exp.and_(*(equals(left, right) for left, right in pairs), copy=False)
