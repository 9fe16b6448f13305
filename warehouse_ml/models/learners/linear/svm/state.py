"""The fitted state of a linear SVM that is its own (models/state.py: the learner protocol's
``state_class``), kept in the catalog details under the key ``linear_svm``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from warehouse_ml.models.state import FLAG, INTEGER, NUMBER, TEXT, ReportState, Shape, sequence

ROWS = sequence(sequence(NUMBER))


@dataclass(frozen=True)
class LinearSvmState(ReportState):
    """* ``n_iter``: Newton passes over the data; ``line_passes``: the line searches' passes;
      ``converged``: whether the last Newton step was at most ``tol``;
    * ``columns``: each coefficient's name, ``(intercept)`` first
      (models/learners/shared/design.py);
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

    KEY: ClassVar[str] = "linear_svm"
    SHAPES: ClassVar[Mapping[str, Shape]] = {
        "n_iter": INTEGER,
        "line_passes": INTEGER,
        "converged": FLAG,
        "columns": sequence(TEXT),
        "classes": sequence(INTEGER),
        "coefficients": ROWS,
        "sigmoids": ROWS,
    }
