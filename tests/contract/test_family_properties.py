"""Every family on generated tables of the shapes real warehouse data has: -0.0 beside 0.0,
NULLs, duplicated rows, a second numeric column that is collinear with the first, constant, or
its own, classes of a single row, tiny weights (for the kinds that take weights), and at scoring
values never seen in training, NULL rows and NaN, +inf and -inf. Every call either returns the
family's oracle (scikit-learn, or a numpy reference written here or in tests/reference.py and
tests/linear_reference.py) or raises a ``wml.Error`` subclass, never anything else; a row
holding a non-finite number scores NULL (tests/contract/test_value_rules.py).

A typed error is taken only where the oracle has no answer either (its probabilities are not
finite, or it refuses the data), so an error never stands in for a wrong model. The examples
are few per family (the ``ci`` profile of tests/hypothesis_profiles.py; a fit is a warehouse
round trip) and drawn small (up to 18 rows), where the degenerate cases are most frequent.
"""

from __future__ import annotations

import contextlib
import functools
import math
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from linear_reference import design, logistic_probabilities, polished_logistic
from reference import naive_bayes_log_joint, ntile_edges, softmax, tan_log_joint, tree_path

import warehouse_ml as wml
from warehouse_ml.models import kinds

LABELS = ["c0", "c1", "c2"]
TEXT = ["a", "b", "c", None]
NUMBERS = [-0.0, 0.0, 0.5, 1.0, -1.5, 2.0, 3.25, None]
WEIGHTS = [1e-9, 1e-6, 0.25, 1.0, 2.0]
FEATURES = ["t", "x", "z"]
NUMERIC = ["x", "z"]
PROBABILITIES = 1e-9
SCORED = [  # rows at scoring beside the training rows: unseen text, NULLs, -0.0, non-finite
    ("zz", 0.5),
    (None, None),
    ("a", -0.0),
    ("a", math.nan),
    ("b", math.inf),
    ("c", -math.inf),
]
NON_FINITE = 3
"""The last rows of :data:`SCORED` hold NaN, +inf and -inf."""


@dataclass(frozen=True)
class Case:
    """A generated training table and the table it is scored on (its rows, then SCORED's)."""

    train: pa.Table
    scored: pa.Table

    def column(self, table: pa.Table, name: str) -> list:
        return table[name].to_pylist()


def _z(kind: str, x: float | None, own: float | None) -> float | None:
    """The second numeric column: twice x (collinear), a constant, or its own value."""
    if kind == "collinear":
        return None if x is None else 2.0 * x
    if kind == "constant":
        return 1.0
    return own


@st.composite
def cases(draw: st.DrawFn, weighted: bool = False) -> Case:
    classes = draw(st.integers(2, 3))
    distinct = draw(st.integers(2, 8))
    pool = [
        (
            draw(st.sampled_from(TEXT)),
            draw(st.sampled_from(NUMBERS)),
            draw(st.sampled_from(NUMBERS)),
            draw(st.sampled_from(LABELS[:classes])),
        )
        for _ in range(distinct)
    ]
    extra = draw(st.lists(st.integers(0, distinct - 1), max_size=18 - distinct))
    rows = [pool[i] for i in [*range(distinct), *extra]]  # every pooled row, some repeated
    assume(len({r[3] for r in rows}) >= 2)
    kind = draw(st.sampled_from(["collinear", "constant", "free"]))
    weights = None
    if weighted:
        weights = draw(st.lists(st.sampled_from(WEIGHTS), min_size=len(rows), max_size=len(rows)))
    return case_of(rows, kind, draw(st.sampled_from(NUMBERS[:-1])), weights)


