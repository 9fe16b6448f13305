"""Timing shared by the bench scripts (run as ``python bench/<script>.py``, which puts this
folder on the import path)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def best_of(repeat: int, run: Callable[[], Any]) -> float:
    """The fastest of ``repeat`` calls of ``run``, in seconds of wall time."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)
