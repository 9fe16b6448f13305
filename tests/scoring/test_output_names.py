"""One name per output: ``predict_proba``, ``predict_log_proba``, ``score_rows``, views and
tables name a class's probability ``p_<label>`` (the model's stored column names); the log
probability of a class that alpha = 0 makes impossible is -inf, as scikit-learn gives."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

import warehouse_ml as wml

TRAIN = pa.table(
    {
        "colour": ["red", "red", "blue", "blue", "green", "green", "red", "blue"],
        "shape": ["round", "square", "round", "round", "square", "square", "round", "square"],
        "y": ["no", "no", "no", "yes", "yes", "yes", "no", "yes"],
    }
)
SCORED = pa.table(
    {"colour": ["red", "green", "blue", None], "shape": ["round", "square", "square", "round"]}
)


def _reference_log_posterior(alpha: float) -> np.ndarray:
    """ln P(c | row) of categorical Naive Bayes with attribute smoothing ``alpha`` and an
    unsmoothed prior, in numpy: -inf where a factor is 0 (a value never seen with the class);
    a NULL value is skipped."""
    classes = ["no", "yes"]
    y = np.array(TRAIN["y"].to_pylist())
    out = []
    for row in SCORED.to_pylist():
        joint = []
        for c in classes:
            in_class = y == c
            with np.errstate(divide="ignore"):
                score = np.log(in_class.mean())
                for attribute in ("colour", "shape"):
                    value = row[attribute]
                    if value is None:
                        continue
                    column = np.array(TRAIN[attribute].to_pylist())
                    n_values = len(set(column))
                    n_xc = np.sum(column[in_class] == value)
                    score += np.log((n_xc + alpha) / (in_class.sum() + alpha * n_values))
            joint.append(score)
        joint = np.array(joint)
        best = joint.max()
        with np.errstate(invalid="ignore"):
            out.append(joint - best - np.log(np.exp(joint - best).sum()))
    return np.array(out)


def test_predict_proba_and_log_proba_name_columns_as_views_do(con):
    model = wml.NaiveBayes().fit(con, TRAIN, "y", name="m")
    assert model.predict_proba(con, SCORED).column_names == ["p_no", "p_yes"]
    assert model.predict_log_proba(con, SCORED).column_names == ["p_no", "p_yes"]
    con.execute("CREATE TABLE scored AS SELECT * FROM SCORED")
    model.create_view(con, "v", "scored", keys=[])
    assert con.sql("SELECT * FROM v").columns == ["p_no", "p_yes", "prediction"]
    assert model.score_rows(con, SCORED, keys=[]).column_names == ["p_no", "p_yes", "prediction"]


def test_an_impossible_class_has_log_probability_minus_infinity(con):
    model = wml.NaiveBayes(alpha=0.0).fit(con, TRAIN, "y", name="m")
    got = model.predict_log_proba(con, SCORED)
    ours = np.column_stack([got[c].to_numpy(zero_copy_only=False) for c in got.column_names])
    want = _reference_log_posterior(0.0)
    assert np.isneginf(want).any()  # the data make some class impossible for some row
    assert np.array_equal(np.isneginf(ours), np.isneginf(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(ours[finite], want[finite], rtol=1e-12, atol=1e-12)
    proba = model.predict_proba(con, SCORED)
    np.testing.assert_allclose(
        np.column_stack([proba[c].to_numpy() for c in proba.column_names]), np.exp(want),
        rtol=1e-12, atol=1e-15,
    )  # fmt: skip
