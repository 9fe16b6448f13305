"""The fitted state of a logistic regression that is its own (models/state.py: the learner
protocol's ``state_class``): the solver's report, kept in the catalog details under the key
``logistic_regression``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from warehouse_ml.models.state import FLAG, INTEGER, NUMBER, TEXT, ReportState, Shape, sequence

ROWS = sequence(sequence(NUMBER))


@dataclass(frozen=True)
class LogisticRegressionState(ReportState):
    """* ``n_iter``: Newton passes over the data; ``converged``: whether the last step was at
      most ``tol``; ``separated``: whether every training row scored its own class highest;
      ``log_likelihood``: the (weighted) log-likelihood at the last pass;
    * ``columns``: each coefficient's name, ``(intercept)`` first
      (models/learners/shared/design.py);
      ``classes``: the class index of each row of coefficients (a binary model: class 1);
    * ``coefficients``, ``std_errors``: one row per scored class, in ``columns`` order."""

    n_iter: int
    converged: bool
    separated: bool
    log_likelihood: float
    columns: tuple[str, ...]
    classes: tuple[int, ...]
    coefficients: tuple[tuple[float, ...], ...]
    std_errors: tuple[tuple[float, ...], ...]

    KEY: ClassVar[str] = "logistic_regression"
    SHAPES: ClassVar[Mapping[str, Shape]] = {
        "n_iter": INTEGER,
        "converged": FLAG,
        "separated": FLAG,
        "log_likelihood": NUMBER,
        "columns": sequence(TEXT),
        "classes": sequence(INTEGER),
        "coefficients": ROWS,
        "std_errors": ROWS,
    }
