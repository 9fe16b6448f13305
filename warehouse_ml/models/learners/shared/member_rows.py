"""The rows a learner that learns members of their own row weights at once counts
(models/capabilities.py: ``MembersAtOnce``)."""

from __future__ import annotations

from warehouse_ml.models.scoring import names
from warehouse_ml.models.training import Training


def member_rows(training: Training) -> Training:
    """``training`` as its count scans read it (``Training.member_rows``): for members of their
    own row weights, every row once per member, under a member column and a weight column whose
    names no source column has (``wml_member``, ``wml_member_weight``, or those names with a
    number); any other training as it is."""
    taken = training.source.columns
    member = names.fresh("wml_member", taken)
    return training.member_rows(member, names.fresh("wml_member_weight", [*taken, member]))
