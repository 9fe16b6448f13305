"""Decision trees against independent oracles: scikit-learn's DecisionTreeClassifier (the same
partition at every node and the same probabilities on continuous data), a numpy reference of
every candidate split's gain, gain ratio and Gini decrease at the root of real data sets, the
NULL rule, Laplace leaves, weights and C4.5's pessimistic pruning."""

from __future__ import annotations

import csv
import math
import statistics

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from reference import tree_path
from sklearn.tree import DecisionTreeClassifier

import warehouse_ml as wml
from warehouse_ml.errors import NotSupportedError
from warehouse_ml.models import kinds
from warehouse_ml.models.learners.tree import splits as tree_splits

# -- numpy references, written from the definitions -------------------------------------------


def entropy(counts) -> float:
    counts = np.asarray(counts, dtype=float)
    n = counts.sum()
    p = counts[counts > 0] / n
    return float(-(p * np.log2(p)).sum()) if n > 0 else 0.0


def gini(counts) -> float:
    counts = np.asarray(counts, dtype=float)
    n = counts.sum()
    return float(1 - ((counts / n) ** 2).sum()) if n > 0 else 0.0


def reference(parts, penalty: float = 0.0) -> tuple[float, float, float]:
    """(gain, gain ratio, Gini decrease) of branches ``parts`` (lists of class counts)."""
    parts = [np.asarray(p, dtype=float) for p in parts]
    parent = sum(parts)
    n = parent.sum()
    w = [p.sum() / n for p in parts]
    gain = entropy(parent) - sum(wi * entropy(p) for wi, p in zip(w, parts, strict=True))
    info = -sum(wi * math.log2(wi) for wi in w if wi > 0)
    decrease = gini(parent) - sum(wi * gini(p) for wi, p in zip(w, parts, strict=True))
    return gain, (gain - penalty) / info, decrease


def tree_of(model) -> dict:
    """A fitted tree's nodes as stored (tree_model.Node.to_json)."""
    return model.record.state.learned.root.to_json()


def tree_rows(node: dict, x: np.ndarray, columns: list[str]) -> dict[int, np.ndarray]:
    """The training rows reaching each node of a stored tree of threshold splits (no NULLs)."""
    out = {}

    def visit(n: dict, rows: np.ndarray) -> None:
        out[n["id"]] = rows
        split = n.get("split")
        if split:
            values = x[rows, columns.index(split["attribute"])]
            left = rows[values <= split["threshold"]]
            right = rows[values > split["threshold"]]
            visit(n["children"][0], left)
            visit(n["children"][1], right)

    visit(node, np.arange(len(x)))
    return out


def best_two_gains(
    x: np.ndarray,
    y: np.ndarray,
    rows: np.ndarray,
    weights: np.ndarray | None = None,
    min_leaf: int = 1,
    criterion: str = "entropy",
) -> tuple[float, float]:
    """The two largest decreases of the ``criterion``'s impurity (information gains, Gini
    decreases) over every (feature, threshold) split of ``rows`` with at least ``min_leaf``
    rows each side: cumulative (weighted) class counts over each feature's sorted values, a
    threshold between each two distinct consecutive values."""
    impurity = {"entropy": rows_entropy, "gini": rows_gini}[criterion]
    onehot = (y[rows, None] == np.unique(y)[None, :]).astype(float)
    if weights is not None:
        onehot *= weights[rows, None]
    total = onehot.sum(axis=0)
    gains = []
    for f in range(x.shape[1]):
        order = np.argsort(x[rows, f], kind="stable")
        values = x[rows, f][order]
        left_rows = np.arange(1, len(rows))
        kept = (values[:-1] < values[1:]) & (left_rows >= min_leaf)
        kept &= len(rows) - left_rows >= min_leaf
        left = np.cumsum(onehot[order], axis=0)[:-1][kept]
        right = total - left
        n = total.sum()
        w_left, w_right = left.sum(axis=1), right.sum(axis=1)
        children = (w_left * impurity(left) + w_right * impurity(right)) / n
        gains.extend(impurity(total[None])[0] - children)
    gains.sort(reverse=True)
    return gains[0], gains[1] if len(gains) > 1 else -math.inf


def rows_entropy(counts: np.ndarray) -> np.ndarray:
    """Entropy in bits of each row of class counts."""
    p = counts / counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(p > 0, p * np.log2(np.where(p > 0, p, 1)), 0).sum(axis=1)


