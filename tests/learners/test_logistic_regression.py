"""LogisticRegression against scikit-learn, statsmodels and numpy references.

The oracle is scikit-learn's ``LogisticRegression(C=C, tol=1e-12, solver="newton-cholesky")``
on the design the model's rules describe (models/learners/shared/design.py), built here in
numpy: every level of a categorical attribute one-hot (NULL: all 0), numeric attributes
standardised by the (weighted) mean and population standard deviation (NULL: 0). Both solve to
a gradient far below 1e-10, so coefficients are compared to 1e-8 and probabilities to 1e-9: what
is left is the two solvers' last steps, not a difference of model.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from linear_reference import (
    DATA_SETS,
    FEATURES,
    NUMERIC,
    decisions,
    design,
    mixed,
    probabilities,
    shared,
)
from sklearn.linear_model import LogisticRegression as Oracle

import warehouse_ml as wml
from warehouse_ml.cli.commands import model_from
from warehouse_ml.cli.parser import parse_args
from warehouse_ml.errors import NotSupportedError, ParameterError
from warehouse_ml.models.learners.linear.logistic_regression import (
    ConvergenceWarning,
    SeparationWarning,
)

COEFFICIENTS = 1e-8
PROBABILITIES = 1e-9


def oracle(X, y, C=1.0, sample_weight=None) -> Oracle:
    return Oracle(C=C, tol=1e-12, solver="newton-cholesky", max_iter=1000).fit(
        X, y, sample_weight=sample_weight
    )


def fit(con, table, C=1.0, **options) -> wml.LogisticRegression:
    return wml.LogisticRegression(C=C).fit(
        con, table, "y", features=FEATURES, categorical=["code"], **options
    )


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("C", [0.05, 1.0, 100.0])
def test_coefficients_and_probabilities_equal_scikit_learns(con, classes, C):
    table = mixed(classes=classes)
    model = fit(con, table, C)
    X, names = design(table, table, FEATURES, NUMERIC)
    sk = oracle(X, table["y"].to_pylist(), C)
    assert model.design_names_ == names
    assert model.converged_ and 3 <= model.n_iter_ <= 15
    np.testing.assert_allclose(model.coef_, sk.coef_, rtol=0, atol=COEFFICIENTS)
    np.testing.assert_allclose(model.intercept_, sk.intercept_, rtol=0, atol=COEFFICIENTS)
    np.testing.assert_allclose(
        probabilities(model, con, table), sk.predict_proba(X), rtol=0, atol=PROBABILITIES
    )


def test_null_and_unseen_values_score_as_the_mean_and_no_indicator(con):
    table = mixed(classes=3)
    model = fit(con, table)
    odd = pa.table(
        {
            "x1": pa.array([None, 0.5, None], pa.float64()),
            "x2": pa.array([None, None, 7.0], pa.float64()),
            "colour": pa.array(["purple", None, "red"]),
            "code": pa.array([9, None, 2], pa.int64()),
        }
    )
    X, _ = design(table, odd, FEATURES, NUMERIC)
    assert not X[0].any()  # every value missing or unseen: the intercepts alone
    sk = oracle(design(table, table, FEATURES, NUMERIC)[0], table["y"].to_pylist())
    np.testing.assert_allclose(
        probabilities(model, con, odd), sk.predict_proba(X), rtol=0, atol=PROBABILITIES
    )


def test_sample_and_class_weights_equal_scikit_learns_weighted_fit(con):
    table = mixed(classes=3, seed=4)
    class_weight = {"k0": 2.0, "k2": 0.5}
    model = wml.LogisticRegression(C=0.5, class_weight=class_weight).fit(
        con, table, "y", features=FEATURES, categorical=["code"], sample_weight="w"
    )
    y = table["y"].to_pylist()
    weight = table["w"].to_numpy() * np.array([class_weight.get(v, 1.0) for v in y])
    X, _ = design(table, table, FEATURES, NUMERIC, weight)
    sk = oracle(X, y, 0.5, sample_weight=weight)
    np.testing.assert_allclose(model.coef_, sk.coef_, rtol=0, atol=COEFFICIENTS)
    np.testing.assert_allclose(
        probabilities(model, con, table), sk.predict_proba(X), rtol=0, atol=PROBABILITIES
    )


@pytest.mark.parametrize("setting", [{"C": 1e12}, {"penalty": None}], ids=["C=1e12", "none"])
def test_standard_errors_are_statsmodels_without_the_penalty(con, setting):
    sm = pytest.importorskip("statsmodels.api")
    table = mixed(classes=2, seed=7).drop_columns(["colour", "code"])
    model = wml.LogisticRegression(**setting).fit(con, table, "y", features=["x1", "x2"])
    X, _ = design(table, table, NUMERIC, NUMERIC)
    y = np.array([v == "k1" for v in table["y"].to_pylist()], float)
    logit = sm.Logit(y, sm.add_constant(X)).fit(method="newton", tol=1e-12, disp=False)
    summary = model.summary().to_pylist()
    assert [r["term"] for r in summary] == ["(intercept)", "x1", "x2"]
    np.testing.assert_allclose([r["coefficient"] for r in summary], logit.params, rtol=1e-8)
    np.testing.assert_allclose([r["std_error"] for r in summary], logit.bse, rtol=1e-7)
    np.testing.assert_allclose([r["p_value"] for r in summary], logit.pvalues, rtol=1e-6)


def test_multinomial_standard_errors_are_the_penalised_hessians_pseudo_inverse(con):
    """A numpy reference: the Hessian of the penalised negative log-likelihood in the full
    softmax parametrisation at scikit-learn's solution, pseudo-inverted (the intercepts'
    common shift is its null space)."""
    table = mixed(classes=3, seed=2)
    model = fit(con, table, C=2.0)
    X, _ = design(table, table, FEATURES, NUMERIC)
    sk = oracle(X, table["y"].to_pylist(), 2.0)
    D = np.column_stack([np.ones(len(X)), X])
    B = np.column_stack([sk.intercept_, sk.coef_])
    P = sk.predict_proba(X)
    k, d = B.shape
    H = np.zeros((k * d, k * d))
    for a in range(k):
        for b in range(k):
            weight = P[:, a] * ((a == b) - P[:, b])
            H[a * d : (a + 1) * d, b * d : (b + 1) * d] = D.T @ (weight[:, None] * D)
    penalty = np.tile(np.r_[0.0, np.full(d - 1, 1 / 2.0)], k)
    errors = np.sqrt(np.diag(np.linalg.pinv(H + np.diag(penalty)))).reshape(k, d)
    got = np.array([r["std_error"] for r in model.summary().to_pylist()]).reshape(k, d)
    np.testing.assert_allclose(got, errors, rtol=1e-6)
    assert abs(model.intercept_.sum()) < 1e-12  # centred, as scikit-learn reports them


def test_separable_classes_warn_and_their_coefficients_grow_with_c(con):
    x = np.linspace(-2, 2, 40)
    table = pa.table({"x": x, "y": np.where(x > 0, "b", "a")})
    sizes = []
    for C in (1e2, 1e4, 1e9):  # 1e9: a coefficient near 300, converged by the relative step
        with pytest.warns(SeparationWarning, match="perfectly separated"):
            model = wml.LogisticRegression(C=C).fit(con, table, "y")
        assert model.converged_
        sizes.append(abs(model.coef_[0, 0]))
    assert sizes[2] > 2 * sizes[1] > 4 * sizes[0]


def test_a_fit_stopped_by_max_iter_warns_and_says_so(con):
    with pytest.warns(ConvergenceWarning, match="did not converge in 2 passes"):
        model = wml.LogisticRegression(max_iter=2).fit(con, mixed(), "y", features=FEATURES)
    assert not model.converged_ and model.n_iter_ == 2


def test_the_coefficients_agree_to_1e12_across_thread_counts():
    table = mixed(n=30000, classes=3, seed=5)
    fitted = []
    for threads in (1, 2):
        with duckdb.connect() as con:
            con.execute(f"SET threads = {threads}")
            fitted.append(fit(con, table))
    np.testing.assert_allclose(fitted[0].coef_, fitted[1].coef_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fitted[0].intercept_, fitted[1].intercept_, rtol=0, atol=1e-12)


def test_an_attributes_evidence_is_its_coefficient_times_its_standardised_value(con):
    table = mixed(n=60, classes=2, seed=3)
    model = fit(con, table)
    X, names = design(table, table, FEATURES, NUMERIC)
    rows = model.explain(con, table, keys=["id"]).to_pylist()
    b = model.coef_[0]
    for row in (r for r in rows if r["attribute"] == "x2"):
        sign = 1.0 if row["class"] == "k1" else -1.0
        expected = sign * b[names.index("x2")] * X[row["id"], names.index("x2")]
        assert row["evidence"] == pytest.approx(expected, abs=1e-12)


def test_update_is_refused_and_cross_validation_chooses_c(con):
    table = mixed(classes=2)
    con.register("rows", table)
    con.execute("CREATE TABLE t AS SELECT * FROM rows")
    model = fit(con, "t")
    with pytest.raises(NotSupportedError, match="CountUpdates"):
        model.update(con, table, batch_id="b")
    chosen = wml.select_model(
        con, "t", "y", [wml.LogisticRegression(C=C) for C in (1e-4, 1.0)], folds=3, key="id",
        measure="log_score",
    )  # fmt: skip
    assert chosen.model.get_params()["C"] == 1.0
    assert chosen.comparison["chosen"].to_pylist() == [False, True]


@pytest.mark.parametrize(
    "options",
    [
        {"C": 0}, {"C": float("inf")}, {"max_iter": 0}, {"max_iter": 2.5}, {"tol": -1.0},
        {"penalty": "l1"}, {"penalty": "none"},
    ],
)  # fmt: skip
def test_settings_out_of_range_are_refused(options):
    with pytest.raises(ParameterError, match=next(iter(options))):
        wml.LogisticRegression(**options)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "numeric", "rows"), DATA_SETS)
def test_shared_data_sets_equal_scikit_learn(con, datasets, name, numeric, rows):
    """Binary and multinomial, categorical (with NULLs), numeric and mixed: coefficients to
    1e-6 and probabilities to 1e-8, as the acceptance asks (measured: below 1e-9)."""
    table = shared(con, datasets, name, numeric, rows)
    *features, target = table.column_names
    categorical = [f for f in features if f not in numeric]
    model = wml.LogisticRegression().fit(
        con, table, target, numeric=list(numeric) or None, categorical=categorical or None
    )
    X, names = design(table, table, features, list(numeric))
    sk = oracle(X, table[target].to_pylist())
    assert model.design_names_ == names and model.converged_
    np.testing.assert_allclose(model.coef_, sk.coef_, rtol=0, atol=1e-6)
    np.testing.assert_allclose(model.intercept_, sk.intercept_, rtol=0, atol=1e-6)
    np.testing.assert_allclose(
        probabilities(model, con, table), sk.predict_proba(X), rtol=0, atol=1e-8
    )


def collinear(n: int = 80, seed: int = 3) -> pa.Table:
    """A numeric x and a categorical c with no NULL: c's indicators sum to the intercept's
    column, so the design has one null direction (intercept +1, every level of c -1)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    c = rng.choice(["b", "g", "r"], n)
    y = np.where(x + 0.8 * (c == "r") - 0.5 * (c == "g") + rng.normal(size=n) > 0, "yes", "no")
    return pa.table({"x": x, "c": c, "y": y})


