"""TAN cross-validation by pair-count subtraction equals fitting TAN on each fold from scratch.

TAN.learn_tables, given the fold column, counts the split once per fold (categorical and pair counts grouped by
fold), derives every fold's training counts as total minus that fold and learns every fold's
model in the same statements (tables with a wml_part column). The oracle here is independent of
that path: for each fold f, ``wml.TAN`` is fitted on ``SELECT * FROM folds WHERE fold <> f`` (a
real scan of the training rows) and scores fold f. Each fold's model must be the same model: the
same tree, the same parameter tables and the same out-of-fold probabilities (1e-12).

Categorical TAN cross-validation scores every fold in ONE query (each row with its own fold's
tree: integer-coded attributes through the folds' stacked lookup table, the others by text
joins on the stacked cpt); its probabilities are compared with each scratch model scored both
through its own lookup table and by text joins alone.
"""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from conftest import load_text_csv
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from stored_forms import details_of, with_details

import warehouse_ml as wml
from warehouse_ml.evaluation import crossval, splits
from warehouse_ml.models.learners.bayes.tan_state import TANState
from warehouse_ml.sqlgen import templates
from warehouse_ml.stats.counting import PARTITION

TOLERANCE = 1e-12
COMPARED_PARTS = (
    "classes", "bins", "categorical", "unseen", "pair_counts", "information", "cpt", "cpt_parent",
)  # fmt: skip


def _sorted_table(con, table: templates.TableName) -> pa.Table:
    warehouse = wml.connect(con)
    names = warehouse.schema_of(table).names
    return warehouse.fetch(
        "select_table", table=table, order_columns=[templates.column(n, "t") for n in names]
    )


class FoldSpy:
    """Records, during cross-validation, each fold's model as the tests compare it
    (cross_validate drops its tables once scored): its tree, information rows, bins and
    parameter tables (without their wml_part column), whether the folds were learned all at
    once (TAN.learn_tables given a held-out fold column: tables with wml_part = fold, here split
    per fold) or one by one (TAN with numeric attributes: TAN.learn_tables on each fold's rows);
    how many folds were learned one by one (``fits``); and the details of the all-folds model
    (None when the folds were learned one by one). ``refit``: make cross-validation fit each
    fold from its own rows instead (the per-fold oracle)."""

    def __init__(self, monkeypatch, con, refit: bool = False) -> None:
        self.parents: list[dict[str, str | None]] = []
        self.information: list[list[list[Any]]] = []
        self.bins: list[dict[str, Any]] = []
        self.tables: list[dict[str, pa.Table]] = []
        self.fits = 0
        self.stacked: TANState | None = None
        learn = wml.TAN.learn_tables

        def spy_learn(model, warehouse, training, tables, check):
            learned = learn(model, warehouse, training, tables, check)
            stacked = {part: _sorted_table(con, tables.named(part)) for part in tables.roles}
            if training.fold_column is None:  # one fold's model, from its rows
                self.fits += 1
                self.parents.append(learned.parents)
                self.information.append([list(r) for r in learned.information])
                self.bins.append(learned.bins)
                self.tables.append({part: _without_partition(t) for part, t in stacked.items()})
                return learned
            self.stacked = learned
            self.parents = list(learned.partition_parents)
            self.tables = [
                {
                    part: _without_partition(t.filter(pc.equal(t[PARTITION], f)))
                    for part, t in stacked.items()
                    if PARTITION in t.column_names
                }
                for f in range(training.n_models)
            ]
            self.information = [
                [[r["attribute_i"], r["attribute_j"], r["cmi"], r["mi"]]
                 for r in tables["information"].to_pylist()] if "information" in tables else []
                for tables in self.tables
            ]  # fmt: skip
            self.bins = [{} for _ in self.tables]
            return learned

        monkeypatch.setattr(wml.TAN, "learn_tables", spy_learn)
        if refit:
            monkeypatch.setattr(wml.TAN, "learns_folds_at_once", lambda model, features: False)


def _without_partition(table: pa.Table) -> pa.Table:
    """A parameter table without its model partition column wml_part."""
    if PARTITION not in table.column_names:
        return table
    return table.drop_columns([PARTITION])


def _assert_tables_equal(got: pa.Table, expected: pa.Table, where: str) -> None:
    assert got.column_names == expected.column_names, where
    assert got.num_rows == expected.num_rows, where
    for name in got.column_names:
        a, b = got[name], expected[name]
        if pa.types.is_floating(a.type):
            assert pc.is_null(a).to_pylist() == pc.is_null(b).to_pylist(), (where, name)
            np.testing.assert_allclose(
                a.to_numpy(zero_copy_only=False), b.to_numpy(zero_copy_only=False),
                rtol=0, atol=TOLERANCE, err_msg=f"{where}: {name}",
            )  # fmt: skip
        else:
            assert a.to_pylist() == b.to_pylist(), (where, name)