def rows_gini(counts: np.ndarray) -> np.ndarray:
    """Gini impurity of each row of class counts."""
    return 1 - ((counts / counts.sum(axis=1, keepdims=True)) ** 2).sum(axis=1)


def continuous(seed: int, n: int = 160) -> tuple[np.ndarray, np.ndarray]:
    """Float32-representable features, three classes from a noisy rule."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3)).astype(np.float32).astype(np.float64)
    score = x[:, 0] + 0.8 * x[:, 1] * x[:, 2] + rng.normal(scale=0.6, size=n)
    y = np.digitize(score, [-0.5, 0.6])
    return x, y


def untied(
    x: np.ndarray,
    y: np.ndarray,
    tree: DecisionTreeClassifier,
    weights: np.ndarray | None = None,
    min_leaf: int = 1,
    criterion: str = "entropy",
) -> bool:
    """Whether every split of scikit-learn's tree beats its runner-up by more than 1e-9."""
    reached = tree.decision_path(x).toarray().astype(bool)
    for node in range(tree.tree_.node_count):
        if tree.tree_.children_left[node] >= 0:
            rows = np.flatnonzero(reached[:, node])
            best, second = best_two_gains(x, y, rows, weights, min_leaf, criterion)
            if best - second <= 1e-9:
                return False
    return True


def same_partitions_and_probabilities(con, model, oracle, x, table, columns) -> None:
    """Our stored tree reaches the same row sets as scikit-learn's at every node, and gives
    its probabilities."""
    ours = tree_rows(tree_of(model), x, columns)
    theirs = oracle.decision_path(x).toarray().astype(bool)
    partitions = {tuple(rows) for rows in ours.values()}
    assert len(ours) == oracle.tree_.node_count
    for node in range(oracle.tree_.node_count):
        assert tuple(np.flatnonzero(theirs[:, node])) in partitions
    got = model.predict_proba(con, table)
    p = np.column_stack([c.to_numpy() for c in got.columns])
    np.testing.assert_allclose(p, oracle.predict_proba(x), rtol=0, atol=1e-9)


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5, 6])
def test_binary_entropy_trees_equal_scikit_learns(con, depth):
    seed = depth
    while True:
        x, y = continuous(seed)
        oracle = DecisionTreeClassifier(criterion="entropy", max_depth=depth, random_state=0)
        oracle.fit(x, y)
        if untied(x, y, oracle):
            break
        seed += 100
    columns = ["a", "b", "c"]
    table = pa.table({**{c: x[:, i] for i, c in enumerate(columns)}, "y": y.astype(np.int64)})
    model = wml.DecisionTree(
        criterion="entropy", splits="binary", bins=None, pruning="none", min_leaf=1,
        max_depth=depth,
    ).fit(con, table, "y", categorical=[], numeric=columns)  # fmt: skip
    same_partitions_and_probabilities(con, model, oracle, x, table, columns)


@pytest.mark.parametrize("min_leaf", [2, 8])
def test_balanced_class_weights_give_scikit_learns_tree_with_min_samples_leaf_on_rows(
    con, min_leaf
):
    """class_weight="balanced" weighs the majority class's rows below 1; min_leaf still
    counts rows, as scikit-learn's min_samples_leaf."""
    seed = min_leaf
    while True:
        x, y = continuous(seed, 240)
        y = np.where(y == 2, 0, y)  # two classes, 0 the larger
        y[np.flatnonzero(y == 1)[::2]] = 0  # 1 the minority
        n_c = np.bincount(y)
        weights = (len(y) / (2 * n_c))[y]
        oracle = DecisionTreeClassifier(
            criterion="entropy", max_depth=5, min_samples_leaf=min_leaf,
            class_weight="balanced", random_state=0,
        ).fit(x, y)  # fmt: skip
        if untied(x, y, oracle, weights, min_leaf):
            break
        seed += 100
    assert n_c.max() > 2 * n_c.min() and weights.min() < 1
    columns = ["a", "b", "c"]
    table = pa.table({**{c: x[:, i] for i, c in enumerate(columns)}, "y": y.astype(np.int64)})
    model = wml.DecisionTree(
        criterion="entropy", splits="binary", bins=None, pruning="none", min_leaf=min_leaf,
        max_depth=5, class_weight="balanced",
    ).fit(con, table, "y", categorical=[], numeric=columns)  # fmt: skip
    assert oracle.tree_.node_count > 5
    same_partitions_and_probabilities(con, model, oracle, x, table, columns)


