"""Cross-validation by count subtraction equals fitting each fold from scratch."""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pytest
from conftest import load_text_csv

import warehouse_ml as wml
from warehouse_ml.evaluation import crossval, splits
from warehouse_ml.evaluation import selection as model_selection


def _mixed_table(n: int = 600, seed: int = 4) -> pa.Table:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.1, None, (y + rng.integers(0, 3, n)) % 4).tolist()
    b = [None if rng.random() < 0.05 else f"v{(v * 2 + rng.integers(0, 2)) % 5}" for v in y]
    x = np.where(rng.random(n) < 0.08, np.nan, y * 1.5 + rng.normal(size=n))
    rare = ((y + rng.integers(0, 2, n)) % 3).astype(np.int32)
    rare[17] = 3  # seen by every fold's model but the one whose held-out rows hold it
    return pa.table(
        {
            "id": np.arange(n) * 7 + 3,
            "a": pa.array(a, pa.int64()),
            "r": rare,
            "b": b,
            "x": pa.array(x, from_pandas=True),
            "y": pa.array([None if i % 97 == 0 else f"c{v}" for i, v in enumerate(y)]),
        }
    )


@pytest.mark.parametrize(
    "model", [wml.NaiveBayes(alpha=1.0), wml.NaiveBayes(alpha=0.5, prior_alpha=1.0, m=2.0)]
)
def test_subtraction_equals_fitting_each_fold_from_scratch(con, model):
    con.register("data", _mixed_table())
    con.execute("CREATE TABLE data_t AS SELECT * FROM data")
    statements: list[str] = []
    warehouse = wml.connect(con, on_sql=statements.append)
    ev = crossval.cross_validate(warehouse, "data_t", "y", model, folds=5, seed=3, key="id")
    # the integer codes a and r are scored through the folds' stacked lookup table
    assert any(s.startswith("CREATE") and "_all_lookup" in s for s in statements)
    pooled = ev.to_arrow()
    assert pooled.column_names == ["id", "fold", "y", "p_c0", "p_c1", "p_c2", "prediction"]
    assert pooled.num_rows == 600 - len(range(0, 600, 97))  # NULL targets left out

    # the same assignment, made again with the source's columns (the CV drops its own)
    folds = splits.assign_folds(
        con, "data_t", folds=5, seed=3, key="id", stratify="y", keep_columns=True
    ).table
    assigned = dict(con.execute(f"SELECT id, fold FROM {folds}").fetchall())
    assert all(
        assigned[i] == f
        for i, f in zip(pooled["id"].to_pylist(), pooled["fold"].to_pylist(), strict=True)
    )
    for f in range(5):
        con.execute(
            f"CREATE OR REPLACE VIEW train_f AS SELECT * EXCLUDE (fold) FROM {folds} WHERE fold <> {f}"
        )
        con.execute(
            f"CREATE OR REPLACE VIEW test_f AS SELECT * FROM {folds} WHERE fold = {f} AND y IS NOT NULL ORDER BY id"
        )
        scratch = type(model)(**model.get_params()).fit(
            con, "train_f", "y", keys=["id"], name=f"scratch{f}"
        )
        expected = scratch.predict_proba(con, "test_f")
        got = pooled.filter(pa.compute.equal(pooled["fold"], f))
        for label in ["c0", "c1", "c2"]:
            np.testing.assert_allclose(
                got[f"p_{label}"].to_numpy(), expected[f"p_{label}"].to_numpy(), rtol=0, atol=1e-9
            )


def test_tan_cross_validation_and_folds_are_deterministic(con):
    data = wml.synthetic.tan_data(3000, 6, seed=8, concentration=2.0).append_column(
        "id", pa.array(range(3000))
    )
    first = crossval.cross_validate(con, data, "class", wml.TAN(), folds=4, key="id", seed=5)
    second = crossval.cross_validate(con, data, "class", wml.TAN(), folds=4, key="id", seed=5)
    assert first.to_arrow().equals(second.to_arrow())
    nb = crossval.cross_validate(con, data, "class", wml.NaiveBayes(), folds=4, key="id", seed=5)
    assert first.accuracy().accuracy > nb.accuracy().accuracy
    counts = first.to_arrow().group_by("fold").aggregate([("id", "count")])
    assert sorted(counts["id_count"].to_pylist()) == [750, 750, 750, 750]


