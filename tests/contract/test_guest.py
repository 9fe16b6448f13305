"""The guest contract (docs/RELIABILITY.md, "guest contract"): every reproduction of the
perfect-guest issue, as a test.

Data loss (the library replaced or dropped a user's object), silently wrong results (a user's
column name changed a result), the user's connection (an unfinished result, an open
transaction), litter (evaluations and crashed runs left tables behind), integrity (edited
parameter tables), and the remaining cases (many classes, empty labels, stale model objects,
views whose source changed, an attached database named ``wml``).
"""

from __future__ import annotations

import dataclasses
import gc
import json

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from guest_checks import objects, temporary_tables, user_checksums
from kinds_under_test import KIND_CLASSES

import warehouse_ml as wml
from warehouse_ml.cli import main
from warehouse_ml.engines.base import PROCESS
from warehouse_ml.errors import (
    ColumnConflictError,
    ConnectionStateError,
    CorruptModelError,
    DataError,
    NameConflictError,
    SourceError,
    StaleModelError,
    ViewRebuildError,
)
from warehouse_ml.models.scoring.names import probability_columns
from warehouse_ml.sqlgen.templates import TableName
from warehouse_ml.store import integrity


def _customers(con, name: str = "customers", n: int = 60) -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, n)
    con.register(
        "customers_arrow",
        pa.table(
            {
                "id": np.arange(n),
                "a": [f"a{(v + rng.integers(0, 2)) % 3}" for v in y],
                "b": [f"b{v}" if rng.random() < 0.8 else "b2" for v in y],
                "y": ["yes" if v else "no" for v in y],
            }
        ),
    )
    con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM customers_arrow')
    con.unregister("customers_arrow")


def _state(con) -> tuple:
    return objects(con), user_checksums(con)


# -- data loss ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "split",
    [
        lambda con, t: wml.holdout_split(con, "customers", test_fraction=0.3, key="id", table=t),
        lambda con, t: wml.assign_folds(con, "customers", folds=3, key="id", table=t),
        lambda con, t: wml.leave_one_out(con, "customers", key="id", table=t),
    ],
    ids=["holdout_split", "assign_folds", "leave_one_out"],
)
def test_a_split_named_like_its_source_or_a_user_table_is_refused(con, split):
    _customers(con)
    con.execute("CREATE TABLE mine AS SELECT 1 AS x")
    before = _state(con)
    for target in ("customers", "CUSTOMERS", "main.customers", "mine"):
        with pytest.raises(NameConflictError, match=r"customers|mine"):
            split(con, target)
        assert _state(con) == before
    made = split(con, "my_split")  # a new name works, and is then warehouse-ml's own
    assert str(made.table) == "main.my_split"
    again = split(con, "my_split")  # replaced: its own split
    made.drop(con)  # no longer the owner: nothing happens
    assert con.sql("SELECT count(*) FROM my_split").fetchall()[0][0] > 0
    again.drop(con)
    assert con.sql(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'my_split'"
    ).fetchall() == [(0,)]
    assert again.table == made.table


def test_a_default_split_goes_to_schema_wml(con):
    _customers(con)
    before = _state(con)
    split = wml.assign_folds(con, "customers", folds=3, key="id")
    assert split.table.schema == "wml"
    assert user_checksums(con) == before[1]
    split.drop(con)


def test_the_demo_refuses_a_database_with_objects_of_its_names(tmp_path, capsys):
    path = str(tmp_path / "existing.duckdb")
    con = duckdb.connect(path)
    con.execute("CREATE TABLE customers AS SELECT 'precious' AS note")
    con.execute("CREATE VIEW demo_tan_scores AS SELECT 42 AS answer")
    before = _state(con)
    con.close()
    assert main(["demo", "--db", path, "--rows", "2000"]) == 1
    assert "customers" in capsys.readouterr().err
    con = duckdb.connect(path)
    assert _state(con) == before
    con.close()
    fresh = str(tmp_path / "fresh.duckdb")
    assert main(["demo", "--db", fresh, "--rows", "2000"]) == 0
    assert main(["demo", "--db", fresh, "--rows", "3000"]) == 0  # its own objects: replaced
    con = duckdb.connect(fresh)
    assert con.sql("SELECT count(*) FROM customers").fetchall() == [(2400,)]
    owned = wml.list_objects(con).to_pylist()
    assert {(o["object_name"], o["owner_kind"]) for o in owned if o["owner_kind"] == "demo"} == {
        ("main.customers", "demo"),
        ("main.new_customers", "demo"),
    }
    con.close()


