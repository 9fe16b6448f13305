"""The linear family's kinds, as the registry (models/kinds.py) finds them: logistic regression,
linear discriminant analysis and the linear SVM."""

from __future__ import annotations

from warehouse_ml.models.kind_parameters import (
    COLUMN_NAME,
    FLOAT,
    INT,
    NON_NEGATIVE,
    OPTIONAL_TEXT,
    POSITIVE,
    PRIORS,
    SHRINKAGE,
    TEXT,
    Parameter,
    integer_at_least,
    one_of,
)
from warehouse_ml.models.kind_spec import SHARED_PARAMETERS, KindSpec

_MAX_ITER = Parameter("max_iter", INT, 100, "most Newton passes over the data", integer_at_least(1))
"""The iteration bound of the families fitted by Newton passes (logistic regression, the SVM)."""


def _newton_tol(coefficient: str) -> Parameter:
    """The convergence tolerance of a Newton family whose coefficients are ``coefficient``."""
    return Parameter(
        "tol", FLOAT, 1e-10, f"stop at a Newton step of at most tol (1 + max |{coefficient}|)",
        NON_NEGATIVE,
    )  # fmt: skip


SPECS = (
    KindSpec(
        kind="logistic_regression",
        aliases=("logreg", "lr"),
        cls="warehouse_ml.models.learners.linear.logistic_regression.LogisticRegression",
        summary="Logistic regression: Newton/IRLS passes, one-hot and standardised features",
        parameters=(
            Parameter("C", FLOAT, 1.0, "inverse strength of the L2 penalty", POSITIVE),
            Parameter(
                "penalty",
                OPTIONAL_TEXT,
                "l2",
                "the penalty (none: the likelihood alone)",
                one_of("l2", None),
            ),
            _MAX_ITER,
            _newton_tol("b"),
            *SHARED_PARAMETERS,
        ),
        weighted=True,
    ),
    KindSpec(
        kind="linear_discriminant",
        aliases=("lda",),
        cls="warehouse_ml.models.learners.linear.linear_discriminant.LinearDiscriminant",
        summary="Linear discriminant analysis: class means and pooled covariance in one pass",
        parameters=(
            Parameter(
                "shrinkage", SHRINKAGE, None, "covariance shrinkage in [0, 1], auto (Ledoit-Wolf)"
            ),
            Parameter("priors", PRIORS, None, "class priors: JSON list in class order, or object"),
            *SHARED_PARAMETERS,
        ),
    ),
    KindSpec(
        kind="linear_svm",
        aliases=("svm",),
        cls="warehouse_ml.models.learners.linear.svm.linear_svm.LinearSVM",
        summary="Linear SVM: squared hinge loss by finite Newton passes, Platt's probabilities",
        parameters=(
            Parameter("C", FLOAT, 1.0, "weight of the squared hinge loss against w.w/2", POSITIVE),
            _MAX_ITER,
            _newton_tol("w"),
            Parameter(
                "folds",
                INT,
                5,
                "folds of the decision values Platt's sigmoids fit",
                integer_at_least(2),
            ),
            Parameter(
                "key",
                TEXT,
                None,
                "unique column dealing rows to those folds by its MD5",
                COLUMN_NAME,
            ),
            *SHARED_PARAMETERS,
        ),
        weighted=True,
    ),
)
