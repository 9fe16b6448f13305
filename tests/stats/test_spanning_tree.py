"""Maximum-weight spanning tree: brute force over all spanning trees, ties, roots."""

from __future__ import annotations

import doctest
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from warehouse_ml.stats import spanning_tree
from warehouse_ml.stats.spanning_tree import direct_tree, maximum_spanning_tree, tan_parents


def test_doctests() -> None:
    result = doctest.testmod(spanning_tree)
    assert result.attempted > 0 and result.failed == 0


def _is_spanning_tree(n: int, edges: list[tuple[int, int]]) -> bool:
    component = list(range(n))

    def find(x: int) -> int:
        while component[x] != x:
            x = component[x]
        return x

    for i, j in edges:
        ri, rj = find(i), find(j)
        if ri == rj:
            return False
        component[ri] = rj
    return len({find(x) for x in range(n)}) == 1


def _brute_force_best(matrix: np.ndarray) -> tuple[float, list[frozenset[tuple[int, int]]]]:
    n = matrix.shape[0]
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    best, trees = -np.inf, []
    for edges in itertools.combinations(pairs, n - 1):
        if not _is_spanning_tree(n, list(edges)):
            continue
        total = sum(matrix[i, j] for i, j in edges)
        if total > best + 1e-12:
            best, trees = total, [frozenset(edges)]
        elif abs(total - best) <= 1e-12:
            trees.append(frozenset(edges))
    return best, trees


@st.composite
def weight_matrices(draw: st.DrawFn) -> np.ndarray:
    n = draw(st.integers(min_value=2, max_value=6))
    # Small integer weights make ties frequent.
    values = draw(st.lists(st.integers(0, 4), min_size=n * (n - 1) // 2, max_size=n * (n - 1) // 2))
    matrix = np.zeros((n, n))
    matrix[np.triu_indices(n, 1)] = values
    return matrix + matrix.T


@settings(max_examples=examples(150), deadline=None)
@given(weight_matrices())
def test_maximum_equals_brute_force(matrix: np.ndarray) -> None:
    n = matrix.shape[0]
    edges = maximum_spanning_tree(matrix)
    assert _is_spanning_tree(n, edges)
    assert all(i < j for i, j in edges)
    best, trees = _brute_force_best(matrix)
    assert sum(matrix[i, j] for i, j in edges) == pytest.approx(best, abs=1e-12)
    assert frozenset(edges) in trees
    if len(trees) == 1:
        assert frozenset(edges) == trees[0]


@settings(deadline=None)
@given(weight_matrices(), st.data())
def test_direction_away_from_any_root(matrix: np.ndarray, data: st.DataObject) -> None:
    n = matrix.shape[0]
    root = data.draw(st.integers(0, n - 1))
    parents = tan_parents(matrix, root)
    assert parents[root] == -1 and parents.count(-1) == 1
    # every node reaches the root by following parents, and the undirected edges are the tree's
    for node in range(n):
        seen = set()
        while node != root:
            assert node not in seen
            seen.add(node)
            node = parents[node]
    undirected = {frozenset((i, p)) for i, p in enumerate(parents) if p >= 0}
    assert undirected == {frozenset(e) for e in maximum_spanning_tree(matrix)}


def test_ties_broken_by_attribute_order() -> None:
    zeros = np.zeros((5, 5))
    assert maximum_spanning_tree(zeros) == [(0, 1), (0, 2), (0, 3), (0, 4)]
    assert tan_parents(zeros) == [-1, 0, 0, 0, 0]
    # equal weights on a triangle: the two lowest-ordered pairs win
    triangle = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]], dtype=float)
    assert maximum_spanning_tree(triangle) == [(0, 1), (0, 2)]
    # weight first, order second
    w = np.array([[0, 1, 1, 0], [1, 0, 2, 0], [1, 2, 0, 2], [0, 0, 2, 0]], dtype=float)
    assert maximum_spanning_tree(w) == [(1, 2), (2, 3), (0, 1)]
    assert all(maximum_spanning_tree(w) == maximum_spanning_tree(w.copy()) for _ in range(5))


def test_default_root_and_user_root() -> None:
    w = np.array([[0, 5, 1], [5, 0, 4], [1, 4, 0]], dtype=float)
    assert spanning_tree.DEFAULT_ROOT == 0
    assert tan_parents(w) == [-1, 0, 1]
    assert tan_parents(w, root=1) == [1, -1, 1]
    assert tan_parents(w, root=2) == [1, 2, -1]


def test_disconnected_and_tiny_inputs() -> None:
    # two independent groups (zero weight between them) still give one tree
    w = np.zeros((4, 4))
    w[0, 1] = w[1, 0] = 3.0
    w[2, 3] = w[3, 2] = 2.0
    assert maximum_spanning_tree(w) == [(0, 1), (2, 3), (0, 2)]
    assert tan_parents(np.zeros((1, 1))) == [-1]
    assert maximum_spanning_tree(np.zeros((0, 0))) == []


def test_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="square"):
        maximum_spanning_tree(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="finite"):
        maximum_spanning_tree(np.array([[0, np.nan], [np.nan, 0]]))
    with pytest.raises(ValueError, match="symmetric"):
        maximum_spanning_tree(np.array([[0, 1.0], [2.0, 0]]))
    with pytest.raises(ValueError, match="root"):
        direct_tree(2, [(0, 1)], root=5)
