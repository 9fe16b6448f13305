"""Independent numpy references the tests compare against (no warehouse_ml code inside)."""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pandas as pd
import pyarrow as pa
from sklearn.metrics import mutual_info_score


def naive_bayes_log_joint(
    train: dict[str, list],
    target: list,
    test: dict[str, list],
    *,
    alpha: float,
    prior_alpha: float,
    numeric: tuple[str, ...] = (),
    var_smoothing: float = 1e-9,
    weight: np.ndarray | None = None,
) -> tuple[list, np.ndarray]:
    """Classes (sorted) and the joint log score log P(c) + sum_i log P(a_i | c) of each test row.

    Conventions: NULL (None) attribute values are skipped per attribute, in training and test;
    P(x|c) = (n_xc + alpha) / (n_c + alpha |X|) with n_c the class's non-NULL count and |X| the
    number of values seen in training; an unseen test value contributes alpha / (n_c + alpha |X|)
    (nothing when alpha = 0); with alpha = 0, a class with no non-NULL value of the attribute
    gets the uniform 1/|X| for a seen value (nothing for an unseen one); numeric columns are
    Gaussians with variance + var_smoothing * max overall variance, contributing nothing to a
    class with no non-NULL value. With ``weight`` (one per training row), every count is the
    sum of its rows' weights and the Gaussians' moments are weighted, as scikit-learn's
    ``fit(X, y, sample_weight=w)``; |X| and the variance floor stay the rows' own (the values
    seen, the unweighted overall variance).
    """
    keep = [i for i, t in enumerate(target) if t is not None]
    w_all = np.ones(len(target)) if weight is None else np.asarray(weight, float)
    w = w_all[keep]
    classes = sorted({target[i] for i in keep})
    y = np.array([classes.index(target[i]) for i in keep])
    k = len(classes)
    counts = np.array([w[y == c].sum() for c in range(k)])
    prior = np.log((counts + prior_alpha) / (counts.sum() + prior_alpha * k))
    n_test = len(next(iter(test.values())))
    joint = np.tile(prior, (n_test, 1))
    overall_var = [np.var([train[a][i] for i in keep if train[a][i] is not None]) for a in numeric]
    epsilon = var_smoothing * max(overall_var) if numeric else 0.0
    for attribute, column in train.items():
        values = [column[i] for i in keep]
        if attribute in numeric:
            for c in range(k):
                present = [j for j, v in enumerate(values) if y[j] == c and v is not None]
                if not present:
                    continue  # no observation of the attribute in this class: no evidence
                mean, var = _exact_moments([values[j] for j in present], w[present])
                var += epsilon
                for r, x in enumerate(test[attribute]):
                    if x is not None:
                        joint[r, c] += -0.5 * np.log(2 * np.pi * var) - (x - mean) ** 2 / (2 * var)
            continue
        seen = sorted({v for v in values if v is not None}, key=str)
        table = np.zeros((len(seen), k))
        for v, yc, wv in zip(values, y, w):
            if v is not None:
                table[seen.index(v), yc] += wv
        n_c = table.sum(axis=0)
        for r, x in enumerate(test[attribute]):
            if x is None:
                continue
            for c in range(k):
                if n_c[c] + alpha * len(seen) == 0:  # no value of the attribute in the class
                    joint[r, c] += -np.log(len(seen)) if x in seen else 0.0  # (alpha = 0)
                    continue
                if x in seen:
                    numerator = table[seen.index(x), c] + alpha
                elif alpha > 0:
                    numerator = alpha
                else:
                    continue
                joint[r, c] += np.log(numerator) - np.log(n_c[c] + alpha * len(seen))
    return classes, joint


