"""Exact leave-one-out for Naive Bayes (one fit, one scoring query) equals refitting on the n-1
other rows, for every row.

Two oracles: the warehouse itself (``NaiveBayes.fit`` on the n-1 rows, then ``predict_proba``
of the left-out row, looped over every row: slow, so for two settings) and a plain-Python refit
written here (every row, every smoothing setting).
"""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest
from conftest import load_text_csv

import warehouse_ml as wml
from warehouse_ml.evaluation import crossval, loo

N_ROWS = 40


def _mixed_rows(n: int = N_ROWS, seed: int = 11) -> list[dict]:
    """n rows with a class, plus two NULL-target rows: categorical a (text, NULLs, values that
    occur once), b (integer, NULLs), numeric x (NULLs). Every class has >= 2 rows."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        y = ["c0", "c1", "c2"][i % 3]
        a = None if rng.random() < 0.1 else f"v{(i % 3 + rng.integers(0, 3)) % 4}"
        if i in (5, 17, 29):
            a = f"once{i}"  # seen only in this row: unseen in its own fold
        b = None if rng.random() < 0.1 else int((i % 3) * 2 + rng.integers(0, 2))
        x = None if rng.random() < 0.1 else float((i % 3) * 1.3 + rng.normal())
        rows.append({"id": i * 3 + 1, "a": a, "b": b, "x": x, "y": y})
    rows.append({"id": 1000, "a": "v1", "b": 1, "x": 0.5, "y": None})
    rows.append({"id": 1001, "a": "zz", "b": None, "x": None, "y": None})
    return rows


def _table(rows: list[dict]) -> pa.Table:
    return pa.table(
        {
            "id": pa.array([r["id"] for r in rows], pa.int64()),
            "a": pa.array([r["a"] for r in rows], pa.string()),
            "b": pa.array([r["b"] for r in rows], pa.int64()),
            "x": pa.array([r["x"] for r in rows], pa.float64()),
            "y": pa.array([r["y"] for r in rows], pa.string()),
        }
    )


def refit_proba(
    rows: list[dict],
    left_out: int,
    *,
    categorical: tuple[str, ...],
    numeric: tuple[str, ...],
    alpha: float,
    prior_alpha: float,
    m: float,
    var_smoothing: float,
    epsilon: float | None = None,
) -> list[float]:
    """Plain-Python Naive Bayes fitted on every row with a class but ``rows[left_out]``, scoring
    that row: its class probabilities (classes of the full data, sorted; NaN when every class is
    impossible). ``epsilon`` overrides the fold's variance floor (e.g. the full-data one)."""
    classes = sorted({r["y"] for r in rows if r["y"] is not None})
    k = len(classes)
    train = [r for i, r in enumerate(rows) if i != left_out and r["y"] is not None]
    test = rows[left_out]
    n_class = [sum(r["y"] == c for r in train) for c in classes]
    joint = []
    for c in range(k):
        numerator = n_class[c] + prior_alpha
        joint.append(
            math.log(numerator) - math.log(len(train) + prior_alpha * k) if numerator else -math.inf
        )
    for a in categorical:
        seen = {str(r[a]) for r in train if r[a] is not None}
        x = test[a]
        if x is None:
            continue
        size = len(seen)
        for c in range(k):
            n_c = sum(r[a] is not None and r["y"] == classes[c] for r in train)
            denominator = n_c + alpha * size + m
            if str(x) in seen:
                n_xc = sum(
                    r[a] is not None and str(r[a]) == str(x) and r["y"] == classes[c] for r in train
                )
                numerator = n_xc + alpha + m / size
                if denominator == 0:
                    joint[c] -= math.log(size)
                elif numerator == 0:
                    joint[c] = -math.inf
                else:
                    joint[c] += math.log(numerator) - math.log(denominator)
            elif size and alpha + m > 0 and denominator > 0:
                joint[c] += math.log(alpha + m / size) - math.log(denominator)
    if numeric and epsilon is None:
        overall = [np.var([r[a] for r in train if r[a] is not None]) for a in numeric]
        epsilon = var_smoothing * max(overall)
    for a in numeric:
        x = test[a]
        if x is None:
            continue
        for c in range(k):
            xs = np.array([r[a] for r in train if r[a] is not None and r["y"] == classes[c]])
            if xs.size == 0:
                continue
            var = xs.var() + epsilon
            joint[c] += -0.5 * math.log(2 * math.pi * var) - (x - xs.mean()) ** 2 / (2 * var)
    finite = [j for j in joint if j != -math.inf]
    if not finite:
        return [math.nan] * k
    shifted = [math.exp(j - max(finite)) if j != -math.inf else 0.0 for j in joint]
    return [s / sum(shifted) for s in shifted]


