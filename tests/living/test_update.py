"""Incremental updates: fit(A), update(B), update(C) equals fit(A + B + C) (counts bit for bit,
parameters and probabilities to 1e-9), with the first fit's treatment and TAN bins pinned;
repeated batches, cancelled updates, new classes and values, views rebuilt."""

from __future__ import annotations

import datetime

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from conftest import load_text_csv

import warehouse_ml as wml
from warehouse_ml.errors import (
    BatchAppliedError,
    ColumnError,
    ConcurrentFitError,
    DataError,
    ParameterError,
    StaleModelError,
)
from warehouse_ml.progress import Progress

COUNTED_PARTS = (
    "classes",
    "categorical",
    "unseen",
    "pair_counts",
    "information",
    "cpt_parent",
    "cpt",
)


def batch(n: int, seed: int, classes=("a", "b", "c"), colours=("red", "green", "blue")) -> pa.Table:
    rng = np.random.default_rng(seed)
    label = rng.choice(classes, n)
    colour = rng.choice(colours, n).astype(object)
    colour[rng.random(n) < 0.05] = None
    shape = rng.choice(["round", "square"], n)
    size = rng.normal(0.0, 1.0, n) + (label == classes[0]) * 1.5 + seed * 0.1
    return pa.table({"label": label, "colour": colour, "shape": shape, "size": size})


def assert_same_parameters(updated: dict, fitted: dict, parts, where: str = "") -> None:
    for part in parts:
        if part not in fitted:
            continue
        a, b = updated[part], fitted[part]
        assert a.column_names == b.column_names and a.num_rows == b.num_rows, f"{where}{part}"
        for name in a.column_names:
            x, y = a[name].to_pylist(), b[name].to_pylist()
            if pa.types.is_floating(a.schema.field(name).type):
                assert np.allclose(
                    np.array(x, dtype=float),
                    np.array(y, dtype=float),
                    rtol=1e-9,
                    atol=1e-12,
                    equal_nan=True,
                ), f"{where}{part}.{name}"
            else:
                assert x == y, f"{where}{part}.{name}"  # counts: bit for bit


def assert_same_probabilities(con, updated, fitted, rows, fitted_rows=None) -> None:
    """Each class's probabilities, by column name (an update puts a new class's column after
    the old ones, where a fit on all rows has it in class order)."""
    got = updated.predict_proba(con, rows)
    want = fitted.predict_proba(con, rows if fitted_rows is None else fitted_rows)
    assert sorted(got.column_names) == sorted(want.column_names)
    for name in want.column_names:
        assert np.allclose(got[name].to_numpy(), want[name].to_numpy(), rtol=1e-9, atol=1e-12)


def test_naive_bayes_updates_equal_a_fit_on_the_union(con):
    a, b, c = batch(400, 1), batch(250, 2), batch(150, 3)
    model = wml.NaiveBayes().fit(con, a, "label", name="nb")
    model.update(con, b, batch_id="2026-11-01").update(con, c, batch_id="2026-11-02")
    union = pa.concat_tables([a, b, c])
    fitted = wml.NaiveBayes().fit(con, union, "label", name="oracle")
    updated_parameters = model.parameters(con)
    fitted_parameters = fitted.parameters(con)
    assert_same_parameters(updated_parameters, fitted_parameters, [*COUNTED_PARTS, "gaussian"])
    assert model.n_rows_ == 800 and model.classes_ == ["a", "b", "c"]
    assert_same_probabilities(con, model, fitted, union)
    assert [b["batch_id"] for b in model.batches_] == ["2026-11-01", "2026-11-02"]
    assert [b["n_rows"] for b in model.batches_] == [250, 150]
    assert wml.load(con, "nb").batches_ == model.batches_


def binned(table: pa.Table, edges: list[float]) -> pa.Table:
    """``size`` replaced by its bin index on ``edges`` (x <= edge; the last bin open above)."""
    values = np.asarray(table["size"])
    index = np.searchsorted(np.array(edges[:-1]), values, side="left")
    return table.set_column(
        table.schema.get_field_index("size"), "size", pa.array(index, pa.int64())
    )