def test_evaluate_on_a_holdout_table(con, tennis):
    split = splits.holdout_split(
        con, "tennis", test_fraction=1 / 3, seed=1, key="day", keep_columns=True
    )
    con.execute(
        f"CREATE VIEW train AS SELECT * EXCLUDE (is_test, repeat) FROM {split.table} WHERE NOT is_test"
    )
    con.execute(
        f"CREATE VIEW test AS SELECT * EXCLUDE (is_test, repeat) FROM {split.table} WHERE is_test"
    )
    model = wml.NaiveBayes().fit(con, "train", "play", keys=["day"])
    ev = crossval.evaluate(con, model, "test", keys=["day"])
    table = ev.to_arrow()
    assert table.num_rows == 5
    expected = model.predict(con, "test", keys=["day"]).sort_by("day")
    assert table.sort_by("day")["prediction"].to_pylist() == expected["prediction"].to_pylist()
    assert 0 <= ev.accuracy().accuracy <= 1
    assert ev.confusion_matrix()["n"].to_pylist() and ev.log_score().mean > 0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "target", "published"),
    [("vote.csv", "Class", 0.901), ("kr-vs-kp.csv", "class", 0.879)],
)
def test_naive_bayes_cross_validated_accuracy_matches_the_literature(
    con, datasets, name, target, published
):
    load_text_csv(con, "d", datasets / name)
    con.execute("CREATE TABLE dk AS SELECT row_number() OVER () AS rid, * FROM d")
    ev = crossval.cross_validate(
        con, "dk", target, wml.NaiveBayes(alpha=1, prior_alpha=1), folds=10, key="rid"
    )
    assert abs(ev.accuracy().accuracy - published) <= 0.02


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "target"), [("car.csv", "class"), ("kr-vs-kp.csv", "class"), ("vote.csv", "Class")]
)
def test_tan_beats_naive_bayes_cross_validated(con, datasets, name, target):
    load_text_csv(con, "d", datasets / name)
    con.execute("CREATE TABLE dk AS SELECT row_number() OVER () AS rid, * FROM d")
    nb = crossval.cross_validate(
        con, "dk", target, wml.NaiveBayes(alpha=1, prior_alpha=1), folds=5, key="rid"
    )
    tan = crossval.cross_validate(
        con, "dk", target, wml.TAN(alpha=1, prior_alpha=1), folds=5, key="rid"
    )
    assert tan.accuracy().accuracy > nb.accuracy().accuracy


def test_select_model_picks_the_best_cross_validated_setting_and_refits(con):
    data = wml.synthetic.tan_data(2000, 5, seed=12, concentration=1.0).append_column(
        "id", pa.array(range(2000))
    )
    candidates = [
        wml.NaiveBayes(alpha=1.0),
        wml.TAN(alpha=1.0),
        model_selection.Candidate(wml.NaiveBayes(), features=["a0"]),
    ]
    warehouse = wml.connect(con)
    selection = model_selection.select_model(
        warehouse, data, "class", candidates, measure="log_score", folds=4, key="id", name="chosen"
    )
    fold_tables = [
        s for s in warehouse.log if re.match(r"CREATE TEMPORARY TABLE \S*_folds_\w*\" AS", s)
    ]
    assert len(fold_tables) == 1  # one fold assignment serves every candidate
    left = con.sql(
        "SELECT table_name FROM duckdb_tables() WHERE temporary OR (schema_name = 'wml' "
        "AND table_name NOT SIMILAR TO '(models|objects|m[0-9a-f]{16}_.*|sel[0-9a-f]{12}_comparison)')"
    ).fetchall()
    assert left == []  # neither the shared fold table nor any candidate's tables stay
    values = selection.comparison["value"].to_pylist()
    assert selection.comparison["chosen"].to_pylist() == [v == min(values) for v in values]
    scores = {
        i: crossval.cross_validate(
            con,
            data,
            "class",
            c.model if isinstance(c, model_selection.Candidate) else c,
            folds=4,
            key="id",
            features=c.features if isinstance(c, model_selection.Candidate) else None,
        )
        .log_score()
        .mean
        for i, c in enumerate(candidates)
    }
    assert values == pytest.approx([scores[i] for i in range(3)], abs=1e-12)
    loaded = wml.load(con, "chosen")
    assert loaded.kind == selection.model.kind
    assert list(loaded.record.state.selection) == list(selection.table.parts)
    assert con.sql(f"SELECT count(*) FROM {selection.table}").fetchall() == [(3,)]