def _loo_by_id(con, table: pa.Table, model, **kwargs) -> dict:
    ev = loo.cross_validate_leave_one_out(con, table, "y", model, key="id", **kwargs)
    got = ev.to_arrow()
    labels = [f"p_{c}" for c in ev.classes]
    assert got.column_names == ["id", "fold", "y", *labels, "prediction"]
    return {r["id"]: [math.nan if r[p] is None else r[p] for p in labels] for r in got.to_pylist()}


def _assert_close(got: list[float], expected: list[float], tolerance: float, what: str) -> None:
    np.testing.assert_allclose(got, expected, rtol=0, atol=tolerance, equal_nan=True, err_msg=what)


SETTINGS = [  # every pair of alpha in {1, .5}, prior_alpha in {0, 1}, m in {0, 2}, and alpha 0
    {"alpha": 1.0, "prior_alpha": 0.0, "m": 0.0},
    {"alpha": 1.0, "prior_alpha": 1.0, "m": 2.0},
    {"alpha": 0.5, "prior_alpha": 0.0, "m": 2.0},
    {"alpha": 0.5, "prior_alpha": 1.0, "m": 0.0},
    {"alpha": 1.0, "prior_alpha": 0.0, "m": 2.0},
    {"alpha": 0.5, "prior_alpha": 1.0, "m": 2.0},
    {"alpha": 0.0, "prior_alpha": 0.0, "m": 0.0},  # impossible classes, all-impossible rows
    {"alpha": 0.0, "prior_alpha": 1.0, "m": 2.0},
]


@pytest.mark.parametrize(
    "settings", SETTINGS, ids=lambda s: "a{alpha}-p{prior_alpha}-m{m}".format(**s)
)
def test_categorical_loo_equals_refitting_without_each_row(con, settings):
    rows = _mixed_rows()
    table = _table(rows).drop_columns(["x"])
    got = _loo_by_id(con, table, wml.NaiveBayes(**settings), categorical=["a", "b"])
    assert len(got) == N_ROWS  # NULL targets are neither counted nor scored
    impossible = 0
    for i, row in enumerate(rows):
        if row["y"] is None:
            continue
        expected = refit_proba(
            rows, i, categorical=("a", "b"), numeric=(), var_smoothing=0.0, **settings
        )
        impossible += sum(p == 0 for p in expected) + any(math.isnan(p) for p in expected)
        _assert_close(got[row["id"]], expected, 1e-9, f"row {row['id']} {settings}")
    if settings["alpha"] == 0 and settings["m"] == 0:
        assert impossible > 0  # the case is exercised


@pytest.mark.parametrize(("var_smoothing", "tolerance"), [(0.0, 1e-9), (1e-9, 1e-7)])
def test_numeric_loo_equals_refitting_within_the_floor_approximation(con, var_smoothing, tolerance):
    rows = _mixed_rows(seed=5)
    settings = {"alpha": 0.5, "prior_alpha": 1.0, "m": 2.0, "var_smoothing": var_smoothing}
    got = _loo_by_id(con, _table(rows), wml.NaiveBayes(**settings), categorical=["a", "b"])
    worst = 0.0
    for i, row in enumerate(rows):
        if row["y"] is None:
            continue
        refit = dict(categorical=("a", "b"), numeric=("x",), **settings)
        expected = refit_proba(rows, i, **refit)
        _assert_close(got[row["id"]], expected, tolerance, f"row {row['id']}")
        worst = max(worst, float(np.max(np.abs(np.subtract(got[row["id"]], expected)))))
    if var_smoothing == 0:
        assert worst <= 1e-9


def test_numeric_class_left_without_values_contributes_nothing(con):
    """A class with one non-NULL value: without that row it has none (no Gaussian term). The
    plain refit here keeps the full data's variance floor, so the closed form must be exact."""
    rows = _mixed_rows(n=24, seed=2)
    for r in rows:
        if r["y"] == "c2":
            r["x"] = None
    rows[2]["x"] = 0.7  # the only c2 value (rows[2] is of class c2)
    assert rows[2]["y"] == "c2"
    settings = {"alpha": 1.0, "prior_alpha": 1.0, "m": 0.0, "var_smoothing": 0.05}
    got = _loo_by_id(con, _table(rows), wml.NaiveBayes(**settings), categorical=["a", "b"])
    labelled = [r for r in rows if r["y"] is not None]
    overall = np.var([r["x"] for r in labelled if r["x"] is not None])
    for i, row in enumerate(rows):
        if row["y"] is None:
            continue
        expected = refit_proba(
            rows, i, categorical=("a", "b"), numeric=("x",), epsilon=0.05 * overall, **settings
        )
        _assert_close(got[row["id"]], expected, 1e-9, f"row {row['id']}")


