"""LinearDiscriminant against scikit-learn's ``LinearDiscriminantAnalysis(solver="lsqr")``.

The oracle is fitted on the design the model's rules describe, built in numpy by the linear
families' reference (tests/linear_reference.py: every level one-hot, NULL all 0; numerics standardised by the
mean and population standard deviation, NULL 0) with each categorical attribute's first level
(its reference) left out. scikit-learn centres each class before its cross-products; the model
sums them in one pass and subtracts the means' product: probabilities are compared to 1e-9, as
the acceptance asks (measured: about 1e-15).
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
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as Oracle

import warehouse_ml as wml
from warehouse_ml.cli.commands import model_from
from warehouse_ml.cli.parser import parse_args
from warehouse_ml.errors import NotSupportedError, ParameterError
from warehouse_ml.models import kinds

PROBABILITIES = 1e-9
COEFFICIENTS = 1e-9


def reduced(
    train: pa.Table, rows: pa.Table, features: list[str], numeric: list[str]
) -> tuple[np.ndarray, list[str]]:
    """The design of ``rows`` learned on ``train``, each categorical attribute's first level
    left out."""
    X, names = design(train, rows, features, numeric)
    first: dict[str, int] = {}
    for j, name in enumerate(names):
        if "=" in name:
            first.setdefault(name.split("=")[0], j)
    keep = [j for j in range(len(names)) if j not in first.values()]
    return X[:, keep], [names[j] for j in keep]


def oracle(X: np.ndarray, y: list, shrinkage: float | str | None = None, priors=None) -> Oracle:
    return Oracle(solver="lsqr", shrinkage=shrinkage, priors=priors).fit(X, y)


def fit(con, table, shrinkage=None, priors=None, **options) -> wml.LinearDiscriminant:
    return wml.LinearDiscriminant(shrinkage=shrinkage, priors=priors).fit(
        con, table, "y", features=FEATURES, categorical=["code"], **options
    )


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("shrinkage", [None, 0.0, 0.3, 1.0])
def test_coefficients_and_probabilities_equal_scikit_learns(con, classes, shrinkage):
    table = mixed(classes=classes)
    model = fit(con, table, shrinkage)
    X, names = reduced(table, table, FEATURES, NUMERIC)
    sk = oracle(X, table["y"].to_pylist(), shrinkage)
    assert model.design_names_ == names
    assert "colour=blue" not in names and "code=0" not in names  # the references
    np.testing.assert_allclose(model.priors_, sk.priors_, rtol=0, atol=1e-15)
    np.testing.assert_allclose(model.means_, sk.means_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.coef_, sk.coef_, rtol=0, atol=COEFFICIENTS)
    np.testing.assert_allclose(model.intercept_, sk.intercept_, rtol=0, atol=COEFFICIENTS)
    np.testing.assert_allclose(
        probabilities(model, con, table), sk.predict_proba(X), rtol=0, atol=PROBABILITIES
    )


def test_null_unseen_and_reference_values_score_as_the_mean_and_no_indicator(con):
    table = mixed(classes=3, seed=6)
    model = fit(con, table, 0.1)
    odd = pa.table(
        {
            "x1": pa.array([None, 0.5, None, 1.0], pa.float64()),
            "x2": pa.array([None, None, 7.0, 2.0], pa.float64()),
            "colour": pa.array(["purple", None, "red", "blue"]),
            "code": pa.array([9, None, 2, 0], pa.int64()),
        }
    )
    X, _ = reduced(table, odd, FEATURES, NUMERIC)
    assert not X[0].any()  # every value missing or unseen: the intercepts alone
    sk = oracle(reduced(table, table, FEATURES, NUMERIC)[0], table["y"].to_pylist(), 0.1)
    np.testing.assert_allclose(
        probabilities(model, con, odd), sk.predict_proba(X), rtol=0, atol=PROBABILITIES
    )


def test_a_singular_covariance_takes_the_least_norm_solution_as_scikit_learn():
    """A numeric copy of another (and a constant) leave the pooled covariance singular: both
    solve it by least squares of least norm."""
    table = mixed(classes=3, seed=8)
    x1 = table["x1"].to_numpy()
    table = table.append_column("twice", pa.array(2.0 * x1)).append_column(
        "flat", pa.array(np.full(len(x1), 4.0))
    )
    features = [*FEATURES, "twice", "flat"]
    with duckdb.connect() as con:
        model = wml.LinearDiscriminant().fit(
            con, table, "y", features=features, categorical=["code"]
        )
        got = probabilities(model, con, table)
    X, _ = reduced(table, table, features, [*NUMERIC, "twice", "flat"])
    sk = oracle(X, table["y"].to_pylist())
    np.testing.assert_allclose(model.coef_, sk.coef_, rtol=0, atol=1e-7)
    np.testing.assert_allclose(got, sk.predict_proba(X), rtol=0, atol=PROBABILITIES)


def test_the_probabilities_agree_to_1e12_across_thread_counts():
    table = mixed(n=30000, classes=3, seed=5)
    fitted = []
    for threads in (1, 2):
        with duckdb.connect() as con:
            con.execute(f"SET threads = {threads}")
            model = fit(con, table, 0.2)
            fitted.append((model.coef_, model.intercept_, probabilities(model, con, table)))
    for a, b in zip(*fitted, strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


def test_an_attributes_evidence_is_its_coefficients_times_its_design_values(con):
    table = mixed(n=60, classes=3, seed=3)
    model = fit(con, table)
    X, names = reduced(table, table, FEATURES, NUMERIC)
    full = np.array(model._report.coefficients)[:, 1:]
    labels = list(model.classes_)
    rows = model.explain(con, table, keys=["id"]).to_pylist()
    columns = [j for j, n in enumerate(names) if n.split("=")[0] == "colour"]
    checked = 0
    for row in (r for r in rows if r["attribute"] == "colour"):
        k, against = labels.index(row["class"]), labels.index(row["against"])
        difference = full[k, columns] - full[against, columns]
        assert row["evidence"] == pytest.approx(difference @ X[row["id"], columns], abs=1e-12)
        checked += 1
    assert checked == 60


@pytest.mark.parametrize(
    "weights", [{"sample_weight": "w"}, {"class_weight": "balanced"}], ids=["sample", "class"]
)
def test_weights_are_refused(con, weights):
    table = mixed()
    with pytest.raises(NotSupportedError, match="WeightedFit; model kind 'linear_discriminant'"):
        model = wml.LinearDiscriminant(class_weight=weights.get("class_weight"))
        model.fit(con, table, "y", features=FEATURES, sample_weight=weights.get("sample_weight"))


def test_update_is_refused_and_cross_validation_chooses_the_shrinkage(con):
    table = mixed(n=300, classes=3)
    con.register("rows", table)
    con.execute("CREATE TABLE t AS SELECT * FROM rows")
    model = fit(con, "t")
    with pytest.raises(NotSupportedError, match="CountUpdates"):
        model.update(con, table, batch_id="b")
    chosen = wml.select_model(
        con, "t", "y", [wml.LinearDiscriminant(shrinkage=s) for s in (1.0, None)], folds=3,
        key="id", measure="log_score",
    )  # fmt: skip
    assert chosen.model.get_params()["shrinkage"] is None
    assert chosen.comparison["chosen"].to_pylist() == [False, True]


@pytest.mark.parametrize("shrinkage", [-0.1, 1.5, True, "Auto", "empirical", float("nan")])
def test_settings_out_of_range_are_refused(shrinkage):
    with pytest.raises(ParameterError, match="shrinkage"):
        wml.LinearDiscriminant(shrinkage=shrinkage)


@pytest.mark.parametrize(
    ("priors", "message"),
    [
        ([0.5, -0.1, 0.6], r"priors\[1\] must be a finite number > 0, got -0.1"),
        ({"a": 0.0, "b": 1.0}, r"priors\['a'\] must be a finite number > 0, got 0.0"),
        ([0.5, float("nan")], r"priors\[1\] must be a finite number > 0"),
        ([0.5, "x"], r"priors\[1\] must be a number, got 'x'"),
        ([0.2, 0.3], r"priors must sum to 1 \(within 1e-05\), got 0.5"),
        ([], r"priors must name at least one class"),
        ("0.5", r"priors must be None, a mapping class -> prior or a sequence"),
    ],
)
def test_priors_out_of_range_are_refused(priors, message):
    with pytest.raises(ParameterError, match=message):
        wml.LinearDiscriminant(priors=priors)


@pytest.mark.parametrize(
    ("priors", "message"),
    [
        ([0.5, 0.5], r"priors has 2 values; expected one per class of the target, 3: \['k0', "),
        ({"k0": 0.5, "k1": 0.5}, r"priors names no prior of class\(es\) \['k2'\]"),
        (
            {"k0": 0.2, "k1": 0.3, "k2": 0.4, "k9": 0.1},
            r"priors names \['k9'\], which are not classes of the target",
        ),
    ],
)
def test_priors_that_do_not_match_the_classes_are_refused(con, priors, message):
    with pytest.raises(ParameterError, match=message):
        fit(con, mixed(n=60, classes=3), priors=priors)


@pytest.mark.slow
@pytest.mark.parametrize("shrinkage", [None, 0.5, "auto"])
@pytest.mark.parametrize(("name", "numeric", "rows"), DATA_SETS)
def test_shared_data_sets_equal_scikit_learn(con, datasets, name, numeric, rows, shrinkage):
    """Binary and multi-class, categorical (with NULLs), numeric and mixed: probabilities to
    1e-9, as the acceptance asks."""
    table = shared(con, datasets, name, numeric, rows)
    *features, target = table.column_names
    categorical = [f for f in features if f not in numeric]
    model = wml.LinearDiscriminant(shrinkage=shrinkage).fit(
        con, table, target, numeric=list(numeric) or None, categorical=categorical or None
    )
    X, names = reduced(table, table, features, list(numeric))
    sk = oracle(X, table[target].to_pylist(), shrinkage)
    assert model.design_names_ == names
    np.testing.assert_allclose(
        probabilities(model, con, table), sk.predict_proba(X), rtol=0, atol=PROBABILITIES
    )


@pytest.mark.parametrize("classes", [2, 3])
def test_the_decision_function_is_scikit_learns(con, classes):
    """Two classes: one column, class 1's score less class 0's (the log-odds of class 1),
    named as predict_proba names class 1's column; more: each class's score."""
    table = mixed(classes=classes, seed=14)
    model = fit(con, table, 0.2)
    X, _ = reduced(table, table, FEATURES, NUMERIC)
    sk = oracle(X, table["y"].to_pylist(), 0.2)
    columns = model.predict_proba(con, table).column_names
    assert model.decision_function(con, table).column_names == (
        columns[1:] if classes == 2 else columns
    )
    np.testing.assert_allclose(decisions(model, con, table), sk.decision_function(X), atol=1e-9)


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("priors", ["sequence", "mapping"])
def test_given_priors_are_scikit_learns(con, classes, priors):
    """The priors weigh the classes' covariances and are the intercepts' log priors, as
    scikit-learn's ``priors=`` (a sequence in class order, or a mapping by label)."""
    table = mixed(classes=classes, seed=15)
    given = [0.7, 0.3] if classes == 2 else [0.2, 0.5, 0.3]
    setting = given if priors == "sequence" else {f"k{k}": p for k, p in enumerate(given)}
    model = fit(con, table, 0.1, priors=setting)
    X, _ = reduced(table, table, FEATURES, NUMERIC)
    sk = oracle(X, table["y"].to_pylist(), 0.1, priors=given)
    np.testing.assert_allclose(model.priors_, given, rtol=0, atol=1e-15)
    np.testing.assert_allclose(
        probabilities(model, con, table), sk.predict_proba(X), rtol=0, atol=PROBABILITIES
    )


