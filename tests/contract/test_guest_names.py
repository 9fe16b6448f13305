"""No user name can change a result (the guest contract, docs/RELIABILITY.md): a hypothesis
property test whose column names, key names and class labels are drawn from the library's
own vocabulary (every identifier in the SQL it runs for a fit, a scoring, a view, a
cross-validation and a split), its output names, SQL keywords, and case variants of each
other. Every public call either gives the result it gives on a copy with plain names, or
raises a typed error before any object changes; objects outside ``wml`` change only where the
call was asked to write (its view).
"""

from __future__ import annotations

import functools

import duckdb
import numpy as np
import pyarrow as pa
import pytest
import sqlglot
from guest_checks import objects, user_checksums
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from sqlglot import exp

import warehouse_ml as wml
from warehouse_ml.errors import WarehouseMLError

KEYWORDS = ["select", "from", "where", "order", "group", "by", "null", "true", "table", "as",
            "case", "when", "end", "join", "on", "with", "values", "all", "distinct"]  # fmt: skip
OUTPUTS = ["prediction", "fold", "repeat", "is_test", "p_", "p_yes", "p_no", "p_a", "class_label",
           "true_class", "decision", "expected_loss", "key", "id", "class", "against",
           "attribute", "value", "parent", "parent_value", "evidence", "rank", "row",
           "reason_1", "prior_evidence"]  # fmt: skip


@functools.cache
def vocabulary() -> tuple[str, ...]:
    """Every identifier of the SQL a small workload runs, plus the output names and keywords."""
    con = duckdb.connect()
    data = pa.table(
        {
            "id": range(30),
            "a": [f"v{i % 3}" for i in range(30)],
            "b": [i % 4 for i in range(30)],
            "x": [float(i % 7) for i in range(30)],
            "y": ["yes" if i % 2 else "no" for i in range(30)],
        }
    )
    con.register("vocab_arrow", data)
    con.execute("CREATE TABLE vocab AS SELECT * FROM vocab_arrow")
    seen: list[str] = []
    warehouse = wml.connect(con, on_sql=seen.append)
    for kind in (wml.NaiveBayes, wml.TAN):
        model = kind().fit(warehouse, "vocab", "y", keys=["id"], name=kind.kind)
        model.score_rows(warehouse, "vocab", keys=["id"])
        model.create_view(warehouse, f"{kind.kind}_view", "vocab", keys=["id", "y"])
        model.explain(warehouse, "vocab", top=2, against=wml.EVERY_CLASS)
        model.create_explanation_view(warehouse, f"{kind.kind}_why", "vocab", top=1, form="wide")
        wml.cross_validate(warehouse, "vocab", "y", kind(), folds=3, key="id").accuracy()
    wml.cross_validate_leave_one_out(
        warehouse, "vocab", "y", wml.NaiveBayes(), key="id"
    ).log_score()
    wml.holdout_split(warehouse, "vocab", test_fraction=0.3, target="y")
    wml.lift_table(warehouse, "naive_bayes_view", target="y")
    names = {
        node.name
        for statement in seen
        for tree in sqlglot.parse(statement, read="duckdb")
        if tree is not None
        for node in tree.find_all(exp.Identifier)
    }
    con.close()
    names -= {"vocab", "id", "a", "b", "x", "y", "naive_bayes_view", "tan_view", ""}
    names -= {"naive_bayes_why", "tan_why"}
    return tuple(sorted(names | set(OUTPUTS) | set(KEYWORDS)))


def test_the_vocabulary_holds_the_library_names():
    words = set(vocabulary())
    assert {"wml_row", "wml_max", "wml_total", "wml_p_0", "wml_j_0", "wml_k_0", "wml_part",
            "wml_key", "wml_digest", "fold", "prediction", "n", "lp_0"} <= words  # fmt: skip
    assert len(words) > 80


def names():
    base = st.sampled_from(vocabulary())
    return st.one_of(base, base.map(str.upper), base.map(str.title))


def _distinct(folded: list[str]) -> bool:
    """DuckDB tells names apart ignoring ASCII case only."""
    keys = [n.lower() for n in folded]
    return len(set(keys)) == len(keys) and all(n.strip() for n in folded)


@st.composite
def hostile_tables(draw):
    """(hostile table, plain copy, column names (key, f1, f2, target), labels, plain labels)."""
    columns = draw(st.lists(names(), min_size=4, max_size=4).filter(_distinct))
    labels = draw(st.lists(names(), min_size=2, max_size=3, unique=True))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    n = 36
    cls = rng.integers(0, len(labels), n)
    f1 = [f"v{(c + rng.integers(0, 2)) % 3}" for c in cls]
    f2 = rng.integers(0, 3, n) + cls
    ordered = sorted(labels)
    hostile = pa.table(
        {
            columns[0]: np.arange(n),
            columns[1]: f1,
            columns[2]: f2,
            columns[3]: [ordered[c] for c in cls],
        }
    )
    plain_labels = [f"L{i}" for i in range(len(ordered))]  # the same class order
    plain = pa.table(
        {"key": np.arange(n), "f1": f1, "f2": f2, "cls": [plain_labels[c] for c in cls]}
    )
    return hostile, plain, columns, ordered, plain_labels


