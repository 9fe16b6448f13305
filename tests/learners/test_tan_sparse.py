"""TAN's sparse conditional tables and its early high-cardinality refusal.

Predictions must equal a numpy reference of the DENSE formula (P(x | c, pa) over every seen
value and every parent value counted with the attribute, tan.py module doc) written here; the
stored tables hold only counted pairs; a refused attribute never reaches the pair counts.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from stored_forms import details_of, with_details

import warehouse_ml as wml
from warehouse_ml.cli import main
from warehouse_ml.errors import HighCardinalityError, HighCardinalityWarning
from warehouse_ml.evaluation import crossval
from warehouse_ml.models.keyed_terms import lookup
from warehouse_ml.models.learners.bayes.tan_state import TANState
from warehouse_ml.stats import validation
from warehouse_ml.stats.counting import PARTITION

N_IDS = 2 * validation.WARN_CATEGORIES
TOLERANCE = 1e-12


def _identifier_table(con, numeric: bool = False) -> str:
    """``ids``: an integer key ``k``, an identifier-like string ``id`` (one value per row), two
    low-cardinality attributes, [a float ``x``,] and a binary class."""
    extra = ", CAST(i % 7 AS DOUBLE) / 3 AS x" if numeric else ""
    name = "ids_x" if numeric else "ids"
    con.execute(
        f"CREATE TABLE {name} AS SELECT i AS k, 'id' || i AS id, "
        "CASE WHEN i % 3 = 0 THEN 'a' ELSE 'b' END AS g, 'h' || (i % 4) AS h, "
        f"CASE WHEN i % 2 = 0 THEN 'y' ELSE 'n' END AS cls{extra} FROM range({N_IDS}) r(i)"
    )
    return name


REFUSAL = (
    rf"categorical column 'id' of ids(_x)? has {N_IDS} distinct values in {N_IDS} training rows; "
    r".*most values occur once, like an identifier"
)


def _counted_pairs(statements: list[str]) -> bool:
    """Whether any statement wrote or read a pair-count table (pair_counts, fold_pair_counts)."""
    return any("pair_counts" in s for s in statements)


def test_fit_refuses_an_identifier_before_counting_pairs(con):
    table = _identifier_table(con)
    statements: list[str] = []
    warehouse = wml.connect(con, on_sql=statements.append)
    with pytest.raises(HighCardinalityError, match=REFUSAL):
        wml.TAN().fit(warehouse, table, "cls", keys=["k"])
    assert any("_categorical" in s for s in statements)  # refused after the counts ...
    assert not _counted_pairs(statements)  # ... and before any pair count
    tables = con.sql("SELECT table_name FROM information_schema.tables WHERE table_schema = 'wml'")
    assert {r[0] for r in tables.fetchall()} == {"models", "objects"}  # its tables were dropped
    statements.clear()
    with pytest.warns(HighCardinalityWarning) as caught:
        model = wml.TAN().fit(
            warehouse, table, "cls", keys=["k"], allow_high_cardinality=True, name="allowed"
        )
    assert _counted_pairs(statements)
    assert model.feature_names_in_ == ["id", "g", "h"]
    assert [w.filename for w in caught] == [__file__]  # warned once, at the caller


@pytest.mark.parametrize("numeric", [False, True], ids=["all-folds-at-once", "fold-by-fold"])
def test_cross_validation_refuses_an_identifier_before_counting_pairs(con, numeric):
    table = _identifier_table(con, numeric)
    statements: list[str] = []
    warehouse = wml.connect(con, on_sql=statements.append)
    with pytest.raises(HighCardinalityError, match=REFUSAL):
        crossval.cross_validate(warehouse, table, "cls", wml.TAN(), folds=3, key="k")
    assert not _counted_pairs(statements)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # without the identifier: no warning at all
        crossval.cross_validate(
            warehouse, table, "cls", wml.TAN(), folds=3, key="k", features=["g", "h"]
        )
    statements.clear()
    with pytest.warns(HighCardinalityWarning) as caught:
        evaluation = crossval.cross_validate(
            warehouse, table, "cls", wml.TAN(), folds=3, key="k", allow_high_cardinality=True
        )
    assert _counted_pairs(statements)
    assert evaluation.accuracy().n == N_IDS
    assert [w.filename for w in caught] == [__file__]  # once for all folds, at the caller


# -- the dense formula, written out ------------------------------------------------------------
def _nb_tables(values, labels, classes, alpha):
    """Naive Bayes log P(x | c) of each seen value (X x K) and of an unseen value (K), with the
    edge rules of naive_bayes.py."""
    seen = sorted({v for v, c in zip(values, labels) if v is not None and c is not None}, key=repr)
    index = {v: j for j, v in enumerate(seen)}
    counts = np.zeros((len(seen), len(classes)))
    for v, c in zip(values, labels):
        if v is not None and c is not None:
            counts[index[v], classes.index(c)] += 1
    n_class, card = counts.sum(axis=0), len(seen)
    denominator = n_class + alpha * card
    with np.errstate(divide="ignore", invalid="ignore"):
        known = np.where(
            denominator == 0,
            -math.log(card),
            np.where(counts + alpha == 0, -np.inf, np.log(counts + alpha) - np.log(denominator)),
        )
    if alpha == 0:  # an unseen value contributes nothing
        return index, known, np.zeros(len(classes))
    return index, known, math.log(alpha) - np.log(denominator)


def _dense_cpt(values, parent_values, labels, classes, index, alpha):
    """The DENSE conditional table log P(x | c, pa) over every seen value x (``index``) and
    every parent value counted with a non-NULL x: (X, P, K), and the parent values' index."""
    rows = [
        (v, p, c)
        for v, p, c in zip(values, parent_values, labels)
        if v is not None and p is not None and c is not None
    ]
    parents = {p: j for j, p in enumerate(sorted({p for _, p, _ in rows}, key=repr))}
    counts = np.zeros((len(index), len(parents), len(classes)))
    for v, p, c in rows:
        counts[index[v], parents[p], classes.index(c)] += 1
    card = len(index)
    denominator = counts.sum(axis=0) + alpha * card  # (P, K)
    with np.errstate(divide="ignore", invalid="ignore"):
        table = np.where(
            denominator == 0,
            -math.log(card),
            np.where(counts + alpha == 0, -np.inf, np.log(counts + alpha) - np.log(denominator)),
        )
    return parents, table


