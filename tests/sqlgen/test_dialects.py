"""The dialect layer: the portable-subset check over every template, the engine rewrites, and
golden exports of a fitted model's scoring SQL for the transpile-only dialects.

Golden files live in ``tests/sqlgen/golden/``; after a deliberate change of the scoring SQL, rewrite
them with ``WML_UPDATE_GOLDEN=1 python -m pytest tests/sqlgen/test_dialects.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pytest
import sqlglot
from sqlglot import exp

import warehouse_ml as wml
from warehouse_ml.engines import DuckDBWarehouse
from warehouse_ml.sqlgen import dialects, expressions, templates
from warehouse_ml.sqlgen.templates import TableName

GOLDEN = Path(__file__).resolve().parent / "golden"


# -- the portable subset ------------------------------------------------------------------------
@pytest.mark.parametrize("name", templates.template_names())
def test_every_template_is_portable(name):
    assert dialects.non_portable(templates._parsed(name)) == [], f"sql/{name}.sql"


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("SELECT LOG(x) AS y FROM t", "LOG"),
        ("SELECT LOG2(x) AS y FROM t", "LOG"),
        ("SELECT LOG10(x) AS y FROM t", "LOG"),
        ("SELECT hash(x) AS y FROM t", "HASH"),
        ("SELECT arg_max(a, b) AS y FROM t", "ARG_MAX"),
        ("SELECT arg_min(a, b) AS y FROM t", "ARG_MIN"),
        ("SELECT list(a) AS y FROM t", "ARRAY_AGG"),
        ("SELECT array_agg(a) AS y FROM t", "ARRAY_AGG"),
        ("SELECT string_agg(a, ',') AS y FROM t", "STRING_AGG"),
        ("SELECT a // 2 AS y FROM t", "integer division"),
        ("SELECT median(a) AS y FROM t", "MEDIAN"),
        ("UNPIVOT t ON a, b INTO NAME k VALUE v", "UNPIVOT"),
        ("CREATE OR REPLACE TABLE t AS SELECT 1 AS a", "CREATE OR REPLACE"),
        ("SELECT GROUPING(a, b) AS g FROM t GROUP BY ROLLUP (a, b)", "GROUPING"),
        ("SELECT s.a FROM (SELECT 1 AS a)", "without an alias"),
        ("SELECT a + 1 FROM t", "unaliased"),
    ],
)
def test_non_portable_constructs_are_rejected(sql, reason):
    problems = dialects.non_portable(sqlglot.parse_one(sql, read="duckdb"))
    assert any(reason in p for p in problems), problems


def test_portable_query_passes():
    sql = "SELECT LN(x) / LN(2) AS bits, GREATEST(a, b) AS g, t.c FROM t AS t"
    assert dialects.non_portable(sqlglot.parse_one(sql, read="duckdb")) == []


# -- rewrites -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("dialect", "expected"),
    [
        ("duckdb", 'SELECT ROW_NUMBER() OVER () AS "wml_row", src.* FROM "t" AS src'),
        ("postgres", 'SELECT ROW_NUMBER() OVER () AS "wml_row", src.* FROM "t" AS src'),
        (
            "spark",
            "SELECT ROW_NUMBER() OVER (ORDER BY MONOTONICALLY_INCREASING_ID() NULLS LAST) "
            "AS `wml_row`, src.* FROM `t` AS src",
        ),
    ],
)
def test_row_number_in_scan_order(dialect, expected):
    rendered = templates.render("select_numbered", dialect, source=TableName(("t",)), row="wml_row")
    assert rendered == expected


@pytest.mark.parametrize(
    ("dialect", "expected"),
    [
        ("duckdb", 'CAST("x" AS TEXT)'),
        ("postgres", 'CAST("x" AS TEXT)'),
        ("spark", "CAST(`x` AS STRING)"),
    ],
)
def test_text_cast(dialect, expected):
    tree = expressions.as_text(templates.column("x"))
    assert templates.generate(tree, dialect) == expected


def test_spark_catalog_table_uses_string_columns():
    sql = templates.render("create_object_registry", "spark", table=TableName(("wml", "objects")))
    assert "VARCHAR" not in sql and "object_key STRING NOT NULL" in sql


def test_delete_is_one_statement_except_on_spark():
    condition = exp.EQ(this=templates.column("name"), expression=templates.literal("m"))
    tree = templates.build(
        "delete_rows_where", table=TableName(("wml", "models")), condition=condition
    )
    assert DuckDBWarehouse(duckdb.connect()).statements(tree) == [tree]
    pytest.importorskip("pyspark", reason='needs pip install -e ".[spark]"')
    from warehouse_ml.engines.spark import SparkWarehouse

    spark_adapter = object.__new__(SparkWarehouse)  # statements() needs no session
    spark = [templates.generate(s, "spark") for s in spark_adapter.statements(tree)]
    stage = spark[0].removeprefix("DROP TABLE IF EXISTS ")
    assert stage.startswith("`wml`.`wml_stage_")
    assert spark == [
        f"DROP TABLE IF EXISTS {stage}",
        f"CREATE TABLE {stage} AS SELECT * FROM `wml`.`models` WHERE NOT (COALESCE(`name` = 'm', FALSE))",
        f"INSERT OVERWRITE TABLE `wml`.`models` SELECT * FROM {stage}",
        f"DROP TABLE IF EXISTS {stage}",
    ]


def test_rewrite_is_idempotent_and_leaves_the_input_alone():
    tree = templates.build("select_numbered", source=TableName(("t",)), row="wml_row")
    before = tree.sql("duckdb")
    once = dialects.rewrite(tree, "spark")
    assert tree.sql("duckdb") == before
    assert dialects.rewrite(once, "spark").sql("spark") == once.sql("spark")


def test_bigquery_has_no_pi_function():
    tree = templates.build("term_gaussian", value=1.0, mean=0.0, variance=2.0)
    sql = templates.generate(tree, "bigquery")
    assert "PI()" not in sql and "ACOS(-1)" in sql


def test_dialect_lists_are_disjoint():
    assert set(dialects.VERIFIED_DIALECTS) == {"duckdb", "postgres", "spark"}
    assert not set(dialects.VERIFIED_DIALECTS) & set(dialects.TRANSPILE_ONLY_DIALECTS)


# -- exported model SQL for transpile-only dialects -----------------------------------------------
@pytest.fixture(scope="module")
def fitted():
    """A NB and a TAN model (categorical text and integer codes, numeric, NULLs) fitted on a
    small DuckDB table."""
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE t AS SELECT * FROM (VALUES "
        "(1, 'a', 1.5, 'x', 0, 'p'), (2, 'b', 2.5, NULL, 1, 'q'), (3, 'a', NULL, 'y', 2, 'q'), "
        "(4, 'b', 0.5, 'x', 1, 'p'), (5, 'a', 3.0, 'y', NULL, 'p'), (6, NULL, 2.0, 'x', 0, 'q')"
        ") AS v(id, c, x, d, k, y)"
    )
    models = {
        "nb": wml.NaiveBayes().fit(con, "t", "y", keys=["id"]),
        "tan": wml.TAN().fit(con, "t", "y", keys=["id"]),
    }
    yield con, models
    con.close()


def _export(con, model, dialect: str) -> str:
    return model.sql(con, "t", keys=["id"], dialect=dialect)


@pytest.mark.parametrize("kind", ["nb", "tan"])
def test_the_exported_query_is_in_the_portable_subset(fitted, kind):
    """The query as generated for the verified engines (its parameters inlined as VALUES);
    a transpile-only dialect may then write VALUES its own way (BigQuery: UNNEST)."""
    con, models = fitted
    assert dialects.non_portable(sqlglot.parse_one(_export(con, models[kind], "duckdb"))) == []


@pytest.mark.parametrize("dialect", dialects.TRANSPILE_ONLY_DIALECTS)
@pytest.mark.parametrize("kind", ["nb", "tan"])
def test_exported_sql_parses_back(fitted, kind, dialect):
    con, models = fitted
    sql = _export(con, models[kind], dialect)
    tree = sqlglot.parse_one(sql, read=dialect)
    assert tree.sql(dialect=dialect) == sql  # a stable round trip, nothing lost
    # a natural log is LN in every dialect, never LOG (whose base differs between them): the
    # Gaussian terms of the Naive Bayes model's numeric attribute (a prediction's query
    # computes no log probability)
    assert tree.find(sqlglot.exp.Log) is None
    assert (tree.find(sqlglot.exp.Ln) is not None) == (kind == "nb")
    ctes = {cte.alias for cte in tree.find_all(exp.CTE)}
    assert {t.name for t in tree.find_all(exp.Table)} - ctes == {"t"}  # only the source table


@pytest.mark.parametrize("dialect", ["snowflake", "bigquery", "trino"])
@pytest.mark.parametrize("kind", ["nb", "tan"])
def test_exported_sql_golden(fitted, kind, dialect):
    con, models = fitted
    sql = _export(con, models[kind], dialect)
    pretty = sqlglot.parse_one(sql, read=dialect).sql(dialect=dialect, pretty=True) + "\n"
    path = GOLDEN / f"{kind}_score_{dialect}.sql"
    if os.environ.get("WML_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(pretty, encoding="utf-8")
    assert path.exists(), f"no golden file {path.name}: run with WML_UPDATE_GOLDEN=1"
    assert pretty == path.read_text(encoding="utf-8")
    assert sqlglot.parse_one(path.read_text(encoding="utf-8"), read=dialect).sql(dialect) == sql
    # the golden SQL, transpiled back to DuckDB, runs where only the source table exists and
    # gives the model's probabilities
    elsewhere = duckdb.connect()
    elsewhere.register("rows", con.table("t").to_arrow_table())
    elsewhere.execute("CREATE TABLE t AS SELECT * FROM rows")
    back = sqlglot.transpile(path.read_text(encoding="utf-8"), read=dialect, write="duckdb")[0]
    got = elsewhere.sql(back).to_arrow_table().sort_by("id")
    want = models[kind].score_rows(con, "t", keys=["id"]).sort_by("id")
    assert got.column_names == want.column_names
    for name in got.column_names:
        if name.startswith("p_"):
            assert got[name].to_pylist() == pytest.approx(want[name].to_pylist(), abs=1e-9)
        else:
            assert got[name].to_pylist() == want[name].to_pylist()


def test_nested_ctes_of_one_name_stay_apart_on_spark():
    """Spark SQL lifts nested CTEs to the top: two of one name would collide (or shadow)."""
    tree = sqlglot.parse_one(
        "SELECT * FROM (WITH a AS (SELECT 1 AS x), b AS (SELECT x FROM a) SELECT x FROM b) AS t1 "
        "JOIN (WITH a AS (SELECT 2 AS x) SELECT x FROM a) AS t2 ON TRUE",
        read="duckdb",
    )
    spark = dialects.rewrite(tree, "spark")
    names = [cte.alias for cte in spark.find_all(sqlglot.exp.CTE)]
    assert sorted(names) == ["a", "a_1", "b"]
    text = spark.sql("spark")
    assert "a_1 AS (SELECT 2 AS x)" in text and "FROM a_1" in text
    assert dialects.rewrite(spark, "spark").sql("spark") == text  # idempotent
    assert dialects.rewrite(tree, "postgres").sql("postgres") == tree.sql("postgres")


def test_a_fenced_step_is_a_plain_cte_where_the_dialect_has_no_materialized_cte():
    """A query built for PostgreSQL fences steps (models/scoring/steps.py); exported for another
    dialect it keeps its steps, unfenced."""
    tree = sqlglot.parse_one("WITH x AS MATERIALIZED (SELECT 1 AS a) SELECT a FROM x", "postgres")
    assert "AS MATERIALIZED" in templates.generate(tree, "postgres")
    for dialect in ("spark", *dialects.TRANSPILE_ONLY_DIALECTS):
        text = templates.generate(tree, dialect)
        assert "MATERIALIZED" not in text.upper(), dialect
        assert sqlglot.parse_one(text, read=dialect).find(exp.CTE) is not None
