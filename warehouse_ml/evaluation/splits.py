"""Deterministic, portable, seeded splits as SQL: hold-out, repeated hold-out (random
sub-sampling), k-fold, stratified k-fold and leave-one-out.

How a row's place is decided (docs/ARCHITECTURE.md, "Deterministic splits"), identically on
every engine:

1. the row's key (an integer or string column, or a row number the project materialises when
   there is no key) is hashed as ``MD5('<seed>:<repeat>:' || CAST(key AS VARCHAR))``; the seed
   is part of the hashed text, so another seed gives another permutation (not a rotation);
2. rows are ranked by (stratum digest, row digest): a total order when keys are unique (a
   digest is 32 lowercase hex digits, whose text order is their numeric order on every engine);
   the stratum is the class column for stratified splits (each class a contiguous run). Only
   the key and stratum go through that sort; kept source columns are joined back by key. The
   engine adapter chooses the digest's form and sort keys (``Warehouse.digest``,
   ``digest_sort_keys``): on DuckDB the digest's bytes 0-7 and 8-15 as big-endian integers
   (from MD5_NUMBER), the same order as the hex text at a fraction of the cost of sorting text;
3. k-fold deals the ranked rows round-robin: ``fold = position % k``; so fold sizes differ by at
   most one and, when stratified, each class's count in each fold is floor or ceil of
   ``n_class / k`` (within one row of its proportional share). Leave-one-out is k = n.
   Hold-out marks position p as test when ``FLOOR((p+1) f + 0.5) > FLOOR(p f + 0.5)``:
   exactly ``round(n f)`` test rows, and each class within one row of ``n_class f``.

Keys must be unique, non-NULL, and of integer or string type: a DOUBLE renders differently per
engine when cast to text, so its hash would differ. Without a key, rows are numbered with
``ROW_NUMBER() OVER ()`` in the engine's scan order (stable for DuckDB tables and Arrow data,
not promised by SQL): the numbered rows are materialised in the split table, so the split is
inspectable and reusable, but give a key for splits that must agree across engines.

The result is an ordinary table (or view) users can query; :class:`Split` describes it. It is
warehouse-ml's own object (ownership.py): by default a new table in schema ``wml``; under a
name the user gives, only when that name is free or already a split of warehouse-ml's (a user's
table, or the source itself, is a NameConflictError before anything runs); ``Split.drop``
removes it. Names: the ranking carries only the library's names (a source column can never
stand in for one), and an added output column (``fold``, ``repeat``, ``is_test``) that a kept
source column already has is refused.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.errors import ColumnError, DataError, ParameterError
from warehouse_ml.evaluation.kept_as import TABLE, KeptAs, kept_as
from warehouse_ml.models.scoring import names
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, alias, column
from warehouse_ml.stats import keys
from warehouse_ml.store import ownership

ROW_KEY = "wml_row"
"""Name of the materialised row-number key when no key column is given."""
FOLD = names.FOLD
HOLDOUT_COLUMNS = ("repeat", "is_test")

_POSITIONS_ALIAS = "p"


@dataclass(frozen=True)
class Split:
    """A split written to the warehouse.

    Attributes:
        table: the table (or view) holding the assignment.
        key: the key column in it (the source's key, or ``wml_row`` when none was given).
        kind: ``"folds"`` (columns: key, [stratify], [source columns], fold) or ``"holdout"``
            (columns: key, [stratify], [source columns], repeat, is_test).
        n_rows: source rows assigned (per repeat).
        folds: k for folds (n_rows for leave-one-out), None for hold-out.
        repeats: hold-out repeats (1 for folds).
        seed: the seed hashed with each key.
        stratify: the stratification column, if any.
        fold_column: the name of the fold column (``fold``; a fresh name inside a
            cross-validation, whose source may have a column ``fold``).
        id: the split's id in the object registry (its owner name).
    """

    table: TableName
    key: str
    kind: str
    n_rows: int
    folds: int | None
    repeats: int
    seed: int
    stratify: str | None
    fold_column: str = FOLD
    id: str = ""

    def to_arrow(self, con: Connectable) -> pa.Table:
        """Every row of the assignment, ordered by (repeat,) fold or is_test, then key."""
        order = [self.fold_column] if self.kind == "folds" else list(HOLDOUT_COLUMNS)
        with session(con) as warehouse:
            return warehouse.fetch(
                "select_table",
                table=self.table,
                order_columns=[column(c, "t") for c in [*order, self.key]],
            )

    def drop(self, con: Connectable) -> None:
        """Remove the split's table or view (warehouse-ml's own, see ownership.py)."""
        with session(con) as warehouse:
            ownership.release(warehouse, ownership.owned_by(warehouse, "split", self.id))
            warehouse.after_drop()


DEALT = "the rows of folds, hold-out splits and resamples"
"""What a split's key deals, as its refusals say (stats/keys.py)."""