def case_of(rows: list[tuple], kind: str, own: float, weights: list[float] | None = None) -> Case:
    """The case of training ``rows`` (t, x, own z, label), its z column of ``kind`` (see
    :func:`_z`; ``own`` is the z of SCORED's rows for "free"), weighted by ``weights`` (a
    column w) when given."""
    columns = {
        "id": pa.array(range(len(rows)), pa.int64()),
        "t": pa.array([r[0] for r in rows], pa.string()),
        "x": pa.array([r[1] for r in rows], pa.float64()),
        "z": pa.array([_z(kind, r[1], r[2]) for r in rows], pa.float64()),
        "y": pa.array([r[3] for r in rows], pa.string()),
    }
    if weights is not None:
        columns["w"] = pa.array(weights, pa.float64())
    train = pa.table(columns)
    scored = pa.table(
        {
            "id": pa.array(range(len(rows) + len(SCORED)), pa.int64()),
            "t": pa.array([*columns["t"].to_pylist(), *(t for t, _ in SCORED)], pa.string()),
            "x": pa.array([*columns["x"].to_pylist(), *(x for _, x in SCORED)], pa.float64()),
            "z": pa.array(
                [*columns["z"].to_pylist(), *(_z(kind, x, own) for _, x in SCORED)], pa.float64()
            ),
        }
    )
    return Case(train, scored)


CONSTANT_COLUMN = case_of(
    [("a", 0.5, 0.0, "c0")] * 5 + [("b", 2.0, 0.0, "c0")] * 4
    + [("a", -1.5, 0.0, "c1")] * 2 + [("c", 3.25, 0.0, "c1")] * 2,
    "constant", 3.25,
)  # fmt: skip
"""A numeric column constant in training: at scoring its floored Gaussian adds some -1e9 to
every class's log-joint (found by the ``ci`` profile: 2.5e-8 from the reference)."""

TINY_WEIGHTS_SCALE = case_of(
    [("a", -0.0, -0.0, "c1"), ("a", -0.0, -0.0, "c0"), ("a", -0.0, -0.0, "c0"),
     ("a", 0.5, 0.5, "c0"), ("a", -0.0, -0.0, "c0"), ("b", None, None, "c1"),
     ("a", -0.0, -0.0, "c1"), ("a", -0.0, -0.0, "c0"), ("b", None, None, "c1")],
    "collinear", 0.0, [1, 1, 1e-9, 1e-9, 1e-9, 1e-9, 1e-9, 1, 1],
)  # fmt: skip
"""The one row of x = 0.5 weighs 1e-9: standardised by the weighted moments, it lies 5.5e4
from the mean (found by the ``ci`` profile: scikit-learn's solver stopped 2e-9 short)."""


FAR_FROM_TINY_WEIGHTS = case_of(
    [("a", x, None, y) for x, y in zip(
        [None, -0.0, -0.0, -0.0, -0.0, 0.5, -0.0, 0.5, None, 0.5],
        ["c0", "c0", "c0", "c0", "c1", "c1", "c1", "c1", "c0", "c1"], strict=True,
    )],
    "collinear", 0.0, [1e-9] * 8 + [0.25, 1.0],
)  # fmt: skip
"""Rows of weight 1e-9 at x = 0 lie 1.4e4 from the weighted mean once standardised: the fit
and scikit-learn's agree to 4.3e-13 on the coefficients, which those rows turn into 2.8e-9 on
their probabilities (found by the ``ci`` profile)."""

CONSTANT_UNDER_TINY_WEIGHTS = case_of(
    [("a", -1.5, None, "c0"), ("a", None, None, "c0"), ("a", -1.5, None, "c1"),
     ("a", -1.5, None, "c0")],
    "collinear", 0.0, [1e-9, 1e-6, 1e-6, 1e-9],
)  # fmt: skip
"""x is constant where it has a value, under weights of 1e-9 and 1e-6: its weighted mean comes
out 1 ulp off, which left the numpy reference a variance of 4e-32 and x standardised to -1
instead of 0, a design the fit does not have (found by the ``ci`` profile of hypothesis
6.170.27; the reference now decides a constant column as scikit-learn does)."""

COEFFICIENTS = 1e-12
"""How closely two solvers' logistic coefficients agree (the precision of a gradient summed
in double arithmetic); a scored row's probabilities agree to this times the sum of its
design's |values|, or :data:`PROBABILITIES`, whichever is larger."""


