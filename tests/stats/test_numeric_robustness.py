"""Numeric robustness (issue 6 item 6): log space throughout, a documented floor for the log
score, and results that do not depend on the run or on DuckDB's thread count.

Oracles are numpy log-space references written here: log P(c) + sum_i log P(a_i | c) from
counts, normalised with the max-shift log-sum-exp.
"""

from __future__ import annotations

import math
from fractions import Fraction

import duckdb
import numpy as np
import pyarrow as pa
import pytest

import warehouse_ml as wml
from warehouse_ml.errors import ParameterError
from warehouse_ml.evaluation.loo import cross_validate_leave_one_out
from warehouse_ml.evaluation.metrics import DEFAULT_FLOOR
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, create_table_as
from warehouse_ml.stats import counting
from warehouse_ml.stats.moments import numeric_moments


def log_posterior(joint: np.ndarray) -> np.ndarray:
    """Rows of joint log scores -> natural-log posteriors (max-shift log-sum-exp)."""
    top = joint.max(axis=1, keepdims=True)
    return joint - top - np.log(np.exp(joint - top).sum(axis=1, keepdims=True))


# -- 1,000 attributes -----------------------------------------------------------------------------
def wide_data(
    n: int = 150, d: int = 1000, seed: int = 3
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """``d`` three-valued categorical attributes, each weakly dependent on a 2-class target."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    shifts = rng.integers(0, 3, d)
    noise = rng.random((n, d)) < 0.4
    codes = (y[:, None] + shifts[None, :] + noise * rng.integers(1, 3, (n, d))) % 3
    return {f"a{j}": codes[:, j] for j in range(d)}, y


def nb_reference(
    columns: dict[str, np.ndarray], y: np.ndarray, rows: dict[str, np.ndarray], alpha: float
) -> np.ndarray:
    """Joint log scores of ``rows`` under Naive Bayes learned from (columns, y): prior n_c / N,
    P(v | c) = (n_vc + alpha) / (n_c + alpha |X|), |X| the attribute's distinct training values.
    """
    classes = np.unique(y)
    n_c = np.array([(y == c).sum() for c in classes], dtype=float)
    n_rows = len(next(iter(rows.values())))
    joint = np.tile(np.log(n_c / n_c.sum()), (n_rows, 1))
    for name, values in columns.items():
        seen = np.unique(values)
        for k, c in enumerate(classes):
            counts = np.array([((values == v) & (y == c)).sum() for v in seen], dtype=float)
            log_p = np.log((counts + alpha) / (n_c[k] + alpha * len(seen)))
            joint[:, k] += log_p[np.searchsorted(seen, rows[name])]
    return joint


def test_1000_attributes_match_a_log_space_reference_where_a_product_underflows(con):
    columns, y = wide_data()
    table = pa.table({**{k: pa.array([f"v{c}" for c in v]) for k, v in columns.items()},
                      "cls": pa.array([f"c{v}" for v in y])})  # fmt: skip
    con.register("wide_arrow", table)
    con.execute("CREATE TABLE wide AS SELECT * FROM wide_arrow")
    model = wml.NaiveBayes(alpha=1.0).fit(con, "wide", "cls")
    scored = table.slice(0, 12)
    proba = model.predict_proba(con, scored)

    strings = {k: np.array([f"v{c}" for c in v]) for k, v in columns.items()}
    rows = {k: v[:12] for k, v in strings.items()}
    joint = nb_reference(strings, y, rows, alpha=1.0)
    expected = np.exp(log_posterior(joint))
    got = np.column_stack([proba[c].to_numpy() for c in proba.column_names])
    assert proba.column_names == ["p_c0", "p_c1"]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    # the test is hard: every joint score is far below log(smallest double), so a product of
    # probabilities is 0 for both classes and its normalisation would be 0/0
    assert joint.max() < math.log(np.finfo(float).tiny)
    assert np.all(np.exp(joint) == 0.0)


# -- probabilities near 0 and 1 -------------------------------------------------------------------
def separated(con: duckdb.DuckDBPyConnection) -> tuple[np.ndarray, np.ndarray]:
    """Table ``sep`` (x DOUBLE, cls): class a around 0, class b around 60 (sd about 1)."""
    x = np.array([-1.0, 0.0, 1.0, 0.5, -0.5, 59.0, 60.0, 61.0, 60.5, 59.5])
    y = np.array(["a"] * 5 + ["b"] * 5)
    con.register("sep_arrow", pa.table({"x": x, "cls": y}))
    con.execute("CREATE TABLE sep AS SELECT * FROM sep_arrow")
    return x, y


def gaussian_reference(x: np.ndarray, y: np.ndarray, scored: np.ndarray) -> np.ndarray:
    """Joint log scores under Gaussian NB (population variance, floor 1e-9 x largest overall
    variance as scikit-learn's GaussianNB), prior n_c / N."""
    classes = np.unique(y)
    floor = 1e-9 * x.var()
    joint = np.empty((len(scored), len(classes)))
    for k, c in enumerate(classes):
        values = x[y == c]
        mean, var = values.mean(), values.var() + floor
        joint[:, k] = (
            math.log(len(values) / len(x))
            - 0.5 * np.log(2 * np.pi * var)
            - (scored - mean) ** 2 / (2 * var)
        )
    return joint


def test_probabilities_near_0_and_1_stay_finite_in_log_space(con):
    x, y = separated(con)
    model = wml.NaiveBayes().fit(con, "sep", "cls")
    scored = np.array([0.0, 30.0, 31.0, 60.0, -200.0, 1e6])
    source = pa.table({"x": scored})
    log_proba = model.predict_log_proba(con, source)
    proba = model.predict_proba(con, source)
    expected = log_posterior(gaussian_reference(x, y, scored))
    got = np.column_stack([log_proba[c].to_numpy() for c in ("p_a", "p_b")])
    # log posteriors far below log(tiny) (-1.2e8 for x = 1e6) are exact, not -inf
    assert np.all(np.isfinite(got)) and got.min() < -1e8
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)
    p = np.column_stack([proba[c].to_numpy() for c in ("p_a", "p_b")])
    assert not np.isnan(p).any()
    np.testing.assert_allclose(p, np.exp(expected), rtol=0, atol=1e-12)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert p[0, 1] == 0.0 and p[0, 0] == 1.0  # exp(-1800) underflows to an exact 0, no NaN
    assert 0.0 < p[2, 0] < 1e-50  # a tiny but representable probability is kept, accurately
    assert p[2, 0] == pytest.approx(math.exp(expected[2, 0]), rel=1e-9)


@pytest.mark.engines
def test_probabilities_near_0_and_1_on_postgresql(postgres_conninfo):
    import psycopg

    with psycopg.connect(postgres_conninfo, autocommit=True) as pg:
        x, y = separated(duckdb.connect())
        model = wml.NaiveBayes().fit(pg, pa.table({"x": x, "cls": y}), "cls", name="near")
        proba = model.predict_proba(pg, pa.table({"x": [0.0, 60.0]}))
        assert proba.to_pylist() == [{"p_a": 1.0, "p_b": 0.0}, {"p_a": 0.0, "p_b": 1.0}]


# -- Gaussian moments at any magnitude ------------------------------------------------------------
def outlier_data(n: int = 4000, seed: int = 29) -> tuple[np.ndarray, np.ndarray]:
    """Three overlapping classes over two numeric attributes (x0 with a spread of 0.05), and one
    1e25 outlier in x0 of the first row of class 2."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    x = rng.normal(loc=y[:, None] * [0.02, -0.5], scale=[0.05, 1.0], size=(n, 2))
    x[np.flatnonzero(y == 2)[0], 0] = 1e25
    return x, y


def test_a_1e25_outlier_leaves_the_other_classes_moments_exact(con):
    """With var_smoothing=0 (no floor to hide errors), one 1e25 value in class 2: every mean,
    variance and probability equals scikit-learn's GaussianNB. A scale over all rows (before
    per-class scales) rounded the other classes' x0 to 0.1: 49 of 4,000 predictions differed,
    means by up to 16 relative."""
    from sklearn.naive_bayes import GaussianNB

    x, y = outlier_data()
    table = pa.table({"x0": x[:, 0], "x1": x[:, 1], "y": y})
    model = wml.NaiveBayes(var_smoothing=0).fit(con, table, "y")
    oracle = GaussianNB(var_smoothing=0).fit(x, y)
    gaussian = model.parameters(con)["gaussian"]  # sorted by attribute, then class
    means = gaussian["mean"].to_numpy().reshape(2, 3).T  # rows: classes, columns: x0, x1
    variances = gaussian["variance"].to_numpy().reshape(2, 3).T
    np.testing.assert_allclose(means, oracle.theta_, rtol=1e-9, atol=0)
    np.testing.assert_allclose(variances, oracle.var_, rtol=1e-9, atol=0)
    proba = model.predict_proba(con, table)
    ours = np.column_stack([proba[c].to_numpy() for c in proba.column_names])
    np.testing.assert_allclose(ours, oracle.predict_proba(x), rtol=1e-9, atol=1e-12)
    predicted = model.predict(con, table)["prediction"].to_numpy()
    assert (predicted != oracle.predict(x)).sum() == 0


def test_cross_validation_with_a_1e25_outlier_equals_refits_of_every_fold(con):
    """Cross-validation learns every fold from per-fold moments (scaled per class and fold) pooled
    over the other folds
    (warehouse_ml/sql/models/learners/bayes/naive_bayes/select_moments_outside_partitions.sql): each
    fold's predictions equal scikit-learn's GaussianNB fitted on the other folds' rows."""
    from sklearn.naive_bayes import GaussianNB

    x, y = outlier_data(n=1200)
    table = pa.table({"id": np.arange(len(y)), "x0": x[:, 0], "x1": x[:, 1], "y": y})
    ev = wml.cross_validate(con, table, "y", wml.NaiveBayes(var_smoothing=0), folds=3, key="id")
    rows = ev.to_arrow().sort_by("id")
    fold = rows["fold"].to_numpy()
    ours = np.column_stack([rows[f"p_{c}"].to_numpy() for c in range(3)])
    for f in range(3):
        oracle = GaussianNB(var_smoothing=0).fit(x[fold != f], y[fold != f])
        expected = oracle.predict_proba(x[fold == f])
        np.testing.assert_allclose(ours[fold == f], expected, rtol=1e-9, atol=1e-12)