def _exact_moments(values: list[float], weights: np.ndarray) -> tuple[float, float]:
    """The weighted mean and population variance of ``values``, exact (as fractions) and
    rounded once: a constant class has variance 0 exactly, whatever its weights."""
    xs = [Fraction(v) for v in values]
    ws = [Fraction(float(w)) for w in weights]
    total = sum(ws)
    mean = sum(w * x for w, x in zip(ws, xs, strict=True)) / total
    var = sum(w * (x - mean) ** 2 for w, x in zip(ws, xs, strict=True)) / total
    return float(mean), float(var)


def softmax(joint: np.ndarray) -> np.ndarray:
    """Row-wise normalised probabilities from joint log scores."""
    shifted = np.exp(joint - joint.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def bits(a, b) -> float:
    """MI in bits of two lists over the positions where both are non-NULL."""
    kept = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    return mutual_info_score([str(x) for x, _ in kept], [str(y) for _, y in kept]) / math.log(2)


def ntile_edges(values, bins):
    """The edges select_bin_tiles.sql and create_bins.sql learn: NTILE(bins) tiles of the
    sorted non-NULL values (the first n % bins tiles one longer), the distinct largest values
    of the tiles, ascending."""
    present = sorted(v for v in values if v is not None)
    size, extra = divmod(len(present), bins)
    edges, start = [], 0
    for tile in range(bins):
        length = size + (tile < extra)
        if length:
            edges.append(present[start + length - 1])
        start += length
    return sorted(set(edges))


def binned(values, edges):
    """Each value's bin as binning.bin_expression defines it: bin i for edge[i-1] < x <=
    edge[i], the last bin above the last edge, NULL for NULL."""
    return [
        None if v is None else min(int(np.searchsorted(edges, v, side="left")), len(edges) - 1)
        for v in values
    ]


def ntile_bins(values, bins):
    """Each value's equal-frequency bin (:func:`ntile_edges`, :func:`binned`)."""
    return binned(values, ntile_edges(values, bins))


def _parameters(model, con):
    """log P(value | class) per (attribute, class), unseen per (attribute, class), the prior,
    Gaussian moments and TAN's conditional tables, from the model's parameter tables."""
    tables = model.parameters(con)
    seen = defaultdict(dict)
    for r in tables["categorical"].to_pylist():
        seen[r["attribute"], r["class_index"]][r["value"]] = r["log_prob"]
    unseen = {
        (r["attribute"], r["class_index"]): r["log_prob"] for r in tables["unseen"].to_pylist()
    }
    prior = [r["log_prior"] for r in tables["classes"].to_pylist()]
    gaussian = {
        (r["attribute"], r["class_index"]): (r["mean"], r["variance"])
        for r in tables.get("gaussian", pa.table({"attribute": []})).to_pylist()
    }
    cpt = {
        (r["attribute"], r["value"], r["parent_value"], r["class_index"]): r["log_prob"]
        for r in tables.get("cpt", pa.table({"attribute": []})).to_pylist()
    }
    cpt_parent = {
        (r["attribute"], r["parent_value"], r["class_index"]): r["log_prob"]
        for r in tables.get("cpt_parent", pa.table({"attribute": []})).to_pylist()
    }
    return seen, unseen, prior, gaussian, cpt, cpt_parent


def reference_terms(model, con, rows):
    """term[row][attribute index][class] as the module docstrings of models/learners/bayes/naive_bayes.py
    and models/learners/bayes/tan.py define them (NULL value: 0; unseen value: the unseen term; TAN: the
    observed pair, else the parent row for a seen value, else the class-only term)."""
    seen, unseen, prior, gaussian, cpt, cpt_parent = _parameters(model, con)
    parents = getattr(model, "parents_", {})
    features = model.feature_names_in_
    k = len(model.classes_)
    out = []
    for row in rows:
        value = dict(zip(features, row, strict=True))
        terms = []
        for a in features:
            x = value[a]
            per_class = []
            for c in range(k):
                if x is None:
                    per_class.append(0.0)
                elif (a, c) in gaussian:
                    mean, var = gaussian[a, c]
                    per_class.append(
                        -0.5 * math.log(2 * math.pi * var) - (x - mean) ** 2 / (2 * var)
                    )
                elif str(x) not in seen[a, c]:
                    per_class.append(unseen[a, c])
                else:
                    parent = parents.get(a)
                    pv = None if parent is None else value[parent]
                    key = (a, str(x), None if pv is None else str(pv), c)
                    if pv is not None and key in cpt:
                        per_class.append(cpt[key])
                    elif pv is not None and (a, str(pv), c) in cpt_parent:
                        per_class.append(cpt_parent[a, str(pv), c])
                    else:
                        per_class.append(seen[a, c][str(x)])
            terms.append(per_class)
        out.append(terms)
    return np.array(out), np.array(prior)


def tree_path(node, row: dict) -> list:
    """The nodes a row (attribute -> value, None for NULL) passes from ``node`` down a
    decision tree (nodes and splits read by attribute, as models/learners/tree/model.py holds
    them), by the documented rule: ``x <= t`` to branch 0, a larger value to branch 1; a value
    in a branch's values to that branch, any other to the split's ``other``; NULL to its
    ``null`` branch."""
    path = [node]
    while node.split is not None:
        split = node.split
        value = row[split.attribute]
        if value is None:
            branch = split.null
        elif split.kind == "threshold":
            branch = 0 if value <= split.threshold else 1
        else:
            found = (b for b, values in enumerate(split.values) if value in values)
            branch = next(found, split.other)
        node = node.children[branch]
        path.append(node)
    return path


def tan_log_joint(train: pd.DataFrame, test: pd.DataFrame, target, parents, alpha, prior_alpha):
    """Classes (sorted) and log P(c) + sum_i log P(a_i | c, parent) of each test row, with the
    fallbacks documented in models/learners/bayes/tan.py (a NULL or unseen parent value, or a value
    never seen, falls back to P(a_i | c); a NULL value contributes nothing)."""
    train = train[train[target].notna()]
    classes = sorted(train[target].unique())
    k = len(classes)
    n_c = np.array([(train[target] == c).sum() for c in classes], dtype=float)
    out = np.tile(np.log(n_c + prior_alpha) - np.log(n_c.sum() + prior_alpha * k), (len(test), 1))
    for a, parent in parents.items():
        rows = train[train[a].notna()]
        values = sorted(rows[a].unique())
        card = len(values)
        nb = {(v, c): ((rows[a] == v) & (rows[target] == c)).sum() for v in values for c in classes}
        nb_class = {c: (rows[target] == c).sum() for c in classes}

        def nb_log(v, c, values=values, nb=nb, nb_class=nb_class, card=card):
            if v not in values:
                if alpha == 0 or nb_class[c] + alpha * card == 0:
                    return 0.0
                return math.log(alpha) - math.log(nb_class[c] + alpha * card)
            if nb_class[c] + alpha * card == 0:
                return -math.log(card)
            num = nb[(v, c)] + alpha
            return -math.inf if num == 0 else math.log(num) - math.log(nb_class[c] + alpha * card)

        cpt_rows = rows[rows[parent].notna()] if parent is not None else None
        parent_values = set() if parent is None else set(cpt_rows[parent].unique())
        for r, row in enumerate(test.itertuples(index=False)):
            v = getattr(row, a)
            if v is None or (isinstance(v, float) and np.isnan(v)):
                continue
            p = None if parent is None else getattr(row, parent)
            for ci, c in enumerate(classes):
                if parent is None or p is None or p not in parent_values or v not in values:
                    out[r, ci] += nb_log(v, c)
                    continue
                sub = cpt_rows[(cpt_rows[parent] == p) & (cpt_rows[target] == c)]
                n_parent = len(sub)
                if n_parent + alpha * card == 0:
                    out[r, ci] += -math.log(card)
                    continue
                num = (sub[a] == v).sum() + alpha
                out[r, ci] += (
                    -math.inf if num == 0 else math.log(num) - math.log(n_parent + alpha * card)
                )
    return classes, out
