"""Integrity of stored models: a fit records each parameter table's row count and checksum, and
the library verifies them before it first scores with that model version in a process.

The checksum (warehouse_ml/sql/store/catalog/select_table_checksum.sql) is an order-free sum over
rows of numbers read from the MD5 digest of each row's text, so it does not depend on the order the
engine returns rows in. It is the engine's own: the checksums record the engine and its version, and
are only compared under that version (another may render a row as other text); a model moved to
another engine, or read after an engine upgrade, scores unverified until it is fitted again.
A table whose rows were deleted, added or edited by hand raises
:class:`~warehouse_ml.errors.CorruptModelError` naming it, instead of silently scoring with
other probabilities. Views read by SQL clients are plain SQL and are NOT verified (most of a
fitted model's parameters are literals inside its views, models/keyed_terms/literal_terms.py).
Models stored by catalog format 1 have no checksums: they load and score "unverified".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.errors import CorruptModelError
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName

_VERIFIED: set[str] = set()
"""Model ids whose tables this process has verified (once per process and model version)."""


def checksums(warehouse: Warehouse, tables: Mapping[str, TableName]) -> dict[str, Any]:
    """The checksums of a model's tables: ``{"engine": <engine and version>, "parts": {part:
    [n_rows, checksum_high, checksum_low]}}``, taken in one query."""
    queries = []
    for part, table in tables.items():
        digest = warehouse.checksum_digest(warehouse.row_text(table))
        high, low = warehouse.digest_numbers(templates.column("wml_digest", "d"))
        queries.append(
            templates.build(
                "select_table_checksum", table=table, part=part, digest=digest, high=high, low=low
            )
        )
    with warehouse.exact_float_text():
        rows = warehouse.fetch_tree(templates.union_all(queries)).to_pylist()
    parts = {
        r["part"]: [int(r["n_rows"]), int(r["checksum_high"]), int(r["checksum_low"])] for r in rows
    }
    return {"engine": warehouse.engine_version(), "parts": parts}


def verify(
    warehouse: Warehouse,
    model: str,
    model_id: str,
    recorded: Mapping[str, Any] | None,
    tables: Mapping[str, TableName],
) -> bool:
    """Check a model version's tables against the checksums its fit recorded (once per
    process and model version). Returns False when it cannot: a model without checksums
    (catalog format 1), or checksums taken by another engine or engine version (which may
    render values as other text): the model then scores unverified.

    Raises:
        CorruptModelError: a table's row count or checksum differs, or the fit's record of
            its tables and the tables differ.
    """
    if recorded is None or recorded.get("engine") != warehouse.engine_version():
        return False
    if model_id in _VERIFIED:
        return True
    expected = recorded["parts"]
    if set(expected) != set(tables):
        raise CorruptModelError(
            f"model {model!r}: its catalog row lists the tables {sorted(tables)} but checksums "
            f"of {sorted(expected)}; expected the same parts (re-fit the model)"
        )
    found = checksums(warehouse, tables)["parts"]
    for part, (n_rows, *digest) in sorted(expected.items()):
        now_rows, *now_digest = found[part]
        if now_rows != n_rows or now_digest != digest:
            what = (
                f"has {now_rows} rows, its fit wrote {n_rows}"
                if now_rows != n_rows
                else f"has the {n_rows} rows its fit wrote, but their values differ"
            )
            raise CorruptModelError(
                f"parameter table {tables[part]} of model {model!r} {what}; expected the "
                "table as the fit wrote it: was it edited? Re-fit the model (its views are "
                "plain SQL and read the edited table as it is)"
            )
    _VERIFIED.add(model_id)
    return True


def mark_verified(model_id: str) -> None:
    """Record that a model version's tables are as its fit wrote them (the fit just wrote and
    checksummed them)."""
    _VERIFIED.add(model_id)