def test_tan_updates_equal_a_fit_on_the_union_with_the_first_bins(con):
    a, b, c = batch(400, 4), batch(300, 5), batch(300, 6)
    model = wml.TAN(bins=4).fit(con, a, "label", name="tan")
    edges = model.record.state.learned.bins["size"]
    model.update(con, b, batch_id="b").update(con, c, batch_id="c")
    assert model.record.state.learned.bins["size"] == edges
    union = pa.concat_tables([a, b, c])
    oracle = wml.TAN(bins=4).fit(con, binned(union, edges), "label", categorical=["size"], name="o")
    assert model.parents_ == oracle.parents_
    assert_same_parameters(model.parameters(con), oracle.parameters(con), COUNTED_PARTS)
    assert_same_probabilities(con, model, oracle, union, binned(union, edges))
    above = [int(pc.sum(pc.greater(t["size"], edges[-1])).as_py() or 0) for t in (b, c)]
    assert [x["above_bins"] for x in model.batches_] == [{"size": n} for n in above]
    assert sum(above) > 0  # the batches were drawn with larger sizes


def test_the_tree_is_chosen_again_from_the_updated_counts(con):
    rng = np.random.default_rng(9)
    n = 600
    y = rng.choice(["p", "q"], n)
    x = rng.choice(["0", "1"], n)
    first = pa.table({"y": y, "x": x, "w": x, "z": rng.choice(["0", "1"], n)})  # w copies x
    second = pa.table({"y": y, "x": x, "w": rng.choice(["0", "1"], n), "z": x})  # now z does
    model = wml.TAN().fit(con, first, "y", name="t")
    assert model.parents_["w"] == "x"
    model.update(con, pa.concat_tables([second] * 3), batch_id="shift")
    oracle = wml.TAN().fit(con, pa.concat_tables([first, second, second, second]), "y", name="o")
    assert model.parents_ == oracle.parents_ and model.parents_["z"] == "x"


def test_new_classes_and_values_in_a_batch(con):
    """Classes and values first seen in a batch (TAN without its numeric column, whose bins a
    fit on the union would learn anew)."""
    a = batch(300, 7, classes=("a", "b"), colours=("red", "green"))
    b = batch(200, 8, classes=("b", "c", "0"), colours=("green", "blue"))
    for model, parts in (
        (wml.NaiveBayes(), [*COUNTED_PARTS, "gaussian"]),
        (wml.TAN(), COUNTED_PARTS),
    ):
        first, second = (
            (a, b)
            if parts != COUNTED_PARTS
            else (a.drop_columns(["size"]), b.drop_columns(["size"]))
        )
        model.fit(con, first, "label", name=f"m_{model.kind}").update(con, second, batch_id="new")
        union = pa.concat_tables([first, second])
        oracle = type(model)().fit(con, union, "label", name=f"o_{model.kind}")
        assert model.classes_ == oracle.classes_ == ["0", "a", "b", "c"]
        assert_same_parameters(model.parameters(con), oracle.parameters(con), parts, model.kind)
        assert_same_probabilities(con, model, oracle, pa.concat_tables([first, second]))


def test_a_repeated_batch_is_refused_and_changes_nothing(con):
    model = wml.NaiveBayes().fit(con, batch(200, 1), "label", name="m")
    model.update(con, batch(100, 2), batch_id="day-1")
    version = model.record.model_id
    with pytest.raises(BatchAppliedError, match="'day-1' has already been applied"):
        wml.load(con, "m").update(con, batch(100, 2), batch_id="day-1")
    assert wml.load(con, "m").record.model_id == version
    with pytest.raises(ParameterError, match="batch_id must be a non-empty string"):
        model.update(con, batch(10, 3), batch_id=" ")


def test_a_cancelled_update_leaves_the_model_and_nothing_behind(con):
    model = wml.TAN().fit(con, batch(300, 1), "label", name="m")
    before = wml.list_objects(con).to_pylist()
    probabilities = model.predict_proba(con, batch(50, 9))
    seen: list[Progress] = []

    def cancel(progress: Progress) -> None:
        seen.append(progress)
        if len(seen) == 6:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        wml.load(con, "m").update(con, batch(200, 2), batch_id="x", progress=cancel)
    assert seen[0].operation == "update"
    assert wml.list_objects(con).to_pylist() == before
    current = wml.load(con, "m")
    assert current.record.model_id == model.record.model_id and current.batches_ == []
    assert current.predict_proba(con, batch(50, 9)).equals(probabilities)
    current.update(con, batch(200, 2), batch_id="x")  # the batch was never applied
    assert [b["batch_id"] for b in current.batches_] == ["x"]


def test_views_are_rebuilt_and_a_stale_object_is_refused(con):
    con.register("fresh_arrow", batch(60, 11))
    con.execute("CREATE TABLE fresh AS SELECT * FROM fresh_arrow")
    model = wml.NaiveBayes().fit(con, batch(300, 1), "label", name="m")
    model.create_view(con, "m_scores", "fresh", keys=["label"])
    model.create_drift_view(con, "m_drift", "fresh")
    stale = wml.load(con, "m")
    model.update(con, batch(300, 2), batch_id="b")
    viewed = con.execute("SELECT p_a FROM m_scores").fetchall()
    assert [r[0] for r in viewed] == model.predict_proba(con, "fresh")["p_a"].to_pylist()
    drift = con.execute("SELECT n_expected FROM m_drift WHERE kind = 'class'").fetchone()[0]
    assert drift == 600
    with pytest.raises(StaleModelError):
        stale.update(con, batch(10, 3), batch_id="c")