def _features(train: pa.Table) -> list[str]:
    """The features a fit takes: those with a non-NULL value (an all-NULL column is left out,
    with a warning)."""
    return [f for f in FEATURES if train[f].null_count < train.num_rows]


@contextlib.contextmanager
def warehouse() -> Iterator[duckdb.DuckDBPyConnection]:
    con = duckdb.connect()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # separation, convergence, all-NULL columns
            yield con
    finally:
        con.close()


def _probabilities(model, con, source) -> np.ndarray:
    table = model.predict_proba(con, source)
    return np.column_stack([c.to_numpy(zero_copy_only=False) for c in table.columns]).astype(float)


def check(
    case: Case,
    fit: Callable[[duckdb.DuckDBPyConnection, pa.Table], object],
    oracle: Callable[[object], np.ndarray | None],
    rows: Callable[[object], np.ndarray] | None = None,
    tolerance: Callable[[], np.ndarray] | None = None,
) -> None:
    """Fit ``case.train``; a ``wml.Error`` passes where ``oracle`` (given the model, or None
    when the fit failed) has no finite answer; anything else raised fails. Else the
    non-finite rows score NULL, every other row's probabilities sum to 1, and they equal the
    oracle's on the rows ``rows`` selects (default: all of them) where the oracle has an
    answer (None: it refuses the data, or its answer is not defined by the data, below), to
    :data:`PROBABILITIES` or, per row, to ``tolerance()``."""
    with warehouse() as con:
        try:
            model = fit(con, case.train)
        except wml.Error:
            expected = oracle(None)
            assert expected is None or not np.all(np.isfinite(expected)), "refused a valid fit"
            return
        got = _probabilities(model, con, case.scored)
    finite, last = got[:-NON_FINITE], got[-NON_FINITE:]
    _check_voided(case, model, last)
    np.testing.assert_allclose(finite.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    expected = oracle(model)
    if expected is not None:
        chosen = np.ones(len(finite), bool) if rows is None else rows(model)
        atol = np.full((len(finite), 1), PROBABILITIES) if tolerance is None else tolerance()
        error = np.abs(finite[chosen] - expected[chosen])
        assert np.all(error <= atol[chosen]), (finite[chosen], expected[chosen], atol[chosen])


def _check_voided(case: Case, model, last: np.ndarray) -> None:
    """The last rows of the scored table score NULL where a numeric feature of ``model``
    holds NaN or an infinity there (a feature left out, as an all-NULL column, voids
    nothing)."""
    numeric = [f.name for f in model.features_ if f.kind == "numeric"]
    tail = case.scored.slice(case.scored.num_rows - NON_FINITE)
    for row, probabilities in zip(tail.to_pylist(), last, strict=True):
        void = any(row[f] is not None and not math.isfinite(row[f]) for f in numeric)
        assert np.isnan(probabilities).all() == void and (void or np.isfinite(probabilities).all())


def _finite_part(case: Case) -> pa.Table:
    return case.scored.slice(0, case.scored.num_rows - NON_FINITE)


# -- Naive Bayes: the numpy reference, weighted ----------------------------------------------
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(weighted=True), st.booleans())
@example(CONSTANT_COLUMN, False)
def test_naive_bayes(case, weighted):
    weight = case.train["w"].to_numpy() if weighted else None
    features = _features(case.train)

    def fit(con, train):
        options = {"sample_weight": "w"} if weighted else {}
        return wml.NaiveBayes().fit(con, train, "y", features=features, keys=["id"], **options)

    @functools.cache  # the oracle and the tolerance read the same reference
    def joint() -> np.ndarray:
        test = _finite_part(case)
        columns = {f: case.train[f].to_pylist() for f in features}
        return naive_bayes_log_joint(
            columns, case.train["y"].to_pylist(), {f: test[f].to_pylist() for f in features},
            alpha=1.0, prior_alpha=0.0, numeric=tuple(f for f in features if f in NUMERIC),
            weight=weight,
        )[1]  # fmt: skip

    def oracle(model):
        scores = joint()
        return softmax(scores) if np.all(np.isfinite(scores)) else None

    check(case, fit, oracle, tolerance=lambda: log_joint_tolerance(joint()))