def test_leave_one_out_of_the_value_that_dominates_its_class_is_exact(con):
    """Leave-one-out with var_smoothing=0 equals scikit-learn's GaussianNB refitted without each
    row, for every row, the 1e25 outlier of class 2 included: downdating the class's moments by
    that value cancelled every digit of its mean and variance (NaN probabilities); its row now
    gets the exact moments of the class's other values."""
    from sklearn.naive_bayes import GaussianNB

    x, y = outlier_data(n=240, seed=4)
    table = pa.table({"id": np.arange(len(y)), "x0": x[:, 0], "x1": x[:, 1], "y": y})
    ev = cross_validate_leave_one_out(con, table, "y", wml.NaiveBayes(var_smoothing=0), key="id")
    rows = ev.to_arrow().sort_by("id")
    ours = np.column_stack([rows[f"p_{c}"].to_numpy() for c in range(3)])
    expected = np.vstack(
        [
            GaussianNB(var_smoothing=0)
            .fit(np.delete(x, r, axis=0), np.delete(y, r))
            .predict_proba(x[r : r + 1])
            for r in range(len(y))
        ]
    )
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-9)
    assert rows["prediction"].to_pylist() == expected.argmax(axis=1).tolist()


def exact_moments(values: list[float]) -> tuple[float, float]:
    """Mean and population variance of ``values``, computed exactly (Fractions) and rounded once
    to the nearest double (inf where it overflows)."""
    exact = [Fraction(v) for v in values]
    mean = sum(exact) / len(exact)
    variance = sum((v - mean) ** 2 for v in exact) / len(exact)

    def rounded(q: Fraction) -> float:
        try:
            return float(q)
        except OverflowError:
            return math.inf

    return rounded(mean), rounded(variance)


