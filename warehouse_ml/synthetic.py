"""Seeded generators of categorical data with known structure (tests, benchmarks, the demo).

:func:`tan_data` samples from a Tree-Augmented Naive Bayes network: a class, and attributes
``a0 .. a{d-1}`` each depending on the class and on its parent in a known tree. With
``tree="none"`` every attribute depends on the class only (a true Naive Bayes model).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa


@dataclass(frozen=True)
class Network:
    """The generating model: class prior, each attribute's parent and conditional tables.

    Attributes:
        prior: P(class), shape (K,).
        parents: parent attribute index of each attribute (-1 for none).
        tables: per attribute, P(value | class, parent value), shape (K, P, card) where P is the
            parent's cardinality (1 when there is no parent).
    """

    prior: np.ndarray
    parents: tuple[int, ...]
    tables: tuple[np.ndarray, ...]

    @property
    def edges(self) -> set[frozenset[str]]:
        """Undirected attribute edges of the tree, as sets of column names."""
        return {frozenset((f"a{i}", f"a{p}")) for i, p in enumerate(self.parents) if p >= 0}


def make_network(
    n_attributes: int,
    *,
    n_classes: int = 2,
    cardinality: int | list[int] = 3,
    tree: str = "chain",
    concentration: float = 0.5,
    seed: int = 0,
) -> Network:
    """A random network. ``tree`` is "chain" (a_i's parent is a_{i-1}), "random" (a random
    tree rooted at a0) or "none". Smaller ``concentration`` gives stronger dependencies."""
    rng = np.random.default_rng(seed)
    cards = [cardinality] * n_attributes if isinstance(cardinality, int) else list(cardinality)
    if tree == "chain":
        parents = [-1, *range(n_attributes - 1)]
    elif tree == "random":
        parents = [-1] + [int(rng.integers(0, i)) for i in range(1, n_attributes)]
    elif tree == "none":
        parents = [-1] * n_attributes
    else:
        raise ValueError(f"tree must be 'chain', 'random' or 'none', got {tree!r}")
    prior = rng.dirichlet(np.full(n_classes, 5.0))
    tables = []
    for i, card in enumerate(cards):
        n_parent = cards[parents[i]] if parents[i] >= 0 else 1
        tables.append(rng.dirichlet(np.full(card, concentration), size=(n_classes, n_parent)))
    return Network(prior, tuple(parents), tuple(tables))


def sample_codes(network: Network, n_rows: int, *, seed: int = 0) -> dict[str, np.ndarray]:
    """Integer codes sampled from ``network``: columns a0.. and ``class``."""
    rng = np.random.default_rng(seed)
    klass = rng.choice(len(network.prior), size=n_rows, p=network.prior)
    columns: dict[str, np.ndarray] = {}
    for i, (parent, table) in enumerate(zip(network.parents, network.tables, strict=True)):
        parent_value = columns[f"a{parent}"] if parent >= 0 else np.zeros(n_rows, dtype=np.int64)
        cumulative = np.cumsum(table, axis=2)[klass, parent_value]  # (n_rows, card)
        u = rng.random(n_rows)[:, None]
        codes = (u > cumulative[:, :-1]).sum(axis=1)
        columns[f"a{i}"] = codes.astype(np.int32)
    columns["class"] = klass.astype(np.int32)
    return columns


def tan_data(
    n_rows: int,
    n_attributes: int = 8,
    *,
    n_classes: int = 2,
    cardinality: int | list[int] = 3,
    tree: str = "chain",
    concentration: float = 0.5,
    strings: bool = False,
    seed: int = 0,
    chunk: int = 1_000_000,
) -> pa.Table:
    """A seeded table sampled from :func:`make_network` (same seed, same network and rows).

    Output columns: a0 .. a{d-1} and class, int32 codes, or strings "v<code>" / "c<code>" when
    ``strings`` is set. Sampled in chunks of ``chunk`` rows to bound memory.
    """
    network = make_network(
        n_attributes,
        n_classes=n_classes,
        cardinality=cardinality,
        tree=tree,
        concentration=concentration,
        seed=seed,
    )
    batches = []
    for start in range(0, n_rows, chunk):
        size = min(chunk, n_rows - start)
        columns = sample_codes(network, size, seed=seed * 7919 + start // chunk + 1)
        batches.append(pa.table({k: _encode(k, v, strings) for k, v in columns.items()}))
    return pa.concat_tables(batches) if batches else pa.table({})


def _encode(name: str, codes: np.ndarray, strings: bool) -> pa.Array:
    if not strings:
        return pa.array(codes)
    prefix = "c" if name == "class" else "v"
    dictionary = pa.array([f"{prefix}{i}" for i in range(int(codes.max(initial=0)) + 1)])
    return pa.DictionaryArray.from_arrays(pa.array(codes), dictionary).cast(pa.string())