def test_a_measure_view_over_itself_or_a_user_object_is_refused(con):
    _customers(con)
    model = wml.NaiveBayes().fit(con, "customers", "y", keys=["id"])
    model.create_view(con, "my_preds", "customers", keys=["id", "y"])
    con.execute("CREATE VIEW user_view AS SELECT 1 AS x")
    before = _state(con)
    for view in ("my_preds", "MY_PREDS", "user_view", "customers"):
        with pytest.raises(NameConflictError):
            wml.create_measure_view(con, view, "accuracy", "my_preds", target="y")
        assert _state(con) == before
    wml.create_measure_view(con, "acc", "accuracy", "my_preds", target="y")
    wml.create_measure_view(con, "acc", "lift_table", "my_preds", target="y")  # its own: replaced
    assert "lift" in con.sql("SELECT * FROM acc").columns


def test_prediction_views_and_tables_never_replace_a_users_object(con):
    _customers(con)
    con.execute("CREATE VIEW user_view AS SELECT 1 AS x")
    con.execute("CREATE TABLE user_table AS SELECT 1 AS x")
    model = wml.NaiveBayes().fit(con, "customers", "y", keys=["id"])
    before = _state(con)
    for name in ("user_view", "USER_TABLE", "customers"):
        with pytest.raises(NameConflictError):
            model.create_view(con, name, "customers")
        with pytest.raises(NameConflictError):
            model.create_table(con, name, "customers")
        assert _state(con) == before
    model.create_table(con, "scored", "customers", keys=["id"])
    model.create_table(con, "SCORED", "customers", keys=["id"])  # its own table: replaced
    with pytest.raises(NameConflictError, match="not a view"):
        model.create_view(con, "scored", "customers")


# -- silently wrong results -------------------------------------------------------------------
def _fold_data(column: str) -> pa.Table:
    """A class that a column named ``column`` determines exactly."""
    n = 90
    value = [f"v{i % 3}" for i in range(n)]
    return pa.table(
        {
            "id": np.arange(n),
            column: value,
            "noise": [f"n{(i * 7) % 5}" for i in range(n)],
            "y": [f"c{i % 3}" for i in range(n)],
        }
    )


@pytest.mark.parametrize("name", ["fold", "FOLD", "Fold", "wml_fold", "wml_part", "wml_row"])
def test_a_source_column_named_like_the_fold_is_just_a_feature(con, name):
    renamed = wml.cross_validate(con, _fold_data("plain"), "y", wml.NaiveBayes(), folds=5, key="id")
    assert renamed.accuracy().accuracy == 1.0
    for model in (wml.NaiveBayes(), wml.TAN()):
        got = wml.cross_validate(con, _fold_data(name), "y", model, folds=5, key="id")
        assert got.accuracy().accuracy == 1.0, (name, model)
        assert got.log_score().total == pytest.approx(
            wml.cross_validate(con, _fold_data("plain"), "y", model, folds=5, key="id")
            .log_score()
            .total,
            abs=1e-12,
        )
    selection = wml.select_model(
        con, _fold_data(name), "y", [wml.NaiveBayes(), wml.TAN()], folds=5, key="id", name="s"
    )
    assert selection.comparison["accuracy"].to_pylist() == [1.0, 1.0]


INTERNAL = ["wml_p_1", "wml_j_0", "wml_max", "wml_total", "wml_s_1", "wml_row", "wml_k_0",
            "wml_input", "wml_lp_0", "wml_c_0", "lp_0", "code", "n"]  # fmt: skip


@pytest.mark.parametrize("name", INTERNAL)
def test_columns_named_like_internal_aliases_change_nothing(con, name):
    data = _fold_data("a").append_column(name, pa.array([7] * 90))
    plain = _fold_data("a").append_column("other", pa.array([7] * 90))
    model = wml.NaiveBayes().fit(con, data, "y", keys=["id", name], name="hostile")
    reference = wml.NaiveBayes().fit(con, plain, "y", keys=["id", "other"], name="plain")
    got = model.score_rows(con, data, keys=["id", name])
    want = reference.score_rows(con, plain, keys=["id", "other"])
    assert got.column_names == ["id", name, "p_c0", "p_c1", "p_c2", "prediction"]
    assert got.rename_columns(want.column_names) == want
    for kind in (wml.NaiveBayes, wml.TAN):  # and as a feature
        a = kind().fit(con, data, "y", keys=["id"], name=f"f_{kind.kind}").predict_proba(con, data)
        b = (
            kind()
            .fit(con, plain, "y", keys=["id"], name=f"g_{kind.kind}")
            .predict_proba(con, plain)
        )
        np.testing.assert_allclose(a.to_pandas().to_numpy(), b.to_pandas().to_numpy(), atol=1e-12)


