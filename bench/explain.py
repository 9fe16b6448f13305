"""Explanations against predictions: what an explanation costs relative to the predictions of
the same model and rows, measured in the same run, on DuckDB and PostgreSQL.

Run: ``python bench/explain.py [--rows 1000000] [--attributes 20] [--repeat 2]
[--sections views,wide,postgres]``.

Each section runs in a fresh subprocess, so the peak memory it prints (the process's maximum
resident set, DuckDB included; PostgreSQL's server is a process of its own) is its own:

* ``views``: ``synthetic.tan_data`` (string attributes, 3 classes, ``--rows`` x
  ``--attributes``) in an in-memory DuckDB table. For Naive Bayes and TAN: ``SELECT * FROM
  view`` read into Arrow, for the prediction view (keys: the id), the long explanation view
  with ``top=3`` (a prior row and three ranked attributes per source row, so four times the
  rows) and the wide one (reason codes, one row per source row); the best of ``--repeat``
  runs of each, and each explanation's time over the prediction's.
* ``wide``: a wide model on DuckDB (Naive Bayes, ``--wide-attributes`` x ``--wide-classes``,
  ``--wide-rows`` rows): ``explain`` (long, every rank) against ``predict_proba`` of the same
  rows, the first call of each (each builds its statement) and a second one, and the length of
  the explanation's statement.
* ``postgres``: a throw-away PostgreSQL cluster (``tests/engine_support.py``: initdb and pg_ctl
  on 127.0.0.1, stopped at the end; the section is skipped without the server binaries or
  psycopg): TAN on ``--pg-rows`` x ``--pg-attributes`` (``--pg-classes`` classes): ``explain``
  (long, every rank; long, top 3; wide, top 3) against ``predict_proba`` of the same rows,
  and a one-row read of an explanation view by its key, first and second calls; the same
  figures on DuckDB beside them; then PostgreSQL's own planning and execution times of each
  statement (``EXPLAIN (ANALYZE, SUMMARY)``, the best of ``--repeat``), which a loaded
  machine disturbs less than wall time. ``--pg-classes 8`` shows the planning of many classes.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
SECTIONS = ("views", "wide", "postgres")


def peak_mb() -> float:
    """Peak resident set size of this process so far, MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds of one call, and its result."""
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def table_of(con: Any, rows: int, attributes: int, classes: int) -> None:
    """Table ``t``: an ``id`` (1..rows) and ``synthetic.tan_data``'s string columns."""
    from warehouse_ml import synthetic

    data = synthetic.tan_data(rows, attributes, n_classes=classes, strings=True, seed=1)
    con.register("data", data)
    con.execute("CREATE TABLE t AS SELECT row_number() OVER () AS id, * FROM data")
    con.unregister("data")


# -- sections, each run in its own process -------------------------------------------------------
def section_views(args: argparse.Namespace) -> None:
    import duckdb

    import warehouse_ml as wml

    def read(view: str) -> tuple[float, int]:
        """Best time of reading ``view`` into Arrow, and its rows."""
        best, rows = float("inf"), 0
        for _ in range(args.repeat):
            seconds, table = timed(lambda: con.sql(f'SELECT * FROM "{view}"').to_arrow_table())
            best, rows = min(best, seconds), table.num_rows
        return best, rows

    con = duckdb.connect()
    table_of(con, args.rows, args.attributes, 3)
    print(f"views: {args.rows:,} rows x {args.attributes} string attributes, 3 classes (DuckDB)")
    print(f"{'model':6} {'view':12} {'seconds':>8} {'rows':>10} {'ratio':>6}")
    for kind in (wml.NaiveBayes, wml.TAN):
        model = kind().fit(con, "t", "class", keys=["id"], name=kind.kind)
        model.create_view(con, f"{kind.kind}_p", "t", keys=["id"])
        model.create_explanation_view(con, f"{kind.kind}_e", "t", keys=["id"], top=3)
        model.create_explanation_view(con, f"{kind.kind}_w", "t", keys=["id"], top=3, form="wide")
        predicted, n_predicted = read(f"{kind.kind}_p")
        print(f"{kind.kind[:6]:6} {'prediction':12} {predicted:8.3f} {n_predicted:10,}")
        for view, label in ((f"{kind.kind}_e", "long top 3"), (f"{kind.kind}_w", "wide top 3")):
            explained, n_explained = read(view)
            ratio = explained / predicted
            print(f"{kind.kind[:6]:6} {label:12} {explained:8.3f} {n_explained:10,} {ratio:5.2f}x")


