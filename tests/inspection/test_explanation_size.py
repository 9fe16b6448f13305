"""The explanation query's size (models/inspection/evidence.py, models/inspection/reasons.py) grows linearly with
attributes x classes: doubling the attributes, or the classes, at most doubles the statement,
for every layout and contrast. A statement that compared every attribute with every other (or
every class with every other) would grow fourfold. So does the statement an engine plans once
it inlines the steps not marked AS MATERIALIZED (PostgreSQL). No timing is asserted: the text
is measured.
"""

from __future__ import annotations

import itertools

import duckdb
import pytest
import sqlglot
from sqlglot import exp

import warehouse_ml as wml
from warehouse_ml import synthetic
from warehouse_ml.engines.duckdb import DuckDBWarehouse

ATTRIBUTES = (8, 16, 32)
CLASSES = (2, 4, 8)
GROWTH = 2.1
"""The most a statement may grow when the attributes or the classes double (2 plus slack)."""

LAYOUTS = {
    "long, every rank": {"top": None},
    "long, top 3": {"top": 3},
    "long, top half": "half",
    "long, every class": {"against": wml.EVERY_CLASS, "top": None},
    "wide, top 3": {"top": 3, "form": "wide"},
}


def _options(layout: str, n_attributes: int) -> dict:
    options = LAYOUTS[layout]
    return {"top": n_attributes // 2} if options == "half" else dict(options)


@pytest.fixture(scope="module")
def fitted():
    """Naive Bayes over every (attributes, classes) pair and TAN over every attribute count
    with 3 classes, each by its source table, on one connection."""
    con = duckdb.connect()
    models = {}
    for kind, grid in [
        (wml.NaiveBayes, [(a, k) for a in ATTRIBUTES for k in CLASSES]),
        (wml.TAN, [(a, 3) for a in ATTRIBUTES]),
    ]:
        for a, k in grid:
            data = synthetic.tan_data(400, a, n_classes=k, strings=True, seed=1)
            con.register("data", data)
            table = f"d_{a}_{k}"
            con.execute(f"CREATE TABLE {table} AS SELECT * FROM data")
            con.unregister("data")
            model = kind().fit(con, table, "class", name=f"{kind.kind}_{a}_{k}")
            assert len(model.classes_) == k
            models[kind, a, k] = (model, table)
    yield con, models
    con.close()


def _view_text(fitted, kind, n_attributes: int, n_classes: int, layout: str) -> int:
    """The length of the SQL of an explanation view over the model of ``n_attributes``
    attributes and ``n_classes`` classes."""
    con, models = fitted
    model, table = models[kind, n_attributes, n_classes]
    view = f"why_{model.kind}_{n_attributes}_{n_classes}_{list(LAYOUTS).index(layout)}"
    model.create_explanation_view(con, view, table, keys=[], **_options(layout, n_attributes))
    rows = con.execute("SELECT sql FROM duckdb_views() WHERE view_name = ?", [view]).fetchall()
    return len(rows[0][0])


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_the_statement_grows_linearly_with_attributes_and_classes(fitted, layout):
    sizes = {
        (a, k): _view_text(fitted, wml.NaiveBayes, a, k, layout)
        for a in ATTRIBUTES
        for k in CLASSES
    }
    for (a, k), size in sizes.items():
        if (2 * a, k) in sizes:
            assert sizes[2 * a, k] <= GROWTH * size, (layout, a, k, sizes)
        if (a, 2 * k) in sizes:
            assert sizes[a, 2 * k] <= GROWTH * size, (layout, a, k, sizes)


def test_a_tan_explanation_grows_linearly_with_attributes(fitted):
    sizes = [_view_text(fitted, wml.TAN, a, 3, "long, every rank") for a in ATTRIBUTES]
    for smaller, larger in itertools.pairwise(sizes):
        assert larger <= GROWTH * smaller, sizes


def _inlined_size(sql: str) -> int:
    """The size of a statement once each step (CTE) not marked ``AS MATERIALIZED`` is inlined
    into the steps that read it, as PostgreSQL plans it: a column read from such a step counts
    the nodes of its definition, expanded likewise; one of a materialized step counts 1. The
    sum over the columns every materialized step and the final query define."""
    tree = sqlglot.parse_one(sql, read="duckdb").expression  # CREATE VIEW v AS <query>
    defined: dict[str, dict[str, int]] = {}
    fenced: set[str] = set()
    total = 0

    def columns_of(select: exp.Select) -> dict[str, int]:
        read: dict[str, int] = {}
        for table in select.find_all(exp.Table):
            if table.name in defined and table.find_ancestor(exp.Select) is select:
                read.update(
                    {c: 1 if table.name in fenced else n for c, n in defined[table.name].items()}
                )
        own = dict(read) if any(isinstance(e, exp.Star) for e in select.expressions) else {}
        for item in select.expressions:
            if isinstance(item, exp.Alias):
                own[item.alias] = sum(
                    read.get(node.name, 1) if isinstance(node, exp.Column) else 1
                    for node in item.this.walk()
                )
        return own

    for cte in tree.args["with_"].expressions:
        defined[cte.alias] = columns_of(cte.this)
        if cte.args.get("materialized"):
            fenced.add(cte.alias)
            total += sum(defined[cte.alias].values())
    return total + sum(columns_of(tree).values())


def test_an_engine_that_inlines_steps_plans_a_statement_linear_in_the_classes(fitted, monkeypatch):
    """With MATERIALIZED_STEPS (PostgreSQL), the steps left to be inlined copy no step's
    columns into several readers: the joints into the maximum, both into the predicted class
    and all three into the runner-up grew as classes^4."""
    monkeypatch.setattr(DuckDBWarehouse, "MATERIALIZED_STEPS", True)
    con, models = fitted
    sizes = []
    for k in CLASSES:
        model, table = models[wml.NaiveBayes, ATTRIBUTES[0], k]
        view = f"fenced_{k}"
        model.create_explanation_view(con, view, table, keys=[], top=None)
        rows = con.execute("SELECT sql FROM duckdb_views() WHERE view_name = ?", [view]).fetchall()
        sizes.append(_inlined_size(rows[0][0]))
    for smaller, larger in itertools.pairwise(sizes):
        assert larger <= GROWTH * smaller, sizes
