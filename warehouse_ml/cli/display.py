"""How the command line shows tables: fixed-width on stdout, or written to a file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from warehouse_ml.errors import ParameterError


def write_table(table: pa.Table, path: str) -> None:
    suffix = Path(path).suffix.lower()
    if suffix in (".parquet", ".pq"):
        pq.write_table(table, path)
    elif suffix == ".csv":
        pacsv.write_csv(table, path)
    else:
        raise ParameterError(f"output file {path!r}: expected a .parquet or .csv name")


def print_table(table: pa.Table, limit: int = 20) -> None:
    """A plain fixed-width rendering of the first rows of an Arrow table."""
    rows = table.slice(0, limit).to_pylist()
    columns = table.column_names
    cells = [[_cell(r[c]) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)))
    if table.num_rows > limit:
        print(f"... {table.num_rows - limit} more rows")


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    return "NULL" if value is None else str(value)