def test_a_penalty_too_weak_for_collinear_columns_takes_least_norm_newton_steps(con):
    """C=1e20 leaves the penalised Hessian singular to double precision along the design's
    null direction: the steps are least-squares steps of least norm, so the coefficients are
    the likelihood's maximum with no component along it, and the probabilities are
    scikit-learn's unpenalised ones on the full-rank design (c's first level left out)."""
    table = collinear()
    model = wml.LogisticRegression(C=1e20).fit(con, table, "y")
    assert model.converged_
    X, names = design(table, table, ["x", "c"], ["x"])
    assert names == ["x", "c=b", "c=g", "c=r"]
    sk = Oracle(C=np.inf, tol=1e-12, solver="newton-cholesky", max_iter=1000)
    sk.fit(X[:, [0, 2, 3]], table["y"].to_pylist())
    np.testing.assert_allclose(
        probabilities(model, con, table), sk.predict_proba(X[:, [0, 2, 3]]), rtol=0, atol=1e-9
    )
    b = np.r_[model.intercept_, model.coef_[0]]
    null = np.array([1.0, 0.0, -1.0, -1.0, -1.0]) / 2.0
    assert abs(b @ null) < 1e-9 * np.linalg.norm(b)
    assert all(r["std_error"] > 0 for r in model.summary().to_pylist())