def check_key(source: Source, key: str | None, stratify: str | None = None) -> None:
    """A split's ``key`` (None: rows numbered in scan order) by the key rule of
    stats/keys.py (type; not the ``stratify`` class column), before any statement."""
    if key is not None:
        keys.check_key_column(source, key, DEALT, target=stratify)


def profile(warehouse: Warehouse, source: Source, key: str | None) -> int:
    """The source's row count, checking that ``key`` (if any) is non-NULL and unique
    (stats/keys.py); a source without rows is a DataError."""
    n_rows = keys.count_keyed_rows(warehouse, source, key, DEALT)
    if n_rows == 0:
        raise DataError(f"source {source.description} has no rows to split")
    return n_rows


def check_folds(folds: Any) -> int:
    """A fold count: an integer >= 2."""
    if isinstance(folds, bool) or not isinstance(folds, int) or folds < 2:
        raise ParameterError(f"folds must be an integer >= 2, got {folds!r}")
    return folds


def check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ParameterError(f"seed must be an integer, got {seed!r}")
    return seed


def _digest_order(warehouse: Warehouse, seed: int, repeat: exp.Expression) -> dict[str, object]:
    """The digest of each row (split_digest_text.sql, digested as the engine sorts it fastest:
    :meth:`~warehouse_ml.engines.base.Warehouse.digest`) and the keys its rows are sorted by,
    which order them by the digest's hex text on every engine."""
    text = templates.expression(
        "split_digest_text", seed=seed, repeat=repeat, key=column("wml_key", "k")
    )
    keys = warehouse.digest_sort_keys(column("wml_digest", "d"))
    return {
        "digest": warehouse.digest(text),
        "sort_keys": [alias(key, f"wml_sort_{i}") for i, key in enumerate(keys)],
        "sort_order": [column(f"wml_sort_{i}", "h") for i in range(len(keys))],
    }


def _carried(index: int) -> str:
    """The ranking's name of the source column at ``index`` (rows without a key ride along)."""
    return f"wml_c_{index}"


def _positions(
    warehouse: Warehouse,
    source: Source,
    key: str | None,
    stratify: str | None,
    seed: int,
    repeats: int,
) -> exp.Query:
    """Ranked rows (select_split_positions.sql), carrying only the library's names. Without a
    key every source column rides through the ranking (the row numbers exist only there), as
    ``wml_c_<i>``; with one, only the key and stratum do."""
    if key is None:
        row_key: exp.Expression = exp.Window(this=exp.RowNumber())  # ROW_NUMBER() OVER ()
        carried = [alias(column(c, "src"), _carried(i)) for i, c in enumerate(source.columns)]
    else:
        row_key = column(key, "src")
        carried = []
    stratum = column(stratify, "src") if stratify is not None else exp.cast(exp.null(), "VARCHAR")
    # one repeat: the literal 0 (no join); several: each row once per VALUES r(wml_repeat) row
    repeat = templates.literal(0) if repeats == 1 else column("wml_repeat", "r")
    order = _digest_order(warehouse, seed, repeat)
    digests = templates.build(
        "select_split_digests",
        source=source.relation,
        carried=carried,
        row_key=row_key,
        stratum=stratum,
        repeat=repeat,
        digest=order.pop("digest"),
    )
    if repeats > 1:
        digests = digests.join(
            templates.values([[r] for r in range(repeats)], "r", ["wml_repeat"]), join_type="CROSS"
        )
    return templates.build(
        "select_split_positions",
        source=source.relation,
        stratum=stratum,
        digests=digests,
        partition_keys=[column(c, "h") for c in ("wml_repeat", "wml_stratum")[repeats == 1 :]],
        **order,
    )


@dataclass(frozen=True)
class Assignment:
    """What a split adds to each row: its template (select_fold_assignment.sql or
    select_holdout_split.sql), the names of its output columns, and their bindings."""

    template: str
    columns: tuple[str, ...]
    bindings: dict[str, Any]


def split_rows(
    warehouse: Warehouse,
    source: Source,
    key: str | None,
    stratify: str | None,
    seed: int,
    repeats: int,
    keep_columns: bool,
    assignment: Assignment,
) -> exp.Query:
    """The split's rows: the assignment over the ranked rows. Source columns kept next to a key
    are joined back by key after the assignment (select_positioned_rows.sql), so the ranking
    and the assignment move narrow rows only."""
    positions = _positions(warehouse, source, key, stratify, seed, repeats)
    if key is None or not keep_columns:
        columns = _output_columns(source, key, stratify, keep_columns)
        return templates.build(
            assignment.template, positions=positions, columns=columns, **assignment.bindings
        )
    narrow = templates.build(
        assignment.template,
        positions=positions,
        columns=[alias(column("wml_key", _POSITIONS_ALIAS), "wml_key")],
        **assignment.bindings,
    )
    return templates.build(
        "select_positioned_rows",
        assigned=narrow,
        assigned_columns=[column(c, "a") for c in assignment.columns],
        source=source.relation,
        key=key,
    )


