"""An attribute with no non-NULL value among the labelled training rows: every value it is
scored with is unseen, and no value was seen to weigh it against, so it contributes nothing to
any class (warehouse_ml/sql/models/learners/bayes/naive_bayes/create_nb_unseen.sql). Naive Bayes and
TAN score as fitted without it: through ``predict_proba``, a prediction view, the exported SQL and a
cross-validation (every fold's model in long format)."""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
import pytest

import warehouse_ml as wml

N = 40


def training() -> pa.Table:
    """``x1`` is set only on rows without a label."""
    rng = np.random.default_rng(5)
    label = [None if i % 5 == 0 else ("yes" if rng.random() < 0.5 else "no") for i in range(N)]
    return pa.table(
        {
            "id": pa.array(range(N)),
            "x0": pa.array(rng.choice(["a", "b", "c"], N).tolist()),
            "x1": pa.array([None if y is not None else "seen" for y in label], pa.string()),
            "x2": pa.array(rng.integers(0, 4, N).tolist(), pa.int32()),
            "y": pa.array(label, pa.string()),
        }
    )


def scored() -> pa.Table:
    return pa.table(
        {
            "id": pa.array(range(6)),
            "x0": pa.array(["a", "b", "c", "a", None, "z"]),
            "x1": pa.array(["seen", "other", None, "seen", "other", "x"]),
            "x2": pa.array([0, 1, 2, 3, 9, None], pa.int32()),
        }
    )


def matrix(table: pa.Table, classes: list[str]) -> np.ndarray:
    return np.column_stack([table[f"p_{c}"].to_numpy(zero_copy_only=False) for c in classes])


@pytest.mark.parametrize(
    "make",
    [lambda: wml.NaiveBayes(alpha=0.0), lambda: wml.NaiveBayes(), lambda: wml.TAN()],
    ids=["naive_bayes_alpha_0", "naive_bayes", "tan"],
)
def test_an_attribute_never_seen_with_a_label_scores_as_fitted_without_it(make):
    con = duckdb.connect()
    con.register("train_arrow", training())
    con.execute("CREATE TABLE train AS SELECT * FROM train_arrow")
    con.register("scored_arrow", scored())
    con.execute("CREATE TABLE scored AS SELECT * FROM scored_arrow")
    common = {"keys": ["id"], "categorical": ["x2"]}
    model = make().fit(con, "train", "y", name="with_x1", **common)
    without = make().fit(con, "train", "y", features=["x0", "x2"], name="without_x1", **common)
    unseen = model.parameters(con)["unseen"].to_pylist()
    assert {
        (r["class_index"], r["n_values"], r["log_prob"]) for r in unseen if r["attribute"] == "x1"
    } == {
        (0, 0, 0.0),
        (1, 0, 0.0),
    }
    expected = matrix(without.predict_proba(con, "scored"), without.classes_)
    assert np.isfinite(expected).all()
    view = model.create_view(con, "with_x1_scores", "scored", keys=["id"])
    exported = con.sql(model.sql(con, "scored", keys=["id"])).to_arrow_table().sort_by("id")
    for got in (
        model.predict_proba(con, "scored"),
        con.sql(f"SELECT * FROM {view} ORDER BY id").to_arrow_table(),
        exported,
    ):
        np.testing.assert_allclose(matrix(got, model.classes_), expected, rtol=0, atol=1e-12)

    folds = {"folds": 3, "seed": 4, "key": "id", "categorical": ["x2"]}
    with_x1 = wml.cross_validate(con, "train", "y", make(), **folds).to_arrow()
    without_x1 = wml.cross_validate(
        con, "train", "y", make(), features=["x0", "x2"], **folds
    ).to_arrow()
    np.testing.assert_allclose(
        matrix(with_x1.sort_by("id"), model.classes_),
        matrix(without_x1.sort_by("id"), model.classes_),
        rtol=0,
        atol=1e-12,
    )
