"""A fitted decision tree as data: its nodes, the JSON it is stored as, the nested CASE that
routes a row down it (to count a level's rows, or to score), its leaf probabilities and C4.5's
pessimistic pruning.

Growing best-first (:func:`keep_best_first`) keeps the expansions scikit-learn's
``BestFirstTreeBuilder`` makes under ``max_leaf_nodes``, from a tree grown level by level.

Routing a row (:func:`route`), the one rule for counting and for scoring:

* ``threshold`` split: ``CAST(x AS DOUBLE) <= t`` goes to branch 0, a larger value to branch 1;
* ``values`` (one branch per value seen at the node) and ``subset`` (a set of values against
  the rest) splits: the value as text, compared with each branch's values;
* a NULL value goes to the split's ``null`` branch, decided when the split was learned and
  stored with it (splits.py: in a two-way split the side of larger gain when the node had
  NULLs, else the heavier side; in a multiway split its own branch when the node had NULLs,
  else the heaviest branch); a value the node never saw goes to its ``other`` branch, the
  heaviest.
"""

from __future__ import annotations

import heapq
import statistics
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlglot import exp

from warehouse_ml.sqlgen.templates import literal

PRUNING_SLACK = 0.1
"""C4.5 and Weka replace a subtree by a leaf whose estimated errors exceed the subtree's by at
most this much."""


@dataclass(frozen=True)
class Split:
    """How a node splits (module docstring): its ``attribute``, ``kind``, ``threshold``
    (threshold splits), ``values`` (each branch's values as text; a multiway split's NULL
    branch has none), the ``null`` and ``other`` branches, and its ``gain`` (bits, the
    penalised gain of a threshold) and ``score`` (what the criterion chose it by)."""

    attribute: str
    kind: str
    threshold: float | None
    values: tuple[tuple[str, ...], ...]
    null: int
    other: int
    gain: float
    score: float

    def describe(self, branch: int) -> str:
        """Branch ``branch``'s test in words, e.g. ``size <= 2.5`` or ``colour in {a, b}``."""
        return f"{self.attribute} {self.test(branch)}"

    def test(self, branch: int, digits: int | None = None) -> str:
        """Branch ``branch``'s test of the attribute, e.g. ``<= 2.5 or NULL``, ``= red or
        other``, ``in {a, b}``, ``is NULL``; a threshold exactly, or to ``digits``
        significant digits."""
        nulls = " or NULL" if branch == self.null else ""
        if self.kind == "threshold":
            op = "<=" if branch == 0 else ">"
            shown = repr(self.threshold) if digits is None else f"{self.threshold:.{digits}g}"
            return f"{op} {shown}{nulls}"
        shown = self.values[branch]
        if not shown:
            return "is NULL"
        test = f"= {shown[0]}" if len(shown) == 1 else "in {" + ", ".join(shown) + "}"
        other = " or other" if branch == self.other else ""
        return f"{test}{nulls}{other}"


@dataclass
class Node:
    """A node: its ``id`` (0 the root; ids grow level by level), ``depth``, training class
    ``counts`` (rows, or summed weights), unless a leaf its ``split`` and ``children`` (one
    per branch), and its training ``rows`` of positive weight (what the row thresholds and
    C4.5's error estimates count; None in a tree stored before they were kept)."""

    id: int
    depth: int
    counts: list[float]
    split: Split | None = None
    children: list[Node] = field(default_factory=list)
    rows: int | None = None

    @property
    def weight(self) -> float:
        return float(sum(self.counts))

    def walk(self) -> Iterator[Node]:
        """This node and its descendants, depth first, branches in order."""
        yield self
        for child in self.children:
            yield from child.walk()

    def leaves(self) -> list[Node]:
        return [n for n in self.walk() if n.split is None]

    def to_json(self) -> dict[str, Any]:
        """The node as JSON (catalog details): floats as Python floats, exact on reading."""
        out: dict[str, Any] = {
            "id": self.id, "depth": self.depth, "counts": self.counts, "rows": self.rows
        }  # fmt: skip
        if self.split is not None:
            s = self.split
            out["split"] = {
                "attribute": s.attribute, "kind": s.kind, "threshold": s.threshold,
                "values": [list(v) for v in s.values], "null": s.null, "other": s.other,
                "gain": s.gain, "score": s.score,
            }  # fmt: skip
            out["children"] = [c.to_json() for c in self.children]
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Node:
        split = data.get("split")
        return cls(
            data["id"],
            data["depth"],
            [float(c) for c in data["counts"]],
            None
            if split is None
            else Split(
                split["attribute"],
                split["kind"],
                split["threshold"],
                tuple(tuple(v) for v in split["values"]),
                split["null"],
                split["other"],
                split["gain"],
                split["score"],
            ),
            [cls.from_json(c) for c in data.get("children", [])],
            data.get("rows"),
        )