def _without_lookup(model: wml.TAN) -> wml.TAN:
    """The model as if its catalog details had no scoring lookup table (cross-validation builds
    one for all folds at once instead of one per fold)."""
    details = details_of(model)
    found = {k: v for k, v in details.items() if k != "lookup"}
    return with_details(model, {**found, "tables": [t for t in details["tables"] if t != "lookup"]})


def _reference_split(
    con, ev: crossval.Evaluation, source: Any, target: str, key: str, seed: int
) -> splits.Split:
    """The fold assignment a cross-validation with these arguments makes (it drops its own),
    made again with every source column kept; its folds are checked against the evaluation's."""
    split = splits.assign_folds(
        con, source, folds=ev.folds, seed=seed, key=key, stratify=target, keep_columns=True
    )
    expected = dict(con.execute(f'SELECT "{key}", fold FROM {split.table}').fetchall())
    pooled = ev.to_arrow()
    assert all(
        expected[k] == f
        for k, f in zip(pooled[key].to_pylist(), pooled["fold"].to_pylist(), strict=True)
    )
    return split


def _check_against_scratch_fits(
    con,
    ev: crossval.Evaluation,
    spy: FoldSpy,
    model: wml.TAN,
    target: str,
    key: str,
    split: splits.Split,
) -> None:
    """Fit TAN from scratch on each fold's training rows and compare with the CV fold models;
    the pooled out-of-fold probabilities must equal each scratch model's, scored through its
    lookup table and by text joins alone (its record without the lookup)."""
    pooled = ev.to_arrow()
    labels = [str(c) for c in ev.classes]
    assert len(spy.parents) == ev.folds
    for f in range(ev.folds):
        con.execute(
            f"CREATE OR REPLACE VIEW train_f AS SELECT * EXCLUDE (fold) FROM {split.table} "
            f"WHERE fold <> {f}"
        )
        con.execute(
            f'CREATE OR REPLACE VIEW test_f AS SELECT * FROM {split.table} WHERE fold = {f} AND "'
            f'{target}" IS NOT NULL ORDER BY "{key}"'
        )
        scratch = wml.TAN(**model.get_params()).fit(
            con, "train_f", target, keys=[key], name=f"scratch{f}"
        )
        fitted_state = scratch.record.state.learned
        assert spy.parents[f] == fitted_state.parents, f"fold {f}"
        assert [a for a, p in spy.parents[f].items() if p is None] == [scratch.root_]
        assert spy.bins[f] == fitted_state.bins
        fitted = scratch.parameters(con)
        for part in COMPARED_PARTS:
            if part in fitted:
                _assert_tables_equal(
                    spy.tables[f][part], _without_partition(fitted[part]), f"fold {f} {part}"
                )
        got = pooled.filter(pc.equal(pooled["fold"], f)).sort_by(key)
        text_only = _without_lookup(scratch)
        for scorer in (scratch, text_only):
            expected = scorer.predict_proba(con, "test_f")
            assert got.num_rows == expected.num_rows
            for label in labels:
                np.testing.assert_allclose(
                    got[f"p_{label}"].to_numpy(), expected[f"p_{label}"].to_numpy(), rtol=0,
                    atol=TOLERANCE, err_msg=f"fold {f} p_{label}",
                )  # fmt: skip


