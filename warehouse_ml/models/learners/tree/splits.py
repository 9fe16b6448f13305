"""A decision tree's split choice at one node, from that node's counts (numpy; no SQL).

The learner (decision_tree.py) counts, for every open node, the summed weights (an unweighted
fit: the rows) per (attribute, value or bin, class) and the rows of positive weight per
(attribute, value or bin) in one statement per level; this module turns one node's counts into
its candidate splits and picks one. Weights make the measures below; rows make the thresholds:
a branch's ``min_leaf`` and the C4.5 penalty's |D| count rows (scikit-learn's
``min_samples_leaf`` counts the samples of positive weight), so scaling every weight changes
neither.

Measures of a candidate whose branches hold the class counts ``parts`` (B x K) of a node whose
class counts are ``parent`` (K), with W the node's weight and w_b a branch's (NULLs included in
the branch they go to, module :func:`candidates`):

* ``gain``: information gain in bits, H(parent) - sum_b w_b / W H(b) (ID3);
* ``penalty``: numeric thresholds only, log2(T) / R with T the attribute's candidate thresholds
  at the node and R its rows (C4.5 release 8's correction, log2(N - 1) / |D| for N distinct
  values or bins);
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

import decimal
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

ENTROPY, GAIN_RATIO, GINI = "entropy", "gain_ratio", "gini"
MULTIWAY, BINARY = "multiway", "binary"
THRESHOLD, VALUES, SUBSET = "threshold", "values", "subset"
"""Kinds of split: ``x <= t`` (numeric), one branch per value (multiway), a set of values
against the rest (binary categorical)."""
KINDS = (THRESHOLD, VALUES, SUBSET)

GAIN_TOLERANCE = 1e-12
"""Least gain (bits; Gini decrease) a split must have: below it, rounding, not information."""
AVERAGE_SLACK = 1e-3
"""Weka J48's slack on the average gain a gain-ratio candidate must reach."""
EXACT = decimal.Context(prec=100)
"""Counts are integers or DECIMAL(38, 18) sums (Decimal): added and subtracted exactly at this
precision, each branch's count rounded to float once."""


@dataclass(frozen=True)
class AttributeCounts:
    """One attribute's counts at one node: ``counts[v]`` the class counts (K) of value ``v``
    (values in their split order: bin order or ascending numbers for a numeric attribute, text
    order for a categorical one; only values with rows), ``nulls`` the class counts of NULL
    values, ``has_nulls`` whether the node's training rows had any (decided exactly, not
    from the floating-point ``nulls``), ``rows[v]`` value v's rows of positive weight and
    ``null_rows`` the NULLs'."""

    attribute: str
    numeric: bool
    counts: np.ndarray
    nulls: np.ndarray
    has_nulls: bool
    rows: np.ndarray
    null_rows: int


@dataclass(frozen=True)
class Candidate:
    """A split of a node on ``attribute``: ``groups[b]`` the value indices (into the
    attribute's counts) of branch b (a multiway split's NULL branch holds none), ``null`` the
    branch NULLs go to, ``parts`` each branch's class counts and ``rows`` its rows (NULLs
    included), and its measures (module docstring)."""

    attribute: str
    kind: str
    groups: tuple[tuple[int, ...], ...]
    null: int
    parts: np.ndarray
    rows: np.ndarray
    gain: float
    penalty: float
    gain_ratio: float
    gini: float

    @property
    def penalised_gain(self) -> float:
        """The gain less the numeric threshold penalty (bits)."""
        return self.gain - self.penalty