def node_probabilities(root: Node, alpha: float) -> dict[int, list[float]]:
    """Each node's class probabilities, ``(n_c + alpha) / (n + alpha K)`` of its training
    counts (a leaf's are what the model predicts; an inner node's are what an explanation
    starts from); a node without training weight (a branch whose rows all weigh 0) takes its
    parent's distribution, as C4.5 does."""
    out: dict[int, list[float]] = {}

    def visit(node: Node, inherited: list[float]) -> None:
        counts = np.array(node.counts, dtype=float)
        total = counts.sum() + alpha * len(counts)
        out[node.id] = [float(p) for p in (counts + alpha) / total] if total > 0 else inherited
        for child in node.children:
            visit(child, out[node.id])

    k = len(root.counts)
    visit(root, [1.0 / k] * k)
    return out


def route(
    node: Node,
    value_of: Callable[[Split], exp.Expression],
    leaf: Callable[[Node], exp.Expression | None],
    depth: int | None = None,
) -> exp.Expression | None:
    """The nested CASE taking a row from ``node`` to a leaf's expression ``leaf(node)`` (None
    for NULL), or, with ``depth``, to the expression of the node it reaches at that depth (a
    leaf above it included). ``value_of(split)`` is the row's value of the split's attribute:
    ``CAST(x AS DOUBLE)`` for a threshold, the value as text otherwise. A subtree whose every
    leaf is None is NULL itself, so a level's count reads only the branches still open."""
    if node.split is None or node.depth == depth:
        return leaf(node)
    split = node.split
    routed = [route(child, value_of, leaf, depth) for child in node.children]
    if all(r is None for r in routed):
        return None
    branch = [exp.null() if r is None else r for r in routed]
    x = value_of(split)
    if split.kind == "threshold":  # NULL fails either comparison: it takes the ELSE branch
        t = literal(split.threshold)
        if split.null == 0:
            return _case([(exp.GT(this=x, expression=t), branch[1])], branch[0])
        return _case([(exp.LTE(this=x, expression=t), branch[0])], branch[1])
    tests = []
    if split.null != split.other:
        tests.append((exp.Is(this=x.copy(), expression=exp.null()), branch[split.null].copy()))
    for b, values in enumerate(split.values):
        if values and b != split.other:
            listed = [literal(v) for v in values]
            test = (
                exp.EQ(this=x.copy(), expression=listed[0])
                if len(listed) == 1
                else exp.In(this=x.copy(), expressions=listed)
            )
            tests.append((test, branch[b]))
    return _case(tests, branch[split.other]) if tests else branch[split.other]


def _case(tests: list[tuple[exp.Expression, exp.Expression]], default: exp.Expression) -> exp.Case:
    """``CASE WHEN test THEN value ... ELSE default END``, built without copying its parts
    (sqlglot's builder copies the whole CASE at each WHEN: quadratic in a tree's size)."""
    ifs = [exp.If(this=test, true=value) for test, value in tests]
    return exp.Case(ifs=ifs, default=default)


Impurity = Callable[[np.ndarray], np.ndarray]
"""The impurity of each row of class counts (tree_splits.IMPURITY: entropy in bits, Gini)."""


def weighted_decrease(node: Node, impurity: Impurity) -> float:
    """A split node's impurity decrease times its weight, ``W_t imp(t) - sum_b W_b imp(b)``
    over its children b (NULLs in the branch they went to; a multiway split's every branch),
    from the stored class counts (weights): scikit-learn's ``impurity_improvement`` times the
    training weight N. 0 for a leaf."""
    if node.split is None:
        return 0.0
    weights = np.array([node.weight, *(c.weight for c in node.children)])
    impurities = impurity(np.array([node.counts, *(c.counts for c in node.children)]))
    products = weights * impurities
    return float(products[0] - products[1:].sum())