@pytest.mark.parametrize("classes", [2, 3])
def test_ledoit_wolf_shrinkage_is_scikit_learns(con, classes):
    """``shrinkage="auto"``: each class's rows standardised by the class's own means and
    deviations, Ledoit and Wolf's shrinkage of their covariance (its fourth moments one more
    pass), rescaled, then pooled by the priors, as scikit-learn's ``shrinkage="auto"``. The
    data hold a column constant within class k0, whose one-pass variance there is rounding,
    not 0 (at 0.7; at 2.5 it is exactly 0): it is scaled by 1, as StandardScaler scales it (scaled
    by the rounding's root instead, the probabilities differ by 0.04-0.05)."""
    table = mixed(classes=classes, seed=16)
    y = np.array(table["y"].to_pylist())
    table = table.append_column("flat", pa.array(np.where(y == "k0", 0.7, np.arange(len(y)) % 7)))
    features = [*FEATURES, "flat"]
    model = wml.LinearDiscriminant(shrinkage="auto", priors=[0.6, 0.4] if classes == 2 else None)
    model.fit(con, table, "y", features=features, categorical=["code"])
    X, _ = reduced(table, table, features, [*NUMERIC, "flat"])
    sk = oracle(X, y, "auto", priors=[0.6, 0.4] if classes == 2 else None)
    np.testing.assert_allclose(model.coef_, sk.coef_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(
        probabilities(model, con, table), sk.predict_proba(X), rtol=0, atol=PROBABILITIES
    )


def test_the_new_settings_reach_the_constructor_from_the_command_line():
    argv = ["train", "t", "--target", "y", "--kind", "lda"]
    args = parse_args([*argv, "--param", "shrinkage=auto", "--param", "priors=[0.25, 0.75]"])
    assert model_from(args.kind, args).get_params() == {
        **kinds.spec_of("linear_discriminant").defaults(), "shrinkage": "auto",
        "priors": [0.25, 0.75],
    }  # fmt: skip
    args = parse_args([*argv, "--param", 'priors={"no": 0.25, "yes": 0.75}'])
    assert model_from(args.kind, args).priors == {"no": 0.25, "yes": 0.75}
