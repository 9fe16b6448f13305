"""The warehouse-ml command line, run in-process through its entry point."""

from __future__ import annotations

import shutil
import subprocess
import sys

import duckdb
import pyarrow.parquet as pq
import pytest
from conftest import FIXTURES

import warehouse_ml as wml
from warehouse_ml.cli import demo, main
from warehouse_ml.models.inspection.sections import TablePart, TextPart

TENNIS = str(FIXTURES / "play_tennis.csv")


def test_train_predict_models_show_sql_drop(tmp_path, capsys):
    db = str(tmp_path / "w.duckdb")
    assert (
        main(["train", TENNIS, "--target", "play", "--keys", "day", "--db", db, "--name", "t"]) == 0
    )
    assert "trained naive_bayes model 't' on 14 rows" in capsys.readouterr().out

    assert main(["predict", "t", TENNIS, "--to-view", "scores", "--keys", "day", "--db", db]) == 0
    assert main(["predict", "t", TENNIS, "--to-table", "scored", "--keys", "day", "--db", db]) == 0
    out = tmp_path / "p.parquet"
    assert (
        main(
            [
                "predict",
                "t",
                TENNIS,
                "--output",
                str(out),
                "--keys",
                "day",
                "--threshold",
                "0.9",
                "--db",
                db,
            ]
        )
        == 0
    )
    capsys.readouterr()
    written = pq.read_table(out)
    assert written.column_names == ["day", "p_no", "p_yes", "prediction"]  # yes/no as written
    assert written["day"].to_pylist() == list(range(1, 15))

    con = duckdb.connect(db, read_only=True)
    assert con.sql("SELECT count(*) FROM scores").fetchall() == [(14,)]
    assert (
        con.sql("SELECT * FROM scored ORDER BY day").fetchall()
        == con.sql("SELECT * FROM scores ORDER BY day").fetchall()
    )
    con.close()

    assert main(["models", "--db", db]) == 0
    assert "t  " in capsys.readouterr().out
    assert main(["show", "t", "--db", db]) == 0
    shown = capsys.readouterr().out
    assert "outlook: categorical" in shown and "categorical (" in shown
    assert main(["export", "t", "--dialect", "postgres", "--db", db]) == 1  # trained from a file
    assert "--source" in capsys.readouterr().err
    export = ["export", "t", "--source", "public.tennis", "--keys", "day", "--dialect", "postgres"]
    assert main([*export, "--db", db]) == 0
    exported = capsys.readouterr().out
    assert (
        "EXP(" in exported
        and 'AS "prediction"' in exported
        and '"public"."tennis"' in exported
        and '"wml".' not in exported
    )
    assert (
        main(["sql", "t", "public.tennis", "--keys", "day", "--dialect", "postgres", "--db", db])
        == 0
    )
    assert capsys.readouterr().out == exported  # sql: the same, the table as an argument
    assert main(["drop", "t", "--db", db]) == 0
    assert main(["show", "t", "--db", db]) == 1
    assert "no model 't'" in capsys.readouterr().err


def test_clear_errors_and_exit_codes(tmp_path, capsys):
    db = str(tmp_path / "w.duckdb")
    assert main(["train", "missing_table", "--target", "y", "--db", db]) == 1
    assert "missing_table" in capsys.readouterr().err
    assert main(["train", TENNIS, "--target", "nope", "--db", db]) == 1
    assert "has no column 'nope'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["train"])
    assert exit_info.value.code == 2


def _linear_terms(model) -> list[str]:
    """What show prints of a linear model: its coefficients by term, the intercept named."""
    rows = model.summary().to_pylist()
    return ["class  term", "(intercept)", *(r["term"] for r in rows)]


SHOWN = {
    "naive_bayes": lambda model: ["Attribute ranking (4 rows)", "mi"],
    "tan": lambda model: ["The tree (Mermaid)", model.tree_text(), "cmi_parent"],
    "logistic_regression": lambda model: [*_linear_terms(model), "std_error", "z_value"],
    "linear_discriminant": lambda model: [*_linear_terms(model), "Priors (2 rows)", "prior"],
    "linear_svm": lambda model: [*_linear_terms(model), "Platt sigmoids (1 rows)"],
    "k_nearest_neighbors": lambda model: ["Search (", "stored rows", "Coordinates ("],
    "decision_tree": lambda model: [model.tree_text(), "weighted_gain", "importance"],
}
"""What ``show`` prints of each kind in its own terms, from the model's own API, besides the
titles of its model section's tables and texts (all that is checked of a kind registered
without an entry)."""


