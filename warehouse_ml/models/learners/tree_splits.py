"""A decision tree's split choice at one node, from that node's counts (numpy; no SQL).

The learner (decision_tree.py) counts, for every open node, the rows (or summed weights) per
(attribute, value or bin, class) in one statement per level; this module turns one node's
counts into its candidate splits and picks one.

Measures of a candidate whose branches hold the class counts ``parts`` (B x K) of a node whose
class counts are ``parent`` (K), with W the node's weight and w_b a branch's (NULLs included in
the branch they go to, module :func:`candidates`):

* ``gain``: information gain in bits, H(parent) - sum_b w_b / W H(b) (ID3);
* ``penalty``: numeric thresholds only, log2(T) / W with T the attribute's candidate thresholds
  at the node (C4.5 release 8's correction, log2(N - 1) / |D| for N distinct values or bins);
* ``gain_ratio``: (gain - penalty) / split information, split information
  -sum_b w_b / W log2(w_b / W) (C4.5);
* ``gini``: Gini impurity of the parent minus the branches' weighted Gini impurity (CART).

Choice (:func:`choose`): ``entropy`` the largest gain, ``gini`` the largest Gini decrease, each
over every candidate; ``gain_ratio`` as C4.5 release 8 and Weka's J48: each attribute's
candidate of largest gain, then the largest gain ratio among the attributes whose penalised
gain is at least their average less 1e-3 (Weka's slack). Ties go to the first attribute in
feature order, then the first candidate (lowest threshold). A split must gain more than
:data:`GAIN_TOLERANCE` (Gini: decrease more).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ENTROPY, GAIN_RATIO, GINI = "entropy", "gain_ratio", "gini"
CRITERIA = (ENTROPY, GAIN_RATIO, GINI)
MULTIWAY, BINARY = "multiway", "binary"
SPLITS = (MULTIWAY, BINARY)
THRESHOLD, VALUES, SUBSET = "threshold", "values", "subset"
"""Kinds of split: ``x <= t`` (numeric), one branch per value (multiway), a set of values
against the rest (binary categorical)."""

GAIN_TOLERANCE = 1e-12
"""Least gain (bits; Gini decrease) a split must have: below it, rounding, not information."""
AVERAGE_SLACK = 1e-3
"""Weka J48's slack on the average gain a gain-ratio candidate must reach."""


@dataclass(frozen=True)
class AttributeCounts:
    """One attribute's counts at one node: ``counts[v]`` the class counts (K) of value ``v``
    (values in their split order: bin order or ascending numbers for a numeric attribute, text
    order for a categorical one; only values with rows), ``nulls`` the class counts of NULL
    values and ``has_nulls`` whether the node's training rows had any (decided exactly, not
    from the floating-point ``nulls``)."""

    attribute: str
    numeric: bool
    counts: np.ndarray
    nulls: np.ndarray
    has_nulls: bool


@dataclass(frozen=True)
class Candidate:
    """A split of a node on ``attribute``: ``groups[b]`` the value indices (into the
    attribute's counts) of branch b (a multiway split's NULL branch holds none), ``null`` the
    branch NULLs go to, ``parts`` each branch's class counts (NULLs included), and its
    measures (module docstring)."""

    attribute: str
    kind: str
    groups: tuple[tuple[int, ...], ...]
    null: int
    parts: np.ndarray
    gain: float
    penalty: float
    gain_ratio: float
    gini: float

    @property
    def penalised_gain(self) -> float:
        """The gain less the numeric threshold penalty (bits)."""
        return self.gain - self.penalty


def entropy(counts: np.ndarray) -> np.ndarray:
    """Entropy in bits of each row of class counts (the last axis); 0 for an empty row."""
    counts = np.asarray(counts, dtype=float)
    total = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(total > 0, counts / np.where(total > 0, total, 1), 0.0)
        terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1)), 0.0)
    return terms.sum(axis=-1)