def section_wide(args: argparse.Namespace) -> None:
    import duckdb

    import warehouse_ml as wml
    from warehouse_ml.engines import connect
    from warehouse_ml.engines.sources import open_source
    from warehouse_ml.models.inspection.evidence import Contrast
    from warehouse_ml.models.inspection.reasons import Layout

    a, k, n = args.wide_attributes, args.wide_classes, args.wide_rows
    con = duckdb.connect()
    table_of(con, n, a, k)
    model = wml.NaiveBayes().fit(con, "t", "class", keys=["id"], name="wide")
    print(f"wide: Naive Bayes, {a} attributes x {k} classes, {n} rows (DuckDB)")
    before = peak_mb()
    _compare(lambda: model.predict_proba(con, "t"), lambda: model.explain(con, "t", keys=["id"]))
    warehouse = connect(con)
    with open_source(warehouse, "t") as source:
        query = model.explanation_query(
            warehouse, model.record, source, keys=["id"], layout=Layout(),
            contrast=Contrast.make(model.classes_, None),
        )  # fmt: skip
        print(f"statement: {len(warehouse.generate(query)):,} characters")
    print(f"peak memory before the calls {before:.0f} MB")


def _compare(
    predict: Callable[[], Any], *explanations: Callable[[], Any], labels: tuple[str, ...] = ()
) -> None:
    """First and second call of ``predict`` and of each explanation, and their ratios."""
    print(f"{'call':22} {'first s':>8} {'again s':>8} {'rows':>8} {'x predict':>10}")
    (first, table), (again, _) = timed(predict), timed(predict)
    print(f"{'predict_proba':22} {first:8.3f} {again:8.3f} {table.num_rows:8,}")
    for label, explain in zip(labels or ("explain",), explanations, strict=True):
        (e_first, table), (e_again, _) = timed(explain), timed(explain)
        ratio = f"{e_first / first:.2f}/{e_again / again:.2f}"
        print(f"{label:22} {e_first:8.3f} {e_again:8.3f} {table.num_rows:8,} {ratio:>10}")


def _explain_calls(model: Any, w: Any) -> tuple[tuple[str, ...], list[Callable[[], Any]]]:
    """The explanation calls of the PostgreSQL section, and their labels."""
    return ("explain", "explain top 3", "explain wide top 3"), [
        lambda: model.explain(w, "t", keys=["id"]),
        lambda: model.explain(w, "t", keys=["id"], top=3),
        lambda: model.explain(w, "t", keys=["id"], top=3, form="wide"),
    ]


def _statements(model: Any, w: Any) -> list[tuple[str, Any]]:
    """The statements behind predict_proba and the explanation calls, for PostgreSQL's
    ``EXPLAIN``."""
    from warehouse_ml.engines.sources import open_source
    from warehouse_ml.models.inspection.evidence import Contrast
    from warehouse_ml.models.inspection.reasons import Layout

    record = model.record
    with open_source(w, "t") as src:
        contrast = Contrast.make(model.classes_, None)
        layouts = {
            "explain": Layout(),
            "explain top 3": Layout(top=3),
            "explain wide top 3": Layout("wide", 3),
        }
        explained = [
            (label, model.explanation_query(
                w, record, src, keys=["id"], contrast=contrast, layout=layout, keep_order=True
            ))
            for label, layout in layouts.items()
        ]  # fmt: skip
        predicted = model.scoring_query(
            w, record, src, probability_names=model.probability_names(w), keep_order=True
        )
    return [("predict_proba", predicted), *explained]