def log_joint_tolerance(joint: np.ndarray) -> np.ndarray:
    """Per row, :data:`PROBABILITIES` plus what double precision leaves of its probabilities:
    a log-joint of magnitude M is known to a few units of M's last place in any
    implementation (the reference's as much as the model's), and a probability p moves by
    p (1 - p) <= 1/4 times its log-odds' error. A numeric column constant in training has the
    variance floor alone, so a scored value away from the constant adds some -1e9 to every
    class: the classes' common part cancels exactly in the probabilities, its rounding (1e-7)
    does not (scikit-learn's GaussianNB keeps the same few digits)."""
    magnitude = np.abs(joint).max(axis=1, keepdims=True)
    return PROBABILITIES + 4 * np.finfo(float).eps * magnitude


# -- TAN: the numpy reference given the model's tree, whose weight is the largest -------------
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_tan(case):
    features = _features(case.train)

    def fit(con, train):
        return wml.TAN().fit(con, train, "y", features=features, keys=["id"])

    def oracle(model):
        if model is None:
            return None
        import pandas as pd

        binned = _binned(case, [f for f in features if f in NUMERIC])
        train = pd.DataFrame({**{f: binned[f][0] for f in features}, "y": case.train["y"]})
        test = pd.DataFrame({f: binned[f][1] for f in features})
        _, joint = tan_log_joint(train, test, "y", model.parents_, 0.5, 0.5)
        return softmax(joint)

    check(case, fit, oracle)


def _binned(case: Case, numeric: list[str]) -> dict[str, tuple[list, list]]:
    """Each feature's training and (finite) scored values, a numeric one as its bin index on
    TAN's equal-frequency edges (reference.ntile_edges), as text."""
    test = _finite_part(case)
    out = {}
    for f in FEATURES:
        train, scored = case.train[f].to_pylist(), test[f].to_pylist()
        if f in numeric:
            labelled = [v for v in train if v is not None]
            edges = ntile_edges(labelled, 5)
            train, scored = (
                [None if v is None else str(_bin(v, edges)) for v in values]
                for values in (train, scored)
            )
        out[f] = (train, scored)
    return out


def _bin(value: float, edges: list[float]) -> int:
    return min(int(np.searchsorted(edges, value, side="left")), len(edges) - 1)


