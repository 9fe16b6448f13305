"""kill -9 during fits and cross-validations (the guest contract, docs/RELIABILITY.md): at
least 20 times a worker process re-fitting Naive Bayes and TAN models and cross-validating on
a DuckDB file is killed at a random moment. After each kill the database opens, every model
scores exactly as before (a re-fit on the same data gives the same probabilities, so whichever
version a kill left current must score the same) and its views read the same rows; at the
end ``vacuum`` leaves no orphan: every table in ``wml`` is the catalog, the registry, a current
model version's or a kept evaluation's.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
from conftest import REPO

import warehouse_ml as wml
from warehouse_ml.store import integrity

KILLS = 20
MODELS = {"a": "naive_bayes", "b": "tan"}

WORKER = r"""
import random, sys
import duckdb
import warehouse_ml as wml

path, seed = sys.argv[1], int(sys.argv[2])
con = duckdb.connect(path)
rng = random.Random(seed)
kinds = {"a": wml.NaiveBayes, "b": wml.TAN}
print("ready", flush=True)
while True:
    name = rng.choice(sorted(kinds))
    if rng.random() < 0.6:
        kinds[name]().fit(con, "data", "y", keys=["id"], name=name)
    else:
        keep = rng.random() < 0.3
        wml.cross_validate(con, "data", "y", kinds[name](), folds=3, key="id", keep=keep)
"""


def _data(n: int = 30_000) -> pa.Table:
    table = wml.synthetic.tan_data(n, 8, n_classes=3, seed=21, strings=True)
    return table.rename_columns([*table.column_names[:-1], "y"]).append_column(
        "id", pa.array(np.arange(n))
    )


def _snapshot(con: duckdb.DuckDBPyConnection) -> dict:
    integrity._VERIFIED.clear()  # verify the tables again, as a new process does
    return {
        name: (
            wml.load(con, name).predict_proba(con, "probe"),
            con.sql(f"SELECT * FROM {name}_scores ORDER BY id").fetchall(),
        )
        for name in MODELS
    }


def _orphans(con: duckdb.DuckDBPyConnection) -> set[str]:
    """Tables in ``wml`` that are not the catalog's, the registry's, a current model version's
    or a kept evaluation's."""
    tables = {
        n
        for (n,) in con.sql(
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'wml'"
        ).fetchall()
    }
    current = {row["model_id"] for row in wml.list_models(con).to_pylist()}
    kept = {
        o["object_name"].split(".", 1)[1]
        for o in wml.list_objects(con).to_pylist()
        if o["lifetime"] == "kept"
    }
    return {
        t
        for t in tables - {"models", "objects"} - kept
        if not any(t.startswith(f"{model_id}_") for model_id in current)
    }