def gini_impurity(counts: np.ndarray) -> np.ndarray:
    """Gini impurity of each row of class counts; 0 for an empty row."""
    counts = np.asarray(counts, dtype=float)
    total = counts.sum(axis=-1)
    safe = np.where(total > 0, total, 1)
    return np.where(total > 0, 1.0 - ((counts / safe[..., None]) ** 2).sum(axis=-1), 0.0)


def measures(parent: np.ndarray, parts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gain, split information, Gini decrease) of each candidate, whose branches' class
    counts are ``parts[t]`` (T x B x K), of ``parent`` (K)."""
    weight = float(parent.sum())
    shares = parts.sum(axis=2) / weight
    gain = entropy(parent) - (shares * entropy(parts)).sum(axis=1)
    positive = shares > 0
    logs = np.log2(np.where(positive, shares, 1.0))
    split_info = -np.where(positive, shares * logs, 0.0).sum(axis=1)
    gini = gini_impurity(parent) - (shares * gini_impurity(parts)).sum(axis=1)
    return gain, split_info, gini


def _made(
    attribute: str,
    kind: str,
    groups: Sequence[tuple[tuple[int, ...], ...]],
    nulls: np.ndarray,
    parts: np.ndarray,
    measured: tuple[np.ndarray, np.ndarray, np.ndarray],
    keep: Sequence[int],
    penalty: float = 0.0,
) -> list[Candidate]:
    """The candidates ``keep`` of those whose branches are ``groups[t]`` holding
    ``parts[t]``, NULLs in branch ``nulls[t]``, with their ``measured`` gain, split information
    and Gini decrease."""
    gain, split_info, gini = measured
    safe = np.where(split_info > 0, split_info, 1.0)
    ratio = np.where(split_info > 0, (gain - penalty) / safe, 0.0)
    return [
        Candidate(attribute, kind, groups[t], int(nulls[t]), parts[t], float(gain[t]),
                  penalty, float(ratio[t]), float(gini[t]))
        for t in keep
    ]  # fmt: skip


def _two_way(
    attribute: str,
    kind: str,
    groups: Sequence[tuple[tuple[int, ...], tuple[int, ...]]],
    lefts: np.ndarray,
    counts: AttributeCounts,
    criterion: str,
    min_leaf: float,
) -> list[Candidate]:
    """The splits of the values ``groups[t][0]`` (class counts ``lefts[t]``) against the rest,
    NULLs on the side of larger gain (left on a tie) when the node has NULLs, else on the
    heavier side (left on a tie); a split is left out when a side would weigh less than
    ``min_leaf``. The criterion's measure (:func:`_score`) decides NULLs' side."""
    if not groups:
        return []
    parent = counts.counts.sum(axis=0) + counts.nulls
    sides = np.stack([lefts, counts.counts.sum(axis=0) - lefts], axis=1)
    if counts.has_nulls:
        options = []
        for side in (0, 1):
            parts = sides.copy()
            parts[:, side] += counts.nulls
            options.append((parts, parts.sum(axis=2).min(axis=1) >= min_leaf,
                            *measures(parent, parts)))  # fmt: skip
        score = [o[4] if criterion == GINI else o[2] for o in options]
        null = np.where(options[1][1] & (~options[0][1] | (score[1] > score[0])), 1, 0)
        picked = [
            np.where(null.reshape(-1, *([1] * (a.ndim - 1))) == 0, a, b)
            for a, b in zip(options[0], options[1], strict=True)
        ]
        parts, valid, measured = picked[0], picked[1], (picked[2], picked[3], picked[4])
    else:
        weights = sides.sum(axis=2)
        null = np.where(weights[:, 0] >= weights[:, 1], 0, 1)
        parts, valid, measured = sides, weights.min(axis=1) >= min_leaf, measures(parent, sides)
    keep = np.flatnonzero(valid)
    penalty = float(np.log2(len(keep)) / parent.sum()) if kind == THRESHOLD and len(keep) else 0.0
    return _made(attribute, kind, groups, null, parts, measured, keep, penalty)


def _score(candidate: Candidate, criterion: str) -> float:
    """What NULLs' side and the choice maximise: the Gini decrease, else the gain."""
    return candidate.gini if criterion == GINI else candidate.gain