# -- decision trees: CART's definition checked node by node ----------------------------------
TREE = {"criterion": "gini", "splits": "binary", "bins": None, "pruning": "none", "min_leaf": 1}
TREE_DEPTH = 3


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(weighted=True), st.booleans())
def test_decision_tree(case, weighted):
    """The oracle is CART's definition, tie-free: the training rows routed down the model's
    tree by the documented rules (reference.tree_path) hold each node's stored class weights;
    each split's Gini decrease, recomputed from those rows, is the largest of every candidate
    at its node (thresholds between the node's distinct numbers, NULLs on the better side; the
    text's prefixes by proportion of the second class, or a value against the rest), and a
    leaf that could split has no candidate that gains; a leaf predicts its class weights'
    shares. Weights scaled down to 1e-9 change no split (the row thresholds count rows)."""
    features = _features(case.train)
    options = {"sample_weight": "w"} if weighted else {}
    with warehouse() as con:
        if not features:
            with pytest.raises(wml.Error):
                wml.DecisionTree(**TREE).fit(con, case.train, "y", keys=["id"], **options)
            return
        model = wml.DecisionTree(max_depth=TREE_DEPTH, **TREE).fit(
            con, case.train, "y", features=features, keys=["id"], **options
        )
        got = _probabilities(model, con, case.scored)
    _check_voided(case, model, got[-NON_FINITE:])
    learned = model.record.state.learned
    classes = list(model.classes_)
    weight = case.train["w"].to_numpy() if weighted else np.ones(case.train.num_rows)
    rows = [{f: case.train[f][i].as_py() for f in features} for i in range(case.train.num_rows)]
    labels = [classes.index(v) for v in case.train["y"].to_pylist()]
    reached: dict[int, list[int]] = {}
    for i, row in enumerate(rows):
        for node in tree_path(learned.root, row):
            reached.setdefault(node.id, []).append(i)
    for node in learned.root.walk():
        members = reached.get(node.id, [])
        totals = _class_totals(members, labels, weight, len(classes))
        np.testing.assert_allclose(node.counts, totals, rtol=1e-12, atol=0)
        if not members:
            continue
        best = _best_gain(members, rows, labels, weight, len(classes), features)
        if node.split is not None:
            parts = [
                _class_totals(reached.get(c.id, []), labels, weight, len(classes))
                for c in node.children
            ]
            assert _gini_decrease(totals, parts) >= best - 1e-12, (node.id, best)
        elif node.depth < TREE_DEPTH and len(members) >= 2 and np.count_nonzero(totals) > 1:
            assert best <= 1e-12, (node.id, best)
    test = _finite_part(case)
    expected = []
    for i in range(test.num_rows):
        row = {f: test[f][i].as_py() for f in features}
        leaf = tree_path(learned.root, row)[-1]
        expected.append(learned.probabilities[leaf.id])
    np.testing.assert_allclose(got[:-NON_FINITE], np.array(expected), rtol=0, atol=1e-12)
    for leaf in learned.root.leaves():
        if leaf.weight > 0:
            np.testing.assert_allclose(
                learned.probabilities[leaf.id], np.array(leaf.counts) / leaf.weight, atol=1e-12
            )


def _class_totals(members: list[int], labels: list[int], weight: np.ndarray, k: int) -> np.ndarray:
    totals = np.zeros(k)
    for i in members:
        totals[labels[i]] += weight[i]
    return totals


def _gini(totals: np.ndarray) -> float:
    total = totals.sum()
    return 0.0 if total <= 0 else 1.0 - float(((totals / total) ** 2).sum())


def _gini_decrease(parent: np.ndarray, parts: list[np.ndarray]) -> float:
    """The Gini impurity of ``parent`` less its branches' ``parts``, each by its share."""
    total = parent.sum()
    return _gini(parent) - sum(p.sum() / total * _gini(p) for p in parts)


def _best_gain(
    members: list[int], rows: list[dict], labels: list[int], weight: np.ndarray, k: int,
    features: list[str],
) -> float:  # fmt: skip
    """The largest Gini decrease of any two-way candidate split of the node's ``members``
    (0 when there is none)."""
    parent = _class_totals(members, labels, weight, k)
    best = 0.0
    for f in features:
        present = [i for i in members if rows[i][f] is not None]
        nulls = [i for i in members if rows[i][f] is None]
        values = sorted({rows[i][f] for i in present})
        if f in NUMERIC:
            lefts = [{v for v in values if v <= cut} for cut in values[:-1]]
        elif k == 2:
            share = {
                v: _class_totals([i for i in present if rows[i][f] == v], labels, weight, k)
                for v in values
            }
            ordered = sorted(values, key=lambda v: share[v][1] / share[v].sum())
            lefts = [set(ordered[: j + 1]) for j in range(len(ordered) - 1)]
        else:
            lefts = [{v} for v in values] if len(values) > 1 else []
        for left in lefts:
            side = [i for i in present if rows[i][f] in left]
            other = [i for i in present if rows[i][f] not in left]
            for with_nulls in (
                ((side + nulls, other), (side, other + nulls)) if nulls else [(side, other)]
            ):
                parts = [_class_totals(m, labels, weight, k) for m in with_nulls]
                best = max(best, _gini_decrease(parent, parts))
    return best