MAGNITUDES = {"e-300": 1e-300, "e-150": 1e-150, "e-20": 1e-20, "e0": 1.0, "e20": 1e20,
              "e150": 1e150, "e300": 1e300, "minus_e100": -1e100}  # fmt: skip


@pytest.fixture
def magnitudes(con) -> tuple[list[float], list[str], list[int]]:
    """Table ``spread`` (x DOUBLE, y, fold): one class per magnitude from 1e-300 to 1e300 (60
    values in [m, 2m) each), and class ``mixed``: 1e25 among 59 values near 1; folds 0..2."""
    rng = np.random.default_rng(8)
    x: list[float] = []
    y: list[str] = []
    for label, magnitude in MAGNITUDES.items():
        x += list(magnitude * (1 + rng.random(60)))
        y += [label] * 60
    x += [1e25, *rng.normal(1.0, 0.5, 59)]
    y += ["mixed"] * 60
    fold = [int(f) for f in rng.integers(0, 3, len(x))]
    con.register("spread_arrow", pa.table({"x": x, "y": y, "fold": fold}))
    con.execute("CREATE TABLE spread AS SELECT * FROM spread_arrow")
    return x, y, fold


def assert_moments(row: dict, values: list[float]) -> None:
    """A moments row (mean, variance) equals the exact moments of ``values`` to 1e-15."""
    mean, variance = exact_moments(values)
    where = f"class {row['class_label']} {row.get('wml_part', '')}"
    assert row["n"] == len(values), where
    assert row["mean"] == pytest.approx(mean, rel=1e-15, abs=0), where
    if math.isinf(variance) or variance == 0.0:  # 1e300 x 1e300 overflows, 1e-600 underflows
        assert row["variance"] == variance, where
    else:
        assert row["variance"] == pytest.approx(variance, rel=1e-15, abs=0), where


