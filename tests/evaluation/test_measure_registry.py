"""The measure registry (warehouse_ml/evaluation/metrics/registry.py): one entry per measure,
and everything derived from it — the public function, Evaluation.measure and the named
Evaluation methods, the rows of ``warehouse-ml evaluate``, model selection's criteria and the
measure views."""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import pyarrow as pa
import pytest
from conftest import FIXTURES
from sqlglot import exp

import warehouse_ml as wml
from warehouse_ml.cli import main
from warehouse_ml.errors import ParameterError
from warehouse_ml.evaluation import metrics
from warehouse_ml.evaluation.metrics import registry
from warehouse_ml.evaluation.metrics.spec import prepared
from warehouse_ml.evaluation.result import Evaluation
from warehouse_ml.sqlgen.templates import alias, literal

TENNIS = str(FIXTURES / "play_tennis.csv")
BINARY = {0: "p0", 1: "p1"}


# -- one new entry alone ----------------------------------------------------------------------
@dataclass(frozen=True)
class RowCount:
    n: int
    weighted: float


def _row_count_query(spec, src, factor: float = 1.0) -> exp.Query:
    """n (BIGINT, rows with a known true class) and weighted (DOUBLE, n * factor)."""
    rows = exp.Count(this=exp.Star())
    known = exp.Not(this=exp.Is(this=exp.column("wml_truth", "p"), expression=exp.null()))
    return (
        exp.select(
            alias(exp.cast(rows, exp.DataType.Type.BIGINT), "n"),
            alias(exp.Mul(this=rows.copy(), expression=literal(float(factor))), "weighted"),
        )
        .from_(prepared(spec, src).subquery("p"))
        .where(known)
    )


ROW_COUNT = registry.Measure(
    "row_count",
    _row_count_query,
    doc="The number of rows with a known true class, and that number times ``factor``.",
    options=(registry.Option("factor", 1.0, "float"),),
    result=registry.row_as(RowCount, "the row count"),
    returns="RowCount",
    report=registry.Report(
        section="scalar measures",
        text=lambda r: f"rows with a known class {r.n}",
    ),
    criterion=registry.Criterion("rows", lambda r: r.weighted, larger_is_better=True),
)


@pytest.fixture
def row_count():
    function = metrics.register(ROW_COUNT)
    yield function
    metrics.unregister("row_count")
    assert "row_count" not in registry.names()


def _scores(con) -> None:
    data = pa.table({"y": [0, 1, 1, None, 0], "p0": [0.9, 0.2, 0.4, 0.5, 0.6]})
    con.register("arrow_scores", data.append_column("p1", pa.array([0.1, 0.8, 0.6, 0.5, 0.4])))
    con.execute("CREATE TABLE scores AS SELECT * FROM arrow_scores")


def test_one_entry_gives_the_function(con, row_count):
    _scores(con)
    assert metrics.row_count is row_count is registry.function("row_count")
    assert row_count.__doc__ == ROW_COUNT.doc
    assert str(inspect.signature(row_count)) == (
        "(con: 'Connectable', predictions: 'SourceLike', *, target: 'str', "
        "probabilities: 'Mapping[Any, str] | None' = None, weight: 'str | None' = None, "
        "factor: 'float' = 1.0) -> 'RowCount'"
    )
    result = row_count(con, "scores", target="y", probabilities=BINARY, factor=2.5)
    assert result == RowCount(4, 10.0)
    with pytest.raises(TypeError):
        row_count(con, "scores", target="y", probabilities=BINARY, prediction="p0")


def test_one_entry_gives_a_measure_view_and_its_sql(con, row_count):
    _scores(con)
    wml.create_measure_view(
        con, "v_rows", "row_count", "scores", target="y", probabilities=BINARY, factor=3.0
    )
    assert con.sql("SELECT n, weighted FROM v_rows").fetchall() == [(4, 12.0)]
    for dialect in ("postgres", "spark"):
        sql = wml.measure_sql(
            con, "row_count", "scores", target="y", probabilities=BINARY, dialect=dialect
        )
        assert "COUNT(*)" in sql.upper()


def test_one_entry_gives_evaluation_measure_the_report_row_and_a_criterion(
    con, row_count, tmp_path, capsys
):
    evaluation = wml.cross_validate(con, TENNIS, "play", wml.NaiveBayes(), folds=7, key="day")
    assert evaluation.measure("row_count") == RowCount(14, 14.0)
    assert evaluation.measure("row_count", factor=0.5).weighted == 7.0

    db = str(tmp_path / "w.duckdb")
    args = ["evaluate", TENNIS, "--target", "play", "--keys", "day", "--folds", "7", "--db", db]
    assert main(args) == 0
    report = capsys.readouterr().out
    assert report.endswith("\n== scalar measures\nrows with a known class 14\n")

    selection = wml.select_model(
        con, TENNIS, "play", [wml.NaiveBayes(), wml.TAN()], measure="rows", key="day", folds=7
    )
    assert selection.comparison.column("value").to_pylist() == [14.0, 14.0]
    assert selection.comparison.column("chosen").to_pylist() == [True, False]