@pytest.mark.parametrize("spec", wml.models.kinds.specs(), ids=lambda s: s.kind)
def test_show_speaks_each_familys_own_terms(tmp_path, capsys, spec):
    """Settings are settings (not "smoothing"), then the model's section of a report in text
    (its tables and texts: a linear model's coefficients listed by term with the intercept
    named, never by column index nor as a log prior; a tree's rules; k-NN's search)."""
    db = str(tmp_path / "w.duckdb")
    argv = ["train", TENNIS, "--target", "play", "--keys", "day", "--kind", spec.kind]
    assert main([*argv, "--name", "m", "--db", db]) == 0
    capsys.readouterr()
    assert main(["show", "m", "--db", db, "--rows", "100"]) == 0
    shown = capsys.readouterr().out
    model = wml.load(duckdb.connect(db), "m")
    settings = ", ".join(f"{k}={v!r}" for k, v in model.get_params().items())
    assert f"settings: {settings}" in shown and "smoothing:" not in shown
    parts = model.model_section(duckdb.connect(db)).parts
    titles = [p.title for p in parts if isinstance(p, (TablePart, TextPart))]
    assert titles, "show prints no section of the model"
    for expected in [*titles, *SHOWN.get(spec.kind, lambda _: [])(model)]:
        assert expected in shown, expected
    if "(intercept)" in shown:
        assert "column_index" not in shown and "log_prior" not in shown


def test_demo_runs_end_to_end(tmp_path, capsys):
    db = str(tmp_path / "demo.duckdb")
    assert main(["demo", "--db", db, "--rows", "5000"]) == 0
    out = capsys.readouterr().out
    assert "naive_bayes" in out and "accuracy on new_customers" in out
    con = duckdb.connect(db)
    assert set(wml.list_models(con)["name"].to_pylist()) >= {"demo_naive_bayes"}
    assert con.sql("SELECT count(*) FROM demo_naive_bayes_scores").fetchall() == [(1000,)]


def duckdb_cli_1_5() -> str:
    """The ``duckdb`` program of the ``duckdb-cli`` 1.5 package (a test extra), or a skip."""
    program = shutil.which("duckdb")
    if program is None:
        pytest.skip('no duckdb command line program: pip install -e ".[test]"')
    version = subprocess.run([program, "--version"], capture_output=True, text=True).stdout
    if not version.startswith("v1.5."):
        pytest.skip(f"the duckdb program on PATH is {version.strip()}, not the 1.5 of the extras")
    return program