def test_moments_of_classes_from_1e_minus_300_to_1e300_are_exact(con, magnitudes):
    """Per-class means and variances, and the pooled moments of cross-validation folds, equal
    exact Fraction moments rounded to DOUBLE within 1e-15 relative, for classes whose
    magnitudes span 1e-300..1e300 (and a class holding 1e25 among values near 1). A scale over
    all rows made every class below 1e274 all zeros."""
    x, y, fold = magnitudes
    warehouse = wml.connect(con)
    source = TableName(("spread",)).to_table()
    rows = warehouse.fetch_tree(numeric_moments(source, "y", ["x"])).to_pylist()
    assert sorted(r["class_label"] for r in rows) == sorted({*MAGNITUDES, "mixed"})
    for row in rows:
        assert_moments(row, [v for v, c in zip(x, y, strict=True) if c == row["class_label"]])

    per_fold = TableName(("spread_fold_moments",))
    warehouse.run_tree(
        create_table_as(per_fold, numeric_moments(source, "y", ["x"], partition="fold"))
    )
    pooled = warehouse.fetch_tree(
        templates.build(
            "select_moments_outside_partitions",
            per_partition=per_fold,
            partitions=templates.values(
                [(p, p) for p in range(3)], "p", ("wml_part", "wml_held_out")
            ),
            count_type=counting.count_type(None),
        )
    ).to_pylist()
    assert len(pooled) == 3 * len(rows)
    for row in pooled:
        assert_moments(
            row,
            [v for v, c, f in zip(x, y, fold, strict=True)
             if c == row["class_label"] and f != row["wml_part"]],
        )  # fmt: skip


# -- the log score floor --------------------------------------------------------------------------
def test_log_score_of_p_zero_uses_the_documented_floor(con):
    truth = ["y", "y", "n", "n", "y"]
    p_y = [0.0, 1.0, 1.0, None, 0.7]  # true class has p = 0, 1, 0, NULL (counts as the floor), 0.7
    con.register(
        "scored_arrow",
        pa.table({"cls": truth, "p_n": [None if p is None else 1 - p for p in p_y], "p_y": p_y}),
    )
    con.execute("CREATE TABLE scored AS SELECT * FROM scored_arrow")
    p_true = np.array([0.0, 1.0, 0.0, np.nan, 0.7])
    for floor in (DEFAULT_FLOOR, 1e-3):
        clipped = np.clip(np.nan_to_num(p_true, nan=floor), floor, 1 - floor)
        score = wml.log_score(con, "scored", target="cls", floor=floor)
        assert score.n == 5
        assert score.total == pytest.approx(-np.log(clipped).sum(), rel=1e-12)
        assert score.mean == pytest.approx(score.total / 5, rel=1e-12)
        assert math.isfinite(score.total)
    # DEFAULT_FLOOR is float64 epsilon: -ln(eps) = 36.04 nats for each p = 0
    assert np.finfo(np.float64).eps == DEFAULT_FLOOR
    assert wml.log_score(con, "scored", target="cls").total == pytest.approx(
        3 * -math.log(DEFAULT_FLOOR) - math.log(1 - DEFAULT_FLOOR) - math.log(0.7), rel=1e-12
    )
    for bad in (0.0, 0.5, -1.0, float("nan")):
        with pytest.raises(ParameterError, match="floor must be within"):
            wml.log_score(con, "scored", target="cls", floor=bad)


