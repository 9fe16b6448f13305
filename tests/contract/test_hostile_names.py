"""Injection-proof by construction (issue 6 item 1), as hypothesis property tests.

Hostile table, schema, column and class-label names and values are generated; every public
operation either works exactly as on a plain-named copy of the same data (same probabilities)
or refuses with a typed WarehouseMLError, and no other object of the database changes (tables,
views and their definitions, and a checksum of every user table).
"""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from guest_checks import objects, user_checksums
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

import warehouse_ml as wml
from warehouse_ml.cli import main
from warehouse_ml.errors import ColumnError, WarehouseMLError
from warehouse_ml.models.scoring.names import probability_columns

FRAGMENTS = [
    '"', "'", '""', "''", ";", "--", "/*", "*/", "\\", "\n", "\r\n", "\t", " ", "x\"; DROP TABLE t; --",
    "'); DELETE FROM keep; --", "é", "ß", "İ", "日本", "😀", "👩‍👩‍👧", "\u200b", "\u202e",
    "select", "FROM", "table", "order", "null", "NULL", "true", "wml", "p_", "$x", ":name", "?",
    "%s", "{0}", "${a}", ".", "..", "a.b",
]  # fmt: skip
"""Quotes of both kinds, statement and comment markers, backslashes, newlines, unicode and
emoji (incl. zero-width and right-to-left marks), reserved words, placeholder look-alikes,
dots (schema separators)."""

MAX_NAME = 1000
"""DuckDB has no identifier length limit we could find; names up to this length are tried."""

