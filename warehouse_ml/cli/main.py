"""Entry point of the ``warehouse-ml`` console script: parse, open the database, run the
command, map errors to exit codes."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from warehouse_ml.cli.parser import parse_args
from warehouse_ml.cli.progress_display import ProgressDisplay
from warehouse_ml.errors import ParameterError, WarehouseMLError

if TYPE_CHECKING:
    from warehouse_ml.engines import DuckDBWarehouse

INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT, the shell's convention)."""
CLOSED_PIPE = 141
"""Exit status when the reader of stdout went away (128 + SIGPIPE, as ``head`` leaves it)."""

EXISTING_DATABASE = frozenset(
    {"models", "show", "export", "sql", "predict", "drop", "vacuum", "evaluations"}
)
"""Commands that need an existing database: they never create the file (nor does
``--read-only``)."""

PYTHON_LIST_ARGUMENT = re.compile(r"\b(keys|features|numeric|categorical)=\[([^\]]*)\]")
"""A Python API argument naming columns, as messages spell it: ``keys=['id']``."""


SPELLINGS = (
    ("allow_high_cardinality=True", "--allow-high-cardinality"),
    ("replace=True", "--replace"),
    ("another name=", "another --name"),
)
"""Python API arguments as messages spell them, and the CLI's options for them."""


def cli_spelling(message: str) -> str:
    """``message`` with the Python API's argument syntax replaced by the CLI's options:
    ``keys=['a', 'b']`` -> ``--keys a,b``, ``allow_high_cardinality=True`` ->
    ``--allow-high-cardinality``, ``replace=True`` -> ``--replace`` (:data:`SPELLINGS`)."""
    for python, option in SPELLINGS:
        message = message.replace(python, option)
    return PYTHON_LIST_ARGUMENT.sub(_option, message)


def _option(match: re.Match[str]) -> str:
    names = [n.strip().strip("'\"") for n in match.group(2).split(",")]
    return f"--{match.group(1)} {','.join(names)}"


def _warn(message: Warning | str, *_: object, **__: object) -> None:
    """Show a warning as one line on stderr, in the CLI's spelling."""
    print(f"warning: {cli_spelling(str(message))}", file=sys.stderr)


def _check_database(args: argparse.Namespace) -> None:
    """A read-only command on a database file that does not exist is an error (no file is
    created)."""
    creates = (
        args.command not in EXISTING_DATABASE
        and not getattr(args, "model", None)
        and not args.read_only
    )
    if args.db != ":memory:" and not creates and not Path(args.db).exists():
        raise ParameterError(
            f"no DuckDB database {args.db!r}; expected an existing file (give --db, or set $WML_DB)"
        )


@contextlib.contextmanager
def _session(args: argparse.Namespace) -> Iterator[DuckDBWarehouse]:
    """The command's database (read-only with ``--read-only``), with its statements reported
    as operation ``args.command`` to a :class:`ProgressDisplay` on stderr when ``--progress``
    is on (default: stderr is a TTY)."""
    import duckdb

    from warehouse_ml.engines import DuckDBWarehouse
    from warehouse_ml.engines.duckdb import FILE_CONFIG

    show = args.progress if args.progress is not None else sys.stderr.isatty()
    display = ProgressDisplay(sys.stderr, live=sys.stderr.isatty()) if show else None
    con = DuckDBWarehouse(duckdb.connect(args.db, read_only=args.read_only, config=FILE_CONFIG))
    try:
        with con.operation(args.command, display):
            yield con
    finally:
        if display is not None:
            display.close()
        con.connection.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``warehouse-ml`` console script."""
    args = parse_args(argv)
    import duckdb  # after parsing: --help and usage errors load none of the library

    try:
        with warnings.catch_warnings():
            warnings.showwarning = _warn
            _check_database(args)
            with _session(args) as con:
                args.run(args, con)
            sys.stdout.flush()
    except BrokenPipeError:
        # the reader of stdout went away (`| head`): stop quietly, and keep Python's own flush
        # at exit from failing on the closed pipe
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return CLOSED_PIPE
    except KeyboardInterrupt:
        print(
            f"warehouse-ml {args.command}: interrupted; the model catalog is as it was before "
            "this command",
            file=sys.stderr,
        )
        return INTERRUPTED
    except (WarehouseMLError, duckdb.Error, json.JSONDecodeError) as error:
        print(f"warehouse-ml {args.command}: error: {cli_spelling(str(error))}", file=sys.stderr)
        return 1
    return 0