# -- the linear families: scikit-learn on the design of tests/linear_reference.py --------------
def _design(
    case: Case, features: list[str], weight: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, list]:
    """The training rows' design, the finite scored rows', and the labels (numbers
    standardised by the weighted moments, as the weighted fits standardise them)."""
    numeric = [f for f in features if f in NUMERIC]
    X, _ = design(case.train, case.train, features, numeric, weight)
    Xs, _ = design(case.train, _finite_part(case), features, numeric, weight)
    return X, Xs, case.train["y"].to_pylist()


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(weighted=True), st.booleans())
@example(TINY_WEIGHTS_SCALE, True)
@example(FAR_FROM_TINY_WEIGHTS, True)
@example(CONSTANT_UNDER_TINY_WEIGHTS, True)
def test_logistic_regression(case, weighted):
    from sklearn.linear_model import LogisticRegression

    features = _features(case.train)
    weight = case.train["w"].to_numpy() if weighted else None

    def fit(con, train):
        options = {"sample_weight": "w"} if weighted else {}
        return wml.LogisticRegression().fit(
            con, train, "y", features=features, keys=["id"], **options
        )

    X, Xs, y = _design(case, features, weight)

    def oracle(model):
        sk = LogisticRegression(tol=1e-12, solver="newton-cholesky", max_iter=1000)
        sk.fit(X, y, sample_weight=weight)
        coef, intercept = polished_logistic(X, y, weight, sk.coef_, sk.intercept_)
        return logistic_probabilities(Xs, coef, intercept)

    def tolerance():
        return np.maximum(PROBABILITIES, COEFFICIENTS * np.abs(Xs).sum(axis=1))[:, None]

    check(case, fit, oracle, tolerance=tolerance)


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_linear_discriminant(case):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    features = _features(case.train)

    def fit(con, train):
        return wml.LinearDiscriminant().fit(con, train, "y", features=features, keys=["id"])

    def oracle(model):
        X, Xs, y = _design(case, features)
        keep = _without_first_levels(case, features)
        if not keep or _condition(X[:, keep], y) > 1e8:
            return None  # a singular covariance: least squares on its rounding, either side's
        try:
            sk = LinearDiscriminantAnalysis(solver="lsqr").fit(X[:, keep], y)
        except ValueError:  # fewer rows than classes
            return None
        return sk.predict_proba(Xs[:, keep])

    check(case, fit, oracle)


def _condition(X: np.ndarray, y: list) -> float:
    """The condition number of the within-class covariance of ``X`` (inf when singular)."""
    labels = np.array(y)
    centred = np.vstack([X[labels == c] - X[labels == c].mean(axis=0) for c in set(y)])
    singular = np.linalg.svd(centred.T @ centred / len(X), compute_uv=False)
    return math.inf if singular[-1] <= 0 else singular[0] / singular[-1]


def _without_first_levels(case: Case, features: list[str]) -> list[int]:
    """The design's columns but each categorical attribute's first level (LDA's reference)."""
    _, names = design(case.train, case.train, features, [f for f in features if f in NUMERIC])
    first: dict[str, int] = {}
    for j, name in enumerate(names):
        if "=" in name:
            first.setdefault(name.split("=")[0], j)
    return [j for j in range(len(names)) if j not in first.values()]


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(weighted=True), st.booleans())
def test_linear_svm(case, weighted):
    """The oracle of the weights is the primal objective's optimality (its gradient vanishes:
    the minimum is unique, so any solver's); probabilities are then Platt's, whose folds
    tests/learners/test_linear_svm.py holds to scikit-learn's: here they sum to 1."""
    features = _features(case.train)
    weight = case.train["w"].to_numpy() if weighted else np.ones(case.train.num_rows)
    with warehouse() as con:
        try:
            options = {"sample_weight": "w"} if weighted else {}
            model = wml.LinearSVM(key="id").fit(
                con, case.train, "y", features=features, keys=["id"], **options
            )
        except wml.Error:
            return
        got = _probabilities(model, con, case.scored)
    _check_voided(case, model, got[-NON_FINITE:])
    np.testing.assert_allclose(got[:-NON_FINITE].sum(axis=1), 1.0, rtol=0, atol=1e-12)
    X, _, y = _design(case, features, weight)
    scored = list(model.classes_) if len(model.classes_) > 2 else [model.classes_[1]]
    design_ = np.column_stack([np.ones(len(X)), X])
    for row, label in enumerate(scored):
        w = np.r_[model.intercept_[row], model.coef_[row]]
        target = np.where(np.array(y) == label, 1.0, -1.0)
        o = design_ @ w
        margin = target * o < 1
        gradient = w + 2.0 * design_[margin].T @ (weight[margin] * (o[margin] - target[margin]))
        assert np.max(np.abs(gradient)) < 1e-8 * max(1.0, np.abs(w).max()), gradient


