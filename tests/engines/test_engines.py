"""One suite, every engine: the same models, scores, folds and measures on DuckDB, PostgreSQL
15 and Spark 4, compared with DuckDB.

The ibis ``backends/conftest.py`` pattern: a fixture per engine gives an
:class:`Engine` (its native connection wrapped in a Warehouse, plus a loader that writes the
same Arrow table into it); ``engine`` is parametrised over all of them. Each *case* is a
function ``case(engine) -> results`` registered with :func:`case`; the test runs it on the
engine and on the DuckDB reference and asserts agreement with :func:`assert_agree`:
integers, strings and booleans exact, floats within 1e-9, same column names in the same order
(so the same class order). Adding a case = writing one more decorated function.

PostgreSQL is started by a fixture (initdb + pg_ctl in a temporary folder, 127.0.0.1, a free
port); Spark runs ``local[2]`` and on a standalone cluster, a master and two one-core workers
on 127.0.0.1 whose executors write the tables into the warehouse folder the driver reads
(tests/engine_support.py), one session at a time (``spark_sessions``); all are stopped at the
end of the session. An engine whose software is missing is skipped with the reason. Deselect
the whole suite with ``-m "not engines"``.

Every engine test runs on ``local[2]``; the cluster runs those marked ``on_the_cluster_too``:
Naive Bayes and TAN fitted and scored (a durable table, Arrow data, a prediction view;
``CLUSTER_CASES``), the exported SQL, and the check that both executors do the work; updates
and cross-validation, the same statements again, run on ``local[2]``. Of the later
families' cases, linear discriminant analysis (``FAMILY_CASES``: its fit one pass of sums, its
scores a plain expression) runs on the cluster in place of ``local[2]``; logistic regression,
k-NN, the decision tree and the linear SVM run on ``local[2]`` (on the cluster they took 174 s
of machine CPU for the SVM and logistic regression, 90 s on ``local[2]``). A cluster adds
no SQL of its own: the statements are the same Spark SQL, run elsewhere. It changes where
the work happens: executors write every table's files, the driver lists and commits them,
Arrow data travels from the driver and results back to it; the subset crosses each of those
paths. Running every test there too would add about as much time again as all the
``local[2]`` tests take (a case takes about as long on the cluster, often longer, and the
cluster half a minute or more to start), far past the minute and a half the suite's time
allows for it. The cluster's tests run after every ``local[2]`` one (tests/conftest.py), so
each session starts once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import io
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from engine_support import postgres_server
from readme_blocks import readme_blocks
from sqlglot import exp

import warehouse_ml as wml
from warehouse_ml.cli import main as cli_main
from warehouse_ml.cli.demo import DEMO_TABLES
from warehouse_ml.engines import connect
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.keyed_terms import literal_terms
from warehouse_ml.models.learners.tree import scoring as tree_scoring
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName
from warehouse_ml.store import catalog, integrity, ownership

pytestmark = pytest.mark.engines

TOLERANCE = 1e-9
ENGINES = ["duckdb", "postgres", "spark"]
EVERY_TARGET = [*ENGINES, "spark_cluster"]
"""The engines every test runs on, and with them the Spark cluster, which runs a subset."""
TABLE = "wml_engine_data"


# -- engines ------------------------------------------------------------------------------------
@dataclass
class Engine:
    """An engine under test: its name, its native connection and the Warehouse around it."""

    name: str
    connection: Any
    warehouse: Warehouse
    loaded: set[str] = dataclasses.field(default_factory=set)
    cache: dict[str, Any] = dataclasses.field(default_factory=dict)

    def load(self, name: str, table: pa.Table) -> str:
        """Write ``table`` into the engine as a durable table ``name`` (once per session)."""
        if name not in self.loaded:
            registered = self.warehouse.register_arrow(table)
            try:
                self.materialise(registered, name)
            finally:
                self.warehouse.unregister(registered)
            self.loaded.add(name)
        return name

    def materialise(self, relation: TableName, name: str) -> str:
        """The rows of ``relation`` (a registered Arrow table, a prediction view) written as
        the durable table ``name``, replacing one of that name: the measures read a view's
        rows as the engine scored them, without scoring them again for every measure."""
        table = TableName((name,))
        self.warehouse.run("drop_table", table=table)
        self.warehouse.run_tree(
            templates.create_table_as(table, templates.build("select_all", source=relation))
        )
        return name


@pytest.fixture(scope="session")
def duckdb_engine():
    connection = duckdb.connect()
    yield Engine("duckdb", connection, connect(connection))
    connection.close()


@pytest.fixture(scope="session")
def postgres_engine():
    psycopg = pytest.importorskip("psycopg", reason='needs pip install -e ".[postgres]"')
    try:
        server = postgres_server()
        conninfo = server.__enter__()
    except RuntimeError as error:
        pytest.skip(f"PostgreSQL not available: {error}")
    connection = psycopg.connect(conninfo, autocommit=True)
    try:
        yield Engine("postgres", connection, connect(connection))
    finally:
        connection.close()
        server.__exit__(None, None, None)


_SPARK_ENGINES: dict[str, Engine] = {}


def _spark_engine(name: str, session: Any) -> Engine:
    """The Engine around a live Spark session: the same one while the session lives (its
    loaded tables and models are in that session's catalog), a new one for a new session."""
    engine = _SPARK_ENGINES.get(name)
    if engine is None or engine.connection is not session:
        engine = _SPARK_ENGINES[name] = Engine(name, session, connect(session))
    return engine


@pytest.fixture
def spark_engine(spark_sessions) -> Engine:
    """Spark ``local[2]``, the live session (tests/conftest.py: one Spark session at a time)."""
    return _spark_engine("spark", spark_sessions.local())


@pytest.fixture
def spark_cluster_engine(spark_sessions) -> Engine:
    """Spark on a standalone cluster of a master and two one-core workers on 127.0.0.1."""
    try:
        session = spark_sessions.cluster()
    except RuntimeError as error:
        pytest.skip(f"Spark cluster not available: {error}")
    return _spark_engine("spark_cluster", session)


@pytest.fixture(scope="session", params=ENGINES)
def engine_name(request) -> str:
    """Each engine in turn (the reference DuckDB included, as a check of the suite itself);
    a test marked ``on_the_cluster_too`` also takes ``spark_cluster``. Session scope makes
    pytest run each engine's tests together: the two Spark targets share one driver, one
    session at a time, and switch once."""
    return request.param


on_the_cluster_too = pytest.mark.parametrize("engine_name", EVERY_TARGET, indirect=True)
"""Run a test on the Spark cluster as well as on every engine (see the module docstring)."""


@pytest.fixture
def engine(engine_name: str, request) -> Engine:
    """The engine's Engine when the test runs (a Spark target's then with the live session)."""
    return request.getfixturevalue(f"{engine_name}_engine")


# -- data ---------------------------------------------------------------------------------------
def data_table(n: int = 160, seed: int = 11) -> pa.Table:
    """Seeded mixed data: an integer key, a string and an integer categorical attribute, a
    boolean, a numeric attribute, each with NULLs, and a three-class target with NULLs."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    colour = [None if rng.random() < 0.08 else f"c{(v + rng.integers(0, 2)) % 4}" for v in y]
    size = [None if rng.random() < 0.05 else int((2 * v + rng.integers(0, 3)) % 5) for v in y]
    flag = [None if rng.random() < 0.05 else bool((v + rng.integers(0, 2)) % 2) for v in y]
    weight = [None if rng.random() < 0.07 else float(v * 1.3 + rng.normal()) for v in y]
    label = [None if i % 41 == 5 else ["high", "low", "mid"][v] for i, v in enumerate(y)]
    return pa.table(
        {
            "id": pa.array(np.arange(n) * 3 + 1, pa.int64()),
            "colour": pa.array(colour, pa.string()),
            "size": pa.array(size, pa.int64()),
            "flag": pa.array(flag, pa.bool_()),
            "weight": pa.array(weight, pa.float64()),
            "label": pa.array(label, pa.string()),
        }
    )


DATA = data_table()


def codes_table(n: int = 200, seed: int = 4) -> tuple[pa.Table, pa.Table]:
    """Integer-coded attributes with NULLs and a three-class integer target (TAN's lookup
    table), and rows to score that hold values never seen in training (-1, 9) and NULLs."""
    data = wml.synthetic.tan_data(n, 4, n_classes=3, cardinality=[3, 4, 2, 3], seed=seed)
    rng = np.random.default_rng(seed)
    columns = {"id": pa.array(np.arange(n), pa.int64())}
    for name in ("a0", "a1", "a2", "a3"):
        values = data[name].to_pylist()
        columns[name] = pa.array([None if rng.random() < 0.07 else v for v in values], pa.int64())
    columns["class"] = pa.array(data["class"].to_pylist(), pa.int64())
    unseen = pa.table(
        {
            "a0": pa.array([-1, 0, None, 2], pa.int64()),
            "a1": pa.array([9, None, 1, 3], pa.int64()),
            "a2": pa.array([0, 1, 9, None], pa.int64()),
            "a3": pa.array([None, 2, 0, -1], pa.int64()),
        }
    )
    return pa.table(columns), unseen


CODES, UNSEEN_CODES = codes_table()


def values_table(n: int = 120, seed: int = 8) -> pa.Table:
    """An integer key, ``colour`` in four spellings that differ only by case ('a', 'A', 'b',
    'B': four values), ``size`` a double of which a third are zeros (every other one -0.0), a
    two-class ``label``; and rows to score holding NaN, +inf and -inf in ``size``."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    side = [v if rng.random() < 0.75 else 1 - v for v in y]
    colour = [["a", "A", "b", "B"][2 * s + int(rng.integers(0, 2))] for s in side]
    size = [float(v + rng.normal()) for v in y]
    zeros = range(0, n, 3)
    for j, i in enumerate(zeros):
        size[i] = -0.0 if j % 2 else 0.0
    return pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "colour": pa.array(colour, pa.string()),
            "size": pa.array(size, pa.float64()),
            "label": pa.array([["no", "yes"][v] for v in y], pa.string()),
        }
    )