def _output_columns(
    source: Source, key: str | None, stratify: str | None, keep_columns: bool
) -> list[exp.Expression]:
    """The ranked rows' columns under their output names: the key (``wml_row``, the row
    number, when there is none), the stratum and, when kept, every source column."""
    p = _POSITIONS_ALIAS
    items: list[exp.Expression] = [alias(column("wml_key", p), key or ROW_KEY)]
    if key is None:
        return items + [alias(column(_carried(i), p), c) for i, c in enumerate(source.columns)]
    if stratify is not None and stratify != key:
        items.append(alias(column("wml_stratum", p), stratify))
    return items


def prepare(
    source: Source,
    key: str | None,
    stratify: str | None,
    kept: KeptAs,
    keep_columns: bool,
    added: Sequence[str],
) -> bool:
    """Check a split's arguments and output names; returns whether source columns are kept."""
    if stratify is not None:
        source.field(stratify)
    check_key(source, key, stratify)
    kept.check_key(key)
    if key is None:
        keep_columns = True  # the row number is only useful next to the rows it numbers
    if key is None and ROW_KEY.casefold() in {c.casefold() for c in source.columns}:
        raise ColumnError(
            f"source {source.description} already has a column {ROW_KEY!r}; pass it as key="
        )
    kept = list(source.columns) if keep_columns else [c for c in (key, stratify) if c]
    names.check_outputs(kept, added, source.description, "source")
    return keep_columns


def write(
    warehouse: Warehouse,
    source: Source,
    query: exp.Query,
    table: str | Sequence[str] | TableName | None,
    kept: KeptAs,
    split_id: str,
    created_by: str,
    owner_kind: str = "split",
) -> TableName:
    """Create the split (or, ``owner_kind="sample"``, a resample: resampling.py) as
    warehouse-ml's own table or view (``wml.<split_id>`` by default)."""
    warehouse.require_writing(f"the {owner_kind}'s {kept.kind}")
    kept.check_source(source, owner_kind)
    name = TableName.parse(table) if table is not None else warehouse.library_table(split_id)
    sources = [] if source.object is None else [source.object]
    claimed = ownership.claim(warehouse, name, kept.kind, sources=sources)
    return ownership.create(
        warehouse, claimed, query, owner_kind=owner_kind, owner=split_id, role=owner_kind,
        created_by=created_by, lifetime=ownership.KEPT,
    )  # fmt: skip


def fold_rows(
    warehouse: Warehouse,
    source: Source,
    folds: int | None,
    *,
    seed: int,
    key: str | None,
    stratify: str | None,
    keep_columns: bool,
    kept: KeptAs = TABLE,
    fold_column: str = FOLD,
) -> tuple[exp.Query, int]:
    """The query of a k-fold assignment (``folds`` None: leave-one-out) and the row count.
    ``fold_column`` names the fold (a fresh name when the caller needs one no source column
    has: cross-validation)."""
    keep_columns = prepare(source, key, stratify, kept, keep_columns, [fold_column])
    n_rows = profile(warehouse, source, key)
    if folds is None:
        folds = n_rows
    elif folds > n_rows:
        raise ParameterError(
            f"folds={folds} exceeds the {n_rows} rows of {source.description}; expected at "
            "most one fold per row"
        )
    assignment = Assignment(
        "select_fold_assignment", (fold_column,), {"folds": folds, "fold": fold_column}
    )
    query = split_rows(warehouse, source, key, stratify, seed, 1, keep_columns, assignment)
    return query, n_rows


