"""The ZeroR family's kind, as models/kinds.py's ``register_families`` finds it."""

from __future__ import annotations

from warehouse_ml.models.kind_parameters import FLOAT, NON_NEGATIVE, Parameter
from warehouse_ml.models.kind_spec import SHARED_PARAMETERS, KindSpec

SPECS = (
    KindSpec(
        kind="zero_rule",
        aliases=("zeror",),
        cls="extra_families.zero_rule.zero_rule.ZeroRule",
        summary="ZeroR: every row scored by the training classes' shares alone",
        parameters=(
            Parameter(
                "alpha",
                FLOAT,
                0.0,
                "additive smoothing of P(class) (1: Weka's ZeroR)",
                NON_NEGATIVE,
            ),
            *SHARED_PARAMETERS,
        ),
        weighted=True,
    ),
)
