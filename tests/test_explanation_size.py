"""The explanation query's size (models/evidence.py, models/reasons.py) grows linearly with
attributes x classes: doubling the attributes, or the classes, at most doubles the statement,
for every layout and contrast. A statement that compared every attribute with every other (or
every class with every other) would grow fourfold. No timing is asserted: the text is measured.
"""

from __future__ import annotations

import itertools

import duckdb
import pytest

import warehouse_ml as wml
from warehouse_ml import synthetic

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