def test_kill_9_during_fits_and_cross_validations_leaves_a_consistent_database(tmp_path):
    path = str(tmp_path / "killed.duckdb")
    con = duckdb.connect(path)
    con.register("arrow_data", _data())
    con.execute("CREATE TABLE data AS SELECT * FROM arrow_data")
    con.execute("CREATE TABLE probe AS SELECT * FROM data WHERE id % 97 = 0")
    for name, kind in MODELS.items():
        model = {"naive_bayes": wml.NaiveBayes, "tan": wml.TAN}[kind]().fit(
            con, "data", "y", keys=["id"], name=name
        )
        model.create_view(con, f"{name}_scores", "probe", keys=["id"])
    expected = _snapshot(con)
    con.close()
    worker = tmp_path / "worker.py"
    worker.write_text(WORKER)
    rng = random.Random(12)
    kills = 0
    while kills < KILLS:
        process = subprocess.Popen(
            [sys.executable, str(worker), path, str(kills)],
            env={**os.environ, "PYTHONPATH": str(REPO)},  # this checkout, installed or not
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stdout.readline().strip() == "ready", process.stderr.read()
        time.sleep(rng.uniform(0.05, 1.5))
        process.kill()  # SIGKILL: no clean-up of any kind runs
        process.wait()
        kills += 1
        con = duckdb.connect(path)
        try:
            assert _snapshot(con) == expected, f"after kill {kills}"
        finally:
            con.close()
    con = duckdb.connect(path)
    left = {f"wml.{t}" for t in _orphans(con)}  # what the kills left (timing decides how much)
    removed = set(wml.vacuum(con).column("object_name").to_pylist())
    assert left <= removed
    assert _orphans(con) == set()
    assert wml.vacuum(con).num_rows == 0
    assert _snapshot(con) == expected
    registered = wml.list_objects(con).to_pylist()
    tables = {
        f"{s}.{n}"
        for s, n in con.sql("SELECT schema_name, table_name FROM duckdb_tables()").fetchall()
    } | {
        f"{s}.{n}"
        for s, n in con.sql(
            "SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal"
        ).fetchall()
    }
    assert {o["object_name"] for o in registered} <= tables  # no registry row without its object
    con.close()
    assert Path(path).exists()


UPDATER = r"""
import sys
import duckdb
import warehouse_ml as wml

path = sys.argv[1]
con = duckdb.connect(path)
print("ready", flush=True)
while True:
    for name in ("a", "b"):
        model = wml.load(con, name)
        model.update(con, "batch", batch_id=f"batch-{len(model.batches_)}")
        print("updated", flush=True)
"""


def test_kill_9_during_updates_leaves_whole_versions(tmp_path):
    """A killed update leaves the version before it or the one after it, never a mix: after
    each kill every model verifies, holds the base rows plus those of the batches it lists,
    and its probabilities equal a fit on the base and that many copies of the batch."""
    path = str(tmp_path / "updated.duckdb")
    con = duckdb.connect(path)
    data = _data(6_000)
    con.register("arrow_data", data)
    con.execute("CREATE TABLE base AS SELECT * FROM arrow_data WHERE id < 5000")
    con.execute("CREATE TABLE batch AS SELECT * FROM arrow_data WHERE id >= 5000")
    con.execute("CREATE TABLE probe AS SELECT * FROM arrow_data WHERE id % 97 = 0")
    for name, kind in MODELS.items():
        {"naive_bayes": wml.NaiveBayes, "tan": wml.TAN}[kind]().fit(
            con, "base", "y", keys=["id"], name=name
        )
    con.close()
    worker = tmp_path / "updater.py"
    worker.write_text(UPDATER)
    rng = random.Random(5)
    for kill in range(6):
        process = subprocess.Popen(
            [sys.executable, str(worker), path],
            env={**os.environ, "PYTHONPATH": str(REPO)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stdout.readline().strip() == "ready", process.stderr.read()
        if kill == 0:  # one whole update before the first kill, however slow the machine
            assert process.stdout.readline().strip() == "updated", process.stderr.read()
        time.sleep(rng.uniform(0.2, 2.0))
        process.kill()
        process.wait()
        con = duckdb.connect(path)
        try:
            integrity._VERIFIED.clear()
            for name, kind in MODELS.items():
                model = wml.load(con, name)
                copies = len(model.batches_)
                assert [b["batch_id"] for b in model.batches_] == [
                    f"batch-{i}" for i in range(copies)
                ], f"after kill {kill}"
                assert model.n_rows_ == 5000 + 1000 * copies
                union = " UNION ALL ".join(
                    ["SELECT * FROM base"] + ["SELECT * FROM batch"] * copies
                )
                con.execute(f"CREATE OR REPLACE TEMP VIEW wml_union AS {union}")
                oracle = {"naive_bayes": wml.NaiveBayes, "tan": wml.TAN}[kind]().fit(
                    con, "wml_union", "y", keys=["id"], name="oracle"
                )
                got = np.column_stack(model.predict_proba(con, "probe").columns)
                want = np.column_stack(oracle.predict_proba(con, "probe").columns)
                assert np.allclose(got, want, rtol=1e-9, atol=1e-12), f"{name} after kill {kill}"
                wml.drop(con, "oracle")
        finally:
            con.close()
    con = duckdb.connect(path)
    assert len(wml.load(con, "a").batches_) > 0  # the workers did apply batches between kills
    wml.vacuum(con)
    assert _orphans(con) == set()
    con.close()