@pytest.mark.parametrize("key", ["P_YES", "p_yes", "PREDICTION", "Prediction"])
def test_a_key_with_the_name_of_an_output_column_is_refused_naming_both(con, key):
    _customers(con)
    con.execute(f'ALTER TABLE customers ADD COLUMN "{key}" INTEGER DEFAULT 1')
    model = wml.NaiveBayes().fit(con, "customers", "y", keys=["id", key])
    before = _state(con)
    with pytest.raises(ColumnConflictError, match=f"{key!r}.*output column"):
        model.score_rows(con, "customers", keys=["id", key])
    with pytest.raises(ColumnConflictError):
        model.create_view(con, "v", "customers", keys=["id", key])
    with pytest.raises(ColumnConflictError):
        wml.evaluate(con, model, "customers", keys=[key])
    assert _state(con) == before


def test_labels_differing_by_case_or_suffix_get_unambiguous_columns(con):
    assert probability_columns(["A", "a", "a_1"]) == ["p_A", "p_a_1_1", "p_a_1"]
    assert probability_columns(["x" * 61 + "a", "x" * 61 + "b"], 63) == [
        "p_" + "x" * 61,
        "p_" + "x" * 59 + "_1",
    ]
    data = pa.table({"id": range(60), "f": [f"v{i % 4}" for i in range(60)],
                     "y": [["A", "a", "a_1"][i % 3] for i in range(60)]})  # fmt: skip
    con.register("labels", data)
    con.execute("CREATE TABLE labelled AS SELECT * FROM labels")
    model = wml.NaiveBayes().fit(con, "labelled", "y", keys=["id"])
    model.create_view(con, "v", "labelled", keys=["id", "y"])
    columns = con.sql("SELECT * FROM v").columns
    assert columns == ["id", "y", "p_A", "p_a_1_1", "p_a_1", "prediction"]
    ev = wml.cross_validate(con, "labelled", "y", wml.NaiveBayes(), folds=3, key="id")
    assert ev.probability_columns == ("p_A", "p_a_1_1", "p_a_1")
    assert ev.accuracy().n == 60 and ev.log_score().n == 60


def test_a_views_identity_is_the_engines(con):
    _customers(con)
    a = wml.NaiveBayes().fit(con, "customers", "y", keys=["id"], name="A")
    b = wml.TAN().fit(con, "customers", "y", keys=["id"], name="B")
    a.create_view(con, "scores", "customers", keys=["id"])
    b.create_view(con, "SCORES", "customers", keys=["id"])  # the same view: now B's
    assert wml.registered_views(con, "A") == [] and len(wml.registered_views(con, "B")) == 1
    b_rows = con.sql("SELECT * FROM scores ORDER BY id").fetchall()
    wml.NaiveBayes(alpha=2).fit(con, "customers", "y", keys=["id"], name="A")  # re-fit of A
    assert con.sql("SELECT * FROM scores ORDER BY id").fetchall() == b_rows
    wml.drop(con, "A")
    assert con.sql("SELECT * FROM main.scores ORDER BY id").fetchall() == b_rows
    con.execute("CREATE SCHEMA staging")
    con.execute("USE staging")
    wml.TAN(alpha=2).fit(con, "main.customers", "y", keys=["id"], name="B")
    con.execute("USE main")
    assert con.sql(
        "SELECT schema_name FROM duckdb_views() WHERE lower(view_name) = 'scores'"
    ).fetchall() == [("main",)]
    assert con.sql("SELECT * FROM scores ORDER BY id").fetchall() != b_rows  # rebuilt in place


# -- the user's connection --------------------------------------------------------------------
def test_an_unfinished_result_of_the_user_is_left_as_it_was(con):
    _customers(con)
    result = con.execute("SELECT id FROM customers ORDER BY id")
    assert result.fetchone() == (0,)
    model = wml.NaiveBayes().fit(con, "customers", "y", keys=["id"])
    assert model.predict_proba(con, "customers").num_rows == 60
    model.create_view(con, "v", "customers", keys=["id"])
    ev = wml.cross_validate(con, "customers", "y", wml.TAN(), folds=3, key="id")
    assert ev.accuracy().n == 60
    assert con.fetchone() == (1,)  # the user's result goes on where it was
    assert len(con.fetchall()) == 58


def test_a_temporary_source_unseen_through_the_cursor_is_a_clear_error(con):
    _customers(con)
    con.execute("CREATE TEMP TABLE scratch AS SELECT * FROM customers")
    con.execute("SELECT 1 AS x UNION ALL SELECT 2").fetchone()
    with pytest.raises(SourceError, match="unfinished result"):
        wml.NaiveBayes().fit(con, "scratch", "y")


def test_an_open_user_transaction_is_refused_and_left_usable(con):
    _customers(con)
    model = wml.NaiveBayes().fit(con, "customers", "y", keys=["id"])
    con.begin()
    con.execute("INSERT INTO customers VALUES (1000, 'a0', 'b0', 'yes')")
    for call in (
        lambda: wml.NaiveBayes().fit(con, "customers", "y"),
        lambda: model.predict_proba(con, "customers"),
        lambda: wml.cross_validate(con, "customers", "y", wml.NaiveBayes(), folds=3),
    ):
        with pytest.raises(ConnectionStateError, match="open transaction"):
            call()
    assert con.sql("SELECT count(*) FROM customers").fetchall() == [(61,)]  # still usable
    con.commit()
    assert model.predict_proba(con, "customers").num_rows == 61