def test_a_batch_without_the_model_columns_is_refused(con):
    model = wml.NaiveBayes().fit(con, batch(200, 1), "label", name="m")
    with pytest.raises(ColumnError, match="'size'"):
        model.update(con, batch(50, 2).drop_columns(["size"]), batch_id="b")
    with pytest.raises(ColumnError, match="label"):
        model.update(con, batch(50, 2).drop_columns(["label"]), batch_id="b")
    assert model.batches_ == []


def test_an_unlabelled_or_empty_batch_changes_only_the_null_count(con):
    model = wml.NaiveBayes().fit(con, batch(200, 1), "label", name="m")
    parameters = model.parameters(con)
    unlabelled = batch(20, 2).set_column(0, "label", pa.nulls(20, pa.string()))
    model.update(con, unlabelled, batch_id="nulls")
    assert model.n_null_target_ == 20 and model.n_rows_ == 200
    assert_same_parameters(model.parameters(con), parameters, [*COUNTED_PARTS, "gaussian"])


@pytest.mark.parametrize("kind", [wml.NaiveBayes, wml.TAN])
@pytest.mark.slow
def test_car_and_vote_in_thirds(con, datasets, kind):
    for name, target in (("car", "class"), ("vote", "Class")):
        load_text_csv(con, name, datasets / f"{name}.csv")
        rows = con.table(name).to_arrow_table()
        third = rows.num_rows // 3
        parts = [rows.slice(0, third), rows.slice(third, third), rows.slice(2 * third)]
        model = kind().fit(con, parts[0], target, name=f"m_{name}")
        model.update(con, parts[1], batch_id="2").update(con, parts[2], batch_id="3")
        oracle = kind().fit(con, rows, target, name=f"o_{name}")
        assert_same_parameters(model.parameters(con), oracle.parameters(con), COUNTED_PARTS, name)
        assert_same_probabilities(con, model, oracle, rows)


