"""A class's probability column keeps its name and meaning: names are fixed when a class first
appears and stored with the model (catalog format 4); updates that add colliding classes give
them new names in columns after the old ones, so every old column of a view still holds the
probability of the same class (checked against scikit-learn's CategoricalNB, keyed by label).
A re-fit that would remove a class a view shows is refused before anything changes."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from sklearn.naive_bayes import CategoricalNB

import warehouse_ml as wml
from warehouse_ml.errors import ViewRebuildError

COLOURS = ("red", "green", "blue")
SHAPES = ("round", "square")


def rows(labels: tuple[str, ...], n: int, seed: int) -> pa.Table:
    """Every colour and shape with every label (so each batch knows every value), then ``n``
    random rows whose colour depends on the label."""
    rng = np.random.default_rng(seed)
    label = list(rng.choice(labels, n))
    colour = [COLOURS[(labels.index(x) + int(rng.integers(0, 2))) % 3] for x in label]
    shape = list(rng.choice(SHAPES, n))
    for x in labels:
        for c in COLOURS:
            for s in SHAPES:
                label.append(x)
                colour.append(c)
                shape.append(s)
    return pa.table({"colour": colour, "shape": shape, "label": label})


def reference(train: pa.Table, scored: pa.Table) -> dict[str, np.ndarray]:
    """CategoricalNB(alpha=1) on ``train``: each class's probability on ``scored``, by label."""
    codes = {a: {v: i for i, v in enumerate(sorted(set(train[a].to_pylist())))} for a in
             ("colour", "shape")}  # fmt: skip

    def encode(table: pa.Table) -> np.ndarray:
        return np.column_stack([[codes[a][v] for v in table[a].to_pylist()] for a in codes])

    oracle = CategoricalNB(alpha=1.0).fit(encode(train), train["label"].to_pylist())
    proba = oracle.predict_proba(encode(scored))
    return {label: proba[:, i] for i, label in enumerate(oracle.classes_)}


SCORED = pa.table(
    {
        "id": list(range(6)),
        "colour": ["red", "green", "blue", "red", "green", "blue"],
        "shape": ["round", "round", "square", "square", "round", "square"],
    }
)


def test_every_old_column_of_a_view_keeps_its_class_across_colliding_updates(con):
    con.execute("CREATE TABLE scored AS SELECT * FROM SCORED")
    batches = [rows(("A", "a"), 40, 1), rows(("A", "a", "a_1"), 40, 2),
               rows(("A", "A_0", "a", "a_1"), 40, 3), rows(("A_0", "P_a", "a_1"), 40, 4)]  # fmt: skip
    model = wml.NaiveBayes().fit(con, batches[0], "label", name="m")
    model.create_view(con, "v", "scored", keys=["id"])
    meaning: dict[str, str] = {}  # column -> the class it showed when it first appeared
    layout: list[str] = []  # the view's columns
    for step, batch in enumerate(batches):
        if step:
            model.update(con, batch, batch_id=f"b{step}")
        view = con.sql("SELECT * FROM v ORDER BY id").to_arrow_table()
        assert view.column_names[: len(layout)] == layout, "old columns first, in their place"
        layout = view.column_names
        shown = [c for c in layout if c not in ("id", "prediction")]
        stored = model.probability_columns(con)
        assert list(stored.values()) == shown
        for label, name in stored.items():
            meaning.setdefault(name, label)
            assert meaning[name] == label, f"{name} meant {meaning[name]!r}, now {label!r}"
        want = reference(pa.concat_tables(batches[: step + 1]), SCORED)
        proba = model.predict_proba(con, SCORED)
        assert proba.column_names == shown
        for name in shown:
            np.testing.assert_allclose(view[name].to_numpy(), want[meaning[name]], atol=1e-12)
            np.testing.assert_allclose(proba[name].to_numpy(), want[meaning[name]], atol=1e-12)
    assert layout == ["id", "p_A", "p_a_1", "prediction", "p_a_1_2", "p_A_0", "p_P_a"]
    assert model.classes_ == ["A", "A_0", "P_a", "a", "a_1"]  # classes_ stay sorted
    # a re-fit on all rows keeps every name (a fresh fit's rule would give other names)
    refit = wml.NaiveBayes().fit(con, pa.concat_tables(batches), "label", name="m")
    assert list(refit.probability_columns(con).items()) == list(stored.items())


def test_a_refit_without_a_class_a_view_shows_is_refused_before_anything_changes(con):
    con.execute("CREATE TABLE scored AS SELECT * FROM SCORED")
    model = wml.NaiveBayes().fit(con, rows(("A", "a", "b"), 40, 1), "label", name="m")
    model.create_view(con, "v", "scored", keys=["id"])
    before = con.sql("SELECT * FROM v ORDER BY id").fetchall()
    catalog = con.sql("SELECT * FROM wml.models").fetchall()
    with pytest.raises(ViewRebuildError, match=r"view main\.v .*classes \['b'\]"):
        wml.NaiveBayes().fit(con, rows(("A", "a"), 40, 2), "label", name="m")
    assert con.sql("SELECT * FROM wml.models").fetchall() == catalog
    assert con.sql("SELECT * FROM v ORDER BY id").fetchall() == before
    wml.drop_view(con, "v")  # the way out
    assert wml.NaiveBayes().fit(con, rows(("A", "a"), 40, 2), "label", name="m").classes_ == [
        "A", "a"
    ]  # fmt: skip


def test_a_model_stored_before_format_4_keeps_the_names_of_its_time(con):
    model = wml.NaiveBayes().fit(con, rows(("A", "a"), 40, 1), "label", name="m")
    con.execute(
        "UPDATE wml.models SET format_version = 3, "
        "details = json_remove(details, '$.probability_columns')"
    )
    old = wml.load(con, "m")
    assert old.predict_proba(con, SCORED).column_names == ["p_A", "p_a_1"]
    old.update(con, rows(("A", "a", "a_1"), 40, 2), batch_id="b1")
    assert old.probability_columns(con) == {"A": "p_A", "a": "p_a_1", "a_1": "p_a_1_2"}
    assert wml.load(con, "m").record.format_version == 4
    del model
