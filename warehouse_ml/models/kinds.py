"""The model kinds, declared as data: each kind's catalog name, the spellings the command line
accepts for it, the dotted path of its class (imported on first use) and its constructor's
parameters (type, default, one-line help). ``warehouse_ml.load``, the command line (its
``--kind``, ``--param`` and ``--help``) and the conformance tests read this registry; nothing
here imports a learner, DuckDB, Arrow, sqlglot or numpy, so ``warehouse-ml --help`` can.

A new kind is one :class:`KindSpec` given to :func:`register`
(``tests/learners/test_conformance.py`` checks that its parameters are its class's
constructor's)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from warehouse_ml.errors import IncompatibleModelError
from warehouse_ml.models.kind_parameters import (
    AT_LEAST_ONE,
    ATTRIBUTE_NAME,
    COLUMN_NAME,
    FLOAT,
    INT,
    NON_NEGATIVE,
    OPTIONAL_INT,
    OPTIONAL_TEXT,
    POSITIVE,
    PRIORS,
    SHRINKAGE,
    TEXT,
    Parameter,
    integer_at_least,
    number_within,
    one_of,
    or_none,
)
from warehouse_ml.models.kind_spec import SHARED_PARAMETERS, KindSpec
from warehouse_ml.version import VERSION

if TYPE_CHECKING:
    from warehouse_ml.models.base import Classifier


_MAX_ITER = Parameter("max_iter", INT, 100, "most Newton passes over the data", integer_at_least(1))
"""The iteration bound of the families fitted by Newton passes (logistic regression, the SVM)."""


def _newton_tol(coefficient: str) -> Parameter:
    """The convergence tolerance of a Newton family whose coefficients are ``coefficient``."""
    return Parameter(
        "tol", FLOAT, 1e-10, f"stop at a Newton step of at most tol (1 + max |{coefficient}|)",
        NON_NEGATIVE,
    )  # fmt: skip


_REGISTRY: dict[str, KindSpec] = {}


def register(spec: KindSpec) -> KindSpec:
    """Add ``spec`` to the registry (a ValueError if its kind or a spelling is taken)."""
    taken = {s for other in _REGISTRY.values() for s in other.spellings}
    clash = sorted(taken & set(spec.spellings))
    if clash:
        raise ValueError(f"model kind {spec.kind!r}: spelling {clash[0]!r} is already taken")
    _REGISTRY[spec.kind] = spec
    return spec


def unregister(kind: str) -> None:
    """Remove the kind ``kind`` from the registry."""
    del _REGISTRY[kind]


@contextlib.contextmanager
def registered(spec: KindSpec) -> Iterator[KindSpec]:
    """``spec`` registered for the duration of a ``with`` block (a test's throwaway kind)."""
    register(spec)
    try:
        yield spec
    finally:
        unregister(spec.kind)


def specs() -> list[KindSpec]:
    """Every registered kind, in registration order."""
    return list(_REGISTRY.values())


def spec_of(kind: str) -> KindSpec | None:
    """The registered kind whose catalog name is ``kind``, or None."""
    return _REGISTRY.get(kind)


def class_of(kind: str, model: str) -> type[Classifier]:
    """The class of model ``model``'s ``kind``; an IncompatibleModelError listing the known
    kinds when it is not registered here."""
    spec = spec_of(kind)
    if spec is None:
        raise IncompatibleModelError(
            f"model {model!r} is of kind {kind!r}, unknown to warehouse-ml {VERSION} (known "
            f"kinds: {sorted(s.kind for s in specs())})"
        )
    return spec.load()


def parameters_table() -> str:
    """Every registered kind's own parameters (not those every kind shares: ``categorical``,
    ``numeric``, ``class_weight``) as a Markdown table: columns kind (its ``--kind``
    spellings), parameter, default (as Python writes it), meaning and what the value must be
    (its constraint; "see the kind's section" when the constructor checks it itself). The
    README's table is this text (tests/package/test_readme.py)."""
    rows = ["| kind | parameter | default | meaning | takes |", "|---|---|---|---|---|"]
    for spec in specs():
        for parameter in (p for p in spec.settable if p not in SHARED_PARAMETERS):
            takes = (
                "see the kind's section"
                if parameter.constraint is None
                else parameter.constraint.expected
            )
            cells = [
                "/".join(f"`{s}`" for s in spec.spellings), f"`{parameter.name}`",
                f"`{parameter.default!r}`", parameter.help, takes,
            ]  # fmt: skip
            rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows) + "\n"


def named(text: str) -> KindSpec:
    """The kind a ``--kind`` value names (any case); ValueError listing the spellings."""
    for spec in _REGISTRY.values():
        if text.lower() in spec.spellings:
            return spec
    spellings = [s for spec in _REGISTRY.values() for s in spec.spellings]
    raise ValueError(f"unknown model kind {text!r}; expected one of {', '.join(spellings)}")


register(
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
    )
)
register(
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
    )
)
register(
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
    )
)
register(
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
    )
)
register(
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
    )
)
register(
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
    )
)
register(
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
    )
)