def oracle_and_model(con, seed, settings, oracle_settings, *, n=240, ties=untied):
    """The first seed from ``seed`` whose data give scikit-learn a tree ``ties`` calls untied,
    with that tree, our tree fitted with ``settings`` and the data."""
    while True:
        x, y = continuous(seed, n)
        oracle = DecisionTreeClassifier(random_state=0, **oracle_settings).fit(x, y)
        if ties(x, y, oracle):
            break
        seed += 100
    columns = ["a", "b", "c"]
    table = pa.table({**{c: x[:, i] for i, c in enumerate(columns)}, "y": y.astype(np.int64)})
    model = wml.DecisionTree(splits="binary", bins=None, pruning="none", **settings).fit(
        con, table, "y", categorical=[], numeric=columns
    )
    return oracle, model, x, table, columns


@pytest.mark.parametrize("criterion", ["entropy", "gini"])
@pytest.mark.parametrize("min_samples_split", [12, 40])
def test_min_samples_split_counts_a_nodes_rows_as_scikit_learns(con, criterion, min_samples_split):
    settings = {"criterion": criterion, "max_depth": 6}
    oracle, model, x, table, columns = oracle_and_model(
        con, 7, {**settings, "min_leaf": 1, "min_samples_split": min_samples_split},
        {**settings, "min_samples_split": min_samples_split},
        ties=lambda x, y, tree: untied(x, y, tree, criterion=criterion),
    )  # fmt: skip
    assert oracle.tree_.node_count > 5
    assert oracle.tree_.n_node_samples[oracle.tree_.children_left >= 0].min() >= min_samples_split
    same_partitions_and_probabilities(con, model, oracle, x, table, columns)


def improvements_apart(tree: DecisionTreeClassifier) -> bool:
    """Whether every two split nodes of scikit-learn's tree improve the impurity by amounts
    more than 1e-9 apart (a best-first growth's order is then the same for any rounding)."""
    t = tree.tree_
    split = np.flatnonzero(t.children_left >= 0)
    left, right = t.children_left[split], t.children_right[split]
    w = t.weighted_n_node_samples
    gains = w[split] * t.impurity[split] - w[left] * t.impurity[left] - w[right] * t.impurity[right]
    gains = np.sort(gains / w[0])
    return bool(np.all(np.diff(gains) > 1e-9))


@pytest.mark.parametrize("criterion", ["entropy", "gini"])
@pytest.mark.parametrize("max_leaf_nodes", [2, 5, 11])
def test_max_leaf_nodes_grows_best_first_as_scikit_learn(con, criterion, max_leaf_nodes):
    """scikit-learn splits the open node of largest weighted impurity decrease first; with
    max_depth too, and min_leaf."""
    settings = {"criterion": criterion, "max_depth": 5}
    oracle, model, x, table, columns = oracle_and_model(
        con, 3, {**settings, "min_leaf": 3, "max_leaf_nodes": max_leaf_nodes},
        {**settings, "min_samples_leaf": 3, "max_leaf_nodes": max_leaf_nodes},
        ties=lambda x, y, tree: improvements_apart(
            DecisionTreeClassifier(random_state=0, min_samples_leaf=3, **settings).fit(x, y)
        ) and untied(x, y, tree, min_leaf=3, criterion=criterion),
    )  # fmt: skip
    assert oracle.get_n_leaves() == max_leaf_nodes
    assert model.record.state.learned.leaves == max_leaf_nodes
    same_partitions_and_probabilities(con, model, oracle, x, table, columns)


@pytest.mark.parametrize("criterion", ["entropy", "gini"])
def test_feature_importances_are_scikit_learns(con, criterion):
    settings = {"criterion": criterion, "max_depth": 4}
    oracle, model, x, table, columns = oracle_and_model(
        con, 5, {**settings, "min_leaf": 1}, settings,
        ties=lambda x, y, tree: untied(x, y, tree, criterion=criterion),
    )  # fmt: skip
    same_partitions_and_probabilities(con, model, oracle, x, table, columns)
    assert model.feature_names_in_ == columns
    np.testing.assert_allclose(
        model.feature_importances_, oracle.feature_importances_, rtol=0, atol=1e-9
    )