@dataclass(frozen=True)
class LevelCounts:
    """The counts of one level's (node, attribute) groups. Group g is attribute
    ``names[attributes[g]]`` (its position in feature order) of node ``nodes[g]``, numeric when
    ``numeric[g]``; its values' class counts are ``cells[starts[g]:starts[g + 1]]`` (K each, in
    split order as AttributeCounts'), its NULLs' ``nulls[g]`` and its node's ``totals[g]``.
    Counts are exact (int64 rows, or Decimal weight sums in object arrays; floats as given);
    ``has_nulls[g]`` says, exactly, whether the group's NULLs weigh anything. Rows of positive
    weight (int64): ``rows`` each cell's, ``total_rows[g]`` the node's, ``null_rows[g]`` the
    NULLs'."""

    names: Sequence[str]
    nodes: np.ndarray
    attributes: np.ndarray
    numeric: np.ndarray
    starts: np.ndarray
    cells: np.ndarray
    totals: np.ndarray
    nulls: np.ndarray
    has_nulls: np.ndarray
    rows: np.ndarray
    total_rows: np.ndarray
    null_rows: np.ndarray

    @classmethod
    def of(cls, names: Sequence[str], nodes: np.ndarray, attributes: np.ndarray,
           numeric: np.ndarray, starts: np.ndarray, cells: np.ndarray, totals: np.ndarray,
           rows: np.ndarray, total_rows: np.ndarray) -> LevelCounts:  # fmt: skip
        """The level whose groups' NULL counts (and NULL rows) are their node's ``totals``
        (``total_rows``) less their values'."""
        with decimal.localcontext(EXACT):
            nulls = totals - _group_sums(cells, starts)
            has_nulls = np.asarray((nulls > 0).any(axis=1), dtype=bool)
        null_rows = total_rows - _group_sums(rows[:, None], starts)[:, 0]
        return cls(names, nodes, attributes, numeric, starts, cells, totals, nulls, has_nulls,
                   rows, total_rows, null_rows)  # fmt: skip

    @classmethod
    def single(cls, counts: AttributeCounts) -> LevelCounts:
        """One node's one attribute (group 0)."""
        nulls = np.asarray(counts.nulls, dtype=float)
        matrix = np.asarray(counts.counts, dtype=float).reshape(-1, len(nulls))
        rows = np.asarray(counts.rows, dtype=np.int64)
        return cls(
            [counts.attribute], np.zeros(1, dtype=int), np.zeros(1, dtype=int),
            np.array([counts.numeric]), np.array([0, len(matrix)]), matrix,
            (matrix.sum(axis=0) + nulls)[None], nulls[None], np.array([counts.has_nulls]),
            rows, np.array([rows.sum() + counts.null_rows]), np.array([counts.null_rows]),
        )  # fmt: skip


def _prefix(cells: np.ndarray) -> np.ndarray:
    """Running sums of ``cells`` (C x K) after a row of zeros: row i sums cells 0 .. i-1."""
    zero = np.zeros((1, cells.shape[1]), dtype=cells.dtype)
    return np.concatenate([zero, np.cumsum(cells, axis=0)]) if len(cells) else zero


