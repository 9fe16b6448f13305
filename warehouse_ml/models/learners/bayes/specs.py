"""The counting family's kinds, as the registry (models/kinds.py) finds them: Naive Bayes and
Tree-Augmented Naive Bayes."""

from __future__ import annotations

from warehouse_ml.models.kind_parameters import (
    ATTRIBUTE_NAME,
    FLOAT,
    INT,
    NON_NEGATIVE,
    TEXT,
    Parameter,
    integer_at_least,
)
from warehouse_ml.models.kind_spec import SHARED_PARAMETERS, KindSpec

SPECS = (
    KindSpec(
        kind="naive_bayes",
        aliases=("nb",),
        cls="warehouse_ml.models.learners.bayes.naive_bayes.NaiveBayes",
        summary="Naive Bayes: categorical counts, Gaussian numbers",
        parameters=(
            Parameter("alpha", FLOAT, 1.0, "additive smoothing of P(value | class)", NON_NEGATIVE),
            Parameter("prior_alpha", FLOAT, 0.0, "additive smoothing of P(class)", NON_NEGATIVE),
            Parameter("m", FLOAT, 0.0, "m-estimate weight with a uniform prior", NON_NEGATIVE),
            Parameter(
                "var_smoothing",
                FLOAT,
                1e-9,
                "variance floor, a fraction of the largest variance",
                NON_NEGATIVE,
            ),
            Parameter("block_size", INT, 4, "attributes counted per scan", integer_at_least(1)),
            *SHARED_PARAMETERS,
        ),
        weighted=True,
    ),
    KindSpec(
        kind="tan",
        aliases=(),
        cls="warehouse_ml.models.learners.bayes.tan.TAN",
        summary="Tree-Augmented Naive Bayes: a tree of attribute pairs, numbers in bins",
        parameters=(
            Parameter(
                "alpha", FLOAT, 0.5, "additive smoothing of P(value | class, parent)", NON_NEGATIVE
            ),
            Parameter("prior_alpha", FLOAT, 0.5, "additive smoothing of P(class)", NON_NEGATIVE),
            Parameter("root", TEXT, None, "the attribute at the root of the tree", ATTRIBUTE_NAME),
            Parameter(
                "bins", INT, 5, "equal-frequency bins of a numeric column", integer_at_least(1)
            ),
            *SHARED_PARAMETERS,
        ),
        weighted=True,
    ),
)
