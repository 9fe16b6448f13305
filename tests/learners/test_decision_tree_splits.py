"""The split choice of a decision tree node (models/learners/tree/splits.py) on count tables
drawn at random, against measures written here from their definitions: every candidate's
branches, NULL side, gain, gain ratio (with C4.5's threshold penalty) and Gini decrease, and
the choice of each criterion. The counts are weights (rows times a weight per seed), the
row thresholds (min_leaf, the penalty's |D|) count the rows."""

from __future__ import annotations

import math

import numpy as np
import pytest

from warehouse_ml.models.learners.tree import splits as tree_splits
from warehouse_ml.models.learners.tree.splits import AttributeCounts


def h(counts) -> float:
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts if c > 0) if n else 0.0


def g(counts) -> float:
    n = sum(counts)
    return 1 - sum((c / n) ** 2 for c in counts) if n else 0.0


def scored(parts, penalty=0.0):
    """(gain, gain ratio, Gini decrease) of branches ``parts`` (lists of class counts)."""
    parent = [sum(col) for col in zip(*parts)]
    n = sum(parent)
    w = [sum(p) / n for p in parts]
    gain = h(parent) - sum(wi * h(p) for wi, p in zip(w, parts))
    info = -sum(wi * math.log2(wi) for wi in w if wi > 0)
    return gain, (gain - penalty) / info, g(parent) - sum(wi * g(p) for wi, p in zip(w, parts))


def two_way(counts, nulls, rows, null_rows, left, right, criterion, min_leaf):
    """The reference's two-way split: NULLs on the side of larger criterion measure (left on
    a tie) when there are NULLs, else on the heavier side; None below min_leaf rows."""
    sides = [
        [sum(counts[i][c] for i in group) for c in range(len(nulls))] for group in (left, right)
    ]
    side_rows = [sum(rows[i] for i in group) for group in (left, right)]
    options = [0, 1] if sum(nulls) > 0 else [0 if sum(sides[0]) >= sum(sides[1]) else 1]
    best = None
    for side in options:
        parts = [[s + n * (b == side) for s, n in zip(sides[b], nulls)] for b in (0, 1)]
        if min(side_rows[b] + null_rows * (b == side) for b in (0, 1)) < min_leaf:
            continue
        gain, ratio, gini = scored(parts)
        measure = gini if criterion == "gini" else gain
        if best is None or measure > best[0]:
            best = (measure, side, parts)
    return best


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("criterion", ["entropy", "gain_ratio", "gini"])
def test_candidates_and_choice_equal_the_definitions(seed, criterion):
    rng = np.random.default_rng(seed)
    k = 2 + seed % 3
    v = 2 + seed % 5
    cells = rng.integers(0, 6, (v, k))
    cells[cells.sum(axis=1) == 0, 0] = 1  # every listed value has rows
    null_cells = rng.integers(0, 3, k) * (seed % 2)
    weight = [1.0, 0.125, 8.0][seed % 3]  # each row's: the counts are weights, not rows
    counts, nulls = cells * weight, null_cells * weight
    rows, null_rows = cells.sum(axis=1), int(null_cells.sum())
    min_leaf = 2
    found_by_attribute = []
    for numeric, splits in ((True, "binary"), (False, "multiway"), (False, "binary")):
        table = AttributeCounts("a", numeric, counts, nulls, nulls.sum() > 0, rows, null_rows)
        found = tree_splits.candidates(table, criterion, splits, min_leaf)
        found_by_attribute.append(found)
        if not numeric and splits == "multiway":
            parts = [list(r) for r in counts] + ([list(nulls)] if nulls.sum() else [])
            branch_rows = [*rows] + ([null_rows] if nulls.sum() else [])
            expected = [parts] if sum(r >= min_leaf for r in branch_rows) >= 2 else []
            assert [c.parts.tolist() for c in found] == expected
            for c in found:
                gain, ratio, gini = scored(expected[0])
                assert (c.gain, c.gain_ratio, c.gini) == pytest.approx(
                    (gain, ratio, gini), abs=1e-12
                )
            continue
        if numeric:
            orders = [list(range(v))]
        elif k == 2:
            orders = [sorted(range(v), key=lambda i: (counts[i][1] / counts[i].sum(), i))]
        else:
            orders = []
        pairs = [(o[:i], o[i:]) for o in orders for i in range(1, v)]
        if not numeric and k > 2:
            pairs = [([i], [j for j in range(v) if j != i]) for i in (range(v) if v > 2 else [0])]
        expected = []
        for left, right in pairs:
            made = two_way(counts.tolist(), nulls.tolist(), rows.tolist(), null_rows, left,
                           right, criterion, min_leaf)  # fmt: skip
            if made is not None:
                expected.append((tuple(left), tuple(right), made[1], made[2]))
        assert [(c.groups[0], c.groups[1], c.null) for c in found] == [e[:3] for e in expected]
        penalty = (
            math.log2(len(expected)) / (rows.sum() + null_rows) if numeric and expected else 0.0
        )
        for c, e in zip(found, expected):
            gain, ratio, gini = scored(e[3], penalty)
            assert c.parts.tolist() == e[3]
            assert (c.gain, c.gain_ratio, c.gini) == pytest.approx((gain, ratio, gini), abs=1e-12)
    chosen = tree_splits.choose(found_by_attribute, criterion)
    every = [c for found in found_by_attribute for c in found]
    if criterion == "gain_ratio":
        best_each = [max(f, key=lambda c: c.gain) for f in found_by_attribute if f]
        best_each = [
            next(c for c in f if c.gain == b.gain)
            for f, b in zip([f for f in found_by_attribute if f], best_each)
        ]
        admitted = [c for c in best_each if c.kind != "threshold" or c.penalised_gain > 0]
        if admitted:
            average = sum(c.penalised_gain for c in admitted) / len(admitted)
            admitted = [c for c in admitted if c.penalised_gain >= average - 1e-3
                        and c.penalised_gain > 1e-12 and c.gain_ratio > 0]  # fmt: skip
        expected = max(admitted, key=lambda c: c.gain_ratio, default=None)
        if expected is not None:
            expected = next(c for c in admitted if c.gain_ratio == expected.gain_ratio)
    else:
        measure = (lambda c: c.gini) if criterion == "gini" else (lambda c: c.gain)
        top = max(every, key=measure, default=None)
        expected = None
        if top is not None and measure(top) > 1e-12:
            expected = next(c for c in every if measure(c) == measure(top))
    assert chosen is expected