def candidates(
    counts: AttributeCounts, criterion: str, splits: str, min_leaf: float
) -> list[Candidate]:
    """Every admissible split of one attribute at one node.

    Numeric: ``x <= t`` between consecutive values (bins), NULLs on one side; the penalty
    counts these admissible thresholds. Categorical multiway: one branch per value, and one
    for NULL when the node has NULLs; admissible when at least two branches weigh
    ``min_leaf`` or more (C4.5). Categorical binary: two classes, the prefixes of the values
    ordered by their proportion of the second class (CART's rule); more classes, each value
    against the rest. A two-way split needs ``min_leaf`` on each side.
    """
    matrix, v = counts.counts, len(counts.counts)
    parent = matrix.sum(axis=0) + counts.nulls
    if not counts.numeric and splits == MULTIWAY:
        groups = tuple((i,) for i in range(v)) + (((),) if counts.has_nulls else ())
        parts = np.vstack([matrix, counts.nulls[None, :]]) if counts.has_nulls else matrix
        null = v if counts.has_nulls else int(np.argmax(parts.sum(axis=1)))
        if (parts.sum(axis=1) >= min_leaf).sum() < 2:
            return []
        measured = measures(parent, parts[None])
        return _made(
            counts.attribute, VALUES, [groups], np.array([null]), parts[None], measured, [0]
        )
    if counts.numeric or matrix.shape[1] == 2:
        if counts.numeric:
            kind, order = THRESHOLD, list(range(v))
        else:
            totals = matrix.sum(axis=1)
            share = matrix[:, 1] / np.where(totals > 0, totals, 1.0)
            kind, order = SUBSET, sorted(range(v), key=lambda i: (share[i], i))
        groups = [(tuple(order[:i]), tuple(order[i:])) for i in range(1, v)]
        lefts = np.cumsum(matrix[order], axis=0)[:-1]
        return _two_way(counts.attribute, kind, groups, lefts, counts, criterion, min_leaf)
    alone = range(v) if v > 2 else range(1 if v == 2 else 0)  # of two values, one split
    groups = [((i,), tuple(j for j in range(v) if j != i)) for i in alone]
    lefts = matrix[list(alone)] if groups else np.empty((0, matrix.shape[1]))
    return _two_way(counts.attribute, SUBSET, groups, lefts, counts, criterion, min_leaf)


def choose(by_attribute: Sequence[Sequence[Candidate]], criterion: str) -> Candidate | None:
    """The split of a node among each attribute's candidates (module docstring), or None."""
    if criterion != GAIN_RATIO:
        best = None
        for found in by_attribute:
            for c in found:
                if best is None or _score(c, criterion) > _score(best, criterion):
                    best = c
        return best if best is not None and _score(best, criterion) > GAIN_TOLERANCE else None
    per_attribute = []
    for found in by_attribute:
        if found:
            top = max(found, key=lambda c: c.gain)  # the first of equal gains
            top = next(c for c in found if c.gain == top.gain)
            if top.kind != THRESHOLD or top.penalised_gain > 0:
                per_attribute.append(top)
    if not per_attribute:
        return None
    average = sum(c.penalised_gain for c in per_attribute) / len(per_attribute)
    best = None
    for c in per_attribute:
        admitted = c.penalised_gain >= average - AVERAGE_SLACK
        gains = c.penalised_gain > GAIN_TOLERANCE and c.gain_ratio > 0
        if admitted and gains and (best is None or c.gain_ratio > best.gain_ratio):
            best = c
    return best
