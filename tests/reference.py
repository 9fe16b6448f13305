"""Independent numpy references the tests compare against (no warehouse_ml code inside)."""

from __future__ import annotations

import numpy as np


def naive_bayes_log_joint(
    train: dict[str, list],
    target: list,
    test: dict[str, list],
    *,
    alpha: float,
    prior_alpha: float,
    numeric: tuple[str, ...] = (),
    var_smoothing: float = 1e-9,
) -> tuple[list, np.ndarray]:
    """Classes (sorted) and the joint log score log P(c) + sum_i log P(a_i | c) of each test row.

    Conventions: NULL (None) attribute values are skipped per attribute, in training and test;
    P(x|c) = (n_xc + alpha) / (n_c + alpha |X|) with n_c the class's non-NULL count and |X| the
    number of values seen in training; an unseen test value contributes alpha / (n_c + alpha |X|)
    (nothing when alpha = 0); with alpha = 0, a class with no non-NULL value of the attribute
    gets the uniform 1/|X| for a seen value (nothing for an unseen one); numeric columns are Gaussians with variance + var_smoothing * max
    overall variance, contributing nothing to a class with no non-NULL value.
    """
    keep = [i for i, t in enumerate(target) if t is not None]
    classes = sorted({target[i] for i in keep})
    y = np.array([classes.index(target[i]) for i in keep])
    k, n = len(classes), len(keep)
    counts = np.bincount(y, minlength=k)
    prior = np.log((counts + prior_alpha) / (n + prior_alpha * k))
    n_test = len(next(iter(test.values())))
    joint = np.tile(prior, (n_test, 1))
    overall_var = [np.var([train[a][i] for i in keep if train[a][i] is not None]) for a in numeric]
    epsilon = var_smoothing * max(overall_var) if numeric else 0.0
    for attribute, column in train.items():
        values = [column[i] for i in keep]
        if attribute in numeric:
            for c in range(k):
                xs = np.array([v for v, yc in zip(values, y) if yc == c and v is not None], float)
                if xs.size == 0:
                    continue  # no observation of the attribute in this class: no evidence
                mean, var = xs.mean(), xs.var() + epsilon
                for r, x in enumerate(test[attribute]):
                    if x is not None:
                        joint[r, c] += -0.5 * np.log(2 * np.pi * var) - (x - mean) ** 2 / (2 * var)
            continue
        seen = sorted({v for v in values if v is not None}, key=str)
        table = np.zeros((len(seen), k))
        for v, yc in zip(values, y):
            if v is not None:
                table[seen.index(v), yc] += 1
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


def softmax(joint: np.ndarray) -> np.ndarray:
    """Row-wise normalised probabilities from joint log scores."""
    shifted = np.exp(joint - joint.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)
