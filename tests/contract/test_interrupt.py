"""Progress reporting and interrupts (issue 6 item 5b, 5c).

* Progress: every statement of an operation is announced once, numbered, before it runs; nested
  operations report under the outermost one; the CLI shows progress on stderr only when asked
  (or on a terminal).
* Interrupts leave the catalog consistent: a ``KeyboardInterrupt`` raised from the progress
  callback before EACH statement of a Naive Bayes and a TAN re-fit, a real
  ``connection.interrupt()`` from another thread in the middle of a statement, and SIGINT sent to
  a CLI process. Each time the old model still loads with the same catalog row, scores
  identically, its view is unchanged, no table was added or left behind, and user tables are
  unchanged.
"""

from __future__ import annotations

import io
import itertools
import os
import signal
import subprocess
import sys
import threading

import duckdb
import pytest
from conftest import REPO
from guest_checks import big_table, make_data, objects, temporary_tables, user_checksums

import warehouse_ml as wml
from warehouse_ml.cli import ProgressDisplay
from warehouse_ml.engines import DuckDBWarehouse
from warehouse_ml.progress import Progress

KINDS = [wml.NaiveBayes, wml.TAN]


def snapshot(con: duckdb.DuckDBPyConnection, scored: str = "sales.customers") -> tuple:
    """Everything an interrupted re-fit of model ``m`` must leave as it was."""
    model = wml.load(con, "m")
    return (
        *light_snapshot(con),
        user_checksums(con),
        model.predict_proba(con, scored),
    )


def light_snapshot(con: duckdb.DuckDBPyConnection) -> tuple:
    """Tables and views (with definitions), the catalog row of ``m`` and its view's rows: what
    a re-fit cancelled before one statement must leave as it was (checked at every statement;
    the full :func:`snapshot` after the last)."""
    return (
        objects(con),
        wml.load(con, "m").record,
        con.sql("SELECT * FROM scores ORDER BY ALL").fetchall(),
    )


def old_model(
    con: duckdb.DuckDBPyConnection,
    kind: type,
    source: str = "sales.customers",
    scored: str = "sales.customers",
) -> wml.models.base.Classifier:
    """Fit model ``m`` (default settings) on ``source``, with a registered view ``scores`` of
    ``scored``; returns it."""
    model = kind().fit(con, source, "cls", keys=["id"], name="m")
    model.create_view(con, "scores", scored, keys=["id"])
    return model


# -- progress -----------------------------------------------------------------------------------
def test_fit_announces_every_statement_once_before_it_runs(con):
    make_data(con)
    old_model(con, wml.TAN)
    reports: list[Progress] = []
    executed: list[str] = []
    start: list[int] = []  # statements before the operation began: the connection's checks

    def progress(report: Progress) -> None:
        reports.append(report)
        if report.statement == 1:
            start.append(len(executed))
        assert len(executed) == start[0] + report.statement - 1  # announced before it runs

    warehouse = DuckDBWarehouse(con, on_sql=executed.append)
    model = wml.TAN(alpha=2.0).fit(
        warehouse, "sales.customers", "cls", keys=["id"], name="m", progress=progress
    )
    model.create_view(con, "other_scores", "sales.customers", keys=["id"])
    assert start == [2]  # the connection's state, read before anything runs
    assert len(reports) == len(executed) - start[0] > 20  # one report per engine statement
    assert [r.statement for r in reports] == list(range(1, len(reports) + 1))
    assert {r.operation for r in reports} == {"fit"}
    assert all(a.elapsed <= b.elapsed for a, b in itertools.pairwise(reports))
    phases = [r.phase for r in reports]
    # every parameter table of the new model was announced by the statement creating it ...
    created = {p.rsplit(" ", 1)[-1] for p in phases if p.startswith("create")}
    prefix = f"wml.{model.record.model_id}_"
    tables = {str(model.record.table(part)) for part in model.record.parts}
    assert {t for t in created if t.startswith(prefix)} == tables
    # ... and the publishing transaction rebuilt the view and dropped the old tables
    assert "drop_view main.scores" in phases and "delete_rows_where wml.models" in phases


def test_nested_operations_report_under_the_outermost(con):
    make_data(con)
    reports: list[Progress] = []
    wml.select_model(
        con, "sales.customers", "cls", [wml.NaiveBayes(), wml.TAN()], folds=3, key="id",
        name="chosen", progress=reports.append,
    )  # fmt: skip
    assert {r.operation for r in reports} == {"select_model"}  # its CVs and fit included
    assert [r.statement for r in reports] == list(range(1, len(reports) + 1))
    # class tables: one for all Naive Bayes folds, 3 TAN folds, the final fit of the chosen model
    assert sum(r.phase.startswith("create_nb_classes") for r in reports) == 1 + 3 + 1

    cv: list[Progress] = []
    wml.cross_validate(
        con, "sales.customers", "cls", wml.NaiveBayes(), folds=4, key="id", progress=cv.append
    )
    assert {r.operation for r in cv} == {"cross_validate"} and cv[-1].statement == len(cv)
    scored: list[Progress] = []
    wml.load(con, "chosen").create_table(con, "out", "sales.customers", progress=scored.append)
    assert [r.operation for r in scored][-1] == "create_table"
    assert scored[-1].phase == "create table main.out"