def _values(table: pa.Table, skip: int) -> np.ndarray:
    """The columns after the first ``skip`` (probabilities), as a matrix."""
    return np.column_stack(
        [table.column(i).to_numpy(zero_copy_only=False) for i in range(skip, table.num_columns)]
    )


def _same_or_refused(con, call, expected, compare) -> None:
    """``call()`` gives what ``expected()`` gives (``compare`` asserts it), or raises a typed
    error before any object outside the library's schema changes."""
    before = objects(con), user_checksums(con)
    try:
        got = call()
    except WarehouseMLError:
        assert (objects(con), user_checksums(con)) == before
        return
    compare(got, expected())


@pytest.mark.slow
@settings(
    max_examples=examples(20),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=hostile_tables(), kind=st.sampled_from([wml.NaiveBayes, wml.TAN]))
def test_names_from_the_librarys_own_vocabulary_change_no_result(data, kind):
    hostile, plain, (key, f1, f2, target), labels, plain_labels = data
    con = duckdb.connect()
    for name, table in (("hostile", hostile), ("plain", plain)):
        con.register(f"{name}_arrow", table)
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM {name}_arrow")
        con.unregister(f"{name}_arrow")
    user_before = objects(con)

    model = kind().fit(con, "hostile", target, keys=[key], name="hostile model")
    reference = kind().fit(con, "plain", "cls", keys=["key"], name="plain model")
    assert model.classes_ == labels
    np.testing.assert_allclose(
        _values(model.predict_proba(con, "hostile"), 0),
        _values(reference.predict_proba(con, "plain"), 0),
        rtol=0, atol=1e-12,
    )  # fmt: skip

    def same_scores(got, want):
        assert got.num_rows == want.num_rows
        assert got.column(0).to_pylist() == want.column(0).to_pylist()  # keys, in order
        np.testing.assert_allclose(_values(got, 2)[:, :-1].astype(float),
                                   _values(want, 2)[:, :-1].astype(float), atol=1e-12)  # fmt: skip

    _same_or_refused(
        con,
        lambda: model.score_rows(con, "hostile", keys=[key, target]),
        lambda: reference.score_rows(con, "plain", keys=["key", "cls"]),
        same_scores,
    )
    _same_or_refused(
        con,
        lambda: model.create_view(con, "out_view", "hostile", keys=[key]),
        lambda: None,
        lambda got, _: same_scores(
            con.sql("SELECT * FROM out_view").to_arrow_table(),
            reference.score_rows(con, "plain", keys=["key"]),
        ),
    )

    def same_explanation(got, want):
        renamed = {f1: "f1", f2: "f2"}
        assert got.num_rows == want.num_rows
        assert got.column(0).to_pylist() == want.column(0).to_pylist()
        assert [renamed.get(a, a) for a in got.column("attribute").to_pylist()] == want.column(
            "attribute"
        ).to_pylist()
        assert got.column("rank").to_pylist() == want.column("rank").to_pylist()
        np.testing.assert_allclose(
            got.column("evidence").to_numpy(zero_copy_only=False),
            want.column("evidence").to_numpy(zero_copy_only=False), atol=1e-12,
        )  # fmt: skip

    _same_or_refused(
        con,
        lambda: model.explain(con, "hostile", keys=[key]),
        lambda: reference.explain(con, "plain", keys=["key"]),
        same_explanation,
    )
    _same_or_refused(
        con,
        lambda: model.create_explanation_view(con, "why_view", "hostile", keys=[key], top=None),
        lambda: None,
        lambda got, _: same_explanation(
            con.sql(f'SELECT * FROM why_view ORDER BY "{key}", rank').to_arrow_table(),
            reference.explain(con, "plain", keys=["key"]),
        ),
    )

    def same_evaluation(got, want):
        assert got.accuracy().accuracy == pytest.approx(want.accuracy().accuracy, abs=1e-12)
        assert got.log_score().total == pytest.approx(want.log_score().total, abs=1e-9)

    # (unstratified: a stratified assignment orders the strata by their labels' digests, and
    # the plain copy's labels are other values)
    _same_or_refused(
        con,
        lambda: wml.cross_validate(
            con, "hostile", target, kind(), folds=3, key=key, stratified=False
        ),
        lambda: wml.cross_validate(
            con, "plain", "cls", kind(), folds=3, key="key", stratified=False
        ),
        same_evaluation,
    )
    _same_or_refused(
        con,
        lambda: wml.evaluate(con, model, "hostile", keys=[key]),
        lambda: wml.evaluate(con, reference, "plain", keys=["key"]),
        same_evaluation,
    )

    def same_folds(got, want):
        assert got.column(got.num_columns - 1) == want.column(want.num_columns - 1)

    _same_or_refused(
        con,
        lambda: wml.assign_folds(con, "hostile", folds=3, key=key, keep_columns=True).to_arrow(con),
        lambda: wml.assign_folds(con, "plain", folds=3, key="key", keep_columns=True).to_arrow(con),
        same_folds,
    )
    added = {(s, n) for s, n, *_ in objects(con) - user_before}
    assert {a for a in added if a[0] != "wml"} <= {("main", "out_view"), ("main", "why_view")}, (
        added
    )
    assert {(s, n) for s, n, *_ in user_before} <= {(s, n) for s, n, *_ in objects(con)}
    con.close()