def assign_folds(
    con: Connectable,
    source: SourceLike,
    *,
    folds: int = 10,
    seed: int = 0,
    key: str | None = None,
    stratify: str | None = None,
    table: str | Sequence[str] | TableName | None = None,
    view: bool = False,
    keep_columns: bool = False,
) -> Split:
    """Assign every row of ``source`` to one of ``folds`` folds, deterministically.

    Args:
        con: a DuckDB connection, a database path, or a Warehouse.
        source: table/view name, Arrow table or reader, or a Parquet/CSV path.
        folds: k >= 2, at most the number of rows.
        seed: any integer; the same seed and keys give the same folds on every run and engine.
        key: a unique, non-NULL integer or string column. None: rows are numbered in scan order
            and the numbered rows are materialised (``keep_columns`` is then implied).
        stratify: a class column for stratified k-fold (each class's count in each fold is
            floor or ceil of ``n_class / k``).
        table: output name: new, or a split warehouse-ml made earlier (replaced); default a
            new table ``wml.split<id>``. A user's table of that name, or the source, is a
            NameConflictError.
        view: create a view instead of a table (needs a durable source and a key).
        keep_columns: also copy every source column into the output (a source column named
            ``fold`` is then refused).

    Returns:
        A :class:`Split`. Output columns: the key (``wml_row`` BIGINT when no key), the
        stratify column when given, the source columns when kept, and ``fold`` (INTEGER in
        ``[0, folds)``).
    """
    if isinstance(folds, bool) or not isinstance(folds, int) or folds < 2:
        raise ParameterError(f"folds must be an integer >= 2, got {folds!r}")
    return _folds(
        con, source, folds, seed, key, stratify, table, kept_as(view), keep_columns,
        "assign_folds",
    )  # fmt: skip


def leave_one_out(
    con: Connectable,
    source: SourceLike,
    *,
    key: str | None = None,
    table: str | Sequence[str] | TableName | None = None,
    view: bool = False,
    keep_columns: bool = False,
) -> Split:
    """Leave-one-out: n folds of one row each (fold ids 0..n-1 in hash order).

    Arguments and output columns as :func:`assign_folds`; ``Split.folds`` is the row count.
    """
    return _folds(
        con, source, None, 0, key, None, table, kept_as(view), keep_columns, "leave_one_out"
    )


def new_id(prefix: str = "split") -> str:
    """A fresh split id (also its default table name in ``wml``): ``prefix`` and 12 hex digits."""
    return f"{prefix}{uuid.uuid4().hex[:12]}"


def _folds(
    con: Connectable,
    source: SourceLike,
    folds: int | None,
    seed: int,
    key: str | None,
    stratify: str | None,
    table: str | Sequence[str] | TableName | None,
    kept: KeptAs,
    keep_columns: bool,
    created_by: str,
) -> Split:
    seed = check_seed(seed)
    split_id = new_id()
    with session(con) as warehouse, open_source(warehouse, source) as src:
        query, n_rows = fold_rows(
            warehouse, src, folds, seed=seed, key=key, stratify=stratify,
            keep_columns=keep_columns, kept=kept,
        )  # fmt: skip
        name = write(warehouse, src, query, table, kept, split_id, created_by)
    k = n_rows if folds is None else folds
    return Split(name, key or ROW_KEY, "folds", n_rows, k, 1, seed, stratify, FOLD, split_id)


def holdout_split(
    con: Connectable,
    source: SourceLike,
    *,
    test_fraction: float,
    seed: int = 0,
    key: str | None = None,
    target: str | None = None,
    repeats: int = 1,
    table: str | Sequence[str] | TableName | None = None,
    view: bool = False,
    keep_columns: bool = False,
) -> Split:
    """Split rows into train and test, once or ``repeats`` times (random sub-sampling).

    Args:
        test_fraction: f in (0, 1); each repeat has ``round(n f)`` test rows (half up).
        seed: any integer; each repeat hashes ``'<seed>:<repeat>:<key>'``.
        key: a unique, non-NULL integer or string column (see :func:`assign_folds`).
        target: stratify on this class column: each class has within one row of
            ``n_class f`` test rows.
        repeats: number of independent hold-out splits (>= 1).
        table, view, keep_columns: as :func:`assign_folds` (kept source columns named
            ``repeat`` or ``is_test`` are refused).

    Returns:
        A :class:`Split`. Output columns: the key (``wml_row`` when none), the target when
        given, the source columns when kept, ``repeat`` (INTEGER, 0-based) and ``is_test``
        (BOOLEAN); one row per source row and repeat.
    """
    seed = check_seed(seed)
    fraction = float(test_fraction)
    if not 0.0 < fraction < 1.0:
        raise ParameterError(f"test_fraction must be within (0, 1), got {test_fraction!r}")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ParameterError(f"repeats must be an integer >= 1, got {repeats!r}")
    split_id = new_id()
    kept = kept_as(view)
    with session(con) as warehouse, open_source(warehouse, source) as src:
        keep_columns = prepare(src, key, target, kept, keep_columns, HOLDOUT_COLUMNS)
        n_rows = profile(warehouse, src, key)
        assignment = Assignment(
            "select_holdout_split", HOLDOUT_COLUMNS, {"test_fraction": fraction}
        )
        query = split_rows(warehouse, src, key, target, seed, repeats, keep_columns, assignment)
        name = write(warehouse, src, query, table, kept, split_id, "holdout_split")
    return Split(
        name, key or ROW_KEY, "holdout", n_rows, None, repeats, seed, target, FOLD, split_id
    )