def keep_best_first(root: Node, max_leaves: int, impurity: Impurity) -> None:
    """Cut ``root`` (grown level by level, in place) to the tree a best-first growth of at
    most ``max_leaves`` leaves makes, as scikit-learn's ``BestFirstTreeBuilder``: from the
    root, repeatedly expand the open node of largest :func:`weighted_decrease` (equal ones: the
    lower node id, the earlier level's and the left one; scikit-learn's heap leaves that order
    unspecified) whose branches keep the leaves within ``max_leaves`` (a binary split adds one
    leaf; a multiway split of B branches B - 1, and one that would exceed the bound stays a
    leaf while smaller splits are expanded); every node never expanded becomes a leaf. The
    choice of each node's split does not depend on the order of growth, so the tree equals a
    best-first growth's; a growth level by level needs to reach depth ``max_leaves - 2`` at
    most (:func:`best_first_depth`)."""
    leaves = 1
    frontier = [(-weighted_decrease(root, impurity), root.id, root)]
    kept: set[int] = set()
    while frontier:
        _, _, node = heapq.heappop(frontier)
        if node.split is None or leaves + len(node.children) - 1 > max_leaves:
            continue
        kept.add(node.id)
        leaves += len(node.children) - 1
        for child in node.children:
            heapq.heappush(frontier, (-weighted_decrease(child, impurity), child.id, child))
    for node in root.walk():
        if node.id not in kept:
            node.split, node.children = None, []


def best_first_depth(max_depth: int | None, max_leaves: int | None) -> int | None:
    """The depth a level-by-level growth must reach for :func:`keep_best_first`: a node
    expanded best-first has all its ancestors expanded, each adding a leaf at least, so none
    deeper than ``max_leaves - 2`` is; ``max_depth`` when lower (None: no bound)."""
    bounds = [
        d for d in (max_depth, None if max_leaves is None else max_leaves - 1) if d is not None
    ]
    return min(bounds, default=None)


def _added_errors(n: float, e: float, confidence: float) -> float:
    """C4.5's extra errors of a leaf of weight ``n`` with ``e`` training errors: the upper
    limit of the binomial confidence interval at ``confidence`` times n, less e (Weka's
    ``Stats.addErrs``: exact for e = 0, linear between 0 and 1 and near e = n)."""
    if e < 1:
        base = n * (1 - confidence ** (1 / n))
        return base if e == 0 else base + e * (_added_errors(n, 1, confidence) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    z = statistics.NormalDist().inv_cdf(1 - confidence)
    f = (e + 0.5) / n
    r = (f + z * z / (2 * n) + z * np.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (
        1 + z * z / n
    )
    return float(r * n - e)


def leaf_errors(counts: list[float], rows: int, confidence: float) -> float:
    """Estimated errors, in rows, of a leaf of ``rows`` rows with class ``counts`` (weights):
    C4.5's binomial estimate of N = ``rows`` cases of which e = N times the weighted share
    misclassified (the counts themselves when unweighted), so that the estimate is of cases
    whatever the scale of the weights; 0 for an empty leaf."""
    weight = float(sum(counts))
    if weight <= 0 or rows <= 0:
        return 0.0
    n = float(rows)
    e = (weight - max(counts)) * (n / weight)  # unweighted: exactly the counts' errors
    return e + _added_errors(n, e, confidence)


def prune_pessimistic(node: Node, confidence: float) -> float:
    """C4.5's error-based pruning by subtree replacement, bottom up: a subtree becomes a leaf
    when the leaf's estimated errors (:func:`leaf_errors`, in rows) are at most the subtree's
    plus :data:`PRUNING_SLACK`.
    Subtree raising (Weka J48's default, which moves a branch's subtree up over the rows of
    its siblings) is not done: it would need those rows recounted. Returns the estimated
    errors of what ``node`` became."""
    assert node.rows is not None, "a grown tree counts every node's rows"
    as_leaf = leaf_errors(node.counts, node.rows, confidence)
    if node.split is None:
        return as_leaf
    subtree = sum(prune_pessimistic(child, confidence) for child in node.children)
    if as_leaf <= subtree + PRUNING_SLACK + 1e-6:  # Weka's smOrEq tolerance
        node.split, node.children = None, []
        return as_leaf
    return subtree