# -- seeded data with every subtle case --------------------------------------------------------
def _subtle_table(con, n: int = 360, folds: int = 4, seed: int = 7) -> pa.Table:
    """Categorical data with NULLs, a tree, values and pair cells confined to one fold, an
    attribute non-NULL only in one fold's labelled rows (and on the rows without a class, so
    that a fit on the other folds keeps it: a column without any value is left out), exact
    copies of attributes (CMI ties), and a boolean.

    The fold each row falls in is taken from splits.assign_folds on (id, y), which is what
    cross_validate(folds, seed=3, key="id", stratified) assigns."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["c0", "c1", "c2"], size=n, p=[0.5, 0.3, 0.2])
    target = pa.array([None if i % 41 == 5 else v for i, v in enumerate(y)])
    con.register("ids", pa.table({"id": np.arange(n) * 5 + 1, "y": target}))
    split = splits.assign_folds(con, "ids", folds=folds, seed=3, key="id", stratify="y")
    fold = dict(con.execute(f"SELECT id, fold FROM {split.table}").fetchall())
    fold = np.array([fold[i] for i in np.arange(n) * 5 + 1])
    code = np.searchsorted(["c0", "c1", "c2"], y)
    a = (code + (rng.random(n) < 0.3) * rng.integers(0, 3, n)) % 4
    b = np.where(rng.random(n) < 0.7, (a + code) % 3, rng.integers(0, 3, n))
    c = [f"solo{i}" if i % 23 == 0 else f"w{(v + rng.integers(0, 2)) % 3}" for i, v in enumerate(b)]
    only_fold_0 = [
        f"q{v}" if f == 0 else ("unlabelled" if i % 41 == 5 else None)
        for i, (v, f) in enumerate(zip(code, fold, strict=True))
    ]
    z_in_fold_1 = [
        "z" if f == 1 and i % 3 == 0 else f"e{v % 2}"
        for i, (v, f) in enumerate(zip(a, fold, strict=True))
    ]

    def with_nulls(values, rate):
        return [None if rng.random() < rate else v for v in values]

    a_values = with_nulls(a.tolist(), 0.1)
    b_values = with_nulls([f"b{v}" for v in b], 0.05)
    return pa.table(
        {
            "id": np.arange(n) * 5 + 1,
            "a": pa.array(a_values, pa.int64()),
            "b": b_values,
            "c": with_nulls(c, 0.05),
            "d": only_fold_0,
            "e": z_in_fold_1,
            "a_copy": pa.array(a_values, pa.int64()),
            "b_copy": b_values,
            "flag": pa.array(with_nulls((b > 0).tolist(), 0.1), pa.bool_()),
            "y": target,
        }
    )


@pytest.mark.parametrize(
    "model",
    [wml.TAN(), wml.TAN(alpha=0.0, prior_alpha=1.0, root="e")],
    ids=["weka-defaults", "maximum-likelihood-root-e"],
)
def test_subtraction_equals_fitting_each_fold_from_scratch(con, monkeypatch, model):
    data = _subtle_table(con)
    con.register("data", data)
    con.execute("CREATE TABLE data_t AS SELECT * FROM data")
    spy = FoldSpy(monkeypatch, con)
    ev = crossval.cross_validate(con, "data_t", "y", model, folds=4, seed=3, key="id")
    assert spy.fits == 0  # no fold was refitted from its rows
    split = _reference_split(con, ev, "data_t", "y", "id", 3)
    assigned = dict(con.execute(f"SELECT id, fold FROM {split.table}").fetchall())
    labelled = [i for i in assigned if data["y"][(i - 1) // 5].is_valid]
    assert {assigned[i] for i in labelled if data["d"][(i - 1) // 5].is_valid} == {0}
    # fold 0 holds every "d" value: trained without it, no pair with "d" has a counted row
    assert not any("d" in row[:2] for row in spy.information[0])
    _check_against_scratch_fits(con, ev, spy, model, "y", "id", split)


# -- integer codes: the stacked lookup table ---------------------------------------------------
def _integer_table(con, n: int = 400, folds: int = 4, seed: int = 3) -> pa.Table:
    """Integer-coded attributes with NULLs (so NULL parent values), a value of ``p`` and one of
    ``r`` present in one fold only (unseen by that fold's model: a value, and a parent value,
    within the range the other folds saw), a gapped attribute ``g`` (0, 2, 5: text joins) and
    a three-class target with NULLs, and ``w``, a copy of ``p`` in folds 0 and 1 and of ``q``
    in folds 2 and 3, whose parent differs between the folds' trees; folds as
    cross_validate(folds, seed=1, key="id")."""
    rng = np.random.default_rng(seed)
    y = rng.choice([0, 1, 2], size=n, p=[0.45, 0.35, 0.2])
    target = pa.array([None if i % 37 == 4 else int(v) for i, v in enumerate(y)], pa.int64())
    con.register("int_ids", pa.table({"id": np.arange(n), "y": target}))
    split = splits.assign_folds(con, "int_ids", folds=folds, seed=1, key="id", stratify="y")
    fold = dict(con.execute(f"SELECT id, fold FROM {split.table}").fetchall())
    fold = np.array([fold[i] for i in range(n)])
    p = np.where(rng.random(n) < 0.8, y, rng.integers(0, 3, n))
    p = np.where((fold == 1) & (rng.random(n) < 0.3), 3, p)  # p = 3: fold 1 only
    q = np.where(rng.random(n) < 0.75, (p + y) % 3, rng.integers(0, 3, n))
    r = np.where(rng.random(n) < 0.7, q + 1, rng.integers(1, 4, n))
    r = np.where((fold == 2) & (rng.random(n) < 0.2), 4, r)  # r = 4: fold 2 only
    g = np.array([0, 2, 5])[np.where(rng.random(n) < 0.7, p % 3, rng.integers(0, 3, n))]
    w = np.where(fold < 2, p, q)

    def with_nulls(values, rate):
        return pa.array([None if rng.random() < rate else int(v) for v in values], pa.int64())

    return pa.table(
        {
            "id": np.arange(n),
            "p": with_nulls(p, 0.1),
            "q": with_nulls(q, 0.1),
            "r": with_nulls(r, 0.05),
            "g": with_nulls(g, 0.05),
            "w": with_nulls(w, 0.05),
            "y": target,
        }
    )


@pytest.mark.parametrize(
    "model",
    [wml.TAN(), wml.TAN(alpha=0.0, prior_alpha=0.0), wml.TAN(root="r")],
    ids=["weka-defaults", "maximum-likelihood", "root-r"],
)
def test_integer_codes_score_every_fold_in_one_query(con, monkeypatch, model):
    """The folds' trees are scored in one query through the stacked lookup table (codes per
    fold and parent), with the same probabilities as each fold's scratch model."""
    data = _integer_table(con)
    con.register("int_data", data)
    con.execute("CREATE TABLE int_t AS SELECT * FROM int_data")
    statements: list[str] = []
    spy = FoldSpy(monkeypatch, con)
    warehouse = wml.connect(con, on_sql=statements.append)
    ev = crossval.cross_validate(warehouse, "int_t", "y", model, folds=4, seed=1, key="id")
    assert spy.fits == 0
    assert sum(s.startswith("CREATE") and "_predictions" in s for s in statements) == 1
    assert spy.stacked is not None
    placed = set(spy.stacked.lookup)
    assert placed and "g" not in placed  # g has gaps: text joins
    assert {"p", "r", "w"} <= placed
    assert len({parents["w"] for parents in spy.parents}) > 1  # a parent chosen per fold
    split = _reference_split(con, ev, "int_t", "y", "id", 1)
    assigned = dict(con.execute(f"SELECT id, fold FROM {split.table}").fetchall())
    assert {assigned[i] for i in range(data.num_rows) if data["p"][i].as_py() == 3} == {1}
    assert {assigned[i] for i in range(data.num_rows) if data["r"][i].as_py() == 4} == {2}
    _check_against_scratch_fits(con, ev, spy, model, "y", "id", split)