def test_the_demos_follow_up_command_needs_only_what_the_install_provides(tmp_path, capsys):
    """The command the demo prints last runs verbatim in a shell whose PATH holds only
    ``python`` (the interpreter warehouse-ml is installed in: no ``duckdb`` program) and
    reads the view the demo made."""
    db = str(tmp_path / "it's a demo.duckdb")  # a quote and a space, quoted for the shell
    assert main(["demo", "--db", db, "--rows", "2000"]) == 0
    command = capsys.readouterr().out.strip().splitlines()[-1].strip()
    assert command.startswith("python -c ")
    path = tmp_path / "bin"
    path.mkdir()
    (path / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (path / "python").chmod(0o755)
    shown = subprocess.run(
        ["/bin/sh", "-c", command], env={"PATH": str(path)}, capture_output=True, text=True
    )
    assert shown.returncode == 0 and shown.stderr == "", shown.stderr
    assert "prediction" in shown.stdout
    counts = dict(duckdb.connect(db).sql(demo.FOLLOW_UP_QUERY).fetchall())
    assert sum(counts.values()) == 400
    assert all(f"{label}" in shown.stdout and f"{n}" in shown.stdout for label, n in counts.items())


def test_the_demos_database_opens_in_the_duckdb_cli_from_pypi(tmp_path):
    """The demo's database opens in DuckDB 1.5 (the CLI on PyPI) and reads its views."""
    program = duckdb_cli_1_5()
    db = str(tmp_path / "demo.duckdb")
    assert main(["demo", "--db", db, "--rows", "2000"]) == 0
    total = subprocess.run(
        [program, "-csv", "-noheader", db, "SELECT count(*) FROM demo_naive_bayes_scores"],
        capture_output=True,
        text=True,
    )
    assert total.stdout.strip() == "400"


def test_evaluate_report_and_tables(tmp_path, capsys):
    db = str(tmp_path / "w.duckdb")
    out = tmp_path / "report"
    args = ["evaluate", TENNIS, "--target", "play", "--keys", "day", "--folds", "7", "--db", db]
    assert main([*args, "--output-dir", str(out), "--format", "parquet"]) == 0
    report = capsys.readouterr().out
    for heading in (
        "confusion matrix",
        "accuracy",
        "per class",
        "AUC",
        "lift by decile",
        "log score",
        "Brier",
    ):
        assert heading in report
    written = {p.name for p in out.iterdir()}
    assert {"predictions.parquet", "confusion.parquet", "lift.parquet", "roc.parquet"} <= written
    assert pq.read_table(out / "predictions.parquet").num_rows == 14
    assert (
        main(["train", TENNIS, "--target", "play", "--keys", "day", "--db", db, "--name", "t"]) == 0
    )
    assert main(["evaluate", TENNIS, "--model", "t", "--keys", "day", "--db", db]) == 0
    assert "model 't' on hold-out" in capsys.readouterr().out


def test_explain_prints_writes_and_creates_views(tmp_path, capsys):
    db = str(tmp_path / "w.duckdb")
    main(["train", TENNIS, "--target", "play", "--keys", "day", "--db", db, "--name", "t"])
    capsys.readouterr()
    assert main(["explain", "t", TENNIS, "--keys", "day", "--top", "2", "--db", db]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].split() == ["day", "class", "against", "attribute", "value", "parent",
                                  "parent_value", "evidence", "rank"]  # fmt: skip
    out = tmp_path / "why.parquet"
    args = ["--keys", "day", "--against", "yes", "--db", db]
    assert main(["explain", "t", TENNIS, "--output", str(out), *args]) == 0
    con = duckdb.connect(db)
    model = wml.load(con, "t")
    want = model.explain(con, TENNIS, keys=["day"], against="yes")
    assert pq.read_table(out).to_pylist() == want.to_pylist()
    con.close()
    view = ["--to-view", "why", "--top", "1", "--form", "wide", "--every-class"]
    assert main(["explain", "t", TENNIS, "--keys", "day", *view, "--db", db]) == 0
    con = duckdb.connect(db)
    rows = con.sql("SELECT day, class, against, reason_1 FROM why ORDER BY day").fetchall()
    assert len(rows) == 14 and all(r[1] != r[2] for r in rows)
    con.close()
    assert main(["explain", "t", TENNIS, "--against", "maybe", "--db", db]) == 1
    assert "not a class of model 't'" in capsys.readouterr().err


def test_rank_before_a_fit_and_a_models_ranking(tmp_path, capsys):
    db = str(tmp_path / "w.duckdb")
    assert main(["rank", TENNIS, "--target", "play", "--keys", "day", "--db", db]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].split() == ["attribute", "treatment", "n", "mi", "rank"]
    con = duckdb.connect(db)
    want = wml.rank_attributes(con, TENNIS, "play", keys=["day"])
    con.close()
    assert [line.split()[0] for line in printed[1:5]] == want.column("attribute").to_pylist()
    out = tmp_path / "pairs.csv"
    args = ["--target", "play", "--keys", "day", "--pairs", "--output", str(out), "--db", db]
    assert main(["rank", TENNIS, *args]) == 0
    assert len(out.read_text().splitlines()) == 1 + 6  # header and the 4 attributes' pairs
    main(["train", TENNIS, "--target", "play", "--keys", "day", "--db", db, "--name", "t"])
    capsys.readouterr()
    assert main(["rank", "--model", "t", TENNIS, "--db", db]) == 0
    header = capsys.readouterr().out.splitlines()[0].split()
    assert header[-3:] == ["cmi_parent", "mean_abs_evidence", "rank"]
    assert main(["rank", TENNIS, "--db", db]) == 1
    assert "rank needs SOURCE and --target" in capsys.readouterr().err
    assert main(["evaluate", TENNIS, "--target", "play", "--keys", "day", "--folds", "3",
                 "--features", "top:2", "--db", db]) == 0  # fmt: skip


def test_drift_prints_writes_and_creates_a_view(tmp_path, capsys):
    db = str(tmp_path / "w.duckdb")
    main(["train", TENNIS, "--target", "play", "--keys", "day", "--db", db, "--name", "t"])
    capsys.readouterr()
    assert main(["drift", "t", TENNIS, "--db", db]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].split()[:3] == ["kind", "attribute", "treatment"]
    assert [line.split()[:2] for line in printed[1:7]] == [
        ["attribute", "outlook"], ["attribute", "temperature"], ["attribute", "humidity"],
        ["attribute", "wind"], ["class", "play"], ["prediction", "play"],
    ]  # fmt: skip
    out = tmp_path / "drift.parquet"
    assert main(["drift", "t", TENNIS, "--output", str(out), "--db", db]) == 0
    con = duckdb.connect(db)
    want = wml.load(con, "t").drift(con, TENNIS)
    assert pq.read_table(out).equals(want)
    assert want.column("psi").to_pylist()[:5] == pytest.approx([0.0] * 5, abs=1e-15)
    con.close()
    assert main(["drift", "t", TENNIS, "--to-view", "tennis_drift", "--db", db]) == 0
    assert "created view main.tennis_drift" in capsys.readouterr().out
    con = duckdb.connect(db)
    assert con.execute("SELECT COUNT(*) FROM tennis_drift").fetchone()[0] == 6
    con.close()


def test_update_adds_a_batch_once(tmp_path, capsys):
    db = str(tmp_path / "w.duckdb")
    main(["train", TENNIS, "--target", "play", "--keys", "day", "--db", db, "--name", "t"])
    capsys.readouterr()
    assert main(["update", "t", TENNIS, "--batch-id", "again", "--db", db]) == 0
    assert "updated 't' with batch 'again': 14 rows added" in capsys.readouterr().out
    assert main(["update", "t", TENNIS, "--batch-id", "again", "--db", db]) == 1
    assert "'again' has already been applied" in capsys.readouterr().err
    con = duckdb.connect(db)
    model = wml.load(con, "t")
    assert model.n_rows_ == 28 and [b["batch_id"] for b in model.batches_] == ["again"]
    con.close()


def test_train_and_evaluate_with_weights(tmp_path, capsys):
    db = str(tmp_path / "w.duckdb")
    args = ["--target", "play", "--keys", "day", "--db", db, "--name", "t"]
    assert (
        main(["train", TENNIS, *args, "--class-weight", '{"yes": 2}', "--sample-weight", "day"])
        == 0
    )
    con = duckdb.connect(db)
    model = wml.load(con, "t")
    want = wml.NaiveBayes(class_weight={"yes": 2}).fit(
        con, TENNIS, "play", keys=["day"], sample_weight="day", name="oracle"
    )
    assert model.predict_proba(con, TENNIS).equals(want.predict_proba(con, TENNIS))
    assert model.record.state.weighting.to_json() == {
        "sample_weight": "day",
        "class_weights": {"yes": 2.0},
    }
    con.close()
    capsys.readouterr()
    assert main(["evaluate", TENNIS, "--target", "play", "--keys", "day", "--folds", "3",
                 "--class-weight", "balanced", "--db", db]) == 0  # fmt: skip
    assert "accuracy" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        main(["train", TENNIS, *args, "--class-weight", "even"])
    assert exit_info.value.code == 2
    assert "expected 'balanced' or a JSON object" in capsys.readouterr().err


def test_evaluate_writes_a_report(tmp_path, capsys):
    db = str(tmp_path / "w.duckdb")
    page = tmp_path / "report.html"
    args = ["--target", "play", "--keys", "day", "--folds", "3", "--report", str(page)]
    assert main(["evaluate", TENNIS, *args, "--loss", "[[0, 1], [5, 0]]", "--db", db]) == 0
    printed = capsys.readouterr().out
    assert f"wrote the report to {page}" in printed and "== expected loss" in printed
    text = page.read_text()
    assert "3-fold cross-validation of naive_bayes" in text and text.count("<svg") == 5
    main(["train", TENNIS, "--target", "play", "--keys", "day", "--db", db, "--name", "t"])
    held = ["evaluate", TENNIS, "--model", "t", "--keys", "day", "--report", str(page)]
    assert main([*held, "--db", db]) == 0
    assert "<h2>Model</h2>" in page.read_text()