@pytest.mark.parametrize(
    "settings",
    [
        {"alpha": 0.5, "prior_alpha": 1.0, "m": 2.0, "var_smoothing": 0.0},
        {"alpha": 0.0, "prior_alpha": 0.0, "m": 0.0, "var_smoothing": 0.0},
    ],
    ids=["smoothed", "max-likelihood"],
)
def test_loo_equals_warehouse_fits_on_the_other_rows(con, settings):
    """The warehouse oracle: NaiveBayes.fit on the n-1 rows and predict_proba, for every row."""
    n = N_ROWS if settings["alpha"] else 24
    rows = _mixed_rows(n=n, seed=7)
    con.register("loo_data", _table(rows))
    con.execute("CREATE TABLE loo_t AS SELECT * FROM loo_data")
    model = wml.NaiveBayes(**settings)
    got = _loo_by_id(con, _table(rows), model, categorical=["a", "b"])
    for row in rows:
        if row["y"] is None:
            continue
        key = row["id"]
        con.execute(f"CREATE OR REPLACE VIEW train_r AS SELECT * FROM loo_t WHERE id <> {key}")
        con.execute(f"CREATE OR REPLACE VIEW test_r AS SELECT * FROM loo_t WHERE id = {key}")
        scratch = wml.NaiveBayes(**settings).fit(
            con, "train_r", "y", keys=["id"], categorical=["a", "b"], name="scratch"
        )
        expected = scratch.predict_proba(con, "test_r").to_pylist()[0]
        values = [
            math.nan if expected[c] is None else expected[c] for c in ("p_c0", "p_c1", "p_c2")
        ]
        _assert_close(got[key], values, 1e-9, f"row {key}")


def test_without_key_rows_are_numbered_and_folds_are_one_row_each(con):
    rows = _mixed_rows(n=12)
    ev = loo.cross_validate_leave_one_out(
        con, _table(rows).drop_columns(["id"]), "y", wml.NaiveBayes()
    )
    table = ev.to_arrow()
    assert ev.key == "wml_row" and ev.folds == 12 and table.num_rows == 12
    assert len(set(table["fold"].to_pylist())) == 12
    assert 0 <= ev.accuracy().accuracy <= 1


def test_other_model_kinds_are_refused(con):
    with pytest.raises(wml.ParameterError, match="k-fold"):
        loo.cross_validate_leave_one_out(con, _table(_mixed_rows(n=12)), "y", wml.TAN())


def test_a_weighted_model_is_refused_not_scored_as_unweighted(con):
    """The closed form subtracts each row's count of 1: a class_weight would be ignored, and
    the evaluation would be of another model than the one given."""
    with pytest.raises(wml.ParameterError, match=r"class_weight=.*folds=k"):
        loo.cross_validate_leave_one_out(
            con, _table(_mixed_rows(n=12)), "y", wml.NaiveBayes(class_weight="balanced")
        )


def test_exported(con):
    assert wml.cross_validate_leave_one_out is loo.cross_validate_leave_one_out
    with pytest.warns(DeprecationWarning, match="cross_validate_leave_one_out"):
        assert wml.leave_one_out_cv is wml.cross_validate_leave_one_out


@pytest.mark.parametrize(
    ("name", "target", "published"),
    [("vote.csv", "Class", 0.901), ("kr-vs-kp.csv", "class", 0.879)],
)
def test_laplace_loo_accuracy_matches_the_literature(con, datasets, name, target, published):
    """Robles et al. (2003): Naive Bayes leave-one-out accuracy, vote 90.1%, kr-vs-kp 87.9%."""
    load_text_csv(con, "d", datasets / name)
    con.execute("CREATE TABLE dk AS SELECT row_number() OVER () AS rid, * FROM d")
    ev = loo.cross_validate_leave_one_out(
        con, "dk", target, wml.NaiveBayes(alpha=1, prior_alpha=1), key="rid"
    )
    n = con.execute(f'SELECT COUNT("{target}") FROM dk').fetchall()[0][0]
    assert ev.folds == n and ev.to_arrow().num_rows == n
    assert abs(ev.accuracy().accuracy - published) <= 0.02


def test_cross_validate_with_one_fold_per_row_dispatches_to_the_closed_form(con):
    rows = _mixed_rows(n=12)
    table = _table(rows)
    direct = loo.cross_validate_leave_one_out(con, table, "y", wml.NaiveBayes(m=1.0), key="id")
    via = crossval.cross_validate(con, table, "y", wml.NaiveBayes(m=1.0), folds=14, key="id")
    assert via.folds == 12 and via.to_arrow().equals(direct.to_arrow())