def reference_importances(root, rows: list[dict], target: str, features, impurity) -> np.ndarray:
    """scikit-learn's definition over the rows each node of a stored tree receives (routed
    here, tree_path), each split's branches all counted: sum of N_t imp(t) - sum_b N_b
    imp(b), normalised."""
    classes = sorted({r[target] for r in rows})
    reached: dict[int, np.ndarray] = {}
    for r in rows:
        for node in tree_path(root, r):
            counts = reached.setdefault(node.id, np.zeros(len(classes)))
            counts[classes.index(r[target])] += 1
    found = np.zeros(len(features))

    def weighted(node) -> float:
        counts = reached.get(node.id, np.zeros(len(classes)))
        return counts.sum() * impurity(counts)

    for node in root.walk():
        if node.split is not None:
            decrease = weighted(node) - sum(weighted(c) for c in node.children)
            found[features.index(node.split.attribute)] += decrease
    return found / found.sum()


@pytest.mark.parametrize(("criterion", "impurity"), [("gain_ratio", entropy), ("gini", gini)])
def test_multiway_importances_sum_every_branchs_decrease(con, criterion, impurity):
    """A categorical multiway split (NULLs a branch of their own) and numeric thresholds;
    gain ratio's importances are of the entropy, C4.5's measure of information."""
    rng = np.random.default_rng(2)
    n = 500
    colour = rng.choice(["r", "g", "b", "w"], n).astype(object)
    colour[rng.random(n) < 0.1] = None
    size = rng.normal(size=n)
    shape = rng.choice(["o", "x", "+"], n)
    rule = np.where(colour == "r", size > 0.5, (shape == "o") | (size < -0.6))
    y = np.where(rng.random(n) < 0.1, ~rule, rule)
    table = pa.table({"colour": list(colour), "size": size, "shape": shape,
                      "y": np.where(y, "yes", "no")})  # fmt: skip
    model = wml.DecisionTree(criterion=criterion, pruning="none", max_depth=3).fit(
        con, table, "y", features=["colour", "size", "shape"]
    )
    root = model.record.state.learned.root
    assert len(root.children) > 2 and root.leaves() and model.feature_importances_.min() > 0
    expected = reference_importances(
        root, table.to_pylist(), "y", model.feature_names_in_, impurity
    )
    np.testing.assert_allclose(model.feature_importances_, expected, rtol=0, atol=1e-12)
    one_leaf = wml.DecisionTree(max_depth=0).fit(con, table, "y", name="leaf")
    assert one_leaf.feature_importances_.tolist() == [0.0, 0.0, 0.0]


# -- every candidate at the root of real data -------------------------------------------------


def read_rows(path) -> tuple[list[str], list[list[str | None]]]:
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return rows[0], [[v if v != "" else None for v in r] for r in rows[1:]]


def weighted_edges(values: list[float], bins: int) -> list[float]:
    """select_tree_edges.sql's definition: distinct values in order, each in tile
    ceil(cumulative count * bins / total), a tile's edge its largest value."""
    distinct, counts = np.unique(np.array(values), return_counts=True)
    cum = np.cumsum(counts)
    tiles = np.ceil(cum * bins / cum[-1])
    return sorted({float(distinct[tiles == t].max()) for t in np.unique(tiles)})