VALUES = values_table()
NON_FINITE = pa.table(
    {
        "id": pa.array([0, 1, 2, 3], pa.int64()),
        "colour": pa.array(["a", "A", "b", "B"]),
        "size": pa.array([float("nan"), float("inf"), float("-inf"), 0.5], pa.float64()),
    }
)


def zoned_table(n: int = 120, seed: int = 6) -> pa.Table:
    """An integer key, a timestamp with a time zone (instants around New York's changes of
    clock, one with a fraction of a second, NULLs), a string attribute and a two-class target."""
    utc = dt.timezone.utc
    instants = [
        dt.datetime(2024, 1, 1, 10, 0, tzinfo=utc),
        dt.datetime(2024, 3, 10, 7, 30, 0, 500000, tzinfo=utc),
        dt.datetime(2024, 11, 3, 5, 30, tzinfo=utc),
        dt.datetime(2024, 11, 3, 6, 30, tzinfo=utc),
    ]
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    ts = [None if rng.random() < 0.1 else instants[(2 * v + rng.integers(0, 3)) % 4] for v in y]
    return pa.table(
        {
            "id": pa.array(np.arange(n), pa.int64()),
            "ts": pa.array(ts, pa.timestamp("us", tz="UTC")),
            "c": pa.array([f"c{(v + rng.integers(0, 2)) % 3}" for v in y]),
            "label": pa.array([["no", "yes"][v] for v in y]),
        }
    )


ZONED = zoned_table()


def wide_integers_table(n: int = 150, seed: int = 8) -> tuple[pa.Table, pa.Table]:
    """uint64 codes near 2**64 - 1 (u), uint64 values spread near 2**64 (w, for numeric=[...]),
    HUGEINT-like decimal128(38, 0) codes (h) and class labels beyond BIGINT (t); and rows to
    score with unseen values and NULLs."""
    rng = np.random.default_rng(seed)
    top = 2**64 - 1
    labels = [-(10**30), 10**20, 10**30 + 7]
    y = rng.integers(0, 3, n)
    u = [None if rng.random() < 0.08 else [top, top - 1, 2**63][(v + rng.integers(0, 2)) % 3]
         for v in y]  # fmt: skip
    w = [top - int(rng.integers(0, 2**58)) - int(v) * 2**60 for v in y]
    h = [[10**35, -(10**35), 7][(v + rng.integers(0, 2)) % 3] for v in y]

    def decimals(values: list) -> pa.Array:
        return pa.array([None if v is None else Decimal(v) for v in values], pa.decimal128(38, 0))

    table = pa.table(
        {
            "id": pa.array(np.arange(n), pa.int64()),
            "u": pa.array(u, pa.uint64()),
            "w": pa.array(w, pa.uint64()),
            "h": decimals(h),
            "t": decimals([labels[v] for v in y]),
        }
    )
    scored = pa.table(
        {
            "id": pa.array([0, 1, 2, 3], pa.int64()),
            "u": pa.array([top, top - 2, None, 2**63], pa.uint64()),
            "w": pa.array([top, 2**63, None, top - 2**61], pa.uint64()),
            "h": decimals([7, 8, None, -(10**35)]),
        }
    )
    return table, scored


WIDE_INTEGERS, UNSEEN_WIDE_INTEGERS = wide_integers_table()


