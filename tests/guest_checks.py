"""What the guest-contract tests read of a DuckDB database: user tables' checksums, every
object, the connection's temporary tables; and the data they start from."""

from __future__ import annotations

import duckdb

ROWS = [
    (i, "abc"[i % 3], "xy"[(i // 3) % 2], float(i % 7) + 0.25 * (i % 3), "yn"[(i * 7 // 3) % 2])
    for i in range(40)
]


def user_checksums(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, str], tuple]:
    """(schema, table) -> (row count, sum of row hashes) for every base table outside ``wml``."""
    tables = con.sql(
        "SELECT table_schema, table_name FROM information_schema.tables "
        "WHERE table_type = 'BASE TABLE' AND table_schema <> 'wml'"
    ).fetchall()
    result = {}
    for schema, table in tables:
        quoted = '"' + schema.replace('"', '""') + '"."' + table.replace('"', '""') + '"'
        result[(schema, table)] = con.sql(
            f"SELECT count(*), sum(hash(t::VARCHAR)) FROM {quoted} AS t"
        ).fetchall()[0]
    return result


def objects(con: duckdb.DuckDBPyConnection) -> set[tuple]:
    """Every table and view of the database (schema, name, type) with its view definition;
    the connection's own temporary tables (an evaluation's, gone with the connection) are
    not the database's and are left out (see :func:`temporary_tables`)."""
    rows = con.sql(
        "SELECT t.table_schema, t.table_name, t.table_type, v.view_definition "
        "FROM information_schema.tables AS t LEFT JOIN information_schema.views AS v "
        "ON v.table_schema = t.table_schema AND v.table_name = t.table_name "
        "WHERE t.table_catalog <> 'temp'"
    ).fetchall()
    return set(rows)


def temporary_tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The connection's temporary tables."""
    return {
        name
        for (name,) in con.sql("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()
    }


def make_data(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("CREATE SCHEMA sales")
    con.execute(
        "CREATE TABLE sales.customers (id INTEGER, a VARCHAR, b VARCHAR, x DOUBLE, cls VARCHAR)"
    )
    con.executemany("INSERT INTO sales.customers VALUES (?, ?, ?, ?, ?)", ROWS)
    con.execute("CREATE TABLE other (k INTEGER, note VARCHAR)")
    con.execute("INSERT INTO other VALUES (1, 'keep me'), (2, NULL)")


def big_table(con: duckdb.DuckDBPyConnection, rows: int) -> str:
    """A table ``big`` (id, four categorical columns, a numeric one, cls) of ``rows`` rows, made
    by integer arithmetic (no randomness), and ``few``, its first 100 rows."""
    con.execute(
        "CREATE TABLE big AS SELECT i AS id, 'v' || (i * 7919 % 13) AS a, "
        "'w' || (i * 104729 % 7) AS b, 'u' || ((i // 3) * 31 % 11) AS c, 'z' || (i * 17 % 5) AS d, "
        "(i * 0.618034) % 1 AS x, "
        "CASE WHEN (i * 7919 % 13) + (i * 17 % 5) > 8 THEN 'yes' ELSE 'no' END AS cls "
        f"FROM range({int(rows)}) AS r(i)"
    )
    con.execute("CREATE TABLE few AS SELECT * FROM big WHERE id < 100")
    return "big"