def dense_log_joint(
    train: pa.Table, test: pa.Table, target: str, parents: dict, alpha: float, prior_alpha: float
) -> tuple[list, np.ndarray]:
    """log P(c) + sum_i log P(a_i | c, parent) for every test row, with P(x | c, pa) read from a
    DENSE table (X x P x K): a NULL value adds 0; (x, pa) in the table its entry; otherwise
    (NULL parent, unseen x, parent value never counted with x's attribute) the Naive Bayes term."""
    labels = train[target].to_pylist()
    classes = sorted({c for c in labels if c is not None})
    n_class = np.array([labels.count(c) for c in classes], dtype=float)
    prior = np.log(n_class + prior_alpha) - math.log(n_class.sum() + prior_alpha * len(classes))
    out = np.tile(prior, (test.num_rows, 1))
    for attribute, parent in parents.items():
        values = train[attribute].to_pylist()
        index, known, unseen = _nb_tables(values, labels, classes, alpha)
        table_parents, table = {}, None
        if parent is not None:
            table_parents, table = _dense_cpt(
                values, train[parent].to_pylist(), labels, classes, index, alpha
            )
        scored = test[attribute].to_pylist()
        scored_parent = test[parent].to_pylist() if parent is not None else [None] * len(scored)
        for r, (v, p) in enumerate(zip(scored, scored_parent)):
            if v is None:
                continue
            if v in index and p is not None and p in table_parents:
                out[r] += table[index[v], table_parents[p]]
            elif v in index:
                out[r] += known[index[v]]
            else:
                out[r] += unseen
    return classes, out


def _probabilities(log_joint: np.ndarray) -> np.ndarray:
    """Posterior probabilities; NaN for a row where every class is impossible (NULL in SQL)."""
    top = log_joint.max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore"):
        shifted = np.exp(log_joint - top)
        return shifted / shifted.sum(axis=1, keepdims=True)


def _assert_probabilities(got: pa.Table, expected: np.ndarray, names: list[str]) -> None:
    found = np.column_stack(
        [got[name].to_numpy(zero_copy_only=False).astype(float) for name in names]
    )
    np.testing.assert_array_equal(np.isnan(found), np.isnan(expected))
    np.testing.assert_allclose(found, expected, rtol=0, atol=TOLERANCE)


