"""The fitted state of a logistic regression that is its own (models/state.py: the learner
protocol's ``state_class``): the solver's report, kept in the catalog details under the key
``logistic_regression``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from warehouse_ml.models.state import (
    INTEGER,
    NUMBER,
    OBJECT,
    TEXT,
    Fields,
    LearnedState,
    Shape,
    sequence,
)

FLAG = Shape("a boolean", lambda v: isinstance(v, bool))
ROWS = sequence(sequence(NUMBER))


@dataclass(frozen=True)
class LogisticRegressionState(LearnedState):
    """* ``n_iter``: Newton passes over the data; ``converged``: whether the last step was at
      most ``tol``; ``separated``: whether every training row scored its own class highest;
      ``log_likelihood``: the (weighted) log-likelihood at the last pass;
    * ``columns``: each coefficient's name, ``(intercept)`` first (linear_design.py);
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

    def to_json(self) -> dict[str, Any]:
        return {
            "logistic_regression": {
                "n_iter": self.n_iter,
                "converged": self.converged,
                "separated": self.separated,
                "log_likelihood": self.log_likelihood,
                "columns": list(self.columns),
                "classes": list(self.classes),
                "coefficients": [list(r) for r in self.coefficients],
                "std_errors": [list(r) for r in self.std_errors],
            }
        }

    @classmethod
    def from_json(cls, fields: Fields) -> LogisticRegressionState:
        report = Fields(
            fields.take("logistic_regression", OBJECT), fields.model, "logistic_regression."
        )
        return cls(
            n_iter=report.take("n_iter", INTEGER),
            converged=report.take("converged", FLAG),
            separated=report.take("separated", FLAG),
            log_likelihood=report.take("log_likelihood", NUMBER),
            columns=report.take("columns", sequence(TEXT)),
            classes=report.take("classes", sequence(INTEGER)),
            coefficients=report.take("coefficients", ROWS),
            std_errors=report.take("std_errors", ROWS),
        )