# -- hypothesis: random small categorical tables ----------------------------------------------
@st.composite
def _small_tables(draw) -> pa.Table:
    """n rows of 2-3 attributes and a class; every attribute has a value in more rows than a
    fold of the 3-fold split holds (n/3 and one per class at most), so every fold's training
    rows have a value of it. A fit from scratch leaves out an attribute whose training rows are
    all NULL (with a warning), while the cross-validation's fold models keep the attributes
    the whole table has: hypothesis 6.170.27 drew a fold whose only value of a0 was held out,
    and a table with no value at all (a DataError before any fit, as documented)."""
    n = draw(st.integers(12, 40))
    d = draw(st.integers(2, 3))
    labels = draw(st.lists(st.sampled_from(["x", "y", "z"]), min_size=n, max_size=n))
    counts = {label: labels.count(label) for label in set(labels)}
    assume(len(counts) >= 2 and min(counts.values()) >= 2)
    columns: dict[str, Any] = {"id": list(range(n))}
    for i in range(d):
        values = draw(st.sampled_from([["p", "q", "r", "s"], [0, 1, 2, 3], [1, 2, 4]]))
        cell = st.one_of(st.none(), st.sampled_from(values))  # integer codes: the lookup
        cells = draw(st.lists(cell, min_size=n, max_size=n))
        assume(sum(c is not None for c in cells) > n // 3 + len(counts))
        # typed as written (a column drawn all-NULL is still text or integers, not Arrow null)
        columns[f"a{i}"] = pa.array(cells, pa.string() if values[0] == "p" else pa.int64())
    columns["y"] = labels
    return pa.table(columns)


@pytest.mark.slow
@settings(
    max_examples=examples(6),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=_small_tables(), alpha=st.sampled_from([0.0, 0.5, 1.0]), seed=st.integers(0, 9))
def test_subtraction_equals_scratch_fits_on_random_tables(monkeypatch, data, alpha, seed):
    con = duckdb.connect()
    try:
        with monkeypatch.context() as patch:
            spy = FoldSpy(patch, con)
            model = wml.TAN(alpha=alpha, prior_alpha=0.5)
            ev = crossval.cross_validate(con, data, "y", model, folds=3, seed=seed, key="id")
            assert spy.fits == 0
        split = _reference_split(con, ev, data, "y", "id", seed)
        _check_against_scratch_fits(con, ev, spy, model, "y", "id", split)
    finally:
        con.close()


# -- a class with no training row in a fold ---------------------------------------------------
def test_a_class_absent_from_a_training_fold_matches_the_refit_path(con, monkeypatch):
    """A class whose one row is held out has zero training rows in that fold; the from-scratch
    fit would not know the class, so the oracle is the per-fold refit (TAN.learn_tables on each
    fold's rows with every class), which keeps the class with n = 0."""
    data = wml.synthetic.tan_data(300, 4, seed=5, concentration=1.0)
    labels = data["class"].to_pylist()
    labels[17] = 9  # a class of one row
    data = data.set_column(data.schema.get_field_index("class"), "class", pa.array(labels))
    data = data.append_column("id", pa.array(range(300)))
    subtraction = FoldSpy(monkeypatch, con)
    subtracted = crossval.cross_validate(con, data, "class", wml.TAN(), folds=5, key="id", seed=1)
    assert subtraction.fits == 0
    refit = FoldSpy(monkeypatch, con, refit=True)
    refitted = crossval.cross_validate(con, data, "class", wml.TAN(), folds=5, key="id", seed=1)
    assert refit.fits == 5
    for f in range(5):
        assert subtraction.parents[f] == refit.parents[f]
        for part in COMPARED_PARTS:
            if part in refit.tables[f]:
                _assert_tables_equal(
                    subtraction.tables[f][part], refit.tables[f][part], f"fold {f} {part}"
                )
    got, expected = subtracted.to_arrow().sort_by("id"), refitted.to_arrow().sort_by("id")
    assert "p_9" in got.column_names
    assert got["prediction"].to_pylist() == expected["prediction"].to_pylist()
    for name in [c for c in got.column_names if c.startswith("p_")]:
        np.testing.assert_allclose(
            got[name].to_numpy(), expected[name].to_numpy(), rtol=0, atol=TOLERANCE
        )
    held_out = got.filter(pc.equal(got["id"], 17))["fold"][0].as_py()
    classes = subtraction.tables[held_out]["classes"].to_pylist()
    assert [c["n"] for c in classes if c["class_label"] == "9"] == [0]
    assert got.filter(pc.equal(got["id"], 17))["p_9"][0].as_py() > 0  # smoothed, not 0


# -- real data ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "target"), [("vote.csv", "Class")])
@pytest.mark.slow
def test_subtraction_equals_scratch_fits_on_real_data(con, monkeypatch, datasets, name, target):
    load_text_csv(con, "d", datasets / name)
    con.execute("CREATE TABLE dk AS SELECT row_number() OVER () AS rid, * FROM d")
    spy = FoldSpy(monkeypatch, con)
    model = wml.TAN(alpha=1.0, prior_alpha=1.0)
    ev = crossval.cross_validate(con, "dk", target, model, folds=3, seed=2, key="rid")
    assert spy.fits == 0
    split = _reference_split(con, ev, "dk", target, "rid", 2)
    _check_against_scratch_fits(con, ev, spy, model, target, "rid", split)


# -- numeric attributes: per-fold refit ---------------------------------------------------------
def test_numeric_attributes_are_refitted_per_fold(con, monkeypatch):
    """Bin edges are learned from each fold's training rows, so a model with a numeric attribute
    is fitted per fold; its predictions still equal the from-scratch fits."""
    rng = np.random.default_rng(2)
    n = 240
    y = rng.choice(["lo", "hi"], size=n)
    x = np.where(y == "hi", 1.0, 0.0) + rng.normal(size=n)
    data = pa.table(
        {
            "id": np.arange(n),
            "x": pa.array(np.where(rng.random(n) < 0.1, np.nan, x), from_pandas=True),
            "g": [f"g{(v == 'hi') + rng.integers(0, 2)}" for v in y],
            "h": [None if rng.random() < 0.1 else f"h{rng.integers(0, 3)}" for _ in y],
            "y": y,
        }
    )
    con.register("data", data)
    con.execute("CREATE TABLE data_t AS SELECT * FROM data")
    spy = FoldSpy(monkeypatch, con)
    model = wml.TAN(bins=4)
    ev = crossval.cross_validate(con, "data_t", "y", model, folds=3, seed=4, key="id")
    assert spy.fits == 3
    assert all(set(bins) == {"x"} for bins in spy.bins)
    split = _reference_split(con, ev, "data_t", "y", "id", 4)
    _check_against_scratch_fits(con, ev, spy, model, "y", "id", split)
