"""Portability rewrites: what each engine needs on top of sqlglot's own transpiling.

Templates are written once, in the portable subset of docs/ARCHITECTURE.md ("Portable SQL"),
and parsed as DuckDB SQL. sqlglot translates most of the rest (types such as ``DOUBLE`` ->
``DOUBLE PRECISION``, ``STRPOS`` -> ``POSITION``/``LOCATE``, quoting). This module holds the
few rewrites sqlglot does not do, as AST transforms applied in one place:

* :func:`rewrite` (called by :func:`warehouse_ml.sqlgen.templates.generate` for every statement):

  - **spark**: ``ROW_NUMBER() OVER ()`` -> ``ROW_NUMBER() OVER (ORDER BY
    MONOTONICALLY_INCREASING_ID())``: Spark refuses an unordered ROW_NUMBER; the id increases in
    partition order, i.e. the scan order the DuckDB form numbers by.
  - **spark**: ``CAST(x AS VARCHAR)`` / ``TEXT`` -> ``STRING`` and column types in
    ``CREATE TABLE (...)`` likewise (Spark 4 treats a bare ``VARCHAR`` as a length-checked
    type).
  - **spark**: ``x AT TIME ZONE 'UTC'`` (a timestamp's UTC wall-clock time,
    warehouse_ml/sql/stats/utc_timestamp.sql) -> ``TIMESTAMPADD(MICROSECOND, UNIX_MICROS(x),
    TIMESTAMP_NTZ '1970-01-01 00:00:00')``: sqlglot writes ``FROM_UTC_TIMESTAMP(x, 'UTC')``, which
    returns the same instant, still shown in ``spark.sql.session.timeZone``; the epoch microseconds
    added to the epoch as a timestamp without time zone are the UTC wall-clock time.

  - **postgres**: ``x COLLATE C`` (a text value compared by its bytes,
    expressions.byte_compared) -> ``CAST(x AS TEXT) COLLATE "C"``: PostgreSQL's byte-order
    collation is the quoted name, and the cast makes a ``citext`` value plain text (citext
    compares case-insensitively whatever its collation).
  - **spark**: ``x COLLATE C`` -> ``x COLLATE UTF8_BINARY``, Spark's byte-order collation.
  - **every engine but DuckDB, PostgreSQL and Spark** (transpile-only): ``x COLLATE C`` -> ``x``:
    the exported SQL compares text under the target's own collation, whose binary name differs
    per engine and is not checked here.
  - **bigquery** (transpile-only): ``PI()`` does not exist; ``ACOS(-1)`` is the same double.
  - **every engine but DuckDB and Spark**: a DOUBLE literal, written with an exponent
    (``0.25e0``, templates.literal), is ``CAST(0.25e0 AS DOUBLE)``: PostgreSQL and others read
    any number as NUMERIC. DuckDB and Spark read it as the DOUBLE itself, and plan a query of
    many literals faster without a cast per literal.
  - **every engine but PostgreSQL and DuckDB**: a step fenced ``AS MATERIALIZED`` (a query
    built for PostgreSQL, whose adapter fences steps it would inline, models/scoring/steps.py,
    exported for another dialect) is a plain CTE: the others have no such syntax.


Rules sqlglot already enforces for us are not repeated here: logs are ``LN`` in the templates,
``GREATEST``/``LEAST`` carry ``ignore_nulls=True`` (NULL-skipping on every engine), boolean
literals, ``PI()``, ``DOUBLE`` types. :func:`non_portable` is the test-time check that the
templates stay within the subset.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from warehouse_ml.errors import ParameterError
from warehouse_ml.sqlgen.expressions import BINARY_COLLATION

# Where the library's SQL has been run and checked against DuckDB (tests/engines/test_engines.py):
VERIFIED_DIALECTS = ("duckdb", "postgres", "spark")

GENERATED_WITHOUT_CHANGES = ("duckdb",)
"""Dialects whose sqlglot generator does not modify the tree it generates (so
:func:`warehouse_ml.sqlgen.templates.generate` need not copy a tree first)."""
# Where a fitted model's scoring SQL is exported with sqlglot and checked to parse back
# (tests/sqlgen/test_dialects.py) but has not been run on the engine itself:
TRANSPILE_ONLY_DIALECTS = (
    "snowflake", "bigquery", "trino", "databricks", "redshift", "clickhouse", "tsql", "oracle",
    "mysql",
)  # fmt: skip

KNOWN_DIALECTS = (*VERIFIED_DIALECTS, *TRANSPILE_ONLY_DIALECTS)


def check_dialect(dialect: object) -> str:
    """A dialect SQL text may be asked in: a dialect sqlglot knows (those of
    :data:`KNOWN_DIALECTS` are checked by the tests); a ParameterError listing them
    otherwise."""
    if not isinstance(dialect, str) or Dialect.get(dialect) is None:
        raise ParameterError(
            f"dialect must be a SQL dialect sqlglot knows, such as {list(KNOWN_DIALECTS)} (run "
            f"and checked: {list(VERIFIED_DIALECTS)}), got {dialect!r}"
        )
    return dialect


# Functions that are missing somewhere or mean different things on different engines
# (docs/ARCHITECTURE.md, "Portable SQL"): LOG is log10 in DuckDB/PostgreSQL but ln in Spark;
# hash() differs per engine; ARG_MAX/ARG_MIN need a rewrite on PostgreSQL; list aggregates and
# UNPIVOT are DuckDB syntax; integer division "//" is DIV on some engines and absent on others.
DENIED_EXPRESSIONS: dict[type[exp.Expression], str] = {
    exp.Log: "LOG/LOG2/LOG10 (write LN(x) / LN(b))",
    exp.ArgMax: "ARG_MAX/MAX_BY (use a window function or comparisons)",
    exp.ArgMin: "ARG_MIN/MIN_BY (use a window function or comparisons)",
    exp.ArrayAgg: "LIST/ARRAY_AGG (array aggregates are not portable)",
    exp.GroupConcat: "STRING_AGG/GROUP_CONCAT (not portable)",
    exp.IntDiv: "integer division // (cast one side to DOUBLE, then FLOOR)",
    exp.Unnest: "UNNEST (not portable)",
    exp.Median: "MEDIAN (not in PostgreSQL)",
}
DENIED_FUNCTIONS = frozenset(
    {
        "HASH", "LOG", "LOG2", "LOG10", "ARG_MAX", "ARG_MIN", "ARGMAX", "ARGMIN", "MAX_BY",
        "MIN_BY", "LIST", "ARRAY_AGG", "UNPIVOT", "PIVOT", "STRING_AGG", "HISTOGRAM", "MODE",
        "ANY_VALUE", "FIRST", "LAST", "BOOL_AND", "BOOL_OR", "EPOCH", "REGEXP_MATCHES",
    }
)  # fmt: skip


def non_portable(tree: exp.Expression) -> list[str]:
    """Reasons why ``tree`` is outside the portable SQL subset (empty when it is portable).

    Checks: denied functions (above), ``UNPIVOT``/``PIVOT``, ``CREATE OR REPLACE``, ``GROUPING``
    of more than one column, a subquery in ``FROM``/``JOIN`` without an alias, and a selected
    expression that is neither a column, a star nor aliased.

    >>> import sqlglot
    >>> non_portable(sqlglot.parse_one("SELECT LN(x) AS y FROM t"))
    []
    >>> non_portable(sqlglot.parse_one("SELECT LOG(x) AS y FROM t", read="duckdb"))
    ['LOG/LOG2/LOG10 (write LN(x) / LN(b))']
    """
    problems: list[str] = []
    for node in tree.walk():
        for kind, reason in DENIED_EXPRESSIONS.items():
            if isinstance(node, kind):
                problems.append(reason)
        if isinstance(node, exp.Anonymous) and str(node.name).upper() in DENIED_FUNCTIONS:
            problems.append(f"{str(node.name).upper()}() (not portable)")
        if isinstance(node, exp.Pivot):
            problems.append("PIVOT/UNPIVOT (use UNION ALL of one SELECT per column)")
        if isinstance(node, exp.Create) and node.args.get("replace"):
            problems.append("CREATE OR REPLACE (use DROP ... IF EXISTS + CREATE ... AS)")
        if isinstance(node, exp.Grouping) and len(node.expressions) > 1:
            problems.append("GROUPING of several columns (use one column per GROUPING)")
        if (
            isinstance(node, exp.Subquery)
            and node.arg_key in ("this", "joins", "expressions")
            and isinstance(node.parent, (exp.From, exp.Join))
            and not node.alias
        ):
            problems.append("a subquery in FROM/JOIN without an alias")
        if isinstance(node, exp.Select):
            for selected in node.expressions:
                if not isinstance(selected, (exp.Alias, exp.Column, exp.Star, exp.Placeholder)):
                    problems.append(f"an unaliased selected expression: {selected.sql()}")
    return problems


# -- rewrites ---------------------------------------------------------------------------------
def _spark_row_number(node: exp.Expression) -> exp.Expression:
    if (
        isinstance(node, exp.Window)
        and isinstance(node.this, exp.RowNumber)
        and not node.args.get("order")
        and not node.args.get("partition_by")
    ):
        node = node.copy()
        node.set(
            "order",
            exp.Order(
                expressions=[exp.Ordered(this=exp.Anonymous(this="MONOTONICALLY_INCREASING_ID"))]
            ),
        )
    return node


_TEXT_TYPES = (exp.DataType.Type.VARCHAR, exp.DataType.Type.TEXT, exp.DataType.Type.NVARCHAR)


def _spark_text_type(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.DataType) and node.this in _TEXT_TYPES and not node.expressions:
        return exp.DataType.build("STRING", dialect="spark")
    return node


def _spark_utc_timestamp(node: exp.Expression) -> exp.Expression:
    if (
        isinstance(node, exp.AtTimeZone)
        and isinstance(node.args.get("zone"), exp.Literal)
        and node.args["zone"].this == "UTC"
    ):
        epoch = exp.cast(exp.Literal.string("1970-01-01 00:00:00"), exp.DataType.Type.TIMESTAMPNTZ)
        return exp.TimestampAdd(
            this=epoch, expression=exp.UnixMicros(this=node.this), unit=exp.var("MICROSECOND")
        )
    return node


def _byte_compared(node: exp.Expression) -> bool:
    """Whether ``node`` is a text value compared by its bytes (expressions.byte_compared)."""
    return (
        isinstance(node, exp.Collate)
        and isinstance(node.expression, exp.Var)
        and node.expression.name == BINARY_COLLATION
    )


def _postgres_binary_collation(node: exp.Expression) -> exp.Expression:
    if _byte_compared(node):
        text = exp.cast(node.this, exp.DataType.Type.TEXT)
        return exp.Collate(this=text, expression=exp.to_identifier(BINARY_COLLATION, quoted=True))
    return node


def _spark_binary_collation(node: exp.Expression) -> exp.Expression:
    if _byte_compared(node):
        return exp.Collate(this=node.this, expression=exp.var("UTF8_BINARY"))
    return node


def _uncollated(node: exp.Expression) -> exp.Expression:
    return node.this if _byte_compared(node) else node


def _acos_pi(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Pi):
        return exp.Anonymous(this="ACOS", expressions=[exp.Literal.number(-1)])
    return node


def _double_literal(node: exp.Expression) -> exp.Expression:
    if (
        isinstance(node, exp.Literal)
        and node.is_number
        and "e" in node.this.lower()
        and not (isinstance(node.parent, exp.Cast) and node.parent.to.is_type(_DOUBLE))
    ):
        return exp.cast(node.copy(), _DOUBLE)
    return node


_DOUBLE = exp.DataType.Type.DOUBLE

EXPONENT_DOUBLE_DIALECTS = ("duckdb", "spark")
"""Dialects that read a number with an exponent (``0.25e0``, templates.literal) as a DOUBLE;
every other one gets ``CAST(0.25e0 AS DOUBLE)`` (PostgreSQL reads such a number as NUMERIC)."""

MATERIALIZING_DIALECTS = ("postgres", "duckdb")
"""Dialects that read ``WITH name AS MATERIALIZED (...)``; every other one gets the plain CTE."""


def _unfenced(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.CTE) and node.args.get("materialized"):
        node.set("materialized", None)
    return node


_OWN_REWRITES = {
    "postgres": (_postgres_binary_collation,),
    "spark": (_spark_row_number, _spark_text_type, _spark_utc_timestamp, _spark_binary_collation),
    "bigquery": (_acos_pi,),
}

COLLATING_DIALECTS = VERIFIED_DIALECTS
"""Dialects whose byte-order collation the rewrites name (checked on the engines); every other
one gets the text value itself."""

_REWRITES = {
    dialect: (
        *_OWN_REWRITES.get(dialect, ()),
        *(() if dialect in EXPONENT_DOUBLE_DIALECTS else (_double_literal,)),
        *(() if dialect in MATERIALIZING_DIALECTS else (_unfenced,)),
        *(() if dialect in COLLATING_DIALECTS else (_uncollated,)),
    )
    for dialect in (*VERIFIED_DIALECTS, *TRANSPILE_ONLY_DIALECTS)
}


def _unique_cte_names(tree: exp.Expression) -> exp.Expression:
    """Give every CTE of ``tree`` a name no other CTE has. Spark SQL (as sqlglot writes it)
    lifts nested WITH clauses to the top of the statement, where two CTEs of one name, e.g.
    the same template used twice in one measure, are an error (or, were they allowed, one
    would shadow the other). The innermost are renamed first (``<name>_<n>``), each with the
    table references of the query that holds it; the outermost keeps its name."""
    ctes = list(tree.find_all(exp.CTE))
    names = [c.alias for c in ctes]
    taken = set(names)
    counter = 0
    for cte in reversed(ctes):  # find_all is breadth-first: deepest last, renamed first
        name = cte.alias
        if names.count(name) < 2:
            continue
        names.remove(name)
        counter += 1
        while f"{name}_{counter}" in taken:
            counter += 1
        new = f"{name}_{counter}"
        taken.add(new)
        scope = cte.parent.parent if cte.parent is not None else tree
        for table in list(scope.find_all(exp.Table)):
            if not table.args.get("db") and table.name == name:
                table.set("this", exp.to_identifier(new))
        cte.set("alias", exp.TableAlias(this=exp.to_identifier(new)))
    return tree


_TREE_REWRITES = {"spark": (_unique_cte_names,)}
"""Rewrites of a whole statement (not node by node), per dialect."""


def rewrite(tree: exp.Expression, dialect: str) -> exp.Expression:
    """``tree`` with the rewrites ``dialect`` needs (a new tree; ``tree`` itself is unchanged).

    Idempotent: rewriting an already rewritten tree changes nothing.
    """
    transforms = _REWRITES.get(dialect, ())
    whole = _TREE_REWRITES.get(dialect, ())
    if not transforms and not whole:
        return tree
    result = tree.copy()
    for transform in transforms:
        result = result.transform(transform, copy=False)
    for rewrite_tree in whole:
        result = rewrite_tree(result)
    return result
