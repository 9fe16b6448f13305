"""The default decision tree against Weka's J48 (bench/j48.py runs both on the same rows): the
10-fold cross-validated accuracy within 2 points of J48's on most of the shared categorical data
sets here; skipped without Java and Weka's jar (Debian's ``weka``) or the data sets."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from conftest import REPO

pytestmark = pytest.mark.slow

QUICK = ["breast-cancer", "car", "contact-lenses", "kr-vs-kp", "tic-tac-toe", "vote"]
"""The data sets of a few thousand rows at most (bench/j48.py runs every one)."""


def bench():
    """bench/j48.py as a module (it imports bench/small.py, found beside it)."""
    sys.path.insert(0, str(REPO / "bench"))
    try:
        spec = importlib.util.spec_from_file_location("bench_j48", REPO / "bench" / "j48.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # its dataclass looks its module up there
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(REPO / "bench"))
    return module


def test_cross_validated_accuracy_is_within_two_points_of_j48_on_most(datasets):
    j48 = bench()
    jar = j48.weka_jar()
    if jar is None:
        pytest.skip("needs java and Weka's jar (apt-get install weka, or set WEKA_JAR)")
    differences = {}
    for name in QUICK:
        _, ours, theirs = j48.compare(jar, datasets, name)
        differences[name] = ours.accuracy - theirs.accuracy
    close = [name for name, d in differences.items() if abs(d) <= 0.02]
    assert len(close) > len(QUICK) / 2, differences
