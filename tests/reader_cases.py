"""Models and rows whose every kind of value a reader of parameters must score alike: seen,
unseen and NULL values, unseen and NULL parent values, a binned numeric attribute, impossible
classes (alpha = 0); for tests/scoring's comparisons of the literal, joined, resolved and
long-format readers (:func:`assert_same_scores`)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

import warehouse_ml as wml

N = 400


def training() -> pa.Table:
    rng = np.random.default_rng(11)
    a = rng.choice(["x", "y", "z's"], N)
    b = np.where((rng.random(N) < 0.5) & (a == "y"), "w", a)  # pairs (w, x), (x, y) unseen
    c = rng.choice(["p", "q"], N)
    label = np.where((a == "x") ^ (c == "p"), "yes", "no")
    label = np.where(rng.random(N) < 0.15, rng.choice(["yes", "no", "maybe"], N), label)

    def holes(values: np.ndarray) -> list:
        return [None if rng.random() < 0.08 else v for v in values.tolist()]

    return pa.table(
        {
            "id": np.arange(N),
            "a": holes(a),
            "b": holes(b),
            "c": holes(c),
            "amount": holes(np.round(rng.normal(50, 20, N), 2) + (a == "x") * 15),
            "label": label.tolist(),
        }
    )


SCORED = pa.table(
    {
        "id": list(range(6)),
        "a": ["x", "never", None, "y", "z's", "x"],
        "b": ["w", "x", "w", None, "unseen", "y"],
        "c": ["p", "q", None, "q", "p", "never"],
        "amount": [50.0, None, -1e6, 75.5, 20.0, 1e6],
    }
)

MODELS = [
    wml.NaiveBayes(),
    wml.NaiveBayes(alpha=0.0),
    wml.TAN(),
    wml.TAN(alpha=0.0, prior_alpha=0.0),
    wml.TAN(numeric=["amount"]),
]


def assert_same_scores(got: pa.Table, expected: pa.Table) -> None:
    """The same predictions, and probabilities (``p_`` columns) within 1e-12."""
    assert got["prediction"].to_pylist() == expected["prediction"].to_pylist()
    for name in expected.column_names:
        if name.startswith("p_"):
            np.testing.assert_allclose(
                np.array(got[name].to_pylist(), dtype=float),
                np.array(expected[name].to_pylist(), dtype=float),
                rtol=0, atol=1e-12, equal_nan=True,
            )  # fmt: skip
