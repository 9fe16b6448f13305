"""The fitted state of a linear discriminant analysis that is its own (models/state.py: the
learner protocol's ``state_class``), kept in the catalog details under the key
``linear_discriminant``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from warehouse_ml.models.state import NUMBER, TEXT, ReportState, Shape, sequence

ROWS = sequence(sequence(NUMBER))


@dataclass(frozen=True)
class LinearDiscriminantState(ReportState):
    """* ``columns``: each coefficient's name, ``(intercept)`` first
      (models/learners/shared/design.py, each categorical attribute's reference level dropped);
    * ``priors``: each class's prior (given, or its share of the training rows), in classes_
      order;
    * ``means``: each class's mean of the design columns (without the intercept);
    * ``coefficients``: each class's intercept and coefficients, in ``columns`` order."""

    columns: tuple[str, ...]
    priors: tuple[float, ...]
    means: tuple[tuple[float, ...], ...]
    coefficients: tuple[tuple[float, ...], ...]

    KEY: ClassVar[str] = "linear_discriminant"
    SHAPES: ClassVar[Mapping[str, Shape]] = {
        "columns": sequence(TEXT),
        "priors": sequence(NUMBER),
        "means": ROWS,
        "coefficients": ROWS,
    }