# -- determinism across runs and thread counts -----------------------------------------------------
THREADS = (1, 2, 4, 2)
"""DuckDB thread counts of the runs compared: 1, 2 and 4, and 2 again (a repeated run)."""


@pytest.fixture(scope="module")
def large(tmp_path_factory) -> duckdb.DuckDBPyConnection:
    """A file-backed database stored in row groups of 2,048 rows, so that scans and aggregates
    over its 60,000-row table ``big`` are split between threads: key, four categorical and two
    numeric attributes, class; and ``sample``, its first 2,000 rows."""
    folder = tmp_path_factory.mktemp("determinism")
    con = duckdb.connect()
    con.execute(f"ATTACH '{folder / 'd.duckdb'}' AS d (ROW_GROUP_SIZE 2048)")
    con.execute("USE d")
    rng = np.random.default_rng(17)
    n = 60_000
    y = rng.integers(0, 3, n)
    data = {
        "id": np.arange(n),
        **{
            f"c{j}": np.char.add("v", ((y + rng.integers(0, 2 + j, n)) % (3 + j)).astype(str))
            for j in range(4)
        },
        "x0": rng.normal(y * 0.7, 1.0),
        "x1": rng.gamma(2.0 + y, 1.5),
        "cls": np.char.add("k", y.astype(str)),
    }
    con.register("big_arrow", pa.table(data))
    con.execute("CREATE TABLE big AS SELECT * FROM big_arrow")
    con.execute("CREATE TABLE sample AS SELECT * FROM big WHERE id < 2000")
    con.unregister("big_arrow")
    con.execute("CHECKPOINT")
    yield con
    con.close()


def outputs(
    con: duckdb.DuckDBPyConnection, threads: int, kind: type, cv: bool = True, **options
) -> dict:
    """What a fit produces at ``threads`` DuckDB threads: each parameter table, predict_proba,
    for TAN the tree; with ``cv``, the pooled predictions of a 2-fold cross-validation and
    their AUCs."""
    con.execute(f"SET threads = {int(threads)}")
    model = kind().fit(con, "big", "cls", keys=["id"], name=f"det_{kind.kind}", **options)
    result = {f"parameters.{part}": table for part, table in model.parameters(con).items()}
    result["predict_proba"] = model.predict_proba(con, "sample")
    if kind is wml.TAN:
        result["parents"] = model.parents_
    if not cv:
        return result
    ev = wml.cross_validate(con, "big", "cls", kind(), folds=2, key="id", **options)
    result["cv_predictions"] = con.sql(
        f"SELECT * FROM {ev.predictions} ORDER BY id"
    ).to_arrow_table()
    result["auc"] = ev.auc("k1")
    result["ovr_auc"] = ev.ovr_auc()
    return result


def differing(runs: list[dict]) -> set[str]:
    """The outputs (by name) that are not bit-identical in every run."""
    first = runs[0]
    return {
        name for name in first
        if any(not _identical(first[name], other[name]) for other in runs[1:])
    }  # fmt: skip


def _identical(a, b) -> bool:
    if isinstance(a, pa.Table):
        return a.schema == b.schema and a.equals(b)
    return a == b


@pytest.fixture(scope="module")
def runs(large) -> dict[str, list[dict]]:
    """Outputs of each model at every thread count in THREADS (computed once per module)."""
    return {
        "categorical_nb": [
            outputs(large, t, wml.NaiveBayes, features=["c0", "c1", "c2", "c3"]) for t in THREADS
        ],
        "nb": [outputs(large, t, wml.NaiveBayes, cv=False) for t in THREADS],
        "tan": [outputs(large, t, wml.TAN, cv=False) for t in THREADS],
    }


def test_categorical_naive_bayes_is_bit_identical_across_runs_and_threads(runs):
    assert differing(runs["categorical_nb"]) == set()


def test_tan_is_bit_identical_across_runs_and_threads(runs):
    assert {"parameters.cpt", "parameters.bins", "parents"} <= set(runs["tan"][0])
    assert differing(runs["tan"]) == set()


def test_gaussian_naive_bayes_is_bit_identical_across_runs_and_threads(runs):
    assert differing(runs["nb"]) == set()