def test_progress_display_lines_and_live_line():
    report = Progress("train", 3, "create_pair_counts wml.m1_pair_counts", 1.25)
    lines = io.StringIO()
    display = ProgressDisplay(lines, live=False)
    display(report)
    display.close()
    assert lines.getvalue() == (
        "warehouse-ml train: 1.2 s, statement 3: create_pair_counts wml.m1_pair_counts\n"
    )
    terminal = io.StringIO()
    display = ProgressDisplay(terminal, live=True, refresh=0.01)
    display(report)
    display.close()
    text = terminal.getvalue()
    assert text.startswith("\r\033[Kwarehouse-ml train: ") and text.endswith("\r\033[K")
    assert "\n" not in text  # redrawn in place, then cleared


def test_cli_progress_goes_to_stderr_only_when_asked(tmp_path, capsys):
    from conftest import FIXTURES

    from warehouse_ml.cli import main

    db, tennis = str(tmp_path / "w.duckdb"), str(FIXTURES / "play_tennis.csv")
    assert main(["train", tennis, "--target", "play", "--keys", "day", "--db", db]) == 0
    quiet = capsys.readouterr()
    assert quiet.err == ""  # stderr is not a terminal here: no progress by default
    args = ["train", tennis, "--target", "play", "--kind", "tan", "--db", db, "--progress"]
    assert main(args) == 0
    shown = capsys.readouterr()
    assert shown.out.startswith("trained tan model") and "statement" not in shown.out
    lines = shown.err.splitlines()
    assert lines[0].startswith("warehouse-ml train: ") and "statement 1: " in lines[0]
    assert any("create_pair_counts" in line for line in lines)


# -- interrupts ---------------------------------------------------------------------------------
class Cancel:
    """A progress callback raising KeyboardInterrupt before statement ``at`` (1-based)."""

    def __init__(self, at: int) -> None:
        self.at = at
        self.calls = 0

    def __call__(self, report: Progress) -> None:
        self.calls += 1
        if report.statement == self.at:
            raise KeyboardInterrupt(f"cancelled before {report.phase}")


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_keyboard_interrupt_before_each_statement_keeps_the_old_model(con, kind):
    make_data(con)
    old_model(con, kind)
    counter = Cancel(0)  # count the statements of a re-fit of m (with its view)
    kind().fit(con, "sales.customers", "cls", keys=["id"], name="m", progress=counter)
    n = counter.calls
    assert n >= 20
    before, light = snapshot(con), light_snapshot(con)
    for at in range(1, n + 1):
        cancel = Cancel(at)
        with pytest.raises(KeyboardInterrupt):
            kind(alpha=3.0).fit(
                con, "sales.customers", "cls", keys=["id"], name="m", progress=cancel
            )
        assert cancel.calls == at  # the clean-up after the interrupt is not reported
        assert light_snapshot(con) == light, f"interrupted before statement {at}"
    assert snapshot(con) == before
    kind(alpha=3.0).fit(con, "sales.customers", "cls", keys=["id"], name="m")  # still works
    assert wml.load(con, "m").alpha == 3.0


def test_connection_interrupt_from_another_thread_keeps_the_old_model(con):
    source = big_table(con, 300_000)
    old_model(con, wml.TAN, source, "few")
    before = snapshot(con, "few")
    lock = threading.Lock()
    running = {"statement": False, "done": False}
    hits: list[str] = []

    def interrupter() -> None:
        while not running["done"]:
            with lock:  # never interrupts a statement after the targeted one (the clean-up)
                if running["statement"]:
                    con.interrupt()
                    hits.append("sent")

    def progress(report: Progress) -> None:
        with lock:
            running["statement"] = report.phase.startswith("create_pair_counts")

    thread = threading.Thread(target=interrupter)
    thread.start()
    try:
        with pytest.raises(duckdb.InterruptException):
            wml.TAN(alpha=3.0).fit(con, source, "cls", keys=["id"], name="m", progress=progress)
    finally:
        running["done"] = True
        thread.join()
    assert hits  # the interrupt was sent while the pair-count statement ran
    assert snapshot(con, "few") == before