def test_classes_differing_only_by_case_get_distinct_probability_columns(con):
    """DuckDB compares column names without case: classes 'NULL' and 'null' must not both be
    named p_null, or the engine renames one behind the measures' back."""
    from warehouse_ml.models.scoring.names import probability_columns

    assert probability_columns(["NULL", "null", "Null"]) == ["p_NULL", "p_null_1", "p_Null_2"]
    assert probability_columns(["a", "A_1", "A"]) == ["p_a", "p_A_1", "p_A_2"]
    data = pa.table({"f": ["x", "y", "x", "y"] * 6, "cls": ["null", "NULL", "null", "null"] * 6})
    ev = crossval.cross_validate(con, data, "cls", wml.NaiveBayes(), folds=3, seed=1)
    columns = con.sql(f"SELECT * FROM {ev.predictions}").columns
    assert columns[-3:] == ["p_NULL", "p_null_1", "prediction"]
    truth = data["cls"].to_pylist()
    assert ev.accuracy().n == len(truth)
    probabilities = con.sql(f'SELECT "p_NULL" + "p_null_1" FROM {ev.predictions}').fetchall()
    assert all(abs(p - 1.0) < 1e-12 for (p,) in probabilities)


def _sorted_predictions(con, ev) -> pa.Table:
    return con.sql(f"SELECT * FROM {ev.predictions} ORDER BY id").to_arrow_table()


@pytest.mark.parametrize("model", [wml.NaiveBayes, wml.TAN])
def test_a_fold_assignment_is_reused_as_it_is(con, model):
    data = wml.synthetic.tan_data(1500, 5, seed=4).append_column("id", pa.array(range(1500)))
    con.register("reuse_data", data)
    con.execute("CREATE TABLE reuse AS SELECT * FROM reuse_data")
    split = splits.assign_folds(
        con, "reuse", folds=4, seed=3, key="id", stratify="class", keep_columns=True
    )
    warehouse = wml.connect(con)
    reused = crossval.cross_validate(warehouse, "reuse", "class", model(), folds=split)
    assert not any(s.startswith("CREATE") and "_folds" in s.split(" AS ")[0] for s in warehouse.log)
    fresh = crossval.cross_validate(con, "reuse", "class", model(), folds=4, seed=3, key="id")
    got, want = _sorted_predictions(con, reused), _sorted_predictions(con, fresh)
    assert got.column_names == want.column_names
    probabilities = [c for c in got.column_names if c.startswith("p_")]
    assert len(probabilities) >= 2
    assert got.drop_columns(probabilities) == want.drop_columns(probabilities)
    for name in probabilities:
        np.testing.assert_allclose(got[name].to_numpy(), want[name].to_numpy(), rtol=0, atol=1e-12)
    assert reused.split == split.table and reused.folds == 4
    assert con.sql(f"SELECT count(*) FROM {split.table}").fetchall() == [(1500,)]  # still there


def test_a_reused_fold_assignment_stays_when_the_run_is_cancelled(con):
    data = wml.synthetic.tan_data(300, 3, seed=5).append_column("id", pa.array(range(300)))
    split = splits.assign_folds(con, data, folds=3, key="id", keep_columns=True)

    def cancel(progress):
        if progress.statement >= 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        crossval.cross_validate(con, data, "class", wml.NaiveBayes(), folds=split, progress=cancel)
    assert con.sql(f"SELECT count(*) FROM {split.table}").fetchall() == [(300,)]


def test_a_fold_assignment_that_cannot_be_reused_is_refused(con):
    data = wml.synthetic.tan_data(200, 3, seed=6).append_column("id", pa.array(range(200)))
    narrow = splits.assign_folds(con, data, folds=3, key="id")  # key and fold only
    with pytest.raises(wml.errors.ColumnError, match=r"no columns \['class', 'a0'"):
        crossval.cross_validate(con, data, "class", wml.NaiveBayes(), folds=narrow)
    holdout = splits.holdout_split(con, data, test_fraction=0.3, key="id", keep_columns=True)
    with pytest.raises(wml.errors.ParameterError, match="holdout split"):
        crossval.cross_validate(con, data, "class", wml.NaiveBayes(), folds=holdout)
    kept = splits.assign_folds(con, data, folds=3, key="id", keep_columns=True)
    with pytest.raises(wml.errors.ParameterError, match="differs from the key 'id'"):
        crossval.cross_validate(con, data, "class", wml.NaiveBayes(), folds=kept, key="a0")


def test_candidates_describe_their_settings_and_column_declarations():
    plain = wml.Candidate(wml.TAN(alpha=1.0))
    assert plain.describe() == "TAN(alpha=1.0, prior_alpha=0.5, bins=5) features=all"
    declared = wml.Candidate(wml.NaiveBayes(numeric=["age"]), features=["age", "job"])
    assert "numeric=['age']" in declared.describe()
    assert declared.describe().endswith("features=age,job")