def reference_candidates(values, y, classes, numeric, splits, edges):
    """(groups as value sets or threshold, gain, ratio, gini) of every root candidate of one
    attribute, written from the definitions of models/learners/tree/splits.py."""

    y = np.array(y, dtype=object)
    present = np.array([v is not None for v in values])
    if numeric:
        x = np.array([float(v) if v is not None else np.nan for v in values])
        bins = np.minimum(np.searchsorted(edges, x, side="left"), len(edges) - 1)
        coded = np.where(present, bins, -1)
        keys = sorted(set(coded[present].tolist()))
    else:
        coded = np.array([v if v is not None else "" for v in values], dtype=object)
        keys = sorted({v for v in values if v is not None})

    def counts(mask):
        return np.array([np.sum(mask & (y == k)) for k in classes], dtype=float)

    nulls = counts(~present)
    has_nulls = nulls.sum() > 0
    per = {k: counts(present & (coded == k)) for k in keys}
    found = []
    if not numeric and splits == "multiway":
        parts = [per[k] for k in keys] + ([nulls] if has_nulls else [])
        if sum(p.sum() >= 2 for p in parts) >= 2:
            groups = tuple((k,) for k in keys) + (((),) if has_nulls else ())
            found.append((groups, *reference(parts)))
        return keys, found
    if numeric:
        orders = [keys]
    elif len(classes) == 2:
        orders = [sorted(keys, key=lambda k: (per[k][1] / per[k].sum(), keys.index(k)))]
    else:
        orders = []
    sides = [(o[:i], o[i:]) for o in orders for i in range(1, len(o))]
    if not numeric and len(classes) > 2:
        sides = [([k], [j for j in keys if j != k]) for k in (keys if len(keys) > 2 else keys[:1])]
    for left, right in sides:
        two = [sum(per[k] for k in left), sum(per[k] for k in right)]
        options = [0, 1] if has_nulls else [0 if two[0].sum() >= two[1].sum() else 1]
        best = None
        for side in options:
            parts = [two[0] + nulls * (side == 0), two[1] + nulls * (side == 1)]
            if min(p.sum() for p in parts) < 2:
                continue
            made = reference(parts)
            if best is None or made[0] > best[0]:
                best = made
        if best is not None:
            found.append(((tuple(left), tuple(right)), *best))
    if numeric and found:
        penalty = math.log2(len(found)) / len(values)
        found = [(g, gain, (gain - penalty) / (gain / ratio), gi) for g, gain, ratio, gi in found]
    return keys, found


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "splits"),
    [("car", "multiway"), ("car", "binary"), ("vote", "multiway"), ("vote", "binary"),
     ("adult", "multiway")],
)  # fmt: skip
def test_every_root_candidate_equals_the_numpy_reference(con, datasets, monkeypatch, name, splits):
    header, rows = read_rows(datasets / f"{name}.csv")
    numeric = {"age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"}
    numeric = numeric & set(header) if name == "adult" else set()
    table = pa.table(
        {h: pa.array([None if r[i] is None else (float(r[i]) if h in numeric else r[i])
                      for r in rows]) for i, h in enumerate(header)}
    )  # fmt: skip
    seen = {}
    original = tree_splits.score_level

    def spy(counts, criterion, split_kind, min_leaf):
        scored = original(counts, criterion, split_kind, min_leaf)
        for g in np.flatnonzero(counts.nodes == 0):
            name = counts.names[counts.attributes[g]]
            seen.setdefault(name, (counts, scored.of_group(int(g))))
        return scored

    monkeypatch.setattr(tree_splits, "score_level", spy)
    target = header[-1]
    wml.DecisionTree(splits=splits, max_depth=1, pruning="none").fit(
        con, table, target, categorical=sorted(set(header[:-1]) - numeric), numeric=sorted(numeric)
    )
    y = [r[-1] for r in rows]
    classes = sorted(set(y))
    checked = 0
    for i, attribute in enumerate(header[:-1]):
        values = [r[i] for r in rows]
        is_numeric = attribute in numeric
        edges = (
            weighted_edges([float(v) for v in values if v is not None], 32) if is_numeric else []
        )
        keys, expected = reference_candidates(values, y, classes, is_numeric, splits, edges)
        _, found = seen[attribute]
        assert len(found) == len(expected), attribute
        for c, (groups, gain, ratio, decrease) in zip(found, expected, strict=True):
            assert tuple(tuple(keys[i] for i in g) for g in c.groups) == tuple(map(tuple, groups))
            assert c.gain == pytest.approx(gain, abs=1e-12)
            assert c.gain_ratio == pytest.approx(ratio, abs=1e-12)
            assert c.gini == pytest.approx(decrease, abs=1e-12)
            checked += 1
    assert checked > 0


# -- the NULL rule, leaves, pruning, weights ----------------------------------------------------


def test_nulls_take_their_own_branch_or_the_side_of_larger_gain(con):
    colour = ["r"] * 20 + ["g"] * 20 + [None] * 20 + ["b"] * 2
    size = [1.0] * 20 + [5.0] * 20 + [None] * 20 + [9.0] * 2
    y = ["a"] * 20 + ["b"] * 20 + ["c"] * 20 + ["a", "b"]
    table = pa.table({"colour": colour, "size": size, "y": y})
    multi = wml.DecisionTree(pruning="none", max_depth=1, criterion="entropy").fit(
        con, table, "y", features=["colour"], name="multi"
    )
    split = tree_of(multi)["split"]
    assert split["values"] == [["b"], ["g"], ["r"], []] and split["null"] == 3
    unseen = pa.table({"colour": ["zz", None], "y": ["a", "a"]})
    p = multi.predict_proba(con, unseen).to_pylist()
    assert p[1] == {"p_a": 0.0, "p_b": 0.0, "p_c": 1.0}
    heaviest = split["other"]
    counts = tree_of(multi)["children"][heaviest]["counts"]
    assert p[0] == pytest.approx({k: v / sum(counts) for k, v in zip(["p_a", "p_b", "p_c"], counts, strict=True)})  # fmt: skip
    binary = wml.DecisionTree(pruning="none", max_depth=1, splits="binary", bins=None).fit(
        con, table, "y", features=["size"], name="binary"
    )
    split = tree_of(binary)["split"]
    left, right = tree_of(binary)["children"]
    # NULLs (all class c) join the side whose gain is larger: compare both by the reference
    nulls = np.array([0, 0, 20.0])
    low, high = np.array(left["counts"]), np.array(right["counts"])
    side = 0 if split["null"] == 0 else 1
    base = [low - nulls * (side == 0), high - nulls * (side == 1)]
    gains = [reference([base[0] + nulls, base[1]])[0], reference([base[0], base[1] + nulls])[0]]
    assert gains[side] > gains[1 - side]


