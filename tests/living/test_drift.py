"""Drift: PSI, Jensen-Shannon distance, chi-square and its p-value of every monitored
distribution, against numpy and scipy references computed from the raw training and new rows."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest
from conftest import load_text_csv
from histogram_cases import lopsided, without_histogram
from kinds_under_test import KIND_CLASSES
from reference import binned, ntile_edges
from scipy import optimize, stats
from scipy.spatial.distance import jensenshannon

import warehouse_ml as wml
from warehouse_ml.engines import connect
from warehouse_ml.engines.sources import open_source
from warehouse_ml.errors import ColumnError, NameConflictError
from warehouse_ml.models.capabilities import CountSummaries
from warehouse_ml.models.living.drift import ATTRIBUTE, chi_square_p_values
from warehouse_ml.sqlgen import templates

COLUMNS = [
    "kind", "attribute", "treatment", "bins", "n_expected", "n_observed", "n_unseen", "psi",
    "js_distance", "chi_square", "df", "p_value", "psi_flag",
]  # fmt: skip


def reference(expected: dict, observed: dict) -> dict:
    """The documented measures from two {cell: count} maps (numpy and scipy)."""
    cells = sorted(set(expected) | set(observed), key=str)
    n_e = np.array([expected.get(c, 0) for c in cells], dtype=float)
    n_o = np.array([observed.get(c, 0) for c in cells], dtype=float)
    q_e = (n_e + 0.5) / (n_e.sum() + 0.5 * len(cells))
    q_o = (n_o + 0.5) / (n_o.sum() + 0.5 * len(cells))
    chi = stats.chi2_contingency(np.vstack([n_e, n_o]), correction=False)
    return {
        "bins": len(cells),
        "n_expected": round(n_e.sum()),
        "n_observed": int(n_o.sum()),
        "n_unseen": int(n_o[n_e == 0].sum()),
        "psi": float(np.sum((q_o - q_e) * np.log(q_o / q_e))),
        "js_distance": float(jensenshannon(n_e, n_o, base=2)),
        "chi_square": float(chi.statistic),
        "df": int(chi.dof),
        "p_value": float(chi.pvalue),
    }


def assert_measures(row: dict, expected: dict, where: str) -> None:
    for key, value in expected.items():
        if key == "p_value":
            assert row[key] == pytest.approx(value, rel=1e-6, abs=1e-300), f"{where}.{key}"
        elif isinstance(value, float):
            assert row[key] == pytest.approx(value, rel=1e-9, abs=1e-12), f"{where}.{key}"
        else:
            assert row[key] == value, f"{where}.{key}"
    flag = "stable" if row["psi"] < 0.1 else "moderate" if row["psi"] < 0.25 else "major"
    assert row["psi_flag"] == flag


def counts(values) -> dict:
    out: dict = {}
    for v in values:
        if v is not None:
            out[str(v)] = out.get(str(v), 0) + 1
    return out


def shifted(n: int, seed: int, shift: float) -> pa.Table:
    rng = np.random.default_rng(seed)
    label = rng.choice(["no", "yes"], n, p=[0.65 - shift / 4, 0.35 + shift / 4])
    colour = rng.choice(
        ["red", "green", "blue", "grey"], n, p=[0.4 - shift / 4, 0.3, 0.2, 0.1 + shift / 4]
    )
    size = rng.integers(0, 6, n).astype(float) * (label == "yes") + rng.normal(shift, 1.0, n)
    return pa.table({"label": label, "colour": colour, "size": size})


def test_p_values_equal_scipy_chi2_survival(con):
    grid = [(1, 0.0), (3, 0.0)]
    for df in [1, 2, 3, 4, 5, 8, 9, 31, 100, 501, 1998, 1999, 2000, 5000, 100_000]:
        for p in [1e-200, 1e-12, 1e-6, 0.01, 0.05, 0.5, 0.9, 0.999999]:
            grid.append((df, float(stats.chi2.isf(p, df))))
    tests = templates.values(
        [(i, x, df) for i, (df, x) in enumerate(grid)], "k", ("item", "x", "df")
    )
    rows = dict(con.execute(templates.generate(chi_square_p_values(tests), "duckdb")).fetchall())
    for i, (df, x) in enumerate(grid):
        exact = stats.chi2.sf(x, df)
        if df <= 1999:  # the series: to the erfc fit's 1.2e-7 relative error
            assert rows[i] == pytest.approx(exact, rel=1e-6, abs=1e-300), (df, x)
        else:  # Wilson-Hilferty
            assert rows[i] == pytest.approx(exact, abs=2e-5), (df, x)


def test_categorical_numeric_class_and_prediction_rows_equal_references(con):
    train, new = shifted(3000, 1, 0.0), shifted(1500, 2, 0.6)
    model = wml.TAN(bins=4).fit(con, train, "label")
    table = model.drift(con, new)
    assert table.column_names == COLUMNS
    rows = table.to_pylist()
    assert [(r["kind"], r["attribute"]) for r in rows] == [
        ("attribute", "colour"), ("attribute", "size"), ("class", "label"), ("prediction", "label"),
    ]  # fmt: skip
    assert_measures(
        rows[0],
        reference(counts(train["colour"].to_pylist()), counts(new["colour"].to_pylist())),
        "colour",
    )
    edges = model.record.state.learned.bins["size"]

    def binned(values):
        return counts(np.searchsorted(np.array(edges[:-1]), np.asarray(values), side="left"))

    assert rows[1]["treatment"] == "numeric: the model's 4 equal-frequency bins"
    assert_measures(rows[1], reference(binned(train["size"]), binned(new["size"])), "size")
    classes = counts(train["label"].to_pylist())
    assert_measures(rows[2], reference(classes, counts(new["label"].to_pylist())), "class")
    predicted = model.predict(con, new)["prediction"].to_pylist()
    assert_measures(rows[3], reference(classes, counts(predicted)), "prediction")
    assert rows[1]["psi_flag"] != "stable"  # the shift of the mean is caught


def mixture_edges(values: np.ndarray, labels: np.ndarray, bins: int) -> list[float]:
    """Equal-frequency edges of the mixture of per-class normals fitted to the values
    (population variance, scikit-learn's default variance floor), by brentq."""
    classes = sorted(set(labels))
    floor = 1e-9 * values.var()
    parts = [
        (np.mean(labels == c), values[labels == c].mean(), values[labels == c].var() + floor)
        for c in classes
    ]

    def cdf(x: float) -> float:
        return sum(w * stats.norm.cdf(x, m, math.sqrt(v)) for w, m, v in parts)

    return [
        optimize.brentq(lambda x, q=b / bins: cdf(x) - q, -1e3, 1e3, xtol=1e-14)
        for b in range(1, bins)
    ]


def test_numeric_naive_bayes_attributes_are_compared_with_the_training_histogram(con):
    train, new = lopsided(2500, 3), lopsided(900, 4)
    model = wml.NaiveBayes().fit(con, train, "label")
    rows = {r["attribute"]: r for r in model.drift(con, new).to_pylist() if r["kind"] == ATTRIBUTE}
    for attribute in ("gain", "hours", "size"):
        edges = ntile_edges(train[attribute].to_pylist(), 5)
        row = rows[attribute]
        assert row["treatment"] == f"numeric: the training histogram's {len(edges)} bins"
        assert_measures(
            row,
            reference(
                counts(binned(train[attribute].to_pylist(), edges)),
                counts(binned(new[attribute].to_pylist(), edges)),
            ),
            attribute,
        )


def test_models_stored_without_a_histogram_use_bins_of_the_fitted_mixture(con):
    train, new = shifted(2000, 3, 0.0), shifted(800, 4, 0.4)
    model = without_histogram(wml.NaiveBayes().fit(con, train, "label", features=["size"]))
    row = model.drift(con, new, bins=8).to_pylist()[0]
    assert row["treatment"] == "gaussian: 8 equal-frequency bins of the fitted class normals"
    edges = np.array(mixture_edges(np.asarray(train["size"]), np.asarray(train["label"]), 8))
    observed = counts(np.searchsorted(edges, np.asarray(new["size"]), side="left"))
    expected = {str(b): 2000 / 8 for b in range(8)}
    assert_measures(row, reference(expected, observed), "size")


def test_unseen_values_nulls_and_an_empty_source(con):
    train = pa.table({"y": ["a", "b"] * 50, "v": ["p", "q", "r", None] * 25})
    new = pa.table({"y": ["a", "b", "a", None], "v": ["p", "new", "new", None]})
    model = wml.NaiveBayes().fit(con, train, "y")
    row, klass, _ = model.drift(con, new).to_pylist()
    assert row["n_unseen"] == 2 and row["n_observed"] == 3 and row["n_expected"] == 75
    assert_measures(
        row, reference(counts(train["v"].to_pylist()), counts(new["v"].to_pylist())), "v"
    )
    assert klass["n_observed"] == 3
    empty = model.drift(con, new.slice(0, 0)).to_pylist()
    assert [r["n_observed"] for r in empty] == [0, 0, 0]
    assert all(
        r[m] is None
        for r in empty
        for m in ("psi", "js_distance", "chi_square", "df", "p_value", "psi_flag")
    )


def test_the_same_data_has_no_drift(con):
    data = shifted(500, 5, 0.0)
    model = wml.TAN().fit(con, data, "label")
    rows = model.drift(con, data).to_pylist()
    for row in rows[:3]:
        assert row["psi"] == pytest.approx(0.0, abs=1e-15)
        assert row["js_distance"] == pytest.approx(0.0, abs=1e-7)
        assert row["chi_square"] == pytest.approx(0.0, abs=1e-12) and row[
            "p_value"
        ] == pytest.approx(1.0)
        assert row["psi_flag"] == "stable"


def test_drift_view_is_owned_and_follows_refits(con):
    con.register("train_arrow", shifted(1000, 6, 0.0))
    con.execute("CREATE TABLE train AS SELECT * FROM train_arrow")
    con.register("new_arrow", shifted(700, 7, 0.5))
    con.execute("CREATE TABLE incoming AS SELECT * FROM new_arrow")
    model = wml.NaiveBayes().fit(con, "train", "label", name="churn")
    view = model.create_drift_view(con, "churn_drift", "incoming")
    assert con.execute(f"SELECT COUNT(*) FROM {view}").fetchone()[0] == 4
    read = con.execute("SELECT attribute, psi FROM churn_drift ORDER BY kind, attribute").fetchall()
    assert read == [
        (r["attribute"], r["psi"])
        for r in sorted(
            model.drift(con, "incoming").to_pylist(), key=lambda r: (r["kind"], r["attribute"])
        )
    ]
    before = con.execute("SELECT psi FROM churn_drift WHERE kind = 'class'").fetchone()[0]
    con.execute("DELETE FROM train WHERE label = 'yes' AND size > 2")
    refit = wml.NaiveBayes().fit(con, "train", "label", name="churn")
    after = con.execute("SELECT psi FROM churn_drift WHERE kind = 'class'").fetchone()[0]
    assert after == refit.drift(con, "incoming").to_pylist()[2]["psi"] and after != before
    with pytest.raises(NameConflictError):
        refit.create_drift_view(con, "incoming", "train")
    wml.drop(con, "churn")
    assert (
        con.execute(
            "SELECT COUNT(*) FROM duckdb_views() WHERE view_name = 'churn_drift'"
        ).fetchone()[0]
        == 0
    )
    assert wml.list_objects(con).num_rows == 0


def test_vote_and_car_attributes_equal_references(con, datasets):
    for name, target in (("car", "class"), ("vote", "Class")):
        load_text_csv(con, name, datasets / f"{name}.csv")
        table = con.table(name).to_arrow_table()
        half = table.num_rows // 2
        train, new = table.slice(0, half), table.slice(half)
        model = wml.NaiveBayes().fit(con, train, target)
        rows = {(r["kind"], r["attribute"]): r for r in model.drift(con, new).to_pylist()}
        for column in model.feature_names_in_:
            assert_measures(
                rows[("attribute", column)],
                reference(counts(train[column].to_pylist()), counts(new[column].to_pylist())),
                f"{name}.{column}",
            )


def assert_no_drift(rows: list[dict], where: str) -> None:
    for row in rows:
        assert row["psi"] == pytest.approx(0.0, abs=1e-12), (where, row["attribute"])
        assert row["chi_square"] == pytest.approx(0.0, abs=1e-12), (where, row["attribute"])
        assert row["p_value"] == pytest.approx(1.0, abs=1e-12), (where, row["attribute"])
        assert row["n_unseen"] == 0 and row["psi_flag"] == "stable", (where, row["attribute"])


SUMMARISED = [kind for kind in KIND_CLASSES if issubclass(kind, CountSummaries)]
"""The registered kinds that measure drift from their stored counts."""


@pytest.mark.parametrize("kind", SUMMARISED)
def test_the_training_table_has_no_drift_on_any_attribute(con, kind):
    """Numerics a class normal fits poorly (mostly zeros, bimodal) included."""
    data = lopsided(3000, 11)
    model = kind().fit(con, data, "label")
    rows = [r for r in model.drift(con, data).to_pylist() if r["kind"] != "prediction"]
    assert len(rows) == 5
    assert_no_drift(rows, kind.__name__)


@pytest.mark.parametrize("kind", SUMMARISED)
@pytest.mark.slow
def test_adult_training_table_has_no_drift_on_any_attribute(con, datasets, kind):
    con.execute(f"CREATE TABLE a AS SELECT * FROM read_csv('{datasets / 'adult.csv'}')")
    with pytest.warns(wml.IntegerColumnsWarning):
        model = kind().fit(con, "a", "class")
    rows = [r for r in model.drift(con, "a").to_pylist() if r["kind"] != "prediction"]
    assert len(rows) == 15
    assert_no_drift(rows, kind.__name__)


def test_a_double_target_is_compared_with_an_integer_models_classes(con):
    """An integer 0/1 target read back as DOUBLE (as pandas reads an integer column with a
    NULL) is the same classes; a value that is no class is unseen."""
    data = lopsided(1000, 12)
    labels = np.asarray(data["label"]) == "yes"
    train = data.set_column(0, "label", pa.array(labels.astype(np.int64)))
    model = wml.NaiveBayes().fit(con, train, "label")
    doubles = [float(v) for v in labels.astype(np.int64)]
    new = data.set_column(0, "label", pa.array([*doubles[:-3], None, 0.5, 2.0]))
    klass = next(r for r in model.drift(con, new).to_pylist() if r["kind"] == "class")
    trained = counts(train["label"].to_pylist())
    observed = counts([None if v is None else str(int(v)) for v in doubles[:-3]])
    observed.update({"0.5": 1, "2.0": 1})
    assert klass["n_unseen"] == 2
    assert_measures(klass, reference(trained, observed), "class")


def test_a_target_of_another_type_family_is_refused_by_name(con):
    data = lopsided(300, 13)
    labels = (np.asarray(data["label"]) == "yes").astype(np.int64)
    model = wml.NaiveBayes().fit(con, data.set_column(0, "label", pa.array(labels)), "label")
    with pytest.raises(ColumnError, match=r"target column 'label' .* type string; .* int64"):
        model.drift(con, data)


def drift_statement(con, attributes: int, classes: int) -> str:
    rng = np.random.default_rng(attributes * 100 + classes)
    columns = {f"x{i}": rng.normal(size=120) for i in range(attributes)}
    columns["y"] = [f"c{j}" for j in np.arange(120) % classes]
    table = pa.table(columns)
    model = wml.NaiveBayes().fit(con, table, "y", name=f"wide_{attributes}_{classes}")
    warehouse = connect(con)
    with open_source(warehouse, table) as source:
        query = model.drift_query(warehouse, model.record, source, 10)
    return templates.generate(query, "duckdb")


def test_drift_statement_grows_linearly_with_attributes_times_classes(con):
    """Structural: the statement's length at (A, K) grows no faster than A * K (its fixed
    part, the p-value series, makes the ratios smaller still)."""
    sizes = {ak: len(drift_statement(con, *ak)) for ak in [(8, 2), (32, 2), (16, 8)]}
    base = sizes[(8, 2)]
    for (a, k), size in sizes.items():
        assert size / base <= a * k / 16 + 0.25, (a, k, sizes)