def test_sigint_during_a_duckdb_statement_is_keyboard_interrupt(tmp_path):
    """DuckDB's client turns SIGINT during a statement into RuntimeError('Query interrupted')
    (noticed between its execution tasks, here at the end of the statement); the adapter
    restores KeyboardInterrupt."""
    script = (
        "import os, signal, sys, threading, time, duckdb\n"
        "import sqlglot\n"
        "from warehouse_ml.engines import DuckDBWarehouse\n"
        "warehouse = DuckDBWarehouse(duckdb.connect())\n"
        "started = threading.Event()\n"
        "def sigint():\n"
        "    started.wait(); time.sleep(0.05); os.kill(os.getpid(), signal.SIGINT)\n"
        "threading.Thread(target=sigint, daemon=True).start()\n"
        "warehouse._announce = lambda tree, template: started.set()\n"
        "long = sqlglot.parse_one('SELECT sum(length(md5(CAST(i AS VARCHAR)))) AS n "
        "FROM range(4000000) AS r(i)', read='duckdb')\n"
        "try:\n"
        "    warehouse.fetch_tree(long)\n"
        "    print('finished')\n"
        "except KeyboardInterrupt as error:\n"
        "    print(type(error.__cause__).__name__, error.__cause__)\n"
    )
    result = run_python(["-c", script], timeout=60)
    assert result.stdout.strip() == "RuntimeError Query interrupted"


def run_python(args: list[str], **options) -> subprocess.CompletedProcess:
    """Run this Python with SIGINT at its default (a parent shell may ignore it, and Python
    then would not turn SIGINT into KeyboardInterrupt)."""
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, check=False,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), **options,
    )  # fmt: skip


def test_sigint_to_the_cli_during_a_refit_keeps_the_old_model(tmp_path):
    db = str(tmp_path / "w.duckdb")
    con = duckdb.connect(db)
    source = big_table(con, 300_000)
    old_model(con, wml.TAN, source, "few")
    before = snapshot(con, "few")
    con.close()
    command = [
        sys.executable, "-m", "warehouse_ml.cli", "train", source, "--target", "cls",
        "--keys", "id", "--kind", "tan", "--alpha", "3", "--name", "m", "--replace", "--db", db,
        "--progress",
    ]  # fmt: skip
    child = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=REPO,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    seen = []
    for line in child.stderr:  # progress lines: wait for the pair-count statement
        seen.append(line)
        if "create_pair_counts" in line:
            os.kill(child.pid, signal.SIGINT)
            break
    out, err = child.communicate(timeout=120)
    assert child.returncode == 130, (seen, out, err)
    assert "interrupted; the model catalog is as it was" in err
    assert out == ""
    con = duckdb.connect(db)
    try:
        assert snapshot(con, "few") == before
    finally:
        con.close()


def test_a_second_interrupt_during_the_clean_up_still_drops_every_new_table(con, monkeypatch):
    """Ctrl-C pressed twice: the first cancels the publishing transaction, the second lands on
    the first drop of the clean-up; that drop is tried again and the others still run."""
    make_data(con)
    old_model(con, wml.TAN)
    before = snapshot(con)
    armed = {"drop": False}
    execute = DuckDBWarehouse._execute

    def second_interrupt(self, sql):
        if armed["drop"] and sql.startswith("DROP TABLE"):
            armed["drop"] = False
            raise KeyboardInterrupt("second Ctrl-C")
        return execute(self, sql)

    def progress(report: Progress) -> None:
        if report.phase == "delete_rows_where wml.models":  # inside the transaction
            armed["drop"] = True
            raise KeyboardInterrupt("first Ctrl-C")

    monkeypatch.setattr(DuckDBWarehouse, "_execute", second_interrupt)
    with pytest.raises(KeyboardInterrupt, match="first"):
        wml.TAN(alpha=3.0).fit(
            con, "sales.customers", "cls", keys=["id"], name="m", progress=progress
        )
    assert not armed["drop"]  # the second interrupt did happen
    monkeypatch.undo()
    assert snapshot(con) == before


def statements_of(run) -> list[Progress]:
    """The progress reports of ``run(progress)``, a successful operation."""
    reports: list[Progress] = []
    run(reports.append)
    return reports


def test_cancelled_cross_validation_leaves_no_table(con):
    make_data(con)
    old_model(con, wml.NaiveBayes)
    before = objects(con)

    def cross_validate(progress):
        return wml.cross_validate(
            con, "sales.customers", "cls", wml.NaiveBayes(), folds=2, key="id", progress=progress
        )

    reports: list[Progress] = []
    cross_validate(reports.append).drop()  # the evaluation's own (temporary) table goes
    assert objects(con) == before and temporary_tables(con) == set()
    # statements up to the one writing the pooled predictions (the clean-up follows it)
    last = next(r.statement for r in reports if "_predictions_" in r.phase)
    left = {}
    for at in range(1, last + 1):
        with pytest.raises(KeyboardInterrupt):
            cross_validate(Cancel(at))
        added = objects(con) - before
        if added or temporary_tables(con):
            left[at] = sorted(name for _, name, *_ in added) + sorted(temporary_tables(con))
    assert left == {}
