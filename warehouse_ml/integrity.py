"""Integrity of stored models: a fit records each parameter table's row count and checksum, and
the library verifies them before it first scores with that model version in a process.

The checksum (sql/select_table_checksum.sql) is an order-free sum over rows of numbers read
from the MD5 digest of each row's text, so it does not depend on the order the engine returns
rows in; it is the engine's own (a model moved to another engine by copying its tables is
verified against checksums taken there). A table whose rows were deleted, added or edited by
hand raises :class:`~warehouse_ml.errors.CorruptModelError` naming it, instead of silently
scoring with other probabilities. Views read by SQL clients are plain SQL and are NOT verified.
Models stored by catalog format 1 have no checksums: they load and score "unverified".
"""

from __future__ import annotations

from collections.abc import Mapping

from warehouse_ml import templates
from warehouse_ml.errors import CorruptModelError
from warehouse_ml.templates import TableName, column
from warehouse_ml.warehouse import Warehouse

_VERIFIED: set[str] = set()
"""Model ids whose tables this process has verified (once per process and model version)."""


def _row_text(names: list[str]) -> templates.exp.Expression:
    cells = [templates.expression("checksum_cell", value=column(n, "t")) for n in names]
    text = cells[0]
    for cell in cells[1:]:
        text = templates.exp.DPipe(
            this=templates.exp.DPipe(this=text, expression=templates.literal("|")),
            expression=cell,
        )
    return text


def checksums(warehouse: Warehouse, tables: Mapping[str, TableName]) -> dict[str, list[int]]:
    """``{part: [n_rows, checksum_high, checksum_low]}`` of each table, in one query."""
    digest = column("digest", "d")
    queries = [
        templates.build(
            "select_table_checksum",
            table=table,
            part=part,
            row_text=_row_text(warehouse.schema_of(table).names),
            high=templates.expression("hex_digits_number", digest=digest, first=1),
            low=templates.expression("hex_digits_number", digest=digest, first=9),
        )
        for part, table in tables.items()
    ]
    with warehouse.exact_float_text():
        rows = warehouse.fetch_tree(templates.union_all(queries)).to_pylist()
    return {
        r["part"]: [int(r["n_rows"]), int(r["checksum_high"]), int(r["checksum_low"])] for r in rows
    }


def verify(
    warehouse: Warehouse,
    model: str,
    model_id: str,
    recorded: Mapping[str, list[int]] | None,
    tables: Mapping[str, TableName],
) -> bool:
    """Check a model version's tables against the checksums its fit recorded (once per
    process and model version). Returns False for a model without checksums (unverified).

    Raises:
        CorruptModelError: a table's row count or checksum differs, or the fit's record of
            its tables and the tables differ.
    """
    if recorded is None:
        return False
    if model_id in _VERIFIED:
        return True
    if set(recorded) != set(tables):
        raise CorruptModelError(
            f"model {model!r}: its catalog row lists the tables {sorted(tables)} but checksums "
            f"of {sorted(recorded)}; expected the same parts (re-fit the model)"
        )
    found = checksums(warehouse, tables)
    for part, (n_rows, *digest) in sorted(recorded.items()):
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