def test_calls_leave_no_unfinished_result_or_transaction(con):
    _customers(con)
    model = wml.NaiveBayes().fit(con, "customers", "y", keys=["id"])
    model.predict(con, "customers")
    wml.cross_validate(con, "customers", "y", wml.NaiveBayes(), folds=3, key="id").accuracy()
    first = con.sql("SELECT txid_current()").fetchall()
    second = con.sql("SELECT txid_current()").fetchall()
    assert first != second  # autocommit: no transaction left open


# -- litter and lifetimes ---------------------------------------------------------------------
def test_evaluations_are_temporary_unless_kept(tmp_path):
    path = str(tmp_path / "w.duckdb")
    con = duckdb.connect(path)
    _customers(con)
    wml.NaiveBayes().fit(con, "customers", "y", keys=["id"], name="m")
    before = objects(con)
    with wml.cross_validate(con, "customers", "y", wml.TAN(), folds=3, key="id") as ev:
        assert ev.accuracy().n == 60
        assert len(temporary_tables(con)) == 1  # its predictions only
    assert temporary_tables(con) == set() and objects(con) == before
    held = wml.evaluate(con, wml.load(con, "m"), "customers", keys=["id"])
    assert objects(con) == before
    kept = wml.cross_validate(con, "customers", "y", wml.NaiveBayes(), folds=3, key="id", keep=True)
    assert kept.predictions.schema == "wml"
    accuracy = kept.accuracy().accuracy
    con.close()
    assert held.id  # its temporary table went with the connection
    con = duckdb.connect(path)
    listed = wml.list_evaluations(con).to_pylist()
    assert [e["id"] for e in listed] == [kept.id]
    assert wml.load_evaluation(con, kept.id).accuracy().accuracy == accuracy
    wml.drop_evaluation(con, kept.id)
    assert wml.list_evaluations(con).num_rows == 0 and objects(con) == before
    assert wml.vacuum(con).num_rows == 0
    con.close()


def test_evaluations_garbage_collected_lose_their_tables_at_the_next_call(con):
    """A nightly job on a long-lived connection: the temporary tables of evaluations nobody
    holds any more are dropped at the next library call, not at the connection's end."""
    _customers(con)
    model = wml.NaiveBayes().fit(con, "customers", "y", keys=["id"], name="m")
    held = wml.cross_validate(con, "customers", "y", wml.TAN(), folds=3, key="id")
    for _ in range(3):
        ev = wml.cross_validate(con, "customers", "y", wml.NaiveBayes(), folds=3, key="id")
        assert ev.accuracy().n == 60
        ev = wml.evaluate(con, model, "customers", keys=["id"])  # the first one is let go
        del ev
    gc.collect()
    # each call dropped the tables of the evaluations let go before it; the last two wait
    # for the next call (a finalizer runs no SQL)
    assert len(temporary_tables(con)) == 3
    model.predict_proba(con, "customers")
    assert temporary_tables(con) == {held.predictions.name}
    assert held.accuracy().n == 60  # an evaluation still held keeps its table
    del held
    gc.collect()
    wml.list_models(con)
    assert temporary_tables(con) == set()


def test_a_copy_of_an_evaluation_keeps_its_tables_while_it_is_held(con):
    """dataclasses.replace(evaluation) shares the original's tables: they are dropped once the
    last of the two is garbage-collected, not when the first is."""
    _customers(con)
    ev = wml.cross_validate(con, "customers", "y", wml.NaiveBayes(), folds=3, key="id")
    copy = dataclasses.replace(ev, subject="a copy")
    del ev
    gc.collect()
    wml.list_models(con)
    assert temporary_tables(con) == {copy.predictions.name}
    assert copy.accuracy().n == 60
    del copy
    gc.collect()
    wml.list_models(con)
    assert temporary_tables(con) == set()


def test_cli_evaluate_keeps_nothing_unless_asked(tmp_path, capsys):
    path = str(tmp_path / "w.duckdb")
    con = duckdb.connect(path)
    _customers(con)
    before = objects(con)
    con.close()
    assert main(["evaluate", "customers", "--target", "y", "--keys", "id", "--folds", "3",
                 "--db", path]) == 0  # fmt: skip
    con = duckdb.connect(path)
    assert {o for o in objects(con) - before if o[1] not in ("models", "objects")} == set()
    con.close()
    assert main(["evaluate", "customers", "--target", "y", "--keys", "id", "--folds", "3",
                 "--keep", "--db", path]) == 0  # fmt: skip
    assert main(["evaluations", "--db", path]) == 0
    assert "cross_validate" in capsys.readouterr().out