pieces = st.sampled_from(FRAGMENTS) | st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=6
)
names = st.one_of(
    st.lists(pieces, min_size=1, max_size=4).map("".join),
    st.sampled_from([" ", "  ", "\t", "\n", "\u3000"]),  # whitespace-only / empty-looking
    st.integers(200, MAX_NAME).map(lambda n: ("ab😀'\"" * MAX_NAME)[:n]),  # very long
    st.sampled_from(FRAGMENTS),
)
SETTINGS = settings(
    max_examples=examples(15),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

ROWS = 24


def quote(name: str) -> str:
    """A DuckDB identifier in the TEST (the library never builds SQL from strings)."""
    return '"' + name.replace('"', '""') + '"'


def distinct_names(draw, n: int) -> list[str]:
    """n names, distinct for DuckDB (which compares identifiers case-insensitively)."""
    result = draw(st.lists(names, min_size=n, max_size=n, unique_by=str.casefold))
    assume(all("\x00" not in r for r in result))
    return result


@st.composite
def hostile_data(draw):
    """(hostile Arrow table, plain copy, hostile target, class labels, hostile table parts)."""
    columns = distinct_names(draw, 3)  # two features, then the target
    labels = draw(st.lists(names, min_size=2, max_size=3, unique=True))
    assume(all("\x00" not in label for label in labels))  # refused: test_bad_input.py
    values = draw(st.lists(names, min_size=2, max_size=3, unique=True))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    target = [labels[i % len(labels)] for i in range(ROWS)]
    f0 = [values[i] for i in rng.integers(0, len(values), ROWS)]
    f1 = [None if x < 0.1 else values[int(x * 10) % len(values)] for x in rng.random(ROWS)]
    hostile = pa.table({columns[0]: f0, columns[1]: f1, columns[2]: target})
    plain = pa.table({"f0": f0, "f1": f1, "cls": target})
    schema = draw(st.none() | names)
    table = draw(names)
    parts = (table,) if schema is None else (schema, table)
    return hostile, plain, columns[2], labels, parts


def setup(con, hostile: pa.Table, plain: pa.Table, parts: tuple[str, ...]) -> None:
    con.execute("CREATE TABLE keep (k INTEGER, v VARCHAR)")
    con.execute("INSERT INTO keep VALUES (1, 'a'), (2, NULL)")
    con.execute("CREATE VIEW keep_view AS SELECT k FROM keep")
    con.register("hostile_arrow", hostile)
    con.register("plain_arrow", plain)
    if len(parts) == 2:
        con.execute(f"CREATE SCHEMA IF NOT EXISTS {quote(parts[0])}")
    name = ".".join(quote(p) for p in parts)
    con.execute(f"CREATE TABLE {name} AS SELECT * FROM hostile_arrow")
    con.execute("CREATE TABLE plain AS SELECT * FROM plain_arrow")
    con.unregister("hostile_arrow")
    con.unregister("plain_arrow")


def proba_matrix(table: pa.Table) -> np.ndarray:
    return np.column_stack(
        [table.column(i).to_numpy(zero_copy_only=False) for i in range(table.num_columns)]
    )


def attempt(operation):
    """The operation's result, or None when it refused with a typed error."""
    try:
        return operation()
    except WarehouseMLError:
        return None


@pytest.mark.slow
@SETTINGS
@given(data=hostile_data(), kind=st.sampled_from([wml.NaiveBayes, wml.TAN]), view=names)
def test_hostile_names_work_or_are_refused_and_touch_nothing_else(data, kind, view):
    hostile, plain, target, labels, parts = data
    con = duckdb.connect()
    try:
        setup(con, hostile, plain, parts)
    except duckdb.Error:
        assume(False)  # DuckDB itself cannot hold this name: nothing to test
    before_objects, before_data = objects(con), user_checksums(con)

    reference = kind().fit(con, "plain", "cls", name="plain model")
    expected = proba_matrix(reference.predict_proba(con, "plain"))
    model = attempt(lambda: kind().fit(con, parts, target, name="hostile " + target))
    assert model is not None, "a name DuckDB accepts must be usable"
    assert model.classes_ == sorted(labels)
    got = proba_matrix(model.predict_proba(con, parts))
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    assert model.predict_proba(con, hostile).column_names == probability_columns(
        [str(c) for c in sorted(labels)]
    )  # the columns of a view, by the documented rule
    assert model.predict(con, parts)["prediction"].to_pylist() == (
        reference.predict(con, "plain")["prediction"].to_pylist()
    )

    view_name = ("main", view)
    created = attempt(lambda: model.create_view(con, view_name, parts, keys=[]))
    if created is not None:
        rows = con.sql(f"SELECT * FROM main.{quote(view)}").to_arrow_table()
        np.testing.assert_allclose(
            proba_matrix(rows.drop_columns(["prediction"])), expected, rtol=0, atol=1e-12
        )
    sql_text = model.sql(con, parts, dialect="postgres")
    assert isinstance(sql_text, str)

    cv = wml.cross_validate(con, parts, target, kind(), folds=3, seed=1)
    cv_plain = wml.cross_validate(con, "plain", "cls", kind(), folds=3, seed=1)
    assert cv.accuracy().accuracy == pytest.approx(cv_plain.accuracy().accuracy, abs=1e-12)
    assert cv.log_score().total == pytest.approx(cv_plain.log_score().total, abs=1e-9)
    evaluation = wml.evaluate(con, model, parts)
    assert evaluation.accuracy().n == ROWS
    assert wml.load(con, "hostile " + target).record == model.record

    after_objects = objects(con)
    assert before_objects <= after_objects  # nothing removed or redefined
    added = {(s, n) for s, n, *_ in after_objects - before_objects}
    assert all(s == "wml" or (s, n) == view_name for s, n in added), added
    assert {k: v for k, v in user_checksums(con).items() if k in before_data} == before_data
    con.close()


@settings(SETTINGS, max_examples=examples(25))
@given(first=names, second=names)
def test_names_differing_only_by_case_are_refused(first, second):
    """DuckDB resolves even quoted names ignoring ASCII case: two columns that differ only by
    such case (possible in Arrow data and files) would silently read one for the other, so they
    are refused; names DuckDB tells apart ('É' and 'é') are two columns."""
    upper, lower = first.upper(), first.lower()
    assume(
        upper != lower
        and upper.casefold() == lower.casefold()
        and second.casefold() != upper.casefold()
    )
    data = pa.table(
        {upper: ["a", "b"] * 4, lower: ["x", "x", "y", "y"] * 2, second: ["p", "q"] * 4}
    )
    con = duckdb.connect()
    if any("\x00" in name for name in (upper, lower, second)):
        with pytest.raises(ColumnError, match="NUL character"):
            wml.NaiveBayes().fit(con, data, second)
    elif wml.connect(con).fold(upper) == wml.connect(con).fold(lower):  # ASCII case only
        with pytest.raises(ColumnError, match="differ only by case"):
            wml.NaiveBayes().fit(con, data, second)
    else:  # DuckDB tells them apart ('É', 'é'): two columns like any others
        model = wml.NaiveBayes().fit(con, data, second)
        assert model.feature_names_in_ == [upper, lower]
    con.close()


@pytest.mark.slow
@settings(max_examples=examples(8), deadline=None)
@given(data=hostile_data())
def test_cli_on_hostile_names(tmp_path_factory, data):
    hostile, plain, target, labels, parts = data
    assume(all("." not in p for p in parts))  # the CLI names a table as schema.table
    path = str(tmp_path_factory.mktemp("cli") / "w.duckdb")
    con = duckdb.connect(path)
    try:
        setup(con, hostile, plain, parts)
    except duckdb.Error:
        assume(False)
    before_objects, before_data = objects(con), user_checksums(con)
    con.close()
    source = ".".join(parts)
    # As a shell user passes names that may start with "-": options as --opt=value, and the
    # positional names after "--".
    assert (
        main(["train", f"--target={target}", "--name=hostile", f"--db={path}", "--", source]) == 0
    )
    assert main(["train", "plain", "--target", "cls", "--name", "plain", "--db", path]) == 0
    assert main(["predict", "--to-table=scored", f"--db={path}", "--", "hostile", source]) == 0
    assert main(["evaluate", f"--target={target}", "--folds=2", f"--db={path}", "--", source]) == 0
    assert main(["sql", f"--db={path}", "--", "hostile", source]) == 0
    con = duckdb.connect(path)
    hostile_model, plain_model = wml.load(con, "hostile"), wml.load(con, "plain")
    np.testing.assert_allclose(
        proba_matrix(hostile_model.predict_proba(con, parts)),
        proba_matrix(plain_model.predict_proba(con, "plain")),
        rtol=0, atol=1e-12,
    )  # fmt: skip
    after = user_checksums(con)
    assert {k: after[k] for k in before_data} == before_data
    assert before_objects <= objects(con)
    con.close()