def _planning(pg: Any, w: Any, model: Any, repeat: int) -> None:
    """PostgreSQL's planning and execution times (ms) of each statement, best of ``repeat``."""
    print(f"{'statement (PostgreSQL)':22} {'plan ms':>8} {'run ms':>8} {'characters':>11}")
    for label, query in _statements(model, w):
        text = w.generate(query)
        best: dict[str, float] = {}
        for _ in range(repeat):
            lines = [r[0] for r in pg.execute("EXPLAIN (ANALYZE, SUMMARY) " + text).fetchall()]
            for line in lines:
                name, _, value = line.partition(" Time: ")
                if name in ("Planning", "Execution"):
                    ms = float(value.split()[0])
                    best[name] = min(best.get(name, ms), ms)
        print(f"{label:22} {best['Planning']:8.1f} {best['Execution']:8.1f} {len(text):11,}")


def section_postgres(args: argparse.Namespace) -> None:
    import duckdb

    sys.path.insert(0, str(HERE.parents[1] / "tests"))
    import engine_support

    import warehouse_ml as wml
    from warehouse_ml.engines import connect
    from warehouse_ml.sqlgen import templates
    from warehouse_ml.sqlgen.templates import TableName

    try:
        import psycopg
    except ImportError as error:
        print(f"postgres: skipped ({error})")
        return
    if engine_support.postgres_bin() is None:
        print("postgres: skipped (no initdb / pg_ctl)")
        return
    n, a, k = args.pg_rows, args.pg_attributes, args.pg_classes
    duck = duckdb.connect()
    table_of(duck, n, a, k)
    with engine_support.postgres_server() as conninfo, psycopg.connect(conninfo) as pg:
        pg.autocommit = True
        w = connect(pg)
        registered = w.register_arrow(duck.sql("SELECT * FROM t").to_arrow_table())
        w.run_tree(
            templates.create_table_as(
                TableName(("t",)), templates.build("select_all", source=registered)
            )
        )
        w.unregister(registered)
        for engine, con in (("PostgreSQL", w), ("DuckDB", duck)):
            model = wml.TAN().fit(con, "t", "class", keys=["id"], name="tan")
            print(f"postgres: TAN, {n} rows x {a} attributes, {k} classes ({engine})")
            labels, calls = _explain_calls(model, con)
            _compare(lambda m=model, c=con: m.predict_proba(c, "t"), *calls, labels=labels)
            model.create_explanation_view(con, "tan_why", "t", keys=["id"], top=3)
            read = {
                "PostgreSQL": lambda: pg.execute('SELECT * FROM "tan_why" WHERE id = 7').fetchall(),
                "DuckDB": lambda: duck.execute('SELECT * FROM "tan_why" WHERE id = 7').fetchall(),
            }[engine]
            (first, _), (again, _) = timed(read), timed(read)
            print(f"{'one-row view read':22} {first:8.3f} {again:8.3f}")
            if engine == "PostgreSQL":
                _planning(pg, w, model, args.repeat)


def run_section(name: str, argv: list[str]) -> None:
    """Run one section in a fresh interpreter, echoing its output and its peak memory."""
    command = [sys.executable, str(HERE), "--section", name, *argv]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    lines = output.strip().splitlines()
    print("\n".join(lines[:-1]))
    print(f"peak memory {json.loads(lines[-1])['mb']:.0f} MB\n")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--attributes", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--wide-attributes", type=int, default=100)
    parser.add_argument("--wide-classes", type=int, default=20)
    parser.add_argument("--wide-rows", type=int, default=200)
    parser.add_argument("--pg-rows", type=int, default=300)
    parser.add_argument("--pg-attributes", type=int, default=6)
    parser.add_argument("--pg-classes", type=int, default=5)
    parser.add_argument("--sections", default=",".join(SECTIONS), help="comma-separated")
    parser.add_argument("--section", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.section:
        {"views": section_views, "wide": section_wide, "postgres": section_postgres}[args.section](
            args
        )
        print(json.dumps({"mb": peak_mb()}))
        return
    forwarded = [
        item
        for name, value in vars(args).items()
        if name not in ("sections", "section")
        for item in (f"--{name.replace('_', '-')}", str(value))
    ]
    for name in args.sections.split(","):
        if name.strip() not in SECTIONS:
            raise SystemExit(f"unknown section {name!r}: expected one of {SECTIONS}")
        run_section(name.strip(), forwarded)


if __name__ == "__main__":
    main()