def test_leaves_are_laplace_smoothed_frequencies(con):
    table = pa.table({"c": ["x"] * 6 + ["z"] * 6, "y": ["a"] * 5 + ["b"] + ["b"] * 6})
    for alpha in (0.0, 1.0):
        model = wml.DecisionTree(alpha=alpha, pruning="none").fit(con, table, "y", name="m")
        p = model.predict_proba(con, pa.table({"c": ["x", "z"]})).to_pylist()
        assert p[0]["p_a"] == pytest.approx((5 + alpha) / (6 + 2 * alpha), abs=1e-12)
        assert p[1]["p_b"] == pytest.approx((6 + alpha) / (6 + 2 * alpha), abs=1e-12)
    logs = model_log = wml.DecisionTree(alpha=0.0, pruning="none").fit(con, table, "y", name="z")
    logs = model_log.predict_log_proba(con, pa.table({"c": ["z"]})).to_pylist()[0]
    assert logs["p_a"] == -math.inf and logs["p_b"] == 0.0


def added_errors(n: float, e: float, cf: float) -> float:
    """C4.5's extra errors (Weka's Stats.addErrs, from its definition): n (1 - cf^(1/n)) for
    no error, linear up to one error, n - e within half an error of n; otherwise n times the
    upper limit of the Wilson interval of the proportion (e + 0.5) / n at one-sided
    confidence cf, found here as the larger root of its quadratic, less e."""
    if e < 1:
        base = n * (1 - cf ** (1 / n))
        return base if e == 0 else base + e * (added_errors(n, 1, cf) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    z = statistics.NormalDist().inv_cdf(1 - cf)
    f = (e + 0.5) / n
    # (r - f)^2 = z^2 r (1 - r) / n
    a, b = 1 + z * z / n, 2 * f + z * z / n  # a r^2 - b r + f^2 = 0
    upper = (b + math.sqrt(max(b * b - 4 * a * f * f, 0.0))) / (2 * a)
    return upper * n - e


def pruned_reference(node: dict, cf: float) -> tuple[dict, float]:
    """C4.5 subtree replacement on a stored unpruned tree, bottom up."""
    counts = node["counts"]
    n, e = sum(counts), sum(counts) - max(counts)
    leaf = 0.0 if n == 0 else e + added_errors(n, e, cf)
    if "split" not in node:
        return node, leaf
    children = [pruned_reference(c, cf) for c in node["children"]]
    subtree = sum(err for _, err in children)
    if leaf <= subtree + 0.1 + 1e-6:
        return {"id": node["id"], "counts": counts}, leaf
    return {**node, "children": [c for c, _ in children]}, subtree


def shape(node: dict) -> tuple:
    return (node["id"], tuple(shape(c) for c in node.get("children", [])))


@pytest.mark.parametrize("confidence", [0.05, 0.25, 0.5])
def test_pessimistic_pruning_replaces_subtrees_as_c45(con, confidence):
    rng = np.random.default_rng(3)
    n = 400
    a = rng.choice(["p", "q", "r", "s"], n)
    b = rng.choice(["u", "v", "w"], n)
    x = rng.normal(size=n)
    y = np.where((a == "p") | ((b == "u") & (x > 0)), "yes", "no")
    y = np.where(rng.random(n) < 0.15, np.where(y == "yes", "no", "yes"), y)
    table = pa.table({"a": a, "b": b, "x": x, "y": y})
    full = wml.DecisionTree(pruning="none").fit(con, table, "y", name="full")
    pruned = wml.DecisionTree(pruning="pessimistic", confidence=confidence).fit(
        con, table, "y", name="pruned"
    )
    expected, _ = pruned_reference(tree_of(full), confidence)
    assert shape(tree_of(pruned)) == shape(expected)
    assert pruned.record.state.learned.leaves <= full.record.state.learned.leaves


@pytest.mark.parametrize("criterion", ["entropy", "gini"])
def test_weights_count_as_repeated_rows_in_impurities_and_probabilities(con, criterion):
    """Where no row threshold decides (min_leaf 1, no pruning, an impurity criterion), an
    integer weight is that many copies of the row."""
    rng = np.random.default_rng(8)
    n = 120
    table = pa.table(
        {"x": rng.normal(size=n), "c": rng.choice(["a", "b"], n),
         "w": rng.integers(1, 4, n), "y": rng.choice(["k", "l", "m"], n)}
    )  # fmt: skip
    repeated = table.take(np.repeat(np.arange(n), table["w"].to_numpy()))
    settings = {"bins": 8, "pruning": "none", "min_leaf": 1, "criterion": criterion}
    weighted = wml.DecisionTree(**settings).fit(
        con, table, "y", features=["x", "c"], sample_weight="w", name="w"
    )
    plain = wml.DecisionTree(**settings).fit(con, repeated, "y", features=["x", "c"], name="r")
    assert weighted.record.state.learned.edges == plain.record.state.learned.edges
    assert shape(tree_of(weighted)) == shape(tree_of(plain))
    np.testing.assert_allclose(
        np.column_stack([c.to_numpy() for c in weighted.predict_proba(con, table).columns]),
        np.column_stack([c.to_numpy() for c in plain.predict_proba(con, table).columns]),
        rtol=0, atol=1e-12,
    )  # fmt: skip


def weighted_rows(n: int, seed: int) -> pa.Table:
    """A numeric, a categorical and a noise attribute with NULLs, a weight per row (some 0)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    colour = rng.choice(["r", "g", "b", "w"], n).astype(object)
    colour[rng.random(n) < 0.05] = None
    rule = (colour == "r") | (x > 0.4)
    y = np.where(rng.random(n) < 0.2, ~rule, rule)
    w = rng.choice([0.0, 0.5, 1.0, 2.5], n, p=[0.05, 0.35, 0.4, 0.2])
    return pa.table({"id": np.arange(n), "x": x, "colour": list(colour),
                     "noise": rng.choice(["p", "q"], n), "w": w,
                     "y": np.where(y, "yes", "no")})  # fmt: skip


@pytest.mark.parametrize(
    "settings",
    [{}, {"criterion": "entropy", "splits": "binary", "bins": None},
     {"criterion": "gini", "splits": "binary", "min_leaf": 5},
     {"pruning": "reduced_error", "key": "id", "min_leaf": 3}],
    ids=["c45", "entropy", "gini", "reduced_error"],
)  # fmt: skip
def test_scaling_every_weight_changes_nothing(con, settings):
    """Weights normalised to sum to 1, or a million times larger: the same splits and the same
    probabilities (min_leaf, C4.5's penalty and its pessimistic estimates count rows)."""
    table = weighted_rows(600, 4)
    features = ["x", "colour", "noise"]
    fitted = {}
    for scale in (1.0, 1 / float(pc.sum(table["w"]).as_py()), 1e6):
        scaled = table.set_column(4, "w", pc.multiply(table["w"], scale))
        fitted[scale] = wml.DecisionTree(**settings).fit(
            con, scaled, "y", features=features, sample_weight="w", name=f"s{len(fitted)}"
        )
    base, *others = fitted.values()
    assert base.record.state.learned.leaves >= 4
    expected = np.column_stack([c.to_numpy() for c in base.predict_proba(con, table).columns])
    for model in others:
        assert splits_of(tree_of(model)) == splits_of(tree_of(base))
        got = np.column_stack([c.to_numpy() for c in model.predict_proba(con, table).columns])
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def splits_of(node: dict) -> tuple:
    """A stored tree's shape and tests (attribute, kind, threshold, values, NULL branch)."""
    split = node.get("split")
    if split is None:
        return (node["id"],)
    test = (split["attribute"], split["kind"], split["threshold"], split["values"], split["null"])
    return (node["id"], str(test), tuple(splits_of(c) for c in node["children"]))


# -- inspection ----------------------------------------------------------------------------------


def inspected(con):
    rng = np.random.default_rng(11)
    n = 300
    colour = rng.choice(["red", "green", "blue"], n).astype(object)
    colour[rng.random(n) < 0.1] = None
    x = rng.normal(size=n)
    y = np.where((colour == "red") | (x > 0.5), "yes", "no")
    table = pa.table({"id": np.arange(n), "colour": colour.tolist(), "x": x, "y": y})
    model = wml.DecisionTree(pruning="none", alpha=1.0).fit(
        con, table, "y", features=["colour", "x"], name="inspected"
    )
    return model, table


def test_explain_gives_each_rows_path_whose_changes_add_up_to_leaf_minus_root(con):
    model, table = inspected(con)
    paths = model.explain(con, table, keys=["id"]).to_pylist()
    proba = model.predict_proba(con, table).to_pylist()
    learned = model.record.state.learned
    root = learned.probabilities[0]
    tree = tree_of(model)
    for i in range(table.num_rows):
        steps = [r for r in paths if r["id"] == i]
        predicted = max(proba[i], key=lambda c: (proba[i][c], -list(proba[i]).index(c)))
        label = predicted.removeprefix("p_")
        assert [r["step"] for r in steps] == list(range(1, len(steps) + 1))
        assert all(r["class"] == label for r in steps)
        k = model.classes_.index(label)
        total = sum(r["change"] for r in steps)
        assert total == pytest.approx(proba[i][predicted] - root[k], abs=1e-12)
        node = tree  # the path's attributes are the splits met walking the stored tree
        for r in steps:
            assert r["attribute"] == node["split"]["attribute"]
            node = next(
                c for b, c in enumerate(node["children"])
                if r["test"] == _describe(node["split"], b)
            )  # fmt: skip
    with pytest.raises(NotSupportedError, match="decision path"):
        model.explain(con, table, top=2)
    default = model.explain(con, table.slice(0, 3))
    assert set(default.column_names) >= {"row", "class", "step", "change"}
    assert sorted(set(default["row"].to_pylist())) == [0, 1, 2]


def _describe(split: dict, branch: int) -> str:
    from warehouse_ml.models.learners.tree.model import Split

    return Split(
        split["attribute"], split["kind"], split["threshold"],
        tuple(map(tuple, split["values"])), split["null"], split["other"], split["gain"],
        split["score"],
    ).describe(branch)  # fmt: skip


def test_tree_text_ranking_and_picture_show_the_stored_tree(con):
    model, _ = inspected(con)
    text = model.tree_text()
    tree = tree_of(model)
    assert text.splitlines()[0].startswith(tree["split"]["attribute"])
    assert f"Number of leaves: {model.record.state.learned.leaves}" in text
    ranked = model.attribute_ranking(con).to_pylist()
    splits = [n for n in model.record.state.learned.root.walk() if n.split is not None]
    expected = {
        a: sum(n.weight / tree_weight(tree) * n.split.gain for n in splits
               if n.split.attribute == a)
        for a in ("colour", "x")
    }  # fmt: skip
    assert [r["attribute"] for r in ranked] == sorted(expected, key=lambda a: -expected[a])
    for r in ranked:
        assert r["weighted_gain"] == pytest.approx(expected[r["attribute"]], abs=1e-12)
    root = model.record.state.learned.root
    importances = dict(zip(model.feature_names_in_, model.feature_importances_, strict=True))
    assert {r["attribute"]: r["importance"] for r in ranked} == importances
    pytest.importorskip("matplotlib")
    ax = model.plot_tree()
    boxes = [t for t in ax.texts if t.get_bbox_patch() is not None]
    top = [n for n in root.walk() if n.depth < 3]  # a small tree's three levels all fit
    assert len(boxes) == len(top) < model.record.state.learned.size
    assert boxes[0].get_text().startswith(f"{root.split.attribute}?")


def tree_weight(tree: dict) -> float:
    return sum(tree["counts"])


def test_update_is_refused_and_parameters_are_checked(con):
    table = pa.table({"c": ["x", "z"] * 10, "y": ["a", "b"] * 10})
    model = wml.DecisionTree().fit(con, table, "y", name="m")
    with pytest.raises(NotSupportedError, match="CountUpdates; model kind 'decision_tree'"):
        model.update(con, table, batch_id="b")
    for bad in ({"criterion": "chi2"}, {"splits": "ternary"}, {"pruning": "reduced"},
                {"confidence": 0.7}, {"bins": 1}, {"min_leaf": 0}, {"max_depth": -1},
                {"min_samples_split": 1}, {"max_leaf_nodes": 1}, {"max_leaf_nodes": 2.5}):  # fmt: skip
        with pytest.raises(wml.ParameterError):
            wml.DecisionTree(**bad)
    spec = kinds.named("tree")
    assert spec.parameter("max_depth").parse("none") is None
    assert spec.parameter("bins").parse("16") == 16
    assert spec.parameter("max_leaf_nodes").parse("none") is None
    assert spec.parameter("min_samples_split").parse("10") == 10