# -- comparison ---------------------------------------------------------------------------------
def _normalise(value: Any) -> Any:
    """Plain Python values: Arrow tables become (column names, rows), dataclasses dicts."""
    if isinstance(value, pa.Table):
        return {"columns": value.column_names, "rows": value.to_pylist()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return value


def assert_agree(actual: Any, expected: Any, where: str = "") -> None:
    """Equal, except floats, which agree within TOLERANCE (NaN equals NaN)."""
    actual, expected = _normalise(actual), _normalise(expected)
    if isinstance(expected, float) or isinstance(actual, float):
        assert isinstance(actual, (int, float)) and isinstance(expected, (int, float)), where
        if math.isnan(expected):
            assert math.isnan(actual), where
        else:
            assert actual == pytest.approx(expected, abs=TOLERANCE, rel=TOLERANCE), where
    elif isinstance(expected, dict):
        assert isinstance(actual, dict) and list(actual) == list(expected), where
        for key in expected:
            assert_agree(actual[key], expected[key], f"{where}.{key}")
    elif isinstance(expected, (list, tuple)):
        assert isinstance(actual, (list, tuple)) and len(actual) == len(expected), where
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            assert_agree(a, e, f"{where}[{i}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


# -- cases --------------------------------------------------------------------------------------
CASES: dict[str, Callable[[Engine], dict[str, Any]]] = {}


def case(function: Callable[[Engine], dict[str, Any]]) -> Callable[[Engine], dict[str, Any]]:
    """Register a cross-engine case: ``function(engine)`` returns named results to compare."""
    CASES[function.__name__] = function
    return function


def _fit(engine: Engine, model: wml.NaiveBayes | wml.TAN, name: str):
    table = engine.load(TABLE, DATA)
    return model.fit(engine.warehouse, table, "label", keys=["id"], categorical=["size"], name=name)


def _model_results(engine: Engine, model, name: str) -> dict[str, Any]:
    """Parameters, scores of a durable table, predictions of Arrow data (the engine's own
    loader), and the rows of a prediction view read back with plain SQL."""
    table = engine.load(TABLE, DATA)
    w = engine.warehouse
    view = TableName((f"{name}_scores",))
    model.create_view(w, view, table, keys=["id", "label"])
    rows = w.fetch("select_table", table=view, order_columns=[templates.column("id", "t")])
    return {
        "classes": model.classes_,
        "n_rows": model.n_rows_,
        "n_null_target": model.n_null_target_,
        "parameters": model.parameters(w),
        "predict_proba": model.predict_proba(w, table),
        "predict": model.predict(w, DATA, keys=["id"]),
        "view": rows,
    }


def _naive_bayes(engine: Engine):
    """The NB model of the suite, fitted once per engine (shared by several cases)."""
    if "nb" not in engine.cache:
        engine.cache["nb"] = _fit(engine, wml.NaiveBayes(alpha=1.0, prior_alpha=0.5), "engine_nb")
    return engine.cache["nb"]


def _tan(engine: Engine):
    """The TAN model of the suite (numeric attribute binned), fitted once per engine (shared
    by the cases that score, explain, rank and monitor it)."""
    if "tan" not in engine.cache:
        engine.cache["tan"] = _fit(engine, wml.TAN(), "engine_tan")
    return engine.cache["tan"]


@case
def naive_bayes(engine: Engine) -> dict[str, Any]:
    """NB with categorical (string, integer, boolean) and Gaussian attributes and NULLs."""
    return _model_results(engine, _naive_bayes(engine), "engine_nb")


@case
def tan(engine: Engine) -> dict[str, Any]:
    """TAN (numeric attribute binned): parameters, tree and scores."""
    return _model_results(engine, _tan(engine), "engine_tan")


@case
def k_nearest_neighbors(engine: Engine) -> dict[str, Any]:
    """k nearest neighbours (the portable window search on Spark, the lateral top-k on
    PostgreSQL, its top-k aggregate on DuckDB) over categorical (string, integer, boolean) and
    numeric attributes with NULLs and ties of distance: the Euclidean distance with distance
    weights and ties to the smaller key; the cosine, uniform, every row tied at the k-th
    distance voting; select_k by the Minkowski distance of power 3. The stored rows and their
    keys, scores, predictions, a prediction view, each row's neighbours, and select_k's errors
    of several k from one ranked table."""
    table = engine.load(TABLE, DATA)
    w = engine.warehouse
    every = wml.KNearestNeighbors(k=4, metric="cosine", ties="all").fit(
        w, table, "label", keys=["id"], categorical=["size"], name="engine_knn_every"
    )
    chosen = wml.select_k(
        w, table, "label", [1, 3, 6], weights="distance", metric="minkowski", p=3.0, folds=3,
        seed=1, key="id", categorical=["size"], name="engine_knn_chosen",
    )  # fmt: skip
    return {
        "distance": _model_results(
            engine,
            _fit(engine, wml.KNearestNeighbors(weights="distance"), "engine_knn"),
            "engine_knn",
        ),
        "every": _model_results(engine, every, "engine_knn_every"),
        "neighbours": every.explain(w, DATA, keys=["id"]),
        "select_k": chosen.comparison,
    }


def _tree_cv(engine: Engine, model: wml.DecisionTree) -> pa.Table:
    """A 3-fold cross-validation's pooled predictions: every fold's tree grown in the same
    statements (each fold's own bin edges) and scored in one query."""
    return wml.cross_validate(
        engine.warehouse, engine.load(TABLE, DATA), "label", model, folds=3, seed=2, key="id",
        categorical=["size"],
    ).to_arrow()  # fmt: skip


@case
def decision_tree(engine: Engine) -> dict[str, Any]:
    """Decision trees over categorical (string, integer, boolean) and numeric attributes with
    NULLs: C4.5's (gain ratio, multiway, equal-frequency thresholds, pruned) scored by its
    nested CASE, and CART's (Gini, binary, thresholds between distinct values) through its node
    table (tree_scoring.LITERAL_LEAVES set to 0): the parameter tables (nodes, routes), scores,
    predictions and a prediction view, CART's scores of values never seen in training and
    NULLs, and both's 3-fold cross-validation (every fold's tree at once).
    (tests/learners/test_decision_tree_engines.py scores binary trees by their CASE on
    PostgreSQL and Spark.)"""
    cart = {"splits": "binary", "criterion": "gini", "bins": None, "pruning": "none"}
    c45 = _fit(engine, wml.DecisionTree(bins=4), "engine_tree")
    results = {"c45": _model_results(engine, c45, "engine_tree"), "c45 cv": _tree_cv(engine, c45)}
    scored = uncounted_pairs_table()
    weights = [-1.5, 0.25, None, 2.0, 0.8]
    scored = scored.append_column(
        "weight", pa.array([weights[i % 5] for i in range(scored.num_rows)], pa.float64())
    )
    literal = tree_scoring.LITERAL_LEAVES
    tree_scoring.LITERAL_LEAVES = 0
    try:
        walked = _fit(engine, wml.DecisionTree(max_depth=4, **cart), "engine_tree_walk")
        results["walk"] = _model_results(engine, walked, "engine_tree_walk")
        results["walk unseen"] = walked.predict_proba(engine.warehouse, scored)
        results["walk cv"] = _tree_cv(engine, walked)
    finally:
        tree_scoring.LITERAL_LEAVES = literal
    return results


_CASE_INSENSITIVE = {
    "duckdb": [
        "CREATE TABLE wml_engine_collated (id BIGINT, colour VARCHAR COLLATE NOCASE, "
        "size DOUBLE, label VARCHAR COLLATE NOCASE)",
    ],
    "postgres": [
        "CREATE EXTENSION IF NOT EXISTS citext",
        "CREATE COLLATION IF NOT EXISTS wml_engine_ci "
        "(provider = icu, locale = 'und-u-ks-level2', deterministic = false)",
        "CREATE TABLE wml_engine_collated (id BIGINT, colour TEXT COLLATE wml_engine_ci, "
        "size DOUBLE PRECISION, label CITEXT)",
    ],
    "spark": [
        "CREATE TABLE wml_engine_collated (id BIGINT, colour STRING COLLATE UTF8_LCASE, "
        "size DOUBLE, label STRING COLLATE UTF8_LCASE) USING parquet",
    ],
}
"""Each engine's own text that compares case-insensitively: DuckDB's NOCASE collation,
PostgreSQL's nondeterministic ICU collation and citext, Spark's UTF8_LCASE."""


def _execute(engine: Engine, statement: str) -> None:
    """Run one statement of the test's own (DDL) on the engine's native connection."""
    if engine.name == "spark":
        engine.connection.sql(statement).collect()
    else:
        engine.connection.execute(statement)


@case
def value_rules(engine: Engine) -> dict[str, Any]:
    """The value rules (tests/contract/test_value_rules.py) on each engine: a table whose text
    columns compare case-insensitively (the engine's own way) fits and scores as the same
    table in plain text, 'a' and 'A' two values; -0.0 is the number 0.0 (a categorical
    double's text); a NaN or infinite number scores NULL (Naive Bayes, TAN, a decision tree
    and k-NN: predictions, probabilities and a prediction view)."""
    w = engine.warehouse
    plain = engine.load("wml_engine_values", VALUES)
    if "wml_engine_collated" not in engine.loaded:
        _execute(engine, "DROP TABLE IF EXISTS wml_engine_collated")
        for statement in _CASE_INSENSITIVE[engine.name.removesuffix("_cluster")]:
            _execute(engine, statement)
        _execute(
            engine,
            "INSERT INTO wml_engine_collated SELECT id, colour, size, label FROM wml_engine_values",
        )
        engine.loaded.add("wml_engine_collated")
    scored = engine.load("wml_engine_non_finite", NON_FINITE)
    results: dict[str, Any] = {}
    models = {
        "nb": (wml.NaiveBayes(), {}),
        "tan categorical": (wml.TAN(), {"categorical": ["size"]}),
        "tree": (wml.DecisionTree(bins=None, pruning="none", min_leaf=1), {}),
        "knn": (wml.KNearestNeighbors(k=3), {}),
    }
    for label, (model, options) in models.items():
        name = f"engine_values_{label.replace(' ', '_')}"
        fitted = model.fit(w, "wml_engine_collated", "label", keys=["id"], name=name, **options)
        view = fitted.create_view(w, f"{name}_scores", scored, keys=["id"])
        results[label] = {
            "classes": fitted.classes_,
            "collated": fitted.predict_proba(w, "wml_engine_collated"),
            "plain": fitted.predict_proba(w, plain),
            "non-finite": fitted.predict(w, scored, keys=["id"]).sort_by("id"),
            "view": w.fetch(
                "select_table", table=view, order_columns=[templates.column("id", "t")]
            ),
        }
    return results


@case
def logistic_regression(engine: Engine) -> dict[str, Any]:
    """Logistic regression by Newton passes (DOUBLE sums in each engine's order), multinomial
    and binary, over categorical (string, integer, boolean) and numeric attributes with NULLs:
    coefficients and standard errors, scores, predictions and a prediction view."""
    table = engine.load(TABLE, DATA)
    binary = wml.LogisticRegression(C=2.0).fit(
        engine.warehouse, table, "flag", keys=["id"], features=["colour", "size", "weight"],
        categorical=["size"], name="engine_lr_binary",
    )  # fmt: skip
    return {
        "multinomial": _model_results(
            engine, _fit(engine, wml.LogisticRegression(), "engine_lr"), "engine_lr"
        ),
        "binary": _model_results(engine, binary, "engine_lr_binary"),
    }


@case
def linear_discriminant(engine: Engine) -> dict[str, Any]:
    """Linear discriminant analysis from one pass of per-class sums (DOUBLE, in each engine's
    order), three classes (Ledoit-Wolf shrinkage, its fourth moments one more pass) and two
    (a fixed shrinkage), over categorical (string, integer, boolean) and numeric attributes
    with NULLs: coefficients, scores, predictions and a prediction view."""
    table = engine.load(TABLE, DATA)
    binary = wml.LinearDiscriminant(shrinkage=0.2).fit(
        engine.warehouse, table, "flag", keys=["id"], features=["colour", "size", "weight"],
        categorical=["size"], name="engine_lda_binary",
    )  # fmt: skip
    return {
        "classes": _model_results(
            engine,
            _fit(engine, wml.LinearDiscriminant(shrinkage="auto"), "engine_lda"),
            "engine_lda",
        ),
        "binary": _model_results(engine, binary, "engine_lda_binary"),
    }


@case
def linear_svm(engine: Engine) -> dict[str, Any]:
    """Linear SVM by finite Newton passes (DOUBLE sums in each engine's order) with Platt's
    sigmoids fitted over folds dealt by the MD5 of the key, one-vs-rest and binary, over
    categorical (string, integer, boolean) and numeric attributes with NULLs: coefficients,
    scores, predictions and a prediction view."""
    table = engine.load(TABLE, DATA)
    binary = wml.LinearSVM(C=2.0, key="id", folds=3).fit(
        engine.warehouse, table, "flag", keys=["id"], features=["colour", "size", "weight"],
        categorical=["size"], name="engine_svm_binary",
    )  # fmt: skip
    return {
        "classes": _model_results(
            engine, _fit(engine, wml.LinearSVM(key="id", folds=3), "engine_svm"), "engine_svm"
        ),
        "binary": _model_results(engine, binary, "engine_svm_binary"),
    }


def _comparable_explanation(table: pa.Table) -> list[dict[str, Any]]:
    """Explanation rows without the text of the numeric attribute's values (each engine
    writes a DOUBLE as text its own way); the evidence is compared to the tolerance."""
    rows = table.to_pylist()
    for row in rows:
        for name, value in (("attribute", "value"), ("parent", "parent_value")):
            if row.get(name) == "weight":
                row[value] = None
    return rows


@case
def explanations(engine: Engine) -> dict[str, Any]:
    """Per-row evidence of NB (Gaussian attribute) and TAN (binned), against the runner-up
    and every class, and a wide explanation view read back with plain SQL."""
    table = engine.load(TABLE, DATA)
    w = engine.warehouse
    tan = _tan(engine)
    view = tan.create_explanation_view(
        w, "engine_tan_why_view", table, keys=["id"], top=2, form="wide", against="mid"
    )
    return {
        "nb": _comparable_explanation(_naive_bayes(engine).explain(w, table, keys=["id"])),
        "nb_every": _comparable_explanation(
            _naive_bayes(engine).explain(w, DATA, top=1, against=wml.EVERY_CLASS)
        ),
        "tan": _comparable_explanation(tan.explain(w, table, keys=["id"], top=3)),
        "view": [
            {k: v for k, v in row.items() if not k.endswith("_value")}
            for row in w.fetch(
                "select_table", table=view, order_columns=[templates.column("id", "t")]
            ).to_pylist()
        ],
    }


@case
def attribute_rankings(engine: Engine) -> dict[str, Any]:
    """MI with the class before a fit (numerics binned), pair CMI, and a model's ranking from
    its counts with the mean |evidence| over a source."""
    table = engine.load(TABLE, DATA)
    w = engine.warehouse
    tan = _tan(engine)
    return {
        "rank": wml.rank_attributes(w, table, "label", keys=["id"], categorical=["size"]),
        "pairs": wml.pair_information(w, table, "label", keys=["id"], categorical=["size"]),
        "nb": _naive_bayes(engine).attribute_ranking(w, table),
        "tan": tan.attribute_ranking(w, table),
    }


@case
def folds(engine: Engine) -> dict[str, Any]:
    """MD5 fold ids: plain and stratified k-fold and repeated stratified hold-out, identical on
    every engine."""
    table = engine.load(TABLE, DATA)
    w = engine.warehouse
    plain = wml.assign_folds(w, table, folds=5, seed=7, key="id", table="engine_folds")
    strat = wml.assign_folds(
        w, table, folds=4, seed=3, key="id", stratify="label", table="engine_strat"
    )
    holdout = wml.holdout_split(
        w, table, test_fraction=0.3, seed=5, key="id", target="label", repeats=3,
        table="engine_holdout",
    )  # fmt: skip
    return {
        "plain": plain.to_arrow(w),
        "stratified": strat.to_arrow(w),
        "holdout": holdout.to_arrow(w),
    }


@case
def drift(engine: Engine) -> dict[str, Any]:
    """Drift of a table from NB's (Gaussian bins) training counts, and TAN's (own bins) read
    through a drift view: PSI, Jensen-Shannon distance, chi-square and p-value."""
    table = engine.load(TABLE, DATA)
    w = engine.warehouse
    tan = _tan(engine)
    view = tan.create_drift_view(w, "engine_drift", table)
    rows = w.fetch(
        "select_table",
        table=view,
        order_columns=[templates.column("kind", "t"), templates.column("attribute", "t")],
    )
    return {"nb": _naive_bayes(engine).drift(w, table), "tan_view": rows}


@case
def updates(engine: Engine) -> dict[str, Any]:
    """fit(A), update(B), update(C) for NB, fit(A), update(B and C) for TAN: the same counts,
    parameters, tree and batch records on every engine (each engine's own publish path,
    Spark's included)."""
    w = engine.warehouse
    thirds = [DATA.slice(0, 50), DATA.slice(50, 60), DATA.slice(110)]
    batches = {"naive_bayes": thirds[1:], "tan": [DATA.slice(50)]}
    results: dict[str, Any] = {}
    for model in (wml.NaiveBayes(), wml.TAN()):
        name = f"engine_update_{model.kind}"
        table = engine.load(f"{name}_a", thirds[0])
        model.fit(w, table, "label", keys=["id"], categorical=["size"], name=name)
        for i, part in enumerate(batches[model.kind], 1):
            model.update(w, engine.load(f"{name}_{i}", part), batch_id=f"batch-{i}")
        results[model.kind] = {
            "parameters": model.parameters(w),
            "rows": [model.n_rows_, model.n_null_target_],
            "batches": [(b["batch_id"], b["n_rows"], b["above_bins"]) for b in model.batches_],
            "proba": model.predict_proba(w, DATA),
        }
    return results


@case
def weighted_fits(engine: Engine) -> dict[str, Any]:
    """sample_weight and class_weight on NB (categorical and Gaussian) and TAN: the same summed
    weights, moments, tree and probabilities on every engine; and a weighted 3-fold CV."""
    weighted = DATA.append_column("w", pa.array(np.linspace(0.0, 2.0, DATA.num_rows)))
    table = engine.load("wml_engine_weighted", weighted)
    w = engine.warehouse
    results: dict[str, Any] = {}
    for model in (wml.NaiveBayes(class_weight="balanced"), wml.TAN(class_weight={"low": 2})):
        model.fit(
            w, table, "label", keys=["id"], categorical=["size"], sample_weight="w",
            name=f"engine_weighted_{model.kind}",
        )  # fmt: skip
        results[model.kind] = {
            "parameters": model.parameters(w),
            "proba": model.predict_proba(w, DATA),
        }
    with wml.cross_validate(
        w, table, "label", wml.NaiveBayes(), folds=3, key="id", categorical=["size"],
        sample_weight="w",
    ) as ev:  # fmt: skip
        results["cv"] = w.fetch(
            "select_table", table=ev.predictions, order_columns=[templates.column("id", "t")]
        )
    return results


@case
def weighted_measures(engine: Engine) -> dict[str, Any]:
    """The measures with a weight column: every row counts as its weight, on every engine
    (accuracy over the prediction view, the rest over its rows as a table)."""
    weighted = DATA.append_column("w", pa.array(np.linspace(0.0, 2.0, DATA.num_rows)))
    table = engine.load("wml_engine_weighted_measures", weighted)
    w = engine.warehouse
    view = _naive_bayes(engine).create_view(
        w, "engine_nb_weighted_measures", table, keys=["id", "label", "w"]
    )
    given = {"target": "label", "weight": "w"}
    source = engine.materialise(view, "engine_nb_weighted_measured")
    return {
        "accuracy": wml.accuracy(w, str(view), **given),  # one measure reads the view itself
        "classes": wml.class_measures(w, source, **given),
        "roc": wml.roc_curve(w, source, positive="mid", **given),
        "auc": wml.roc_auc(w, source, positive="mid", **given),
        "ap": wml.average_precision(w, source, positive="mid", **given),
        "lift": wml.lift_table(w, source, positive="mid", quantiles=4, **given),
        "log": wml.log_score(w, source, **given),
        "calibration": wml.calibration(w, source, positive="mid", bins=4, **given),
    }


@case
def resamples(engine: Engine) -> dict[str, Any]:
    """MD5 under- and over-sampling: the same rows on every engine."""
    table = engine.load(TABLE, DATA)
    w = engine.warehouse
    under = wml.resample(w, table, "label", ratio=0.8, seed=2, key="id", table="engine_under")
    over = wml.resample(w, table, "label", strategy="over", seed=6, key="id", table="engine_over")
    return {"under": under.to_arrow(w), "over": over.to_arrow(w), "after": over.after}


@case
def measures(engine: Engine) -> dict[str, Any]:
    """ROC and PR curves (whole and thinned), AUC (one class and one-vs-rest), average
    precision, lift, log and Brier scores, calibration bins and chosen thresholds of a
    prediction view's rows (the ROC curve over the view itself, the rest over its rows as a
    table, which the engine scores once instead of once per measure)."""
    table = engine.load(TABLE, DATA)
    w = engine.warehouse
    view = _naive_bayes(engine).create_view(w, "engine_nb_measures", table, keys=["id", "label"])
    source = engine.materialise(view, "engine_nb_measured")
    return {
        "roc": wml.roc_curve(w, str(view), target="label", positive="mid"),  # from the view
        "auc": wml.roc_auc(w, source, target="label", positive="mid"),
        "ovr_auc": wml.ovr_auc(w, source, target="label"),
        "pr": wml.precision_recall_curve(w, source, target="label", positive="mid"),
        "ap": wml.average_precision(w, source, target="label", positive="mid"),
        "lift": wml.lift_table(w, source, target="label", positive="mid", quantiles=4),
        "log": wml.log_score(w, source, target="label"),
        "brier": wml.brier_score(w, source, target="label"),
        "accuracy": wml.accuracy(w, source, target="label"),
        "thinned_roc": wml.roc_curve(w, source, target="label", positive="mid", max_points=5),
        "thinned_pr": wml.precision_recall_curve(
            w, source, target="label", positive="mid", max_points=5
        ),
        "calibration": wml.calibration(w, source, target="label", positive="mid", bins=4),
        "cheapest": wml.best_threshold(w, source, target="label", positive="mid", cost_ratio=3),
        "recall": wml.best_threshold(w, source, target="label", positive="mid", target_recall=0.8),
    }


@case
def cross_validation(engine: Engine) -> dict[str, Any]:
    """Stratified 4-fold cross-validation of NB: pooled out-of-fold predictions and accuracy."""
    table = engine.load(TABLE, DATA)
    w = engine.warehouse
    ev = wml.cross_validate(w, table, "label", wml.NaiveBayes(alpha=1.0), folds=4, seed=2, key="id")
    return {"predictions": ev.to_arrow(), "accuracy": ev.accuracy()}


@case
def tan_cross_validation(engine: Engine) -> dict[str, Any]:
    """Stratified 4-fold cross-validation of TAN on the categorical attributes: per-fold count
    and pair-count scans, each fold's counts by subtraction and its own tree."""
    table = engine.load(TABLE, DATA)
    ev = wml.cross_validate(
        engine.warehouse, table, "label", wml.TAN(alpha=1.0), folds=4, seed=2, key="id",
        features=["colour", "size", "flag"],
    )  # fmt: skip
    return {"predictions": ev.to_arrow(), "accuracy": ev.accuracy()}


@case
def tan_integer_codes(engine: Engine) -> dict[str, Any]:
    """TAN over integer codes (scored through its lookup table of codes per value and parent
    value), on training rows and on unseen values and NULLs; stratified 4-fold
    cross-validation scoring every fold's own tree in one query."""
    table = engine.load("wml_engine_codes", CODES)
    w = engine.warehouse
    model = wml.TAN().fit(w, table, "class", keys=["id"], name="engine_tan_codes")
    ev = wml.cross_validate(w, table, "class", wml.TAN(alpha=1.0), folds=4, seed=2, key="id")
    return {
        "lookup": model.record.state.learned.lookup,
        "parameters": model.parameters(w),
        "predict_proba": model.predict_proba(w, table),
        "unseen": model.predict_proba(w, UNSEEN_CODES),
        "predictions": ev.to_arrow(),
    }


@case
def naive_bayes_integer_codes(engine: Engine) -> dict[str, Any]:
    """Naive Bayes over integer codes with NULLs and an integer class, counted by packed block
    keys (stats/counting.py): its parameters, probabilities on training rows and on unseen
    values, and a stratified 4-fold cross-validation (the folds' counts in one packed scan)."""
    table = engine.load("wml_engine_codes", CODES)
    w = engine.warehouse
    model = wml.NaiveBayes().fit(w, table, "class", keys=["id"], name="engine_nb_codes")
    ev = wml.cross_validate(w, table, "class", wml.NaiveBayes(), folds=4, seed=2, key="id")
    return {
        "parameters": model.parameters(w),
        "predict_proba": model.predict_proba(w, table),
        "unseen": model.predict_proba(w, UNSEEN_CODES),
        "predictions": ev.to_arrow(),
    }


@contextlib.contextmanager
def session_time_zone(engine: Engine, zone: str) -> Iterator[None]:
    """Run the block with the engine session's time zone set to ``zone`` (UTC again after)."""

    def set_zone(name: str) -> None:
        if engine.warehouse.dialect == "spark":
            engine.connection.conf.set("spark.sql.session.timeZone", name)
        elif engine.name == "postgres":
            engine.connection.execute(f"SET TIME ZONE '{name}'")
        else:
            engine.connection.execute(f"SET TimeZone = '{name}'")

    set_zone(zone)
    try:
        yield
    finally:
        set_zone("UTC")


@case
def zoned_timestamps(engine: Engine) -> dict[str, Any]:
    """A timestamp with a time zone (DuckDB TIMESTAMPTZ, PostgreSQL timestamptz, Spark
    TIMESTAMP): NB and TAN fitted in a UTC session, then scored and their prediction views read
    in a New York session, give identical probabilities (its values are counted and compared
    as UTC wall-clock times)."""
    w = engine.warehouse
    results: dict[str, Any] = {}
    with session_time_zone(engine, "UTC"):
        table = engine.load("wml_engine_zoned", ZONED)
        for kind, model in (("nb", wml.NaiveBayes()), ("tan", wml.TAN())):
            name = f"engine_zoned_{kind}"
            model.fit(w, table, "label", keys=["id"], name=name)
            view = model.create_view(w, TableName((f"{name}_scores",)), table, keys=["id"])
            utc = model.predict_proba(w, table)
            with session_time_zone(engine, "America/New_York"):
                proba = model.predict_proba(w, table)
                rows = w.fetch("select_table", table=view, order_columns=[templates.column("id")])
            assert proba == utc, f"{engine.name} {kind}: scores depend on the session time zone"
            assert max(proba["p_yes"].to_pylist()) > 0.6
            results[kind] = {"parameters": model.parameters(w), "proba": proba, "view": rows}
    return results


@case
def wide_integers(engine: Engine) -> dict[str, Any]:
    """uint64 values near 2**64 - 1 (categorical, and declared numeric) and integer-valued
    decimal128(38, 0) (HUGEINT) codes and class labels beyond BIGINT: NB and TAN, scored on the
    training table and on Arrow rows with unseen values and NULLs."""
    table = engine.load("wml_engine_wide_integers", WIDE_INTEGERS)
    w = engine.warehouse
    nb = wml.NaiveBayes().fit(w, table, "t", keys=["id"], numeric=["w"], name="engine_wide_nb")
    tan = wml.TAN().fit(w, table, "t", keys=["id"], features=["u", "h"], name="engine_wide_tan")
    return {
        "classes": nb.classes_,
        "kinds": [f.kind for f in nb.features_],
        "parameters": nb.parameters(w),
        "predict_proba": nb.predict_proba(w, table),
        "predict": nb.predict(w, UNSEEN_WIDE_INTEGERS, keys=["id"]),
        "tan_parameters": tan.parameters(w),
        "tan_proba": tan.predict_proba(w, UNSEEN_WIDE_INTEGERS),
    }


OUTLIER = pa.table(
    {
        "id": pa.array(np.arange(120), pa.int64()),
        "x": pa.array(
            [1e25 if i == 4 else float(np.sin(i) * (1 + i % 3)) for i in range(120)], pa.float64()
        ),
        "label": pa.array(["high", "low", "mid"][i % 3] for i in range(120)),
    }
)
"""A numeric attribute with one 1e25 value (row 4, class mid) among values below 3."""


@case
def gaussian_outlier(engine: Engine) -> dict[str, Any]:
    """Gaussian moments scaled per class with a 1e25 outlier (fit with var_smoothing=0, and
    leave-one-out: the outlier's own row gets the exact moments of the class's other values)."""
    table = engine.load("wml_engine_outlier", OUTLIER)
    w = engine.warehouse
    model = wml.NaiveBayes(var_smoothing=0).fit(w, table, "label", keys=["id"], name="outlier")
    loo = wml.cross_validate_leave_one_out(
        w, table, "label", wml.NaiveBayes(var_smoothing=0), key="id"
    )
    return {"parameters": model.parameters(w), "loo": loo.to_arrow()}


def uncounted_pairs_table() -> pa.Table:
    """Every combination of the values of DATA's categorical attributes (plus an unseen value
    and NULL each): rows whose (value, parent value) pairs were never counted in training."""
    colours = [*(f"c{i}" for i in range(4)), "cz", None]
    sizes = [*range(5), 9, None]
    flags = [True, False, None]
    rows = [(c, s, f) for c in colours for s in sizes for f in flags]
    return pa.table(
        {
            "id": pa.array(range(len(rows)), pa.int64()),
            "colour": pa.array([r[0] for r in rows], pa.string()),
            "size": pa.array([r[1] for r in rows], pa.int64()),
            "flag": pa.array([r[2] for r in rows], pa.bool_()),
        }
    )


@case
def tan_uncounted_pairs(engine: Engine) -> dict[str, Any]:
    """TAN scored by text joins on its sparse tables (maximum likelihood and smoothed): pairs
    counted in training, seen values never counted with a parent value (cpt_parent), unseen
    values and NULLs."""
    table = engine.load(TABLE, DATA)
    scored = uncounted_pairs_table()
    results = {}
    for alpha in (0.0, 0.5):
        model = wml.TAN(alpha=alpha, prior_alpha=0.5).fit(
            engine.warehouse, table, "label", features=["colour", "size", "flag"],
            name=f"engine_tan_sparse_{int(alpha * 10)}",
        )  # fmt: skip
        results[f"alpha={alpha}"] = model.predict_proba(engine.warehouse, scored)
        results[f"cpt_parent alpha={alpha}"] = model.parameters(engine.warehouse)["cpt_parent"]
    return results


@case
def long_format_terms(engine: Engine) -> dict[str, Any]:
    """Naive Bayes and TAN (maximum likelihood and smoothed) whose every attribute is read in
    long format (models/keyed_terms/long_terms.py, as for a fitted model with many parameters):
    seen, unseen and NULL values, pairs never counted, NULL parent values."""
    table = engine.load(TABLE, DATA)
    scored = uncounted_pairs_table()
    results = {}
    budget = literal_terms.MAX_LITERAL_CELLS
    literal_terms.MAX_LITERAL_CELLS = 0
    try:
        for model in (wml.NaiveBayes(alpha=0.0), wml.TAN(), wml.TAN(alpha=0.0, prior_alpha=0.5)):
            fitted = model.fit(
                engine.warehouse, table, "label", features=["colour", "size", "flag"],
                name=f"engine_long_{len(results)}",
            )  # fmt: skip
            results[repr(model)] = fitted.predict_proba(engine.warehouse, scored)
    finally:
        literal_terms.MAX_LITERAL_CELLS = budget
    return results


@case
def resolved_terms(engine: Engine) -> dict[str, Any]:
    """TAN (maximum likelihood and smoothed) whose attributes over the literal limits a view
    reads by one join each, on their chains resolved when fitted (models/keyed_terms/resolved.py):
    the view's rows for pairs counted and never counted, unseen values and NULLs, unseen and
    NULL parent values."""
    table = engine.load(TABLE, DATA)
    scored = engine.load("engine_uncounted_pairs", uncounted_pairs_table())
    results = {}
    limits = literal_terms.MAX_LITERAL_VALUES, literal_terms.MAX_LITERAL_PAIRS
    literal_terms.MAX_LITERAL_VALUES = literal_terms.MAX_LITERAL_PAIRS = 0
    try:
        for model in (wml.TAN(), wml.TAN(alpha=0.0, prior_alpha=0.5)):
            name = f"engine_resolved_{len(results)}"
            fitted = model.fit(
                engine.warehouse, table, "label", features=["colour", "size", "flag"], name=name
            )
            view = TableName((f"{name}_scores",))
            fitted.create_view(engine.warehouse, view, scored, keys=["id"])
            order = [templates.column("id", "t")]
            results[repr(model)] = engine.warehouse.fetch(
                "select_table", table=view, order_columns=order
            )
    finally:
        literal_terms.MAX_LITERAL_VALUES, literal_terms.MAX_LITERAL_PAIRS = limits
    return results


# -- the test -----------------------------------------------------------------------------------
_REFERENCE: dict[str, dict[str, Any]] = {}


CLUSTER_CASES = ["naive_bayes", "tan"]
"""The cases the Spark cluster runs as well as ``local[2]``: the Bayesian families fitted and
scored (updates and cross-validation run the same kinds of statements, on ``local[2]``, which
keeps the suite's time)."""
FAMILY_CASES = ["linear_discriminant"]
"""The later family's case fitted and scored on DuckDB, PostgreSQL and the Spark cluster, in
place of ``local[2]``: the cluster runs the same Spark SQL through the same adapter, and
crosses the paths ``local[2]`` does not (executors' files, Arrow data to and from the
driver), which one family's fit and scores cross as well as five (the module docstring)."""
CLUSTER_TARGETS = ["duckdb", "postgres", "spark_cluster"]


def check_case(engine: Engine, duckdb_engine: Engine, name: str) -> None:
    """Run case ``name`` on the engine and assert that it agrees with DuckDB's results."""
    if name not in _REFERENCE:
        _REFERENCE[name] = CASES[name](duckdb_engine)
    expected = _REFERENCE[name]
    actual = expected if engine.name == "duckdb" else CASES[name](engine)
    for key in expected:
        assert_agree(actual[key], expected[key], f"{engine.name}:{name}.{key}")


@pytest.mark.parametrize(
    "name", [name for name in CASES if name not in [*CLUSTER_CASES, *FAMILY_CASES]]
)
def test_engine_agrees_with_duckdb(engine: Engine, duckdb_engine: Engine, name: str) -> None:
    check_case(engine, duckdb_engine, name)


@pytest.mark.parametrize("name", CLUSTER_CASES)
@on_the_cluster_too
def test_engine_agrees_with_duckdb_on_the_cluster_too(
    engine: Engine, duckdb_engine: Engine, name: str
) -> None:
    check_case(engine, duckdb_engine, name)


@pytest.mark.parametrize("name", FAMILY_CASES)
@pytest.mark.parametrize("engine_name", CLUSTER_TARGETS, indirect=True)
def test_a_later_familys_case_agrees_with_duckdb_on_the_cluster(
    engine: Engine, duckdb_engine: Engine, name: str
) -> None:
    check_case(engine, duckdb_engine, name)


HARD_DOUBLES = [
    0.1, 1 / 3, -2.1929796730028945, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
    -8.024862150286411, 123456789012345678.0, 0.0, 1e-300, -1e300, 0.30000000000000004,
]  # fmt: skip


def test_double_literals_read_back_bit_for_bit(engine: Engine) -> None:
    """templates.literal writes a double as its shortest text with an exponent (a DOUBLE on
    DuckDB and Spark, cast to DOUBLE elsewhere): every engine reads back the same bits."""
    query = exp.select(
        *[templates.alias(templates.literal(x), f"x{i}") for i, x in enumerate(HARD_DOUBLES)]
    )
    row = engine.warehouse.fetch_tree(query).to_pylist()[0]
    assert [row[f"x{i}"] for i in range(len(HARD_DOUBLES))] == HARD_DOUBLES
    assert all(type(row[f"x{i}"]) is float for i in range(len(HARD_DOUBLES)))


def test_a_spark_schema_is_read_without_a_job(spark_engine: Engine) -> None:
    """``schema_of`` on Spark takes the analysed query's schema, as ``toArrow`` converts it
    (every type the suite's tables hold, a view's computed columns too), and runs no job."""
    spark = spark_engine.connection
    table = spark_engine.load("wml_engine_zoned", ZONED)
    query = (
        f"SELECT *, CAST(1.5 AS DECIMAL(12, 3)) AS d, DATE'2024-01-02' AS day, "
        f"ARRAY(1, 2) AS a FROM {table}"
    )
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW wml_engine_typed AS {query}")
    tracker = spark.sparkContext.statusTracker()

    def jobs_so_far() -> int:
        # the tracker learns of a job from the listener bus, which delivers events behind the
        # job: drained first, a job the loads ran is not counted as schema_of's
        spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(60_000)
        return len(tracker.getJobIdsForGroup(None))

    for name in (table, "wml_engine_typed", spark_engine.load(TABLE, DATA)):
        before = jobs_so_far()
        schema = spark_engine.warehouse.schema_of(TableName((name,)))
        assert jobs_so_far() == before
        assert schema == spark.sql(f"SELECT * FROM {name} LIMIT 0").toArrow().schema
    with pytest.raises(wml.SourceError):
        spark_engine.warehouse.schema_of(TableName(("wml_no_such_table",)))


_ROW_TEXTS = {
    "duckdb": ["{'n': 1, 's': a}", "{'n': 22, 's': NULL}", "{'n': 3, 's': ccc}"],
    "postgres": ["(1,a)", "(22,)", "(3,ccc)"],
    "spark": ["1:1|1:a", "2:22|null", "1:3|3:ccc"],
}
"""Each engine's text of the rows (1, 'a'), (22, NULL), (3, 'ccc'): DuckDB's and PostgreSQL's
cast of the whole row, the portable length-prefixed cells elsewhere (warehouse_ml/sql/engines/)."""


def _digest_numbers(engine: str, text: str) -> tuple[int, int]:
    """The two checksum numbers of a row's text: DuckDB's md5_number_upper/lower (the digest's
    two halves read little-endian), elsewhere its hex digits 1-8 and 9-16."""
    digest = hashlib.md5(text.encode()).digest()
    if engine == "duckdb":
        return int.from_bytes(digest[:8], "little"), int.from_bytes(digest[8:], "little")
    return int(digest.hex()[:8], 16), int(digest.hex()[8:16], 16)


def test_checksums_sum_the_digest_numbers_of_each_rows_text(engine: Engine) -> None:
    """A checksum is the row count and the sums over rows of two numbers of the MD5 of each
    row's text (PostgreSQL by the portable digit arithmetic, Spark by CONV)."""
    sums = pa.table({"n": pa.array([1, 22, 3], pa.int64()), "s": ["a", None, "ccc"]})
    table = TableName((engine.load("wml_engine_sums", sums),))
    found = integrity.checksums(engine.warehouse, {"sums": table})["parts"]["sums"]
    texts = _ROW_TEXTS[engine.name.removesuffix("_cluster")]
    numbers = [_digest_numbers(engine.name, t) for t in texts]
    assert found == [3, sum(h for h, _ in numbers), sum(lo for _, lo in numbers)]


def test_missing_table_is_a_source_error(engine: Engine) -> None:
    with pytest.raises(wml.SourceError):
        wml.NaiveBayes().fit(engine.warehouse, "wml_no_such_table", "label")


def test_drop_removes_a_model_with_its_views(engine: Engine) -> None:
    """Views go before the tables they read (PostgreSQL refuses the other order)."""
    table = engine.load(TABLE, DATA)
    w = engine.warehouse
    model = wml.TAN().fit(w, table, "label", keys=["id"], name="engine_drop")
    view = model.create_view(w, "engine_drop_scores", table, keys=["id"])
    wml.drop(w, "engine_drop")
    assert w.resolve_existing(view) is None
    for part in model.record.parts:
        table_name = ownership.library_object(w, model.record.table(part))
        assert w.relation_kind(table_name) is None
    assert "engine_drop" not in {m["name"] for m in catalog.list_models(w)}
    assert not [o for o in wml.list_objects(w).to_pylist() if o["owner"] == "engine_drop"]


def test_refit_replaces_the_catalog_row(engine: Engine) -> None:
    """A second fit under the same name swaps the catalog row (DELETE on Spark is rewritten)."""
    table = engine.load(TABLE, DATA)
    first = wml.NaiveBayes().fit(
        engine.warehouse, table, "label", features=["colour"], name="engine_refit"
    )
    second = wml.NaiveBayes(alpha=2.0).fit(
        engine.warehouse, table, "label", features=["colour"], name="engine_refit"
    )
    rows = [m for m in catalog.list_models(engine.warehouse) if m["name"] == "engine_refit"]
    assert [r["model_id"] for r in rows] == [second.record.model_id]
    assert first.record.model_id != second.record.model_id
    old = ownership.library_object(engine.warehouse, first.record.table("classes"))
    assert engine.warehouse.relation_kind(old) is None


# -- the guest contract on every engine (docs/RELIABILITY.md) ------------------------------------
def test_a_user_object_is_never_replaced(engine: Engine) -> None:
    table = engine.load(TABLE, DATA)
    model = wml.NaiveBayes().fit(engine.warehouse, table, "label", keys=["id"], name="engine_guest")
    with pytest.raises(wml.NameConflictError):
        model.create_view(engine.warehouse, table, table, keys=["id"])
    with pytest.raises(wml.NameConflictError):
        wml.assign_folds(engine.warehouse, table, folds=3, key="id", table=table)
    assert engine.warehouse.schema_of(TableName((table,))).names == DATA.column_names
    view = model.create_view(engine.warehouse, "engine_guest_scores", table, keys=["id"])
    again = model.create_view(engine.warehouse, "engine_guest_scores", table, keys=["id"])
    assert view == again  # its own view: replaced
    wml.drop_view(engine.warehouse, view)


LONG = "x" * 61
LONG_LABELS = pa.table(
    {
        "id": pa.array(range(40), pa.int64()),
        "f": pa.array([f"v{i % 3}" for i in range(40)]),
        "label": pa.array([LONG + "ab"[i % 2] for i in range(40)]),
    }
)


def test_labels_sharing_their_first_61_bytes_name_distinct_columns(engine: Engine) -> None:
    """PostgreSQL truncates names to 63 bytes: p_ + 61 shared bytes would be one column."""
    table = engine.load("wml_engine_long_labels", LONG_LABELS)
    model = wml.NaiveBayes().fit(engine.warehouse, table, "label", keys=["id"], name="engine_long")
    view = model.create_view(engine.warehouse, "engine_long_scores", table, keys=["id", "label"])
    rows = engine.warehouse.fetch(
        "select_table", table=view, order_columns=[templates.column("id", "t")]
    )
    probabilities = [c for c in rows.column_names if c.startswith("p_")]
    assert len(probabilities) == 2 and len(set(probabilities)) == 2
    assert probabilities == model.probability_names(engine.warehouse)
    ev = wml.cross_validate(engine.warehouse, table, "label", wml.NaiveBayes(), folds=2, key="id")
    assert ev.accuracy().n == 40
    ev.drop()


def test_evaluations_leave_nothing_and_vacuum_finds_leftovers(engine: Engine) -> None:
    table = engine.load(TABLE, DATA)
    w = engine.warehouse
    model = _naive_bayes(engine)  # the model that vacuum must leave alone
    before = {o["object_name"] for o in wml.list_objects(w).to_pylist()}
    with wml.cross_validate(w, table, "label", wml.NaiveBayes(), folds=2, key="id") as ev:
        assert ev.accuracy().n == DATA.num_rows - DATA["label"].null_count
    after = {o["object_name"] for o in wml.list_objects(w).to_pylist()}
    assert after == before  # temporary tables (or, on Spark, registered ones dropped again)
    kept = wml.cross_validate(w, table, "label", wml.NaiveBayes(), folds=2, key="id", keep=True)
    assert [e["id"] for e in wml.list_evaluations(w).to_pylist()] == [kept.id]
    assert wml.load_evaluation(w, kept.id).accuracy() == kept.accuracy()
    wml.drop_evaluation(w, kept.id)
    assert wml.list_evaluations(w).num_rows == 0
    # a leftover of a killed fit: a staged version of another (ended) process, registered
    leftover = TableName(("wml", "m0123456789abcdef_classes"))
    w.run("drop_table", table=leftover)
    w.run_tree(
        templates.create_table_as(
            leftover, templates.build("select_all", source=TableName((table,)))
        )
    )
    values = [
        f'["", "wml", "{w.fold(leftover.name)}"]', '["wml", "m0123456789abcdef_classes"]',
        "table", "model", "nobody", "m0123456789abcdef", "classes", "model", "fit",
        templates.exp.cast(templates.literal("2026-01-01 00:00:00"), "TIMESTAMP"),
        f"{w.dialect}:ended|deadprocess|0", "{}",
    ]  # fmt: skip
    row = templates.values([values], "r", ownership.COLUMNS)
    w.run("insert_rows_from", table=ownership.registry(w), rows=row)
    removed = wml.vacuum(w).to_pylist()
    assert "wml.m0123456789abcdef_classes" in {r["object_name"] for r in removed}
    assert wml.load(w, model.name_).predict(w, table).num_rows == DATA.num_rows


def test_an_open_postgres_transaction_is_refused(postgres_engine: Engine) -> None:
    import psycopg

    table = postgres_engine.load(TABLE, DATA)
    model = wml.NaiveBayes().fit(
        postgres_engine.warehouse, table, "label", keys=["id"], name="engine_tx"
    )
    connection = psycopg.connect(postgres_engine.connection.info.dsn)  # autocommit off
    try:
        connection.execute(f'SELECT count(*) FROM "{table}"').fetchall()  # opens a transaction
        with pytest.raises(wml.ConnectionStateError, match="INTRANS"):
            model.predict_proba(connection, table)
        assert connection.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
        connection.commit()
        assert model.predict_proba(connection, table).num_rows == DATA.num_rows
        assert connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    finally:
        connection.close()


def test_postgres_statements_run_without_jit_and_leave_the_setting(
    postgres_engine: Engine,
) -> None:
    """Every statement of the library runs with JIT off
    (warehouse_ml/sql/engines/engine_postgres_no_jit.sql: LLVM compiles the wide statements far
    slower than PostgreSQL runs them), set for its own transaction only: the connection's setting is
    as it was."""
    connection = postgres_engine.connection
    (own,) = connection.execute("SHOW jit").fetchone()
    assert postgres_engine.warehouse._query("SHOW jit").column(0).to_pylist() == ["off"]
    assert connection.execute("SHOW jit").fetchone() == (own,)
    connection.execute("SET jit = on")
    try:
        assert postgres_engine.warehouse._query("SHOW jit").column(0).to_pylist() == ["off"]
        assert connection.execute("SHOW jit").fetchone() == ("on",)
    finally:
        connection.execute(f"SET jit = {'on' if own == 'on' else 'off'}")


def test_names_over_the_engines_identifier_length_are_one_object(postgres_engine: Engine) -> None:
    """PostgreSQL keeps the first 63 bytes of a name: two names sharing them are one object,
    for the registry too."""
    table = postgres_engine.load(TABLE, DATA)
    w = postgres_engine.warehouse
    model = wml.NaiveBayes().fit(w, table, "label", keys=["id"], name="engine_long_names")
    first = model.create_view(w, "v" * 63 + "_first", table, keys=["id"])
    second = model.create_view(w, "v" * 63 + "_second", table, keys=["id"])  # the same view
    assert [str(v) for v in wml.registered_views(w, "engine_long_names")] == [str(second)]
    w.run("drop_table", table=TableName(("u" * 63,)))
    w.run_tree(
        templates.create_table_as(
            TableName(("u" * 63,)), templates.build("select_all", source=TableName((table,)))
        )
    )
    with pytest.raises(wml.NameConflictError):
        model.create_view(w, "u" * 63 + "_longer", table, keys=["id"])
    assert first.name[:63] == second.name[:63]


# -- exported SQL on a warehouse that holds only the source table -------------------------------
def run_text(engine: Engine, sql: str) -> pa.Table:
    """Run SQL text on the engine's own connection (as a client of that warehouse would)."""
    if engine.warehouse.dialect == "spark":
        return engine.connection.sql(sql).toArrow()
    if engine.name == "postgres":
        cursor = engine.connection.execute(sql)
        names = [d.name for d in cursor.description]
        return pa.Table.from_pylist([dict(zip(names, r, strict=True)) for r in cursor.fetchall()])
    return engine.connection.sql(sql).to_arrow_table()


@pytest.mark.parametrize("kind", [wml.NaiveBayes, wml.TAN])
@on_the_cluster_too
def test_exported_sql_runs_where_only_the_source_table_is(
    engine: Engine, duckdb_engine: Engine, kind
) -> None:
    """A model fitted in DuckDB, exported for the engine: its SQL reads only the source table
    there (loaded under another name) and gives DuckDB's probabilities."""
    w = duckdb_engine.warehouse
    data = duckdb_engine.load(TABLE, DATA)
    model = kind().fit(w, data, "label", keys=["id"], name=f"export_{kind.__name__.lower()}")
    target = engine.load("wml_export_source", DATA)
    sql = model.sql(w, target, keys=["id"], dialect=engine.warehouse.dialect)
    got = run_text(engine, sql).sort_by("id")
    want = model.score_rows(w, DATA, keys=["id"]).sort_by("id")
    assert got.column_names == want.column_names
    assert_agree(got.to_pylist(), want.to_pylist())


# -- the cluster: the library's work runs on its executors --------------------------------------
def executor_tasks(spark: Any) -> dict[str, int]:
    """The tasks each executor of the session has run, by executor id (the driver left out),
    once the events of the jobs run so far are counted."""
    context = spark.sparkContext._jsc.sc()
    context.listenerBus().waitUntilEmpty()
    executors = context.statusStore().executorList(True)
    summaries = [executors.apply(i) for i in range(executors.size())]
    return {e.id(): e.totalTasks() for e in summaries if e.id() != "driver"}


def test_a_spark_cluster_session_runs_the_library_on_two_executors(
    spark_cluster_engine: Engine,
) -> None:
    """The session is a standalone cluster's (``spark://``) with two executors, and a fit and
    a scoring run tasks on both of them."""
    spark = spark_cluster_engine.connection
    assert spark.sparkContext.master.startswith("spark://127.0.0.1:")
    registered = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size()
    assert registered - 1 == 2  # the driver's block manager is registered too
    before = executor_tasks(spark)
    model = _fit(spark_cluster_engine, wml.NaiveBayes(), "engine_cluster_nb")
    assert model.predict_proba(spark_cluster_engine.warehouse, TABLE).num_rows == DATA.num_rows
    after = executor_tasks(spark)
    assert len(after) == 2 and all(after[e] > before.get(e, 0) for e in after), after


# -- the README's engine blocks, as written (tests/package/test_readme.py runs the DuckDB tour) --
@pytest.fixture(scope="module")
def demo_folder(tmp_path_factory) -> Path:
    """A folder with the demo's ``demo.duckdb``, as the README's tour has it."""
    folder = tmp_path_factory.mktemp("demo")
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli_main(["demo", "--db", str(folder / "demo.duckdb"), "--rows", "4000"]) == 0
    return folder


def demo_table(folder: Path, name: str) -> pa.Table:
    connection = duckdb.connect(str(folder / "demo.duckdb"), read_only=True)
    try:
        return connection.table(name).to_arrow_table()
    finally:
        connection.close()


def run_readme_blocks(engine: str, namespace: dict) -> None:
    blocks = readme_blocks(engine)
    assert blocks, f"README.md has no block for {engine}"
    for block in blocks:
        exec(block.compiled(), namespace)


def test_readme_postgres_block_runs_as_written(
    postgres_engine: Engine, demo_folder: Path, monkeypatch
) -> None:
    w = postgres_engine.warehouse
    for name in DEMO_TABLES:
        postgres_engine.load(name, demo_table(demo_folder, name))
    info = postgres_engine.connection.info
    for variable, value in {
        "PGHOST": info.host, "PGPORT": str(info.port), "PGUSER": info.user,
        "PGDATABASE": info.dbname,
    }.items():  # fmt: skip
        monkeypatch.setenv(variable, value)
    namespace: dict = {}
    try:
        run_readme_blocks("postgres", namespace)
        rows = w.connection.execute(
            "SELECT count(*), count(p_yes), count(prediction) FROM public.churn_scores"
        ).fetchall()
        assert rows == [(demo_table(demo_folder, "new_customers").num_rows,) * 3]
    finally:
        if "con" in namespace:
            namespace["con"].close()
        wml.drop(w, "naive_bayes_churned")


def test_readme_spark_block_runs_as_written(
    spark_engine: Engine, demo_folder: Path, monkeypatch
) -> None:
    monkeypatch.chdir(demo_folder)
    spark = spark_engine.connection
    namespace: dict = {}
    try:
        run_readme_blocks("spark", namespace)
        rows = spark.sql("SELECT count(*), count(prediction) FROM churn_scores").collect()
        assert tuple(rows[0]) == (demo_table(demo_folder, "customers").num_rows,) * 2
    finally:
        if "demo" in namespace:
            namespace["demo"].close()
        if "tan_churned" in {m["name"] for m in catalog.list_models(spark_engine.warehouse)}:
            wml.drop(spark_engine.warehouse, "tan_churned")
        spark.sql("DROP TABLE IF EXISTS customers")
