"""``warehouse-ml``: train, score and inspect classifiers in a DuckDB database from the shell.

Exit codes: 0 success; 1 a clear error about the input (message on stderr); 2 bad usage;
130 interrupted (Ctrl-C): the statement running is abandoned, a fit drops its new tables and the
catalog is left as it was.

Progress: with ``--progress`` (default: when stderr is a terminal) each command reports the
statement it is running on stderr; stdout carries only the command's output.
"""

from warehouse_ml.cli.main import main
from warehouse_ml.cli.parser import build_parser, parse_args
from warehouse_ml.cli.progress_display import ProgressDisplay

__all__ = ["ProgressDisplay", "build_parser", "main", "parse_args"]
