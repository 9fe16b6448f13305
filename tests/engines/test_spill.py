"""A fit on data larger than DuckDB's memory limit completes by spilling.

The full-size figures (20M rows x 20 attributes, ``memory_limit='500MB'``) come from
``bench/spill.py``; this test is the same thing, small and fast: a 1M-row table (about 100 MB
uncompressed) and ``memory_limit = 60MB`` with 2 threads. A fit sorts each numeric column
for its equal-frequency bins (TAN's bins, Naive Bayes's training histogram), so it fails with
DuckDB's OutOfMemoryException when spilling is off (``temp_directory = ''``): the limit really
binds; with a temporary directory it completes and gives the parameters of an unconstrained
fit, bit for bit. The counts themselves need memory for the count groups, not for the rows.
"""

from __future__ import annotations

import duckdb
import pytest
from guest_checks import big_table, objects

import warehouse_ml as wml

LIMIT = "60MB"
ROWS = 1_000_000


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    path = tmp_path_factory.mktemp("spill") / "spill.duckdb"
    con = duckdb.connect(str(path))
    big_table(con, ROWS)
    con.close()
    return path


def connect(path, **config: str) -> duckdb.DuckDBPyConnection:
    return duckdb.connect(str(path), config={"threads": "2", **config})


@pytest.mark.parametrize("kind", [wml.TAN, wml.NaiveBayes], ids=lambda k: k.__name__)
def test_a_fit_over_the_memory_limit_completes_and_matches_an_unconstrained_fit(
    database, tmp_path, kind
):
    name = kind.__name__.lower()  # the module's database holds every kind's models
    con = connect(database, temp_directory=str(tmp_path / "free"))
    free = kind().fit(con, "big", "cls", keys=["id"], name=f"free_{name}")
    expected = free.parameters(con)
    con.close()

    con = connect(database, memory_limit=LIMIT, temp_directory="")  # spilling off
    before = objects(con)
    with pytest.raises(duckdb.OutOfMemoryException):  # the limit binds: without spilling,
        kind().fit(
            con, "big", "cls", keys=["id"], name=f"limited_{name}"
        )  # the fit runs out of memory
    assert objects(con) == before  # ... and leaves nothing behind
    con.close()
    con = connect(database, memory_limit=LIMIT, temp_directory=str(tmp_path / "spill"))
    model = kind().fit(con, "big", "cls", keys=["id"], name=f"limited_{name}")
    parameters = model.parameters(con)
    assert parameters.keys() == expected.keys()
    for part, table in parameters.items():  # bit for bit (test_numeric_robustness)
        assert table.equals(expected[part]), part
    if kind is wml.TAN:
        assert model.parents_ == free.parents_
    con.close()