def test_registering_checks_the_entry(row_count):
    with pytest.raises(ParameterError, match="registered already"):
        metrics.register(ROW_COUNT)
    with pytest.raises(ParameterError, match="no option 'positive'"):
        metrics.register(
            registry.Measure(
                "broken", _row_count_query, doc="", method=registry.Method("b", ("positive",))
            )
        )
    assert "broken" not in registry.names()
    with pytest.raises(ParameterError, match="unknown measure 'nope'"):
        registry.entry("nope")


# -- the library's own entries ------------------------------------------------------------------
def test_every_measure_has_exactly_one_entry():
    entries = [e.name for e in registry.entries()]
    assert len(entries) == len(set(entries))
    assert tuple(sorted(entries)) == metrics.MEASURES == registry.names()


def test_public_functions_are_the_registrys():
    for name in metrics.MEASURES:
        function = registry.function(name)
        assert getattr(metrics, name) is function
        assert function.__doc__ == registry.entry(name).doc
        assert inspect.signature(function) == registry.entry(name).signature()
        if name in wml.__all__:
            assert getattr(wml, name) is function


EVALUATION_METHODS = {
    "accuracy": ("accuracy", "(self, level: 'float' = 0.95) -> 'Accuracy'"),
    "confusion_matrix": ("confusion_matrix", "(self) -> 'pa.Table'"),
    "class_measures": ("class_measures", "(self, beta: 'float' = 1.0) -> 'pa.Table'"),
    "averaged_measures": ("averaged_measures", "(self, beta: 'float' = 1.0) -> 'pa.Table'"),
    "roc_curve": (
        "roc_curve",
        "(self, positive: 'Any' = None, max_points: 'int | None' = None) -> 'pa.Table'",
    ),
    "precision_recall_curve": (
        "precision_recall_curve",
        "(self, positive: 'Any' = None, max_points: 'int | None' = None) -> 'pa.Table'",
    ),
    "calibration": (
        "calibration",
        "(self, positive: 'Any' = None, bins: 'int' = 10) -> 'pa.Table'",
    ),
    "best_threshold": (
        "best_threshold",
        "(self, positive: 'Any' = None, cost_ratio: 'float | None' = None, "
        "target_recall: 'float | None' = None) -> 'Threshold'",
    ),
    "auc": ("roc_auc", "(self, positive: 'Any' = None) -> 'Auc'"),
    "ovr_auc": ("ovr_auc", "(self) -> 'OvrAuc'"),
    "average_precision": (
        "average_precision",
        "(self, positive: 'Any' = None) -> 'AveragePrecision'",
    ),
    "lift_table": (
        "lift_table",
        "(self, positive: 'Any' = None, quantiles: 'int | Sequence[float]' = 10) -> 'pa.Table'",
    ),
    "log_score": ("log_score", "(self) -> 'ScoringRule'"),
    "brier_score": ("brier_score", "(self) -> 'ScoringRule'"),
    "expected_loss": (
        "expected_loss",
        "(self, loss: 'Sequence[Sequence[float]]') -> 'LossSummary'",
    ),
}
"""Evaluation's named methods: name -> (measure, signature): those before the registry, with
the curves' ``max_points``, ``precision_recall_curve``, ``calibration`` and
``best_threshold`` added since."""


def test_evaluation_methods_are_the_registrys():
    derived = {e.method.name: e.name for e in registry.entries() if e.method is not None}
    assert derived == {method: measure for method, (measure, _) in EVALUATION_METHODS.items()}
    for method, (measure, signature) in EVALUATION_METHODS.items():
        bound = getattr(Evaluation, method)
        assert str(inspect.signature(bound)) == signature
        assert inspect.signature(bound) == registry.entry(measure).method_signature()


def test_evaluation_methods_equal_the_functions(con):
    evaluation = wml.cross_validate(con, TENNIS, "play", wml.NaiveBayes(), folds=7, key="day")
    columns = {
        "target": evaluation.target,
        "probabilities": dict(zip(evaluation.classes, evaluation.probability_columns, strict=True)),
    }
    decisions = {**columns, "prediction": "prediction"}
    table = evaluation.predictions
    assert evaluation.auc("yes") == wml.roc_auc(con, table, positive="yes", **columns)
    assert evaluation.expected_loss([[0, 1], [2, 0]]) == wml.expected_loss(
        con, table, loss=[[0, 1], [2, 0]], **decisions
    )
    assert evaluation.accuracy(0.9) == wml.accuracy(con, table, level=0.9, **decisions)
    assert evaluation.lift_table(quantiles=4).equals(
        wml.lift_table(con, table, quantiles=4, **columns)
    )


def test_selection_criteria_come_from_entries():
    found = {name: [m for m, _ in chosen] for name, chosen in registry.criteria().items()}
    assert found == {
        "error": ["accuracy"],
        "auc": ["roc_auc", "ovr_auc"],
        "log_score": ["log_score"],
        "brier": ["brier_score"],
        "expected_loss": ["expected_loss"],
    }
    with pytest.raises(ParameterError, match="needs a loss matrix"):
        wml.select_model(None, TENNIS, "play", [wml.NaiveBayes()], measure="expected_loss")