def test_vacuum_removes_only_what_crashed_runs_left(tmp_path):
    path = str(tmp_path / "w.duckdb")
    con = duckdb.connect(path)
    _customers(con)
    model = wml.NaiveBayes().fit(con, "customers", "y", keys=["id"], name="m")
    model.create_view(con, "scores", "customers", keys=["id"])
    # what a process killed during a fit leaves: a staged version's registered tables
    con.execute("CREATE TABLE wml.m0123456789abcdef_classes AS SELECT 1 AS x")
    con.execute(
        'INSERT INTO wml.objects VALUES (\'["", "wml", "m0123456789abcdef_classes"]\', '
        "'[\"wml\", \"m0123456789abcdef_classes\"]', 'table', 'model', 'm', "
        "'m0123456789abcdef', 'classes', 'model', 'fit', TIMESTAMP '2026-01-01', "
        "'duckdb|deadprocess|0', '{}')"
    )
    # a kept evaluation's name registered by a call killed before it created the table
    con.execute(
        'INSERT INTO wml.objects VALUES (\'["", "wml", "cvfedcba987654_predictions"]\', '
        "'[\"wml\", \"cvfedcba987654_predictions\"]', 'table', 'evaluation', "
        "'cvfedcba987654', 'cvfedcba987654', 'predictions', 'kept', 'cross_validate', "
        "TIMESTAMP '2026-01-01', 'duckdb|deadprocess|1', '{}')"
    )
    kept = wml.cross_validate(con, "customers", "y", wml.NaiveBayes(), folds=3, key="id",
                              keep=True)  # fmt: skip
    con.execute("CREATE TABLE wml.users_own_table AS SELECT 1 AS x")
    con.execute("CREATE TABLE main.m0123456789abcdef_unseen AS SELECT 1 AS x")  # not in wml
    removed = wml.vacuum(con).to_pylist()
    assert sorted(r["object_name"] for r in removed) == [
        "wml.cvfedcba987654_predictions",
        "wml.m0123456789abcdef_classes",
    ]
    assert wml.load_evaluation(con, kept.id).accuracy() == kept.accuracy()
    names = {n for (n,) in con.sql("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert {"users_own_table", "m0123456789abcdef_unseen", "customers"} <= names
    assert wml.load(con, "m").predict(con, "customers").num_rows == 60
    assert con.sql("SELECT count(*) FROM scores").fetchall() == [(60,)]
    assert wml.vacuum(con).num_rows == 0
    con.close()


def test_vacuum_leaves_an_unregistered_table_named_like_the_librarys(con):
    """Only the registry says what is the library's: a user's copy of a model's table in
    ``wml`` (named like a staged table, unregistered) is not a leftover."""
    _customers(con)
    model = wml.NaiveBayes().fit(con, "customers", "y", keys=["id"], name="m")
    copies = [
        f"{model.record.model_id}_categorical_backup_2024",
        "m0123456789abcdef_classes",
        "cv0123456789ab_predictions",
    ]
    for copy in copies:
        con.execute(f'CREATE TABLE wml."{copy}" AS SELECT * FROM customers')
    before = _state(con)
    assert wml.vacuum(con).num_rows == 0
    assert _state(con) == before
    wml.NaiveBayes(alpha=2).fit(con, "customers", "y", keys=["id"], name="m")  # a re-fit too
    tables = {n for (n,) in con.sql("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert set(copies) <= tables


def test_a_fit_removes_its_models_own_leftovers(con):
    _customers(con)
    wml.NaiveBayes().fit(con, "customers", "y", keys=["id"], name="m")
    con.execute("CREATE TABLE wml.m0123456789abcdef_classes AS SELECT 1 AS x")
    con.execute(
        'INSERT INTO wml.objects VALUES (\'["", "wml", "m0123456789abcdef_classes"]\', '
        "'[\"wml\", \"m0123456789abcdef_classes\"]', 'table', 'model', 'm', "
        "'m0123456789abcdef', 'classes', 'model', 'fit', TIMESTAMP '2026-01-01', "
        "'duckdb|deadprocess|0', '{}')"
    )
    wml.NaiveBayes().fit(con, "customers", "y", keys=["id"], name="m")
    names = {n for (n,) in con.sql("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert "m0123456789abcdef_classes" not in names


def test_a_fit_leaves_what_another_call_of_this_process_staged_to_it_and_vacuum(con):
    """A call of this process drops what it staged when it fails; a publication that still
    sees those tables in its snapshot must not drop them again (on DuckDB that conflicts with
    the call's own drop and failed the publication: two threads re-fitting one model could
    both fail). What a failed drop leaves is vacuum's."""
    _customers(con)
    wml.NaiveBayes().fit(con, "customers", "y", keys=["id"], name="m")
    con.execute("CREATE TABLE wml.m0123456789abcdef_classes AS SELECT 1 AS x")
    con.execute(
        'INSERT INTO wml.objects VALUES (\'["", "wml", "m0123456789abcdef_classes"]\', '
        "'[\"wml\", \"m0123456789abcdef_classes\"]', 'table', 'model', 'm', "
        "'m0123456789abcdef', 'classes', 'model', 'fit', TIMESTAMP '2026-01-01', "
        f"'duckdb|{PROCESS}|999999', '{{}}')"
    )
    wml.NaiveBayes().fit(con, "customers", "y", keys=["id"], name="m")
    names = {n for (n,) in con.sql("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert "m0123456789abcdef_classes" in names
    removed = [r["object_name"] for r in wml.vacuum(con).to_pylist()]
    assert removed == ["wml.m0123456789abcdef_classes"]


# -- integrity ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "edit",
    [
        "DELETE FROM {t} WHERE rowid = (SELECT min(rowid) FROM {t})",
        "UPDATE {t} SET log_prob = log_prob + 0.5 WHERE rowid = (SELECT min(rowid) FROM {t})",
        "INSERT INTO {t} SELECT * FROM {t} LIMIT 1",
    ],
    ids=["deleted", "changed", "added"],
)
def test_an_edited_parameter_table_is_refused_naming_it(con, edit):
    _customers(con)
    model = wml.NaiveBayes().fit(con, "customers", "y", keys=["id"], name="m")
    table = model.record.table("categorical")
    con.execute(edit.format(t=table))
    integrity._VERIFIED.clear()  # as a new process would
    with pytest.raises(CorruptModelError, match=str(table).replace(".", r"\.")):
        wml.load(con, "m").predict_proba(con, "customers")


def test_an_emptied_lookup_table_is_refused(con):
    data = pa.table({"a": [0, 1, 2, 1] * 10, "b": [1, 2, 1, 2] * 10, "y": ["p", "q"] * 20})
    model = wml.NaiveBayes().fit(con, data, "y", name="m")
    assert "lookup" in model.record.parts
    con.execute(f"DELETE FROM {model.record.table('lookup')}")
    integrity._VERIFIED.clear()
    with pytest.raises(CorruptModelError, match="lookup"):
        wml.load(con, "m").predict_proba(con, data)


def test_the_portable_checksum_digests_each_row_once_and_sums_its_hex_digits(con):
    """The checksum PostgreSQL and Spark take (the base Warehouse's row text, MD5 and hex
    digits) is the sum over rows of the numbers of digits 1-8 and 9-16 of the MD5 of
    "len:value|...|null", and its statement digests each row once: written inline, the row's
    text repeated in each of the 16 digits (80 kB for a Naive Bayes model, seconds of planning
    on Spark)."""
    import hashlib

    from warehouse_ml.engines.base import Warehouse

    class Portable(type(wml.connect(con))):
        row_text = Warehouse.row_text
        checksum_digest = Warehouse.checksum_digest
        digest_numbers = Warehouse.digest_numbers

    con.execute(
        "CREATE TABLE sums AS SELECT * FROM (VALUES (1, 'a'), (22, NULL), (3, 'ccc')) v(n, s)"
    )
    statements: list[str] = []
    warehouse = Portable(con, on_sql=statements.append)
    found = integrity.checksums(warehouse, {"sums": TableName(("sums",))})["parts"]["sums"]
    texts = ["1:1|1:a", "2:22|null", "1:3|3:ccc"]
    digests = [hashlib.md5(t.encode()).hexdigest() for t in texts]
    high = sum(int(d[:8], 16) for d in digests)
    low = sum(int(d[8:16], 16) for d in digests)
    assert found == [3, high, low]
    (checksum,) = [s for s in statements if "checksum_high" in s]
    assert checksum.upper().count("MD5(") == 1


@pytest.mark.parametrize(
    ("column", "value"),
    [("features", "not json"), ("details", '{"x":'), ("classes", '["only one"]'),
     ("feature_types", "{}")],
)  # fmt: skip
def test_a_malformed_catalog_row_is_a_corrupt_model(con, column, value):
    _customers(con)
    wml.NaiveBayes().fit(con, "customers", "y", keys=["id"], name="m")
    con.execute(f"UPDATE wml.models SET {column} = ? WHERE name = 'm'", [value])
    with pytest.raises(CorruptModelError, match="model 'm'"):
        wml.load(con, "m")


def test_a_model_of_catalog_format_1_loads_unverified_and_its_views_are_migrated(con):
    _customers(con)
    model = wml.NaiveBayes().fit(con, "customers", "y", keys=["id"], name="m")
    model.create_view(con, "scores", "customers", keys=["id"])
    expected = model.predict_proba(con, "customers")
    # the catalog as version 0.1.0 wrote it: format 1, no checksums, views in wml.views
    con.execute(
        "UPDATE wml.models SET format_version = 1, details = json_remove(details, '$.checksums')"
    )
    con.execute("DELETE FROM wml.objects WHERE role = 'prediction_view'")
    con.execute(
        "CREATE TABLE wml.views (view_name VARCHAR, model VARCHAR, source VARCHAR, options VARCHAR)"
    )
    con.execute(
        "INSERT INTO wml.views VALUES ('[\"scores\"]', 'm', '{\"table\": [\"customers\"]}', "
        '\'{"decision": {"loss": null, "positive": null, "threshold": null}, '
        '"keys": ["id"]}\')'
    )
    integrity._VERIFIED.clear()
    old = wml.load(con, "m")
    assert not old.verified_
    assert old.predict_proba(con, "customers") == expected
    wml.NaiveBayes(alpha=2).fit(con, "customers", "y", keys=["id"], name="m")  # migrates
    assert [str(v) for v in wml.registered_views(con, "m")] == ["main.scores"]
    names = {n for (n,) in con.sql("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert "views" not in names
    assert not any(n.startswith(old.record.model_id) for n in names)  # old tables dropped


@pytest.mark.parametrize("kind", KIND_CLASSES)
def test_a_model_of_catalog_format_2_scores_views_and_exports_as_before(con, kind):
    """Format 2 stored parameter tables without the model partition column wml_part: such a
    model still scores, serves views and exports, reading its tables as partition 0."""
    _customers(con)
    con.execute("ALTER TABLE customers ADD COLUMN x DOUBLE")
    con.execute("UPDATE customers SET x = id * 0.37 % 5")
    model = kind().fit(con, "customers", "y", keys=["id"], name="m")
    expected = model.predict_proba(con, "customers")
    warehouse = wml.connect(con)
    record = model.record
    for part in record.parts:  # the tables as format 2 wrote them
        con.execute(f"ALTER TABLE {record.table(part)} DROP COLUMN IF EXISTS wml_part")
    checksums = integrity.checksums(warehouse, {p: record.table(p) for p in record.parts})
    con.execute(
        "UPDATE wml.models SET format_version = 2, details = json_merge_patch(details, ?) "
        "WHERE name = 'm'",
        [json.dumps({"checksums": checksums})],
    )
    integrity._VERIFIED.clear()
    old = wml.load(con, "m")
    assert old.record.format_version == 2 and old.verified_
    assert old.predict_proba(con, "customers") == expected
    old.create_view(con, "scores", "customers", keys=["id"])
    assert con.sql("SELECT count(*) FROM scores").fetchall() == [(60,)]
    exported = con.sql(old.sql(con, "customers", keys=["id"])).to_arrow_table()
    assert exported.num_rows == 60


# -- the remaining cases ----------------------------------------------------------------------
def test_too_many_classes_are_refused_at_fit(con):
    n = 300
    data = pa.table({"f": [f"v{i % 5}" for i in range(n)], "y": [f"c{i}" for i in range(n)]})
    with pytest.raises(DataError, match="300 classes; expected at most 256"):
        wml.NaiveBayes().fit(con, data, "y")
    many = pa.table(
        {"f": [f"v{i % 5}" for i in range(512)], "y": [f"c{i % 256}" for i in range(512)]}
    )
    model = wml.NaiveBayes().fit(con, many, "y")
    proba = model.predict_proba(con, many)
    assert proba.num_columns == 256
    np.testing.assert_allclose(proba.to_pandas().sum(axis=1), 1.0, atol=1e-12)


def test_an_empty_class_label_is_a_class_like_any_other(con):
    data = pa.table({"id": range(40), "f": [f"v{i % 3}" for i in range(40)],
                     "y": ["" if i % 2 else "a" for i in range(40)]})  # fmt: skip
    con.register("empty_labels", data)
    con.execute("CREATE TABLE e AS SELECT * FROM empty_labels")
    model = wml.NaiveBayes().fit(con, "e", "y", keys=["id"])
    assert model.classes_ == ["", "a"]
    assert model.predict_proba(con, "e").column_names == ["p_", "p_a"]
    model.create_view(con, "v", "e", keys=["id", "y"])
    assert con.sql("SELECT * FROM v").columns == ["id", "y", "p_", "p_a", "prediction"]
    assert wml.cross_validate(con, "e", "y", wml.TAN(), folds=2, key="id").accuracy().n == 40


def test_a_stale_model_object_says_so(con):
    _customers(con)
    first = wml.NaiveBayes().fit(con, "customers", "y", keys=["id"])
    wml.NaiveBayes().fit(con, "customers", "y", keys=["id"])  # same default name: replaces it
    with pytest.raises(
        StaleModelError, match=r"re-fitted.*warehouse_ml\.load\(con, 'naive_bayes_y'\)"
    ):
        first.predict_proba(con, "customers")
    current = wml.load(con, "naive_bayes_y")
    wml.drop(con, "naive_bayes_y")
    with pytest.raises(StaleModelError, match="dropped"):
        current.predict(con, "customers")


@pytest.mark.parametrize("kind", [wml.NaiveBayes, wml.TAN])
def test_a_stale_model_object_says_so_after_scoring_from_its_caches(con, kind):
    """A version scored before (its literals and query text cached by the process) is still
    refused once re-fitted or dropped: views, predictions and accuracy alike."""
    _customers(con)
    first = kind().fit(con, "customers", "y", keys=["id"], name="m")
    first.predict_proba(con, "customers")
    first.predict(con, "customers", keys=["id"])
    kind(alpha=2.0).fit(con, "customers", "y", keys=["id"], name="m")
    for call in (
        lambda: first.predict_proba(con, "customers"),
        lambda: first.predict(con, "customers", keys=["id"]),
        lambda: first.create_view(con, "v", "customers", keys=["id"]),
    ):
        with pytest.raises(StaleModelError, match="re-fitted"):
            call()
    current = wml.load(con, "m")
    current.predict_proba(con, "customers")
    wml.drop(con, "m")
    with pytest.raises(StaleModelError, match="dropped"):
        current.predict_proba(con, "customers")
    assert "v" not in {r[0] for r in con.sql("SELECT table_name FROM duckdb_tables()").fetchall()}


def test_a_view_whose_source_changed_is_named_with_a_way_out(con):
    _customers(con)
    con.execute("CREATE TABLE s AS SELECT * FROM customers")
    model = wml.NaiveBayes().fit(con, "customers", "y", keys=["id"], name="m")
    model.create_view(con, "broken", "s", keys=["id"])
    model.create_view(con, "fine", "customers", keys=["id"])
    con.execute("ALTER TABLE s DROP COLUMN a")
    before = wml.load(con, "m").record
    with pytest.raises(ViewRebuildError, match=r"view main\.broken .* source main\.s.*drop_view"):
        wml.NaiveBayes(alpha=2).fit(con, "customers", "y", keys=["id"], name="m")
    assert wml.load(con, "m").record == before  # nothing changed
    with pytest.raises(ViewRebuildError):
        wml.rebuild_views(con, "m")
    assert [str(v) for v in wml.rebuild_views(con, "m", on_broken="drop")] == ["main.fine"]
    wml.NaiveBayes(alpha=2).fit(con, "customers", "y", keys=["id"], name="m")
    assert con.sql("SELECT count(*) FROM fine").fetchall() == [(60,)]
    with pytest.raises(NameConflictError):
        wml.drop_view(con, "s")  # a user's table: left alone


def test_an_attached_database_named_wml_is_no_ambiguity(con):
    _customers(con)
    con.execute("ATTACH ':memory:' AS wml")
    model = wml.NaiveBayes().fit(con, "customers", "y", keys=["id"], name="m")
    assert (
        wml.cross_validate(con, "customers", "y", wml.TAN(), folds=3, key="id").accuracy().n == 60
    )
    assert wml.load(con, "m").predict_proba(con, "customers").num_rows == 60
    split = wml.assign_folds(con, "customers", folds=3, key="id")
    assert split.to_arrow(con).num_rows == 60
    # DuckDB stores a view's references to its own database without the database's name:
    # with "wml" attached, a view reading wml.<table> would be ambiguous. A clear error says so.
    before = objects(con)
    with pytest.raises(NameConflictError, match="database named 'wml' is attached"):
        model.create_view(con, "scores", "customers", keys=["id"])
    assert objects(con) == before
    con.execute("DETACH wml")
    model.create_view(con, "scores", "customers", keys=["id"])
    assert con.sql("SELECT count(*) FROM scores").fetchall() == [(60,)]


def test_three_cross_validations_of_2m_rows_leave_the_database_file_as_it_was(tmp_path):
    """Every cross-validation used to copy the source into the file (27 -> 230 MB over three
    CVs of 2M rows); its tables are now temporary: the file grows by less than 5 MB."""
    path = tmp_path / "big.duckdb"
    con = duckdb.connect(str(path))
    data = wml.synthetic.tan_data(2_000_000, 4, seed=5)
    con.register("big_arrow", data.append_column("id", pa.array(np.arange(data.num_rows))))
    con.execute("CREATE TABLE big AS SELECT * FROM big_arrow")
    con.unregister("big_arrow")
    con.execute("CHECKPOINT")
    size = path.stat().st_size
    for _ in range(3):
        with wml.cross_validate(con, "big", "class", wml.NaiveBayes(), key="id") as ev:
            assert ev.accuracy().n == 2_000_000
        con.execute("CHECKPOINT")
    grown = path.stat().st_size - size
    con.close()
    assert grown < 5 * 2**20, f"the file grew by {grown / 2**20:.1f} MB"