# -- data ----------------------------------------------------------------------------------------
def _mixed(n: int, seed: int) -> pa.Table:
    """Three classes; integer codes p (0..4) and q (0..4, depends on p: both looked up), an
    integer with gaps g (text joins), strings s (9 values) and t (12 values, depends on s, so
    most (t, s) pairs are never counted), 8% NULLs in each."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    p = y + rng.integers(0, 3, n)
    q = np.where(rng.random(n) < 0.7, (p + y) % 5, rng.integers(0, 5, n))
    g = np.array([0, 3, 7, 12])[np.where(rng.random(n) < 0.6, q % 4, rng.integers(0, 4, n))]
    s = np.where(rng.random(n) < 0.6, (2 * y + q) % 9, rng.integers(0, 9, n))
    t = np.where(rng.random(n) < 0.5, (s + y) % 12, rng.integers(0, 12, n))

    def nulls(values, kind):
        return pa.array([None if rng.random() < 0.08 else kind(v) for v in values])

    return pa.table(
        {
            "id": pa.array(np.arange(n), pa.int64()),
            "p": nulls(p, int),
            "q": nulls(q, int),
            "g": nulls(g, int),
            "s": nulls(s, lambda v: f"s{v}"),
            "t": nulls(t, lambda v: f"t{v}"),
            "y": pa.array([f"c{v}" for v in y]),
        }
    )


def _with_unseen(table: pa.Table) -> pa.Table:
    """Scored rows with values never seen in training, as attribute and as parent value."""
    unseen = {"p": [99, -3, None], "q": [7, None, 2], "g": [5, 0, 3], "s": ["zz", "s1", None],
              "t": ["t1", "tz", "t3"]}  # fmt: skip
    extra = pa.table(
        {
            name: pa.array(unseen.get(name, [None] * 3), table[name].type)
            for name in table.column_names
        }
    )
    return pa.concat_tables([table, extra])


def _counted_elsewhere(train: pa.Table, test: pa.Table, attribute: str, parent: str) -> int:
    """Scored rows whose value and parent value were both counted with the attribute in
    training, but never together (the rows scored through cpt_parent)."""
    rows = list(zip(train[attribute].to_pylist(), train[parent].to_pylist()))
    pairs = {(v, p) for v, p in rows if v is not None and p is not None}
    values = {v for v, _ in pairs}
    parents = {p for _, p in pairs}
    scored = zip(test[attribute].to_pylist(), test[parent].to_pylist())
    return sum(v in values and p in parents and (v, p) not in pairs for v, p in scored)


def _without_lookup(model: wml.TAN) -> wml.TAN:
    """The same model scored by text joins alone (its record without the lookup layout)."""
    return with_details(model, {**details_of(model), "lookup": {}})


SMOOTHING = [(0.5, 0.5), (0.0, 0.0), (0.0, 1.0), (2.0, 0.0)]


# -- (a) predictions equal the dense reference -----------------------------------------------
@pytest.mark.parametrize(("alpha", "prior_alpha"), SMOOTHING)
def test_predictions_equal_the_dense_reference(con, alpha, prior_alpha):
    train, test = _mixed(500, seed=1), _with_unseen(_mixed(200, seed=2))
    model = wml.TAN(alpha=alpha, prior_alpha=prior_alpha).fit(con, train, "y", keys=["id"])
    parents = model.parents_
    placed = set(model.record.state.learned.lookup)
    assert placed and placed != set(parents)  # looked-up and text-joined attributes
    assert any(_counted_elsewhere(train, test, a, p) for a, p in parents.items() if p)
    classes, log_joint = dense_log_joint(train, test, "y", parents, alpha, prior_alpha)
    assert model.classes_ == classes
    expected = _probabilities(log_joint)
    for scorer in (model, _without_lookup(model)):
        _assert_probabilities(
            scorer.predict_proba(con, test), expected, [f"p_{c}" for c in classes]
        )


def _with_rare_values(table: pa.Table) -> pa.Table:
    """Some rows with values of their own (s) and one with a code of its own (p = 5): unseen by
    the model of the fold that holds them."""
    rows = range(table.num_rows)
    s = [f"rare{i}" if i % 97 == 0 else v for i, v in zip(rows, table["s"].to_pylist())]
    p = [5 if i == 89 else v for i, v in zip(rows, table["p"].to_pylist())]
    table = table.set_column(table.schema.get_field_index("s"), "s", pa.array(s, pa.string()))
    return table.set_column(table.schema.get_field_index("p"), "p", pa.array(p, pa.int64()))


class Stacked:
    """Records the all-folds model of a TAN cross-validation (TAN.learn_tables given a held-out
    fold column): its learned state and its parameter tables (cross_validate drops them once
    scored)."""

    def __init__(self, monkeypatch, con) -> None:
        self.learned: TANState | None = None
        self.tables: dict[str, pa.Table] = {}
        learn = wml.TAN.learn_tables

        def spy(model, warehouse, training, tables, check):
            learned = learn(model, warehouse, training, tables, check)
            self.learned = learned
            self.tables = {
                part: con.sql(f"SELECT * FROM {tables.named(part)}").to_arrow_table()
                for part in tables.roles
            }
            return learned

        monkeypatch.setattr(wml.TAN, "learn_tables", spy)

    def fold_table(self, part: str, fold: int) -> pa.Table:
        table = self.tables[part]
        return table.filter(pc.equal(table[PARTITION], fold))


@pytest.mark.parametrize(("alpha", "prior_alpha"), SMOOTHING[:2])
def test_cross_validation_folds_equal_the_dense_reference(con, monkeypatch, alpha, prior_alpha):
    data = _with_rare_values(_mixed(400, seed=3))
    stacked = Stacked(monkeypatch, con)
    model = wml.TAN(alpha=alpha, prior_alpha=prior_alpha)
    ev = crossval.cross_validate(con, data, "y", model, folds=4, seed=5, key="id")
    assert stacked.learned.lookup  # integer codes looked up, the others text-joined
    split = wml.assign_folds(con, data, folds=4, seed=5, key="id", stratify="y", keep_columns=True)
    folds = split.to_arrow(con)
    pooled = ev.to_arrow()
    for f, parents in enumerate(stacked.learned.partition_parents):
        train = folds.filter(pc.not_equal(folds["fold"], f))
        test = folds.filter(pc.equal(folds["fold"], f)).sort_by("id")
        classes, log_joint = dense_log_joint(train, test, "y", parents, alpha, prior_alpha)
        got = pooled.filter(pc.equal(pooled["fold"], f)).sort_by("id")
        _assert_probabilities(got, _probabilities(log_joint), [f"p_{c}" for c in classes])
        expected_rows = _sparse_rows(train, parents, "y", len(classes))
        assert stacked.fold_table("cpt", f).num_rows == expected_rows["cpt"], f
        assert stacked.fold_table("cpt_parent", f).num_rows == expected_rows["cpt_parent"], f


# -- (b) the stored rows: counted pairs and parent values only ---------------------------------
def _sparse_rows(train: pa.Table, parents: dict, target: str, k: int) -> dict[str, int]:
    """Rows the sparse tables must hold: K per (value, parent value) pair counted in training
    (cpt) and K per parent value counted with a non-NULL attribute value (cpt_parent)."""
    labels = train[target].to_pylist()
    pairs, parent_values = 0, 0
    for attribute, parent in parents.items():
        if parent is None:
            continue
        counted = {
            (v, p)
            for v, p, c in zip(train[attribute].to_pylist(), train[parent].to_pylist(), labels)
            if v is not None and p is not None and c is not None
        }
        pairs += len(counted)
        parent_values += len({p for _, p in counted})
    return {"cpt": pairs * k, "cpt_parent": parent_values * k}


def test_sparse_tables_hold_counted_pairs_and_parent_values_only(con):
    train = _mixed(500, seed=1)
    model = wml.TAN().fit(con, train, "y", keys=["id"])
    tables = model.parameters(con)
    assert tables["cpt_parent"].column_names == [
        "wml_part", "attribute", "parent", "parent_value", "class_index", "n_parent", "n_values",
        "log_prob",
    ]  # fmt: skip
    expected = _sparse_rows(train, model.parents_, "y", 3)
    assert tables["cpt"].num_rows == expected["cpt"]
    assert tables["cpt_parent"].num_rows == expected["cpt_parent"]
    dense = sum(
        tables["cpt_parent"].filter(pc.equal(tables["cpt_parent"]["attribute"], a))["n_values"][0]
        .as_py() * n
        for a, n in _counts_by(tables["cpt_parent"], "attribute").items()
    )  # fmt: skip
    assert tables["cpt"].num_rows < dense  # the dense table had |X| rows per parent value
    # each stored row holds its counts and the formula of the module doc
    for row in tables["cpt"].to_pylist():
        expected_log = math.log(row["n"] + 0.5) - math.log(row["n_parent"] + 0.5 * row["n_values"])
        assert row["log_prob"] == pytest.approx(expected_log, abs=TOLERANCE)
    for row in tables["cpt_parent"].to_pylist():
        expected_log = math.log(0.5) - math.log(row["n_parent"] + 0.5 * row["n_values"])
        assert row["log_prob"] == pytest.approx(expected_log, abs=TOLERANCE)


def _counts_by(table: pa.Table, name: str) -> dict[Any, int]:
    values = table[name].to_pylist()
    return {v: values.count(v) for v in dict.fromkeys(values)}


# -- (c) many values: rows follow the counted pairs ------------------------------------------
def test_model_rows_grow_with_counted_pairs_not_with_values_squared(con):
    rng = np.random.default_rng(4)
    n = 3000
    a = rng.integers(0, 400, n)
    b = (a + rng.integers(0, 3, n)) % 400
    y = (a % 2 + (rng.random(n) < 0.2)) % 2
    data = pa.table(
        {
            "a": [f"a{v}" for v in a],
            "b": [f"b{v}" for v in b],
            "c": [f"c{v % 3}" for v in a],
            "y": y,
        }
    )
    model = wml.TAN().fit(con, data, "y")
    tables = model.parameters(con)
    counted = len(set(zip(a.tolist(), b.tolist())))
    assert model.parents_["b"] == "a" or model.parents_["a"] == "b"
    assert tables["cpt"].num_rows == _sparse_rows(data, model.parents_, "y", 2)["cpt"]
    assert tables["cpt"].num_rows < 2 * (counted + 3 * 400)  # the a-b edge, and c's
    assert sum(t.num_rows for t in tables.values()) < 10 * n  # dense: 400 * 400 * 2 cpt rows


def test_many_valued_integer_codes_keep_the_lookup_within_its_cap(con):
    """Integer codes 0..399 on both ends of an edge: the root is looked up (402 codes), its
    child would need 402 * 401 codes and keeps the text joins on the sparse tables."""
    rng = np.random.default_rng(6)
    n = 3000

    def sample(rows: int) -> pa.Table:
        a = rng.integers(0, 400, rows)
        b = (a + rng.integers(0, 3, rows)) % 400
        y = (a % 2 + (rng.random(rows) < 0.2)) % 2
        return pa.table({"a": a, "b": b, "c": a % 3, "y": y})

    train = sample(n)
    test = pa.concat_tables(
        [
            sample(300),
            pa.table({"a": [400, 7, None], "b": [3, 999, 5], "c": [0, 1, 2], "y": [0, 1, 0]}),
        ]
    )
    model = wml.TAN().fit(con, train, "y", categorical=["a", "b"])  # codes, not counts
    assert model.parents_ == {"a": None, "b": "a", "c": "a"}
    placed = model.record.state.learned.lookup
    assert set(placed) == {"a", "c"}  # b: (400 + 2) * 401 codes > lookup.MAX_TAN_CODES
    tables = model.parameters(con)
    assert tables["lookup"].num_rows == lookup.tan_width(placed) == 402 + 5 * 401
    assert sum(t.num_rows for t in tables.values()) < 10 * n
    classes, log_joint = dense_log_joint(train, test, "y", model.parents_, 0.5, 0.5)
    expected = _probabilities(log_joint)
    _assert_probabilities(model.predict_proba(con, test), expected, [f"p_{c}" for c in classes])


@pytest.mark.parametrize(
    ("spans", "parents", "placed"),
    [
        # a 3,500-value root fits; its 3,500-value child does not, nor that child's child
        ({"r": (0, 3499), "c": (1, 3500), "g": (0, 2)}, {"r": None, "c": "r", "g": "c"}, {"r"}),
        # 10 values under a 3,500-value parent: 13 * 3,501 codes fit; 20 values do not
        ({"r": (0, 3499), "t": (0, 9), "w": (0, 19)}, {"r": None, "t": "r", "w": "r"}, {"r", "t"}),
    ],
)
def test_lookup_layout_respects_the_code_cap(spans, parents, placed):
    layout = lookup.tan_layout(spans, [parents])
    assert set(layout) == placed
    for _, low, high, stride in layout.values():
        assert (high - low + 3) * stride <= lookup.MAX_TAN_CODES


def test_command_line_cross_validation_can_allow_an_identifier(tmp_path, capsys):
    db = str(tmp_path / "w.duckdb")
    con = duckdb.connect(db)
    table = _identifier_table(con)
    con.close()
    command = ["evaluate", table, "--target", "cls", "--kind", "tan", "--keys", "k", "--folds", "3"]
    assert main([*command, "--db", db]) == 1
    assert "categorical column 'id' of ids" in capsys.readouterr().err
    assert main([*command, "--allow-high-cardinality", "--db", db]) == 0
    shown = capsys.readouterr()
    assert f"{N_IDS} rows" in shown.out
    assert shown.err.startswith("warning: categorical column 'id' of ids")  # one line, CLI style
