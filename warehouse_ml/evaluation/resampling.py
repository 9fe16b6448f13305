"""Deterministic, portable class resampling as SQL: random under- and over-sampling.

A resample draws each class's rows in the order a stratified split ranks them (splits.py:
the MD5 of ``'<seed>:0:' || key`` within the class), so the same seed and keys give the same
rows on every run and engine, and another seed another draw:

* ``strategy="under"``, ratio r in (0, 1]: every class keeps at most ``int(n_min / r)`` rows,
  those of lowest digest (n_min: the smallest class's rows). r = 1 balances the classes.
* ``strategy="over"``, ratio r in (0, 1]: every class grows to at least ``int(n_max * r)``
  rows (n_max: the largest class's rows): each of its rows repeated floor(quota / n) times, and
  the (quota mod n) rows of lowest digest once more. Unlike a draw with replacement, no row is
  repeated more than once beyond any other of its class.

For two classes the counts are imbalanced-learn's ``RandomUnderSampler`` /
``RandomOverSampler`` with ``sampling_strategy=r`` (minority over majority after
resampling); with more classes the same rule holds for every class against the smallest
(under) or largest (over). Rows whose class is NULL are left out (a fit does not count them).

The result is warehouse-ml's own table or view (``wml.sample<id>`` by default; a name the user
gives only when it is free or already a resample of the library's), with the source's columns
and ``copy`` (0 for a row's first appearance): fit on it with ``keys=[key, "copy"]`` (or
``wml_row`` for a source without a key), so neither is taken for an attribute.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pyarrow as pa

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.sources import SourceLike, open_source
from warehouse_ml.errors import ParameterError
from warehouse_ml.evaluation import splits
from warehouse_ml.evaluation.kept_as import kept_as
from warehouse_ml.models.training import ClassCount, class_counts
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, column
from warehouse_ml.store import ownership

COPY = "copy"
"""The output column numbering a row's appearances (0 for the first)."""
STRATEGIES = ("under", "over")
MAX_COPIES = 10_000
"""Most appearances of one row: over-sampling a class of n rows to q rows repeats them
ceil(q / n) times, each a row of the copies' VALUES list."""


@dataclass(frozen=True)
class Resample:
    """A resample written to the warehouse.

    Attributes:
        table: the table (or view) holding the rows.
        key: the key column (the source's key, or ``wml_row`` when none was given).
        target: the class column.
        strategy: ``"under"`` or ``"over"``.
        ratio: the ratio asked for.
        seed: the seed hashed with each key.
        before, after: rows per class label (as text) in the source and in the resample.
        id: the resample's id in the object registry (its owner name).
    """

    table: TableName
    key: str
    target: str
    strategy: str
    ratio: float
    seed: int
    before: dict[str, int]
    after: dict[str, int]
    id: str

    def to_arrow(self, con: Connectable) -> pa.Table:
        """Every row of the resample, ordered by key, then copy."""
        with session(con) as warehouse:
            return warehouse.fetch(
                "select_table",
                table=self.table,
                order_columns=[column(c, "t") for c in (self.key, COPY)],
            )

    def drop(self, con: Connectable) -> None:
        """Remove the resample's table or view (warehouse-ml's own, see ownership.py)."""
        with session(con) as warehouse:
            ownership.release(warehouse, ownership.owned_by(warehouse, "sample", self.id))
            warehouse.after_drop()


def quotas(classes: Sequence[ClassCount], strategy: str, ratio: float) -> list[int]:
    """Rows each class keeps (module docstring), in the order of ``classes``."""
    if strategy == "under":
        most = int(min(c.n for c in classes) / ratio)
        return [min(c.n, most) for c in classes]
    least = int(max(c.n for c in classes) * ratio)
    return [max(c.n, least) for c in classes]


def _check(strategy: Any, ratio: Any) -> float:
    if strategy not in STRATEGIES:
        raise ParameterError(f"strategy must be one of {list(STRATEGIES)}, got {strategy!r}")
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 < ratio <= 1:
        raise ParameterError(
            f"ratio must be a number in (0, 1] (the smallest class's rows over the largest's "
            f"after resampling), got {ratio!r}"
        )
    return float(ratio)


def resample(
    con: Connectable,
    source: SourceLike,
    target: str,
    *,
    strategy: Literal["under", "over"] = "under",
    ratio: float = 1.0,
    seed: int = 0,
    key: str | None = None,
    table: str | Sequence[str] | TableName | None = None,
    view: bool = False,
) -> Resample:
    """Under- or over-sample the classes of ``target`` in ``source``, deterministically.

    Args:
        con: a DuckDB connection, a database path, or a Warehouse.
        source: table/view name, Arrow table or reader, or a Parquet/CSV path.
        target: the class column.
        strategy: ``"under"`` (drop rows of the larger classes) or ``"over"`` (repeat rows of
            the smaller ones); see the module docstring for the counts.
        ratio: in (0, 1]: the smallest class's rows over the largest's after resampling
            (1: balanced).
        seed: any integer; the same seed and keys give the same rows on every run and engine.
        key: a unique, non-NULL integer or string column. None: rows are numbered in scan
            order (``wml_row``) and the resample is a table.
        table: output name: new, or a resample warehouse-ml made earlier (replaced); default a
            new table ``wml.sample<id>``. A user's table of that name, or the source, is a
            NameConflictError.
        view: create a view instead of a table (needs a durable source and a key).

    Returns:
        A :class:`Resample`. Output columns: the key (``wml_row`` BIGINT when no key), every
        source column, and ``copy`` (INTEGER, 0 for a row's first appearance); a source column
        named ``copy`` is refused.
    """
    ratio = _check(strategy, ratio)
    seed = splits.check_seed(seed)
    sample_id = splits.new_id("sample")
    form = kept_as(view)
    with session(con) as warehouse, open_source(warehouse, source) as src:
        warehouse.require_writing(f"the resample's {form.kind}")
        splits.prepare(src, key, target, form, True, [COPY])
        classes, _ = class_counts(warehouse, src, target)
        splits.profile(warehouse, src, key)  # a unique, non-NULL key, as the splits check it
        kept = quotas(classes, strategy, ratio)
        copies = max(math.ceil(q / c.n) for q, c in zip(kept, classes, strict=True))
        if copies > MAX_COPIES:
            raise ParameterError(
                f"over-sampling {target!r} of {src.description} at ratio {ratio} repeats a "
                f"row {copies} times; expected at most {MAX_COPIES} (ask for a smaller ratio)"
            )
        rows = [(c.label, c.n, q) for c, q in zip(classes, kept, strict=True)]
        assignment = splits.Assignment(
            "select_resampled_rows",
            (COPY,),
            {
                "quotas": templates.values(rows, "q", ("class_label", "n", "quota")),
                "copies": templates.values([(j,) for j in range(copies)], "c", ("wml_copy",)),
            },
        )
        query = splits.split_rows(warehouse, src, key, target, seed, 1, True, assignment)
        name = splits.write(warehouse, src, query, table, form, sample_id, "resample", "sample")
    return Resample(
        name, key or splits.ROW_KEY, target, strategy, ratio, seed,
        {c.label: c.n for c in classes},
        {c.label: q for c, q in zip(classes, kept, strict=True)},
        sample_id,
    )  # fmt: skip
