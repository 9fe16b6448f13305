"""The fitted state of a linear SVM that is its own (models/state.py: the learner protocol's
``state_class``), kept in the catalog details under the key ``linear_svm``."""

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
class LinearSvmState(LearnedState):
    """* ``n_iter``: Newton passes over the data; ``line_passes``: the line searches' passes;
      ``converged``: whether the last Newton step was at most ``tol``;
    * ``columns``: each coefficient's name, ``(intercept)`` first (linear_design.py);
      ``classes``: the class index of each row of coefficients (a binary model: class 1);
    * ``coefficients``: one row per scored class, in ``columns`` order;
    * ``sigmoids``: each scored class's Platt sigmoid ``(A, B)``: the class's probability
      ``1 / (1 + exp(A f + B))`` of its decision value f, before normalisation."""

    n_iter: int
    line_passes: int
    converged: bool
    columns: tuple[str, ...]
    classes: tuple[int, ...]
    coefficients: tuple[tuple[float, ...], ...]
    sigmoids: tuple[tuple[float, ...], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "linear_svm": {
                "n_iter": self.n_iter,
                "line_passes": self.line_passes,
                "converged": self.converged,
                "columns": list(self.columns),
                "classes": list(self.classes),
                "coefficients": [list(r) for r in self.coefficients],
                "sigmoids": [list(r) for r in self.sigmoids],
            }
        }

    @classmethod
    def from_json(cls, fields: Fields) -> LinearSvmState:
        report = Fields(fields.take("linear_svm", OBJECT), fields.model, "linear_svm.")
        return cls(
            n_iter=report.take("n_iter", INTEGER),
            line_passes=report.take("line_passes", INTEGER),
            converged=report.take("converged", FLAG),
            columns=report.take("columns", sequence(TEXT)),
            classes=report.take("classes", sequence(INTEGER)),
            coefficients=report.take("coefficients", ROWS),
            sigmoids=report.take("sigmoids", ROWS),
        )
