"""The neighbours family's kind, as the registry (models/kinds.py) finds it: k nearest
neighbours."""

from __future__ import annotations

from warehouse_ml.models.kind_parameters import (
    AT_LEAST_ONE,
    FLOAT,
    INT,
    TEXT,
    Parameter,
    integer_at_least,
    one_of,
)
from warehouse_ml.models.kind_spec import SHARED_PARAMETERS, KindSpec

SPECS = (
    KindSpec(
        kind="k_nearest_neighbors",
        aliases=("knn",),
        cls="warehouse_ml.models.learners.neighbors.k_nearest_neighbors.KNearestNeighbors",
        summary="k nearest neighbours: exact top-k search in SQL over the stored training rows",
        parameters=(
            Parameter("k", INT, 5, "neighbours that vote", integer_at_least(1)),
            Parameter(
                "weights",
                TEXT,
                "uniform",
                "how a neighbour's vote weighs (distance: 1 / distance)",
                one_of("uniform", "distance"),
            ),
            Parameter(
                "metric",
                TEXT,
                "euclidean",
                "the distance (minkowski: of power p)",
                one_of("euclidean", "manhattan", "minkowski", "cosine"),
            ),
            Parameter("p", FLOAT, 2.0, "power of the minkowski metric", AT_LEAST_ONE),
            Parameter(
                "ties",
                TEXT,
                "key",
                "who votes at the k-th distance (key: k, smaller key; all: IBk)",
                one_of("key", "all"),
            ),
            *SHARED_PARAMETERS,
        ),
    ),
)
