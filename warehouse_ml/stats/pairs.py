"""Pair statistics: joint counts of (class, Ai, Aj) for every attribute pair, and the
(conditional) mutual information computed from them in SQL.

Counting follows docs/ARCHITECTURE.md ("Counting in blocks"): the attributes are covered by
*blocks* of a few attributes such that every pair lies in at least one block; each block is one
``GROUP BY class, block`` (one scan of those columns), read once by one SELECT that sums out the
marginals of every pair first covered by that block (the pairs crossed in as a small VALUES
list), all in one statement: a UNION ALL of one branch per block, not per pair (a branch per
pair made DuckDB re-read the block, and made the statement 190 branches long at d = 20). Blocks
are planned from the attributes' cardinalities so that a block's joint table stays small (see
:func:`plan_pair_blocks`).

Rows where Ai or Aj is NULL are left out of the (Ai, Aj) counts only; rows with a NULL class are
left out everywhere.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
from sqlglot import exp

from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, alias, column
from warehouse_ml.stats import counting

DEFAULT_MAX_BLOCK_SIZE = 6
"""Most attributes per pair-count block. On 1M rows x 20 attributes of 3 values (bench/tan.py data),
DuckDB CPU of the pair-count query: blocks of 5 (25 scans) 0.62 s, of 6 (18 scans) 0.49 s, of 7
(14 scans) 0.50 s. ``max_cells`` still caps the blocks of many-valued attributes."""
DEFAULT_MAX_BLOCK_CELLS = 1 << 16


def plan_pair_blocks(
    cardinalities: Sequence[int],
    n_classes: int = 2,
    max_size: int = DEFAULT_MAX_BLOCK_SIZE,
    max_cells: int = DEFAULT_MAX_BLOCK_CELLS,
) -> list[list[int]]:
    """Blocks of attribute indexes such that every pair of attributes shares a block.

    Greedy and deterministic: a block starts from the first uncovered pair (in index order)
    and grows by the attribute covering the most still-uncovered pairs with the block (ties to
    the lower index) while it has fewer than ``max_size`` attributes and its joint table,
    ``n_classes * prod(cardinality + 1)`` cells (+1 for NULL), stays within ``max_cells``. A
    pair too large for ``max_cells`` still gets a block of its own.

    Args:
        cardinalities: distinct non-NULL values of each attribute.
        n_classes: number of classes.
        max_size: most attributes per block (>= 2).
        max_cells: largest joint table a block may grow into.

    Returns:
        blocks, each a sorted list of attribute indexes; empty when there are fewer than two
        attributes.

    >>> plan_pair_blocks([2, 2, 2, 2], max_size=4)
    [[0, 1, 2, 3]]
    >>> plan_pair_blocks([2, 2, 2], max_size=2)
    [[0, 1], [0, 2], [1, 2]]
    """
    if max_size < 2:
        raise ValueError(f"max_size must be at least 2, got {max_size}")
    d = len(cardinalities)
    uncovered = {(i, j) for i in range(d) for j in range(i + 1, d)}
    cells = [max(int(c), 1) + 1 for c in cardinalities]
    blocks: list[list[int]] = []
    while uncovered:
        i, j = min(uncovered)
        block = [i, j]
        size = n_classes * cells[i] * cells[j]
        while len(block) < max_size:
            best, gain = -1, 0
            for k in range(d):
                if k in block or size * cells[k] > max_cells:
                    continue
                new = sum((min(k, b), max(k, b)) in uncovered for b in block)
                if new > gain:
                    best, gain = k, new
            if best < 0:
                break
            block.append(best)
            size *= cells[best]
        block.sort()
        uncovered -= set(itertools.combinations(block, 2))
        blocks.append(block)
    return blocks


def pair_counts_query(
    source: exp.Table | exp.Query,
    target: str,
    attributes: Sequence[str],
    blocks: Sequence[Sequence[int]],
    partition: str | None = None,
    weight: str | None = None,
) -> exp.Query:
    """Query of the joint counts of every attribute pair (i < j in ``attributes`` order).

    One SELECT per block (a UNION ALL of as many branches as blocks): the block's joint counts
    (``count_block``, one scan of its columns) are read once, crossed with a VALUES list of the
    pairs first covered by that block, and summed per pair (``count_pairs_from_block``).

    Args:
        source: relation (or discretised query) with the target and the attribute columns.
        target: class column.
        attributes: attribute names.
        blocks: attribute-index blocks covering every pair (:func:`plan_pair_blocks`).
        partition: a source column (e.g. a cross-validation fold id) to count per value of,
            still in one scan per block; None counts all rows together.
        weight: a source column of row weights to sum instead of counting rows (None).

    Returns:
        query with columns wml_part (the partition value, 0 without ``partition``), attribute_i
        (VARCHAR), attribute_j (VARCHAR), value_i (VARCHAR), value_j (VARCHAR), class_label
        (VARCHAR), n (BIGINT rows, or DECIMAL summed weights). Only cells with a row.
    """
    source_part, source_group = counting.partition_items(partition, "src")
    block_part, _ = counting.partition_items(counting.PARTITION, "b")
    pair_part, pair_group = counting.partition_items(counting.PARTITION, "x")
    done: set[tuple[int, int]] = set()
    selects = []
    for block in blocks:
        order = sorted(block)
        slots = [f"a{s}" for s in range(len(order))]
        rows = []
        for (si, i), (sj, j) in itertools.combinations(enumerate(order), 2):
            if (i, j) not in done:
                done.add((i, j))
                rows.append((attributes[i], attributes[j], si, sj))
        if not rows:
            continue
        counts = templates.build(
            "count_block",
            source=source,
            target=target,
            block_columns=[
                *source_part,
                *(
                    alias(column(attributes[a], "src"), s)
                    for a, s in zip(order, slots, strict=True)
                ),
            ],
            group_columns=[*source_group, *(column(attributes[a], "src") for a in order)],
            count=counting.row_count(weight),
        )
        selects.append(
            templates.build(
                "count_pairs_from_block",
                block=counts,
                pairs=templates.values(
                    rows, "p", ("attribute_i", "attribute_j", "slot_i", "slot_j")
                ),
                value_i=counting.slot_value(slots, column("slot_i", "p")),
                value_j=counting.slot_value(slots, column("slot_j", "p")),
                block_partition=block_part,
                partition_columns=pair_part,
                partition_group=pair_group,
            )
        )
    expected = math.comb(len(attributes), 2)
    if len(done) != expected:
        raise ValueError(f"blocks cover {len(done)} of the {expected} attribute pairs")
    return templates.union_all(selects)


def information_query(
    pair_counts: TableName | exp.Query, count_type: exp.DataType | None = None
) -> exp.Query:
    """CMI(Ai; Aj | C) and MI(Ai; Aj) in bits of every pair with counted rows.

    Args:
        pair_counts: a pair-count table or query (attribute_i, attribute_j, value_i, value_j,
            class_index, n, wml_part): each partition's information is computed from its own
            counts.
        count_type: the type of column n (counting.count_type; default BIGINT rows).

    Returns:
        query with columns wml_part, attribute_i, attribute_j, n (rows of the pair, or their
        weights), cmi (DOUBLE bits), mi (DOUBLE bits).
    """
    return templates.build(
        "select_pair_information",
        pair_counts=pair_counts,
        count_type=count_type or counting.count_type(None),
    )


def information_matrix(
    rows: pa.Table | Sequence[dict], attributes: Sequence[str], measure: str = "cmi"
) -> np.ndarray:
    """A symmetric d x d matrix of one information column (``cmi`` or ``mi``), 0 where a pair
    has no row (no counted rows) and on the diagonal."""
    index = {a: i for i, a in enumerate(attributes)}
    matrix = np.zeros((len(attributes), len(attributes)))
    records = rows.to_pylist() if isinstance(rows, pa.Table) else list(rows)
    for row in records:
        i, j = index[row["attribute_i"]], index[row["attribute_j"]]
        value = float(row[measure] or 0.0)
        matrix[i, j] = matrix[j, i] = value
    return matrix
