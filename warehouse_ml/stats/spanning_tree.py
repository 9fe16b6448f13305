"""Maximum-weight spanning trees over attributes: the one learning step done in Python.

Pure Python/numpy, no SQL: the weights (conditional mutual information for TAN, mutual
information for Chow-Liu trees) come from the warehouse as a small d x d matrix.

Tie-breaking is deterministic: Kruskal's algorithm takes edges by weight descending, then by
attribute order (lower first index, then lower second index). Every pair is a candidate edge,
including zero-weight pairs, so attributes that carry no information about the others still
get a parent and the result is always a single spanning tree.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

DEFAULT_ROOT = 0
"""The root used when none is given: the first attribute (index 0)."""


def maximum_spanning_tree(weights: Sequence[Sequence[float]] | np.ndarray) -> list[tuple[int, int]]:
    """Undirected edges of a maximum-weight spanning tree of a complete graph.

    Args:
        weights: symmetric d x d matrix of finite edge weights (the diagonal is ignored).

    Returns:
        d - 1 edges ``(i, j)`` with ``i < j``, in the order Kruskal accepted them (weight
        descending, ties by ``(i, j)`` ascending). An empty list when d <= 1.

    >>> maximum_spanning_tree([[0, 3, 1], [3, 0, 2], [1, 2, 0]])
    [(0, 1), (1, 2)]
    >>> maximum_spanning_tree([[0, 0, 0], [0, 0, 0], [0, 0, 0]])
    [(0, 1), (0, 2)]
    """
    matrix = np.asarray(weights, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"expected a square weight matrix, got shape {matrix.shape}")
    d = matrix.shape[0]
    upper = matrix[np.triu_indices(d, 1)]
    if not np.all(np.isfinite(upper)):
        raise ValueError("expected finite edge weights, got NaN or infinity")
    if not np.array_equal(matrix, matrix.T, equal_nan=True):
        raise ValueError("expected a symmetric weight matrix")
    candidates = sorted(
        ((i, j) for i in range(d) for j in range(i + 1, d)),
        key=lambda e: (-matrix[e[0], e[1]], e[0], e[1]),
    )
    component = list(range(d))

    def find(x: int) -> int:
        while component[x] != x:
            component[x] = component[component[x]]
            x = component[x]
        return x

    edges: list[tuple[int, int]] = []
    for i, j in candidates:
        ri, rj = find(i), find(j)
        if ri != rj:
            component[max(ri, rj)] = min(ri, rj)
            edges.append((i, j))
            if len(edges) == d - 1:
                break
    return edges


def direct_tree(n: int, edges: Sequence[tuple[int, int]], root: int = DEFAULT_ROOT) -> list[int]:
    """Orient an undirected spanning tree away from ``root``.

    Args:
        n: number of nodes (0 .. n-1).
        edges: n - 1 undirected edges forming a spanning tree.
        root: the node without a parent.

    Returns:
        ``parents`` of length n: ``parents[i]`` is the parent of node i, -1 for the root.

    >>> direct_tree(3, [(0, 1), (1, 2)], root=2)
    [1, 2, -1]
    """
    if not 0 <= root < max(n, 1):
        raise ValueError(f"root must be a node index in [0, {n}), got {root}")
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for i, j in edges:
        neighbours[i].append(j)
        neighbours[j].append(i)
    parents = [-2] * n
    parents[root] = -1
    stack = [root]
    while stack:
        node = stack.pop()
        for other in sorted(neighbours[node]):
            if parents[other] == -2:
                parents[other] = node
                stack.append(other)
    if n and -2 in parents:
        raise ValueError(f"the {len(edges)} edges do not span all {n} nodes")
    return parents


def tan_parents(
    weights: Sequence[Sequence[float]] | np.ndarray, root: int | None = None
) -> list[int]:
    """The attribute parents of a TAN or Chow-Liu tree: maximum-weight spanning tree over
    ``weights`` directed away from ``root`` (default :data:`DEFAULT_ROOT`, attribute 0).

    Args:
        weights: symmetric d x d matrix of (conditional) mutual information.
        root: index of the attribute without an attribute parent, or None for attribute 0.

    Returns:
        parent index per attribute, -1 for the root.

    >>> tan_parents([[0, 1, 0], [1, 0, 2], [0, 2, 0]])
    [-1, 0, 1]
    >>> tan_parents([[0, 1, 0], [1, 0, 2], [0, 2, 0]], root=2)
    [1, 2, -1]
    """
    matrix = np.asarray(weights, dtype=float)
    d = matrix.shape[0] if matrix.ndim == 2 else 0
    return direct_tree(d, maximum_spanning_tree(matrix), DEFAULT_ROOT if root is None else root)
