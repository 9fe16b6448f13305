"""Entry point of the ``warehouse-ml`` console script: parse, open the database, run the
command, map errors to exit codes."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator, Sequence

import duckdb

from warehouse_ml.cli.display import ProgressDisplay
from warehouse_ml.cli.parser import parse_args
from warehouse_ml.engines import DuckDBWarehouse
from warehouse_ml.errors import WarehouseMLError

INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT, the shell's convention)."""


@contextlib.contextmanager
def _session(args: argparse.Namespace) -> Iterator[DuckDBWarehouse]:
    """The command's database, with its statements reported as operation ``args.command`` to a
    :class:`ProgressDisplay` on stderr when ``--progress`` is on (default: stderr is a TTY)."""
    show = args.progress if args.progress is not None else sys.stderr.isatty()
    display = ProgressDisplay(sys.stderr, live=sys.stderr.isatty()) if show else None
    connection = duckdb.connect(args.db)
    con = DuckDBWarehouse(connection)
    try:
        with con.operation(args.command, display):
            yield con
    finally:
        if display is not None:
            display.close()
        connection.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``warehouse-ml`` console script."""
    args = parse_args(argv)
    try:
        with _session(args) as con:
            args.run(args, con)
    except KeyboardInterrupt:
        print(
            f"warehouse-ml {args.command}: interrupted; the model catalog is as it was before "
            "this command",
            file=sys.stderr,
        )
        return INTERRUPTED
    except (WarehouseMLError, duckdb.Error, json.JSONDecodeError) as error:
        print(f"warehouse-ml {args.command}: error: {error}", file=sys.stderr)
        return 1
    return 0
