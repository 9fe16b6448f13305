"""The default decision tree against Weka's J48 (bench/j48.py runs both on the same rows): the
10-fold cross-validated accuracy within 2 points of J48's on most of the shared categorical data
sets here; skipped without Java and Weka's jar (Debian's ``weka``) or the data sets."""

from __future__ import annotations

import pytest
from bench_scripts import bench_script

pytestmark = pytest.mark.slow

QUICK = ["breast-cancer", "car", "contact-lenses", "kr-vs-kp", "tic-tac-toe", "vote"]
"""The data sets of a few thousand rows at most (bench/j48.py runs every one)."""


def test_cross_validated_accuracy_is_within_two_points_of_j48_on_most(datasets):
    j48 = bench_script("j48")
    jar = j48.weka_jar()
    if jar is None:
        pytest.skip("needs java and Weka's jar (apt-get install weka, or set WEKA_JAR)")
    differences = {}
    for name in QUICK:
        _, ours, theirs = j48.compare(jar, datasets, name)
        differences[name] = ours.accuracy - theirs.accuracy
    close = [name for name, d in differences.items() if abs(d) <= 0.02]
    assert len(close) > len(QUICK) / 2, differences
