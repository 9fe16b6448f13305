"""The tree family's kind, as the registry (models/kinds.py) finds it: the decision tree."""

from __future__ import annotations

from warehouse_ml.models.kind_parameters import (
    COLUMN_NAME,
    FLOAT,
    INT,
    NON_NEGATIVE,
    OPTIONAL_INT,
    TEXT,
    Parameter,
    integer_at_least,
    number_within,
    one_of,
    or_none,
)
from warehouse_ml.models.kind_spec import SHARED_PARAMETERS, KindSpec

SPECS = (
    KindSpec(
        kind="decision_tree",
        aliases=("tree", "dt"),
        cls="warehouse_ml.models.learners.tree.decision_tree.DecisionTree",
        summary="Decision tree: information gain, gain ratio or Gini, grown level by level",
        parameters=(
            Parameter(
                "criterion",
                TEXT,
                "gain_ratio",
                "the impurity a split lowers",
                one_of("entropy", "gain_ratio", "gini"),
            ),
            Parameter(
                "splits",
                TEXT,
                "multiway",
                "how a categorical attribute splits",
                one_of("multiway", "binary"),
            ),
            Parameter(
                "max_depth",
                OPTIONAL_INT,
                None,
                "the deepest level split",
                or_none(integer_at_least(0)),
            ),
            Parameter(
                "min_leaf",
                INT,
                2,
                "least rows of a branch (whatever the weights)",
                integer_at_least(1),
            ),
            Parameter(
                "min_samples_split",
                INT,
                2,
                "least rows of a node to split it",
                integer_at_least(2),
            ),
            Parameter(
                "max_leaf_nodes",
                OPTIONAL_INT,
                None,
                "most leaves, grown best-first",
                or_none(integer_at_least(2)),
            ),
            Parameter(
                "pruning",
                TEXT,
                "pessimistic",
                "how the grown tree is pruned",
                one_of("none", "pessimistic", "reduced_error"),
            ),
            Parameter(
                "confidence",
                FLOAT,
                0.25,
                "confidence of pessimistic pruning",
                number_within(0, 0.5, low_open=True, high_open=False),
            ),
            Parameter(
                "bins",
                OPTIONAL_INT,
                32,
                "equal-frequency threshold edges (none: every value)",
                or_none(integer_at_least(2)),
            ),
            Parameter(
                "alpha", FLOAT, 0.0, "Laplace smoothing of the leaf probabilities", NON_NEGATIVE
            ),
            Parameter(
                "key",
                TEXT,
                None,
                "unique column whose MD5 holds out reduced_error's rows",
                COLUMN_NAME,
            ),
            Parameter(
                "prune_fraction",
                FLOAT,
                1 / 3,
                "share of rows reduced_error holds out",
                number_within(0, 1, low_open=True, high_open=True),
            ),
            *SHARED_PARAMETERS,
        ),
        weighted=True,
    ),
)
