"""The columns k-NN's stored rows, pairs and neighbour lists are named by, shared by the
searches (search.py), the metrics (metrics.py) and the tie rules (ties.py)."""

from __future__ import annotations

NEIGHBOUR = "neighbour"
"""A stored row's key (BIGINT, 1-based): its rank in the order of its stored values."""
CLASS_INDEX = "class_index"
REDUCED = "wml_reduced"
"""A pair's reduced distance (DOUBLE >= 0), ranked and compared in the distance's place
(metrics.py)."""
ROW_ID = "wml_n"
"""A scored row's number where the search groups each row's neighbours by it."""
RANK = "wml_rank"
"""A neighbour's rank among a scored row's neighbours (1 the nearest)."""
NEAREST = "wml_nearest"
"""A scored row's k nearest as a list of structs (wml_reduced, neighbour, class_index)."""


def coordinate(i: int) -> str:
    """The column of feature ``i``'s coordinate, stored and scored alike."""
    return f"x_{i}"