@pytest.mark.parametrize("classes", [2, 3])
def test_no_penalty_equals_scikit_learns_unpenalised_fit(con, classes):
    """``penalty=None`` maximises the likelihood itself (C is not used), as scikit-learn's
    ``penalty=None`` (since 1.8 spelt ``C=np.inf``)."""
    table = mixed(classes=classes, seed=11)
    features = ["x1", "colour", "x2"]  # colour has NULLs: its indicators and the intercept differ
    model = wml.LogisticRegression(penalty=None, C=0.01).fit(con, table, "y", features=features)
    X, names = design(table, table, features, NUMERIC)
    sk = Oracle(C=np.inf, tol=1e-12, solver="newton-cholesky", max_iter=1000)
    sk.fit(X, table["y"].to_pylist())
    assert model.design_names_ == names and model.converged_
    assert model.get_params()["penalty"] is None
    np.testing.assert_allclose(model.coef_, sk.coef_, rtol=0, atol=COEFFICIENTS)
    np.testing.assert_allclose(model.intercept_, sk.intercept_, rtol=0, atol=COEFFICIENTS)
    np.testing.assert_allclose(
        probabilities(model, con, table), sk.predict_proba(X), rtol=0, atol=PROBABILITIES
    )


@pytest.mark.parametrize("classes", [2, 3])
def test_separable_classes_without_a_penalty_are_a_model_error(con, classes):
    """No maximum likelihood exists when some coefficients score every row's own class highest
    (Albert and Anderson): the fit stops at the first pass that finds such coefficients."""
    x = np.linspace(-2, 2, 30 * classes)
    y = np.array([f"k{i}" for i in np.digitize(x, np.linspace(-2, 2, classes + 1)[1:-1])])
    with pytest.raises(
        wml.ModelError,
        match=r"the classes of an Arrow table are perfectly separated: .* so without a penalty "
        r"\(penalty=None\) the likelihood has no maximum .*fit with penalty='l2'",
    ):
        wml.LogisticRegression(penalty=None).fit(con, pa.table({"x": x, "y": y}), "y")