def _group_sums(cells: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Each group's sum of its cells (G x K)."""
    running = _prefix(cells)
    return running[starts[1:]] - running[starts[:-1]]


def _ranges(groups: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``groups[i]`` repeated ``lengths[i]`` times, with 0 .. lengths[i] - 1 beside it."""
    repeated = np.repeat(groups, lengths)
    offsets = np.repeat(np.cumsum(lengths) - lengths, lengths)
    return repeated, np.arange(len(repeated)) - offsets


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


IMPURITY = {ENTROPY: entropy, GAIN_RATIO: entropy, GINI: gini_impurity}
"""The impurity each criterion decreases (gain ratio: C4.5's entropy, of which the information
gain is the decrease), what a best-first growth ranks splits by and feature importances sum."""


def measures(parent: np.ndarray, parts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gain, split information, Gini decrease) of each candidate t, whose branches' class
    counts are ``parts[t]`` (T x B x K), of its node's class counts ``parent[t]`` (T x K)."""
    weight = parent.sum(axis=1)
    shares = parts.sum(axis=2) / weight[:, None]
    gain = entropy(parent) - (shares * entropy(parts)).sum(axis=1)
    positive = shares > 0
    logs = np.log2(np.where(positive, shares, 1.0))
    split_info = -np.where(positive, shares * logs, 0.0).sum(axis=1)
    gini = gini_impurity(parent) - (shares * gini_impurity(parts)).sum(axis=1)
    return gain, split_info, gini


@dataclass(frozen=True)
class Scored:
    """Every admissible candidate of a level, one row each, ordered by group then
    ``position`` (the group's candidate order: thresholds and ordered subsets by the size of
    their left side, a value against the rest by its index): its ``group``, ``kind`` (index
    into KINDS), ``cut`` (a prefix's length, or the value alone; 0 for multiway), ``null``
    branch, measures, and its branches' class counts ``parts[batch[i]][row[i]]`` (floats) and
    rows ``rows[batch[i]][row[i]]``. ``order`` holds each ordered subset group's values, in its
    order, at the group's cells."""

    level: LevelCounts
    group: np.ndarray
    position: np.ndarray
    kind: np.ndarray
    cut: np.ndarray
    null: np.ndarray
    gain: np.ndarray
    penalty: np.ndarray
    gain_ratio: np.ndarray
    gini: np.ndarray
    batch: np.ndarray
    row: np.ndarray
    parts: Sequence[np.ndarray]
    rows: Sequence[np.ndarray]
    order: np.ndarray

    def candidate(self, i: int) -> Candidate:
        """Candidate ``i`` as a Candidate."""
        level, g = self.level, int(self.group[i])
        n, start, cut = (
            int(level.starts[g + 1] - level.starts[g]),
            int(level.starts[g]),
            int(self.cut[i]),
        )
        kind = KINDS[int(self.kind[i])]
        if kind == VALUES:
            groups = tuple((v,) for v in range(n)) + (((),) if level.has_nulls[g] else ())
        elif kind == THRESHOLD or level.totals.shape[1] == 2:
            order = tuple(int(v) for v in self.order[start : start + n])
            groups = (order[:cut], order[cut:])
        else:
            groups = ((cut,), tuple(v for v in range(n) if v != cut))
        batch, row = int(self.batch[i]), int(self.row[i])
        return Candidate(
            level.names[int(level.attributes[g])], kind, groups, int(self.null[i]),
            self.parts[batch][row], self.rows[batch][row], float(self.gain[i]),
            float(self.penalty[i]), float(self.gain_ratio[i]), float(self.gini[i]),
        )  # fmt: skip

    def of_group(self, g: int) -> list[Candidate]:
        """Group ``g``'s candidates, in their order."""
        return [self.candidate(int(i)) for i in np.flatnonzero(self.group == g)]


def _in_order(level: LevelCounts) -> np.ndarray:
    """Each group's values' local indices in the order its prefixes take them: their own
    order, except a binary categorical split of two classes (CART's rule): by their
    proportion of the second class, ties to the lower index."""
    sizes = np.diff(level.starts)
    group, local = _ranges(np.arange(len(sizes)), sizes)
    matrix = np.asarray(level.cells, dtype=float)
    if matrix.shape[1] != 2 or level.numeric.all():
        return local
    totals = matrix.sum(axis=1)
    share = matrix[:, 1] / np.where(totals > 0, totals, 1.0)
    share = np.where(level.numeric[group], local, share)  # numeric values keep their order
    return local[np.lexsort((local, share, group))]


def score_level(level: LevelCounts, criterion: str, splits: str, min_leaf: float) -> Scored:
    """Every admissible split of every group of ``level`` (see :func:`candidates`)."""
    sizes = np.diff(level.starts)
    k = level.totals.shape[1]
    multi = ~level.numeric & (splits == MULTIWAY)
    prefixed = level.numeric | (~multi & (k == 2))
    alone = ~level.numeric & ~multi & (k != 2)
    order = _in_order(level)
    ordered = level.starts[:-1].repeat(sizes) + order
    g1, t = _ranges(np.flatnonzero(prefixed), np.maximum(sizes[prefixed] - 1, 0))
    how_many = np.where(sizes[alone] > 2, sizes[alone], np.minimum(sizes[alone], 2) - 1)
    g2, v = _ranges(np.flatnonzero(alone), np.maximum(how_many, 0))
    group = np.concatenate([g1, g2])

    def left_sides(cells: np.ndarray) -> np.ndarray:
        """Each two-way candidate's left side's sum of ``cells``: a prefix, or a value alone."""
        running = _prefix(cells[ordered])
        prefixes = running[level.starts[g1] + t + 1] - running[level.starts[g1]]
        return np.concatenate([prefixes, cells[level.starts[g2] + v]])

    with decimal.localcontext(EXACT):
        exact = _two_way_sides(level.cells, level.nulls, level.starts, group, left_sides)
    sides = tuple(np.asarray(side, dtype=float) for side in exact)
    rows = _two_way_sides(level.rows[:, None], level.null_rows[:, None], level.starts, group,
                          left_sides)  # fmt: skip
    kind = np.where(level.numeric[group], KINDS.index(THRESHOLD), KINDS.index(SUBSET))
    found = [
        _two_way(level, group, np.concatenate([t + 1, v]), kind, sides, rows, criterion, min_leaf)
    ]
    found += _multiway(level, np.flatnonzero(multi & (sizes > 0)), min_leaf)
    batch = np.concatenate([np.full(len(f[0]), b) for b, f in enumerate(found)])
    columns = [np.concatenate([f[c] for f in found]) for c in range(len(found[0]) - 2)]
    group, cut, kind, null, gain, penalty, ratio, gini, row = columns
    position = np.where(kind == KINDS.index(VALUES), 0, cut)
    ranked = np.lexsort((position, group))
    return Scored(
        level, group[ranked], position[ranked], kind[ranked], cut[ranked], null[ranked],
        gain[ranked], penalty[ranked], ratio[ranked], gini[ranked], batch[ranked], row[ranked],
        [f[-2] for f in found], [f[-1] for f in found], order,
    )  # fmt: skip


def _two_way_sides(
    cells: np.ndarray,
    nulls: np.ndarray,
    starts: np.ndarray,
    group: np.ndarray,
    left_sides: Callable[[np.ndarray], np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """Each two-way candidate's branches' sums of ``cells`` (C x K: class counts, or rows as
    C x 1) with NULLs (``nulls``, G x K) on the left and on the right (T x 2 x K each), from
    the sums of its left side (``left_sides``); exact counts stay exact (in the EXACT
    context)."""
    lefts = left_sides(cells)
    rights = _group_sums(cells, starts)[group] - lefts
    nulls = nulls[group]
    return np.stack([lefts + nulls, rights], axis=1), np.stack([lefts, rights + nulls], axis=1)


def _ratio(gain: np.ndarray, split_info: np.ndarray, penalty: np.ndarray) -> np.ndarray:
    safe = np.where(split_info > 0, split_info, 1.0)
    return np.where(split_info > 0, (gain - penalty) / safe, 0.0)


def _two_way(
    level: LevelCounts,
    group: np.ndarray,
    cut: np.ndarray,
    kind: np.ndarray,
    sides: tuple[np.ndarray, np.ndarray],
    rows: tuple[np.ndarray, np.ndarray],
    criterion: str,
    min_leaf: float,
) -> tuple[np.ndarray, ...]:
    """The admissible two-way candidates: NULLs on the side of larger gain (left on a tie)
    when the group has NULLs, else on the heavier side (left on a tie); left out when a side
    would hold fewer than ``min_leaf`` rows. The criterion's measure (Gini decrease for
    ``gini``, else the gain) decides NULLs' side. ``sides`` and ``rows``: the branches' class
    counts and rows with NULLs on either side (:func:`_two_way_sides`). Columns as
    :func:`score_level` concatenates them."""
    parent = np.asarray(level.totals[group], dtype=float)
    options = []
    for parts, branch_rows in zip(sides, rows, strict=True):
        enough = branch_rows[:, :, 0].min(axis=1) >= min_leaf
        options.append((parts, parts.sum(axis=2), enough, *measures(parent, parts), branch_rows))
    score = [o[5] if criterion == GINI else o[3] for o in options]
    by_gain = options[1][2] & (~options[0][2] | (score[1] > score[0]))
    heavier = options[0][1][:, 0] < options[0][1][:, 1]
    null = np.where(level.has_nulls[group], by_gain, heavier).astype(int)
    parts, _, valid, gain, split_info, gini, branch_rows = (
        np.where(null.reshape(-1, *([1] * (a.ndim - 1))) == 0, a, b)
        for a, b in zip(options[0], options[1], strict=True)
    )
    threshold = kind == KINDS.index(THRESHOLD)
    admitted = np.bincount(group[valid & threshold], minlength=len(level.nodes))
    with np.errstate(divide="ignore", invalid="ignore"):
        per_group = np.where(admitted > 0, np.log2(admitted) / level.total_rows, 0.0)
    penalty = np.where(threshold, per_group[group], 0.0)
    keep = np.flatnonzero(valid)
    ratio = _ratio(gain, split_info, penalty)
    columns = (group, cut, kind, null, gain, penalty, ratio, gini)
    return (*(c[keep] for c in columns), np.arange(len(keep)), parts[keep],
            branch_rows[keep][:, :, 0])  # fmt: skip


def _multiway(level: LevelCounts, groups: np.ndarray, min_leaf: float) -> list[tuple]:
    """The multiway candidates of ``groups`` (one each: a branch per value, and one for NULL
    when the group has NULLs, which go there; else NULLs go to the heaviest branch, the first
    of equal weights), admissible when two branches hold ``min_leaf`` rows or more (C4.5); one
    batch per number of values and presence of NULLs. Columns as :func:`score_level`
    concatenates them."""
    sizes, has = np.diff(level.starts)[groups], level.has_nulls[groups]
    out = []
    for n, with_nulls in sorted(set(zip(sizes.tolist(), has.tolist(), strict=True))):
        chosen = groups[(sizes == n) & (has == with_nulls)]
        cells = level.starts[chosen][:, None] + np.arange(n)
        exact, rows = level.cells[cells], level.rows[cells]
        if with_nulls:
            exact = np.concatenate([exact, level.nulls[chosen][:, None, :]], axis=1)
            rows = np.concatenate([rows, level.null_rows[chosen][:, None]], axis=1)
        parts = np.asarray(exact, dtype=float)
        weights = parts.sum(axis=2)
        null = np.full(len(chosen), n) if with_nulls else np.argmax(weights, axis=1)
        gain, split_info, gini = measures(np.asarray(level.totals[chosen], dtype=float), parts)
        zero = np.zeros(len(chosen), dtype=int)
        kind = np.full(len(chosen), KINDS.index(VALUES))
        ratio = _ratio(gain, split_info, np.zeros(len(chosen)))
        keep = np.flatnonzero((rows >= min_leaf).sum(axis=1) >= 2)
        columns = (chosen, zero, kind, null, gain, zero.astype(float), ratio, gini)
        out.append((*(c[keep] for c in columns), np.arange(len(keep)), parts[keep], rows[keep]))
    return out


def _first_of_each(keys: np.ndarray, ranked: np.ndarray) -> np.ndarray:
    """The first of ``ranked`` (indices) for each value of ``keys`` (equal ones adjacent)."""
    if not len(ranked):
        return ranked
    k = keys[ranked]
    return ranked[np.concatenate([[True], k[1:] != k[:-1]])]


def _pick(
    node: np.ndarray,
    attribute: np.ndarray,
    position: np.ndarray,
    threshold: np.ndarray,
    measured: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    criterion: str,
) -> np.ndarray:
    """The chosen candidate of each node that has one (module docstring), as indices, from
    each candidate's node, attribute position, position among the attribute's candidates,
    whether it is a threshold, and its (gain, penalty, gain ratio, Gini decrease)."""
    gain, penalty, ratio, gini = measured
    if criterion != GAIN_RATIO:
        score = gini if criterion == GINI else gain
        best = _first_of_each(node, np.lexsort((position, attribute, -score, node)))
        return best[score[best] > GAIN_TOLERANCE]
    pair = node * (int(attribute.max(initial=0)) + 1) + attribute
    tops = _first_of_each(pair, np.lexsort((position, -gain, attribute, node)))
    penalised = gain - penalty
    tops = tops[~threshold[tops] | (penalised[tops] > 0)]
    if not len(tops):
        return tops
    nodes, which, counts = np.unique(node[tops], return_inverse=True, return_counts=True)
    column = np.arange(len(tops)) - np.repeat(np.cumsum(counts) - counts, counts)
    grid = np.zeros((len(nodes), int(counts.max())))
    grid[which, column] = penalised[tops]  # summed in attribute order, as written
    average = np.cumsum(grid, axis=1)[:, -1] / counts
    admitted = (
        (penalised[tops] >= average[which] - AVERAGE_SLACK)
        & (penalised[tops] > GAIN_TOLERANCE)
        & (ratio[tops] > 0)
    )
    tops = tops[admitted]
    return _first_of_each(node, tops[np.lexsort((attribute[tops], -ratio[tops], node[tops]))])


def choose_level(scored: Scored, criterion: str) -> dict[int, Candidate]:
    """Each node's chosen split (module docstring) by its node, for the nodes that have one."""
    level = scored.level
    node, attribute = level.nodes[scored.group], level.attributes[scored.group]
    measured = (scored.gain, scored.penalty, scored.gain_ratio, scored.gini)
    threshold = scored.kind == KINDS.index(THRESHOLD)
    chosen = _pick(node, attribute, scored.position, threshold, measured, criterion)
    return {int(node[i]): scored.candidate(int(i)) for i in chosen}


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
    return score_level(LevelCounts.single(counts), criterion, splits, min_leaf).of_group(0)


def choose(by_attribute: Sequence[Sequence[Candidate]], criterion: str) -> Candidate | None:
    """The split of a node among each attribute's candidates (module docstring), or None."""
    listed = [(a, p, c) for a, found in enumerate(by_attribute) for p, c in enumerate(found)]
    if not listed:
        return None
    attribute, position = (np.array([x[i] for x in listed]) for i in (0, 1))
    measured = tuple(
        np.array([getattr(x[2], m) for x in listed], dtype=float)
        for m in ("gain", "penalty", "gain_ratio", "gini")
    )
    threshold = np.array([x[2].kind == THRESHOLD for x in listed])
    chosen = _pick(np.zeros(len(listed), dtype=int), attribute, position, threshold,
                   measured, criterion)  # fmt: skip
    return listed[int(chosen[0])][2] if len(chosen) else None