def typed(n: int, seed: int) -> pa.Table:
    """Rows with an integer 0/1 target, int64 codes, a date and a number."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    return pa.table(
        {
            "label": pa.array(label, pa.int64()),
            "code": pa.array(rng.integers(0, 4, n) + label, pa.int64()),
            "day": pa.array(
                [datetime.date(2024, 1, 1 + int(d)) for d in rng.integers(0, 3, n)], pa.date32()
            ),
            "size": rng.normal(0.0, 1.0, n) + label,
        }
    )


def with_type(table: pa.Table, name: str, values) -> pa.Table:
    return table.set_column(table.schema.get_field_index(name), name, values)


@pytest.mark.parametrize("kind", [wml.NaiveBayes, wml.TAN])
@pytest.mark.parametrize(
    "change, column, found, fitted",
    [
        (lambda t: with_type(t, "label", pc.cast(t["label"], pa.bool_())), "label", "bool", "int64"),
        (lambda t: with_type(t, "code", pc.cast(t["code"], pa.uint64())), "code", "uint64", "int64"),
        (lambda t: with_type(t, "code", pc.cast(t["code"], pa.float64())), "code", "double", "int64"),
        (
            lambda t: with_type(t, "day", pc.cast(t["day"], pa.timestamp("us"))),
            "day", "timestamp", r"date32\[day\]",
        ),
    ],
)  # fmt: skip
def test_a_batch_of_other_types_is_refused_before_anything_is_counted(
    con, kind, change, column, found, fitted
):
    model = kind().fit(con, typed(200, 1), "label", name="m", categorical=["code"])
    parameters = model.parameters(con)
    with pytest.raises(ColumnError, match=rf"column '{column}' .* type {found}.* type {fitted}"):
        model.update(con, change(typed(50, 2)), batch_id="day-2")
    model = wml.load(con, "m")
    assert model.batches_ == [] and model.n_rows_ == 200
    assert_same_parameters(model.parameters(con), parameters, [*COUNTED_PARTS, "gaussian"])
    model.update(con, typed(50, 2), batch_id="day-2")  # the id was not used up
    assert [b["batch_id"] for b in model.batches_] == ["day-2"]


def test_timestamp_labels_for_a_date_target_are_refused(con):
    dated = pa.table({"day": pa.array([datetime.date(2024, 1, d) for d in (1, 2) * 20]),
                      "x": ["p", "q", "q", "p"] * 10})  # fmt: skip
    model = wml.NaiveBayes().fit(con, dated, "day", name="m")
    stamped = dated.set_column(0, "day", pc.cast(dated["day"], pa.timestamp("us")))
    with pytest.raises(ColumnError, match=r"target column 'day' .* timestamp\[us\].* date32"):
        model.update(con, stamped, batch_id="b")
    assert wml.load(con, "m").classes_ == model.classes_ and model.batches_ == []


@pytest.mark.parametrize("kind", [wml.NaiveBayes, wml.TAN])
def test_batches_of_types_holding_the_same_values_equal_a_fit_on_the_union(con, kind):
    first, second = typed(300, 1), typed(120, 2)
    narrower = with_type(second, "code", pc.cast(second["code"], pa.int32()))
    narrower = with_type(narrower, "size", pc.cast(narrower["size"], pa.float32()))
    model = kind().fit(con, first, "label", name="m", categorical=["code"])
    model.update(con, narrower, batch_id="narrow")
    widened = with_type(narrower, "code", pc.cast(narrower["code"], pa.int64()))
    widened = with_type(widened, "size", pc.cast(widened["size"], pa.float64()))
    union = pa.concat_tables([first, widened])
    if kind is wml.NaiveBayes:
        oracle = kind().fit(con, union, "label", name="o", categorical=["code"])
        parts, oracle_rows = [*COUNTED_PARTS, "gaussian"], union
    else:  # on the bins of the first fit
        oracle_rows = binned(union, model.record.state.learned.bins["size"])
        oracle = kind().fit(con, oracle_rows, "label", name="o", categorical=["code", "size"])
        parts = COUNTED_PARTS
    assert_same_parameters(model.parameters(con), oracle.parameters(con), parts)
    assert_same_probabilities(con, model, oracle, union, oracle_rows)


@pytest.mark.parametrize("kind", [wml.NaiveBayes, wml.TAN])
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_batch_values_are_refused_as_a_fit_refuses_them(con, kind, bad):
    model = kind().fit(con, typed(200, 1), "label", name="m")
    rows = typed(20, 2)
    rows = with_type(rows, "size", pa.array([bad, *rows["size"].to_pylist()[1:]]))
    with pytest.raises(DataError, match=r"numeric column 'size' of .*non-finite"):
        kind().fit(con, pa.concat_tables([typed(200, 1), rows]), "label", name="o")
    with pytest.raises(DataError, match=r"numeric column 'size' of .*non-finite"):
        model.update(con, rows, batch_id="b")
    assert wml.load(con, "m").batches_ == []
    unlabelled = with_type(rows, "label", pa.nulls(20, pa.int64()))
    model.update(con, unlabelled, batch_id="b")  # values of unlabelled rows are not counted
    assert model.n_null_target_ == 20


@pytest.mark.parametrize(("kind", "stride"), [(wml.NaiveBayes, 2), (wml.TAN, 5)])
def test_an_update_overtaken_by_another_at_any_statement_is_a_concurrent_fit_error(
    con, kind, stride
):
    """Another connection applies an update of the same model just before statement k of
    this update, for every other k (TAN: every fifth, its statements being NB's and more).
    Before this update has read the catalog, the object is stale (StaleModelError); after, this update fails with ConcurrentFitError, whether it then
    reads the dropped tables of the version it started from or reaches the catalog swap. Inside
    this update's publishing transaction the other one is the one refused (and its error
    cancels this update). The model holds the other batch exactly when the other published."""
    kind().fit(con, batch(200, 1), "label", name="m")
    phases: list[str] = []
    wml.load(con, "m").update(
        con, batch(50, 2), batch_id="probe", progress=lambda p: phases.append(p.phase)
    )
    first_catalog_read = phases.index("select_model_rows") + 1
    for k in range(1, len(phases) + 1, stride):
        kind().fit(con, batch(200, 1), "label", name="m")
        racing = wml.load(con, "m")
        other = con.cursor()
        published: list[str] = []

        def overtake(progress: Progress, k=k, other=other, published=published) -> None:
            if progress.statement == k:
                wml.load(other, "m").update(other, batch(40, 3), batch_id="other")
                published.append("other")

        refused = StaleModelError if k <= first_catalog_read else ConcurrentFitError
        with pytest.raises(refused):
            racing.update(con, batch(50, 2), batch_id="mine", progress=overtake)
        assert [b["batch_id"] for b in wml.load(con, "m").batches_] == published, k
