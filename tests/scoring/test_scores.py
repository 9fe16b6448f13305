"""The three scoring steps with scores that are not a sum of log terms: per-class probability
expressions (a decision tree's nested CASE) and a relation aggregating per row (neighbour
votes), normalised and decided by the same steps as Naive Bayes and TAN
(models/scoring/query.py), against numpy on the same rows."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest
from sqlglot import exp

from warehouse_ml.models.scoring.decision import Decision
from warehouse_ml.models.scoring.query import score_query
from warehouse_ml.models.scoring.scores import AggregatedScores, ClassProbabilities
from warehouse_ml.models.scoring.steps import INPUT
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import column, literal

CLASSES = ["a", "b", "c"]
X = [-3.0, -0.5, 0.0, 4.0, 9.5, 10.0, 25.0, None]
LEAVES = [  # (upper bound of x, unnormalised per-class probability), the CASE tree below
    (0.0, (0.7, 0.2, 0.1)),
    (10.0, (2.0, 1.0, 1.0)),  # not normalised: renormalised to 0.5, 0.25, 0.25
    (20.0, (0.4, 0.4, 0.2)),  # a tie: argmax takes the first class
    (None, (0.0, 0.0, 1.0)),  # an impossible class: probability 0, log -inf
]


def _leaf(x: float | None) -> tuple[float, ...] | None:
    if x is None:
        return None  # NULL x: no leaf, no probabilities
    return next(p for upper, p in LEAVES if upper is None or x < upper)


def _tree(class_index: int) -> exp.Expression:
    """The nested CASE a decision tree gives for one class's probability."""
    x = column("x", "s")
    case = exp.case()
    for upper, probabilities in LEAVES:
        value = literal(probabilities[class_index])
        if upper is None:
            case = case.else_(value)
        else:
            case = case.when(exp.LT(this=x.copy(), expression=literal(upper)), value)
    return exp.case().when(exp.Is(this=x, expression=exp.null()), exp.null()).else_(case)


@pytest.fixture
def con():
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, x DOUBLE)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(X)))
    return con


def _score(con, scores, decision=None, row=None):
    query = score_query(
        exp.to_table("t"), scores, CLASSES, passthrough=[("id", "id")],
        probability_names=["p_a", "p_b", "p_c"], log_probability_names=["lp_a", "lp_b", "lp_c"],
        decision=decision, row=row,
    )  # fmt: skip
    return con.sql(templates.generate(query)).fetchall()


def _check(rows, expected):
    for (_, *p, lp_a, lp_b, lp_c, predicted), want in zip(rows, expected, strict=True):
        lp = [lp_a, lp_b, lp_c]
        if want is None:
            assert p[:3] == [None] * 3 and lp == [None] * 3 and predicted is None
            continue
        normalised = np.asarray(want) / np.sum(want)
        np.testing.assert_allclose(p[:3], normalised, rtol=0, atol=1e-15)
        with np.errstate(divide="ignore"):
            np.testing.assert_allclose(lp, np.log(normalised), rtol=1e-15, atol=0)
        assert predicted == CLASSES[int(np.argmax(normalised))]  # ties to the first class


def test_case_tree_probabilities_are_renormalised_and_decided_by_argmax(con):
    rows = _score(con, ClassProbabilities([_tree(c) for c in range(3)]))
    _check(rows, [_leaf(x) for x in X])


def test_a_loss_matrix_decides_on_the_normalised_probabilities(con):
    loss = [[0.0, 1.0, 5.0], [1.0, 0.0, 1.0], [10.0, 1.0, 0.0]]
    decision = Decision.make(CLASSES, loss=loss)
    rows = _score(con, ClassProbabilities([_tree(c) for c in range(3)]), decision)
    for (_, *_, predicted), x in zip(rows, X, strict=True):
        leaf = _leaf(x)
        if leaf is None:
            assert predicted is None
            continue
        expected = (np.asarray(leaf) / np.sum(leaf)) @ np.asarray(loss)
        assert predicted == CLASSES[int(np.argmin(expected))]


def test_a_row_whose_scores_are_all_zero_gets_no_probabilities(con):
    zero = exp.cast(literal(0.0), "DOUBLE")
    rows = _score(con, ClassProbabilities([zero, zero.copy(), zero.copy()]))
    _check(rows, [None] * len(X))


def test_scores_aggregated_per_row_are_neighbour_votes(con):
    """k-NN's shape: a relation over the input rows with one row per scored row, carrying the
    passed-through columns itself (grouped by them, never joined back); a row with no
    neighbour has no votes and no probabilities."""
    labelled = [(-2.0, 0), (-1.0, 0), (0.5, 1), (4.5, 2), (3.5, 2), (9.0, 1), (10.5, 1)]
    votes = templates.values(labelled, "n", ["v", "label"])

    def neighbours(carried: list[exp.Expression]) -> exp.Query:
        near = exp.LTE(
            this=exp.Abs(this=exp.Sub(this=column("x", "s"), expression=column("v", "n"))),
            expression=literal(1.0),
        )
        counts = [
            exp.alias_(
                exp.func(
                    "SUM",
                    exp.case()
                    .when(exp.EQ(this=column("label", "n"), expression=literal(c)), literal(1))
                    .when(exp.Is(this=column("label", "n"), expression=exp.Null()), exp.Null())
                    .else_(literal(0)),
                ),
                f"wml_j_{c}",
            )
            for c in range(3)
        ]
        return (
            exp.select(*carried, *counts)
            .from_(exp.to_table(INPUT).as_("s"))
            .join(votes, on=near, join_type="LEFT")
            .group_by(*(item.this for item in carried))
        )

    rows = sorted(_score(con, AggregatedScores(neighbours, 3), row="wml_n"))
    expected = []
    for x in X:
        near = [label for v, label in labelled if x is not None and abs(x - v) <= 1.0]
        expected.append(tuple(float(near.count(c)) for c in range(3)) if near else None)
    _check(rows, expected)