def test_no_penalty_on_collinear_columns_is_the_least_norm_maximum(con):
    """Every level of c (no NULL) sums to the intercept's column: with no penalty the maximum
    is a line of coefficients; the fit's is its point of least norm, and its probabilities
    scikit-learn's on the full-rank design."""
    table = collinear()
    model = wml.LogisticRegression(penalty=None).fit(con, table, "y")
    X, _ = design(table, table, ["x", "c"], ["x"])
    sk = Oracle(C=np.inf, tol=1e-12, solver="newton-cholesky", max_iter=1000)
    sk.fit(X[:, [0, 2, 3]], table["y"].to_pylist())
    np.testing.assert_allclose(
        probabilities(model, con, table), sk.predict_proba(X[:, [0, 2, 3]]), rtol=0, atol=1e-9
    )
    b = np.r_[model.intercept_, model.coef_[0]]
    assert abs(b @ np.array([1.0, 0.0, -1.0, -1.0, -1.0])) < 1e-9 * np.linalg.norm(b)


def test_the_penalty_reaches_the_constructor_from_the_command_line():
    args = parse_args(["train", "t", "--target", "y", "--kind", "lr", "--param", "penalty=none"])
    assert model_from(args.kind, args).get_params()["penalty"] is None
    args = parse_args(["train", "t", "--target", "y", "--kind", "lr", "--param", "penalty=l2"])
    assert model_from(args.kind, args).get_params()["penalty"] == "l2"


@pytest.mark.parametrize("classes", [2, 3])
def test_the_decision_function_is_scikit_learns(con, classes):
    """Two classes: one column, the log-odds of the second class, named as predict_proba names
    that class's column; more: each class's linear score, named and ordered as predict_proba's
    columns."""
    table = mixed(classes=classes, seed=12)
    model = fit(con, table)
    X, _ = design(table, table, FEATURES, NUMERIC)
    sk = oracle(X, table["y"].to_pylist())
    got = model.decision_function(con, table)
    columns = model.predict_proba(con, table).column_names
    assert got.column_names == (columns[1:] if classes == 2 else columns)
    np.testing.assert_allclose(decisions(model, con, table), sk.decision_function(X), atol=1e-8)


def test_quasi_separated_classes_without_a_penalty_do_not_converge_and_say_so(con):
    """Classes separated but for rows tied on the boundary (three of one class and one of the
    other at x = 0) have no maximum likelihood either, but no pass scores every row's own
    class highest: the slope grows by about one per pass until max_iter, and the warning
    names the penalty as the remedy."""
    x = [-3.0, -1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0]
    y = ["a", "a", "a", "a", "a", "b", "b", "b"]
    with pytest.warns(ConvergenceWarning, match=r"did not converge in 20 passes .*penalty='l2'"):
        model = wml.LogisticRegression(penalty=None, max_iter=20).fit(
            con, pa.table({"x": x, "y": y}), "y"
        )
    assert not model.converged_ and model.coef_[0, 0] > 10
