"""The command line never surprises: kinds in any case, the Python API's defaults, usage errors
with exit status 2, warnings and errors in the CLI's own spelling, no database file created by a
command that only reads, quiet on a closed pipe, help text on every option."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from conftest import FIXTURES

import warehouse_ml as wml
from warehouse_ml.cli import build_parser, main
from warehouse_ml.cli.main import cli_spelling

TENNIS = str(FIXTURES / "play_tennis.csv")


@pytest.mark.parametrize("spelling", ["TAN", "tan", "Tan"])
def test_kind_is_case_insensitive_and_defaults_are_the_python_apis(tmp_path, capsys, spelling):
    db = str(tmp_path / "w.duckdb")
    command = ["train", TENNIS, "--target", "play", "--keys", "day", "--db", db, "--name", "t"]
    assert main([*command, "--kind", spelling]) == 0
    assert "trained tan model 't'" in capsys.readouterr().out
    con = duckdb.connect(db)
    stored = wml.load(con, "t")
    python = wml.TAN().fit(con, TENNIS, "play", keys=["day"], name="python")
    assert stored.record.smoothing == python.record.smoothing
    assert stored.record.smoothing["alpha"] == 0.5 and stored.record.smoothing["prior_alpha"] == 0.5


def test_options_override_the_defaults(tmp_path):
    db = str(tmp_path / "w.duckdb")
    assert main(["train", TENNIS, "--target", "play", "--keys", "day", "--db", db, "--name", "t",
                 "--kind", "tan", "--alpha", "1", "--prior-alpha", "0", "--bins", "3"]) == 0  # fmt: skip
    smoothing = wml.load(duckdb.connect(db), "t").record.smoothing
    assert (smoothing["alpha"], smoothing["prior_alpha"], smoothing["bins"]) == (1.0, 0.0, 3)


def test_an_unknown_kind_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["train", TENNIS, "--target", "play", "--kind", "forest", "--db", str(tmp_path / "w")])
    assert exit_info.value.code == 2
    assert "unknown model kind 'forest'; expected one of nb, naive_bayes, tan" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize(
    "command",
    [
        ["models"],
        ["show", "m"],
        ["sql", "m", "t"],
        ["predict", "m", "t"],
        ["drop", "m"],
        ["vacuum"],
        ["evaluations"],
        ["evaluate", "t", "--model", "m"],
    ],
    ids=lambda c: c[0] + ("_model" if "--model" in c else ""),
)
def test_a_command_that_only_reads_creates_no_database_file(tmp_path, capsys, command):
    db = tmp_path / "nothing_here.duckdb"
    assert main([*command, "--db", str(db)]) == 1
    assert "no DuckDB database" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_warnings_are_one_line_in_the_clis_spelling(tmp_path, capsys):
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    con.execute(
        "CREATE TABLE z AS SELECT CAST(i % 1500 AS VARCHAR) AS zip, "
        "CASE WHEN i % 3 = 0 THEN 'a' ELSE 'b' END AS y FROM range(6000) t(i)"
    )
    con.close()
    assert main(["train", "z", "--target", "y", "--db", str(tmp_path / "w.duckdb")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("warning: categorical column 'zip' of z has 1500")
    assert "Warning" not in err[0] and ".py:" not in err[0]


def test_errors_suggest_cli_options_not_python_arguments(tmp_path, capsys):
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    con.execute(
        "CREATE TABLE ids AS SELECT 'c' || CAST(i AS VARCHAR) AS id, i % 2 AS y FROM range(2000) t(i)"
    )
    con.close()
    assert main(["train", "ids", "--target", "y", "--db", str(tmp_path / "w.duckdb")]) == 1
    err = capsys.readouterr().err
    assert "--keys id" in err and "--allow-high-cardinality" in err
    assert "allow_high_cardinality=True" not in err and "keys=[" not in err


def test_cli_spelling_of_python_arguments():
    assert cli_spelling("leave it out (keys=['id'] or features=[...])") == (
        "leave it out (--keys id or --features ...)"
    )
    assert cli_spelling("or pass allow_high_cardinality=True") == "or pass --allow-high-cardinality"
    assert cli_spelling("declare it categorical=['a', 'b']") == "declare it --categorical a,b"


def test_a_closed_pipe_ends_the_command_quietly(tmp_path):
    db = str(tmp_path / "w.duckdb")
    assert (
        main(["train", TENNIS, "--target", "play", "--keys", "day", "--db", db, "--name", "t"]) == 0
    )
    command = [sys.executable, "-m", "warehouse_ml.cli", "show", "t", "--rows", "1000", "--db", db]
    shown = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    shown.stdout.readline()
    shown.stdout.close()  # as `| head -1` does
    shown.wait(timeout=60)
    assert shown.stderr.read() == b""
    assert shown.returncode == 141


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_option_and_argument_has_help_text():
    missing = [
        f"{name} {action.dest}"
        for name, sub in _subcommands(build_parser()).items()
        for action in sub._actions
        if not isinstance(action, argparse._HelpAction) and not action.help
    ]
    assert missing == []


def test_read_only_commands_read_an_existing_database(tmp_path, capsys):
    db = tmp_path / "w.duckdb"
    assert main(["train", TENNIS, "--target", "play", "--keys", "day", "--db", str(db)]) == 0
    assert main(["models", "--db", str(db)]) == 0
    assert "naive_bayes_play" in capsys.readouterr().out
    assert Path(db).exists()


def test_evaluate_a_stored_model_without_keys(tmp_path, capsys):
    db = str(tmp_path / "w.duckdb")
    assert (
        main(["train", TENNIS, "--target", "play", "--keys", "day", "--db", db, "--name", "t"]) == 0
    )
    out_dir = tmp_path / "tables"
    assert main(["evaluate", TENNIS, "--model", "t", "--db", db, "--output-dir", str(out_dir)]) == 0
    assert "model 't' on hold-out" in capsys.readouterr().out
    predictions = duckdb.sql(f"SELECT * FROM '{out_dir / 'predictions.csv'}'").fetchall()
    assert len(predictions) == 14


def test_keys_has_one_spelling_on_every_command(tmp_path, capsys):
    spellings = {
        name: {o for a in sub._actions if a.help != argparse.SUPPRESS for o in a.option_strings}
        for name, sub in _subcommands(build_parser()).items()
    }
    assert not any("--key" in options for options in spellings.values())
    assert {name for name, options in spellings.items() if "--keys" in options} >= {
        "train", "predict", "sql", "evaluate",
    }  # fmt: skip
    db = str(tmp_path / "w.duckdb")
    cv = ["evaluate", TENNIS, "--target", "play", "--folds", "3", "--db", db]
    with pytest.raises(SystemExit) as usage:
        main([*cv, "--keys", "day,outlook"])
    assert usage.value.code == 2
    assert "cross-validation takes one key column" in capsys.readouterr().err
    assert main([*cv, "--keys", "day"]) == 0
    by_keys = capsys.readouterr().out
    assert main([*cv, "--key", "day"]) == 0  # the former spelling still runs, unadvertised
    assert capsys.readouterr().out == by_keys


def test_a_view_onto_a_users_table_is_refused_with_a_clear_message(tmp_path, capsys):
    db = str(tmp_path / "w.duckdb")
    assert (
        main(["train", TENNIS, "--target", "play", "--keys", "day", "--db", db, "--name", "t"]) == 0
    )
    con = duckdb.connect(db)
    con.execute("CREATE TABLE t1 AS SELECT 1 AS a")
    con.close()
    capsys.readouterr()
    assert main(["predict", "t", TENNIS, "--to-view", "t1", "--keys", "day", "--db", db]) == 1
    err = capsys.readouterr().err
    assert err.startswith("warehouse-ml predict: error: table main.t1 already exists and was not")
    assert "choose another name for the view" in err and "Catalog Error" not in err
    assert duckdb.connect(db).sql("SELECT * FROM t1").fetchall() == [(1,)]


def test_train_refuses_to_replace_a_model_of_another_source_without_replace(tmp_path, capsys):
    db = str(tmp_path / "w.duckdb")
    first, second = tmp_path / "mushroom.csv", tmp_path / "chess.csv"
    first.write_text("odor,class\nalmond,e\nfoul,p\nnone,e\nfoul,p\n")
    second.write_text("bkblk,class\nf,won\nt,nowin\nf,won\n")
    assert main(["train", str(first), "--target", "class", "--db", db]) == 0
    capsys.readouterr()
    assert main(["train", str(second), "--target", "class", "--db", db]) == 1
    err = capsys.readouterr().err
    assert err.startswith("warehouse-ml train: error: model 'naive_bayes_class' already exists")
    assert str(first) in err and "--replace" in err and "--name" in err
    con = duckdb.connect(db)
    assert wml.load(con, "naive_bayes_class").record.source == str(first)
    con.close()
    assert main(["train", str(second), "--target", "class", "--db", db, "--name", "chess"]) == 0
    assert main(["train", str(second), "--target", "class", "--db", db, "--replace"]) == 0
    con = duckdb.connect(db)
    assert wml.load(con, "naive_bayes_class").record.source == str(second)
    assert wml.load(con, "chess").classes_ == ["nowin", "won"]
    con.close()


HOLD_READ_ONLY = (
    "import sys, duckdb; con = duckdb.connect(sys.argv[1], read_only=True); "
    "print('open', flush=True); sys.stdin.read()"
)
"""A Python program keeping a DuckDB file open read-only until its stdin closes."""


def test_read_only_commands_run_while_another_process_holds_the_database(tmp_path, capsys):
    db = str(tmp_path / "w.duckdb")
    assert (
        main(["train", TENNIS, "--target", "play", "--keys", "day", "--db", db, "--name", "t"]) == 0
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_READ_ONLY, db], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert holder.stdout.readline() == b"open\n"
        capsys.readouterr()
        assert main(["models", "--db", db]) == 1  # a read-write open needs the file to itself
        assert "lock" in capsys.readouterr().err
        reading = [
            ["models"], ["show", "t"], ["export", "t", "--source", "x"], ["sql", "t", "x"],
            ["predict", "t", TENNIS, "--keys", "day"],
            ["predict", "t", TENNIS, "--output", str(tmp_path / "p.csv")],
            ["explain", "t", TENNIS, "--top", "1"], ["rank", TENNIS, "--target", "play"],
            ["drift", "t", TENNIS], ["evaluate", TENNIS, "--model", "t"],
            ["evaluate", TENNIS, "--target", "play", "--folds", "3"], ["evaluations"],
        ]  # fmt: skip
        for command in reading:
            assert main([*command, "--db", db, "--read-only"]) == 0, command
        assert "naive_bayes" in capsys.readouterr().out
    finally:
        holder.communicate(timeout=60)
    assert (tmp_path / "p.csv").read_text().count("\n") == 15


@pytest.mark.parametrize(
    "command",
    [
        ["train", TENNIS, "--target", "play"], ["update", "t", TENNIS, "--batch-id", "b"],
        ["drop", "t"], ["vacuum"], ["demo"], ["predict", "t", TENNIS, "--to-view", "v"],
        ["predict", "t", TENNIS, "--to-table", "v"], ["explain", "t", TENNIS, "--to-view", "v"],
        ["drift", "t", TENNIS, "--to-view", "v"], ["evaluate", TENNIS, "--target", "play", "--keep"],
        ["evaluations", "--drop", "cv1"],
    ],
    ids=lambda c: "_".join(w.strip("-") for w in c if w.startswith("--") or w == c[0]),
)  # fmt: skip
def test_a_command_that_writes_refuses_read_only_as_a_usage_error(tmp_path, capsys, command):
    with pytest.raises(SystemExit) as usage:
        main([*command, "--db", str(tmp_path / "w.duckdb"), "--read-only"])
    assert usage.value.code == 2
    assert "writes to the database; --read-only is for the commands that only read" in (
        capsys.readouterr().err
    )
    assert list(tmp_path.iterdir()) == []