# -- k nearest neighbours: brute force in numpy ------------------------------------------------
@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from([1, 3, 5]), st.sampled_from(["uniform", "distance"]))
def test_k_nearest_neighbors(case, k, weights):
    """The k nearest by Euclidean distance over the standardised numbers and the 0/1 overlap
    of the text (NULL and unseen: a value of their own), compared on the rows whose k-th
    distance ties with no other (a tie's winner is the model's rule, tested elsewhere)."""
    features = _features(case.train)
    distances = _knn_distances(case, features)

    def fit(con, train):
        return wml.KNearestNeighbors(k=k, weights=weights).fit(
            con, train, "y", features=features, keys=["id"]
        )

    def oracle(model):
        labels = np.array(case.train["y"].to_pylist())
        classes = sorted(set(labels))
        votes = np.zeros((len(distances), len(classes)))
        for i, d in enumerate(distances):
            voters = np.argsort(d, kind="stable")[: min(k, len(d))]
            exact = voters[d[voters] == 0]
            for j in exact if weights == "distance" and len(exact) else voters:
                share = 1.0 if weights == "uniform" or len(exact) else 1.0 / d[j]
                votes[i, classes.index(labels[j])] += share
        return votes / votes.sum(axis=1, keepdims=True)

    def untied(model):
        kth = [np.sort(d)[min(k, len(d)) - 1] for d in distances]
        return np.array(
            [
                np.sum(np.abs(d - t) <= 1e-9 * max(1.0, t)) == 1
                and (
                    min(k, len(d)) == len(d) or np.sort(d)[min(k, len(d))] > t * (1 + 1e-9) + 1e-12
                )
                for d, t in zip(distances, kth, strict=True)
            ]
        )

    check(case, fit, oracle, untied)


def _knn_distances(case: Case, features: list[str]) -> np.ndarray:
    """Finite scored rows x training rows: Euclidean distance of the standardised numbers
    (NULL: the mean) and the text's overlap (NULL and unseen values the same value)."""
    numeric = [f for f in features if f in NUMERIC]
    train_x, _ = design(case.train, case.train, numeric, numeric) if numeric else (None, None)
    test_x, _ = (
        design(case.train, _finite_part(case), numeric, numeric) if numeric else (None, None)
    )
    n, m = _finite_part(case).num_rows, case.train.num_rows
    squared = np.zeros((n, m))
    if numeric:
        squared += ((test_x[:, None, :] - train_x[None, :, :]) ** 2).sum(axis=2)
    if "t" in features:
        seen = {v for v in case.train["t"].to_pylist() if v is not None}
        own = np.array(case.train["t"].to_pylist(), object)
        scored = np.array(
            [v if v in seen else None for v in _finite_part(case)["t"].to_pylist()], object
        )
        squared += scored[:, None] != own[None, :]
    return np.sqrt(squared)


@pytest.mark.parametrize("kind", [s.kind for s in kinds.specs()])
def test_every_registered_family_has_a_property_test(kind):
    assert f"test_{kind}" in globals(), f"no property test of the registered kind {kind!r}"
