"""What every registered model kind (models/kinds.py) promises, checked on each: its declared
parameters are its constructor's; probabilities sum to 1; a prediction view, a reloaded model
and a cross-validation fold give the probabilities of the model (or fold model) itself; its
exported SQL parses in every target dialect; hostile names change nothing. Then what each
capability (models/capabilities.py) promises, checked on each kind that declares it: additive
scores explain the log-odds exactly; integer weights count as repeated rows; an update equals a
fit on base + batch; exact leave-one-out equals n re-fits; stored counts show no drift on the
training table. A kind without a capability gets a NotSupportedError naming the kind and the
capability from every call that needs it. A new kind, declared in its family's ``specs``
module, is tested here without a line added (one and four DuckDB threads giving the same probabilities); ZeroR (tests/extra_families/zero_rule/), a family
written outside the library from its own files only, is registered for this module's tests and
passes them too."""

from __future__ import annotations

import dataclasses
import inspect
import shutil
from pathlib import Path

import duckdb
import extra_families
import numpy as np
import pyarrow as pa
import pytest
import sqlglot
from extra_families.zero_rule import specs as zero_rule_specs
from sqlglot import exp

import warehouse_ml as wml
from warehouse_ml.cli import main
from warehouse_ml.engines import session
from warehouse_ml.engines.sources import Source, open_source
from warehouse_ml.errors import NotSupportedError
from warehouse_ml.evaluation import loo, splits
from warehouse_ml.models import capabilities, kind_parameters, kinds
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.learners.bayes.naive_bayes import NaiveBayes
from warehouse_ml.models.members import Folds, StoredCounts, Update, WeightedMembers
from warehouse_ml.models.scoring.context import ScoringContext
from warehouse_ml.models.state import FittedState
from warehouse_ml.models.training import Training, class_counts, labelled_classes
from warehouse_ml.stats.features import CATEGORICAL, Feature
from warehouse_ml.stats.validation import CardinalityCheck
from warehouse_ml.store import ownership
from warehouse_ml.store.ownership import Staging

SPECS = [*kinds.specs(), *zero_rule_specs.SPECS]
"""The library's kinds and those of the families outside it (:func:`outside_families`)."""
DIALECTS = ["duckdb", "postgres", "spark", "snowflake", "bigquery", "trino"]
LABELS = ["c0", "c1", "c2"]


@pytest.fixture(scope="module", autouse=True)
def outside_families():
    """The families written outside the library (tests/extra_families/: ZeroR, from its own
    module, specs and SQL folder), registered as a new family is, for this module's tests."""
    with extra_families.registered() as found:
        yield found


def by_kind(test):
    return pytest.mark.parametrize("spec", SPECS, ids=[s.kind for s in SPECS])(test)


def declaring(capability: type[capabilities.Capability]):
    """Parametrise a test over the registered kinds that declare ``capability``."""
    specs = [s for s in SPECS if issubclass(s.load(), capability)]
    return pytest.mark.parametrize("spec", specs, ids=[s.kind for s in specs])


def data(n: int = 240, seed: int = 5) -> pa.Table:
    """Three classes; a text attribute and an integer code with NULLs, a numeric one with
    NULLs; ``id`` 0..n-1 and ``w`` an integer weight 1..3."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    colour = [None if rng.random() < 0.08 else f"v{(v + rng.integers(0, 2)) % 4}" for v in y]
    code = [None if rng.random() < 0.05 else int((v * 2 + rng.integers(0, 3)) % 5) for v in y]
    size = [None if rng.random() < 0.07 else float(v * 1.2 + rng.normal()) for v in y]
    return pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "colour": pa.array(colour, pa.string()),
            "code": pa.array(code, pa.int64()),
            "size": pa.array(size, pa.float64()),
            "w": pa.array(rng.integers(1, 4, n), pa.int64()),
            "y": pa.array([LABELS[v] for v in y]),
        }
    )


FEATURES = ["colour", "code", "size"]


def fit(spec: kinds.KindSpec, con, source, name: str, settings=None, **options) -> wml.NaiveBayes:
    """A model of ``spec``'s kind (constructed with ``settings``) fitted on ``source``."""
    options.setdefault("categorical", ["code"])
    model = spec.load()(**(settings or {}))
    return model.fit(con, source, "y", features=FEATURES, name=name, **options)


@pytest.fixture(scope="module")
def fitted_files() -> dict[str, Path]:
    """Each kind's fitted database (:func:`fitted`) of this worker, by kind."""
    return {}


@pytest.fixture
def fitted(spec, fitted_files, tmp_path_factory, tmp_path):
    """A connection to this test's own copy of a database holding the table ``t``
    (:func:`data`, in ``id`` order) and the model ``m`` of ``spec``'s kind fitted on it, and
    the model read back: one fit per kind (and worker), each test reading a copy of its file,
    so nothing one test does reaches another."""
    if spec.kind not in fitted_files:
        path = tmp_path_factory.mktemp(f"fitted_{spec.kind}") / "fitted.duckdb"
        with duckdb.connect(str(path)) as con:
            con.register("rows", data())
            con.execute("CREATE TABLE t AS SELECT * FROM rows ORDER BY id")
            fit(spec, con, "t", "m")
        fitted_files[spec.kind] = path
    copy = tmp_path / "fitted.duckdb"
    shutil.copyfile(fitted_files[spec.kind], copy)
    with duckdb.connect(str(copy)) as con:
        yield con, wml.load(con, "m")


def probabilities(model, con, source) -> np.ndarray:
    return np.column_stack([c.to_numpy() for c in model.predict_proba(con, source).columns])


@by_kind
def test_the_registry_declares_the_constructors_parameters_and_defaults(spec):
    cls = spec.load()
    assert cls.kind == spec.kind
    signature = inspect.signature(cls).parameters
    assert [p.name for p in spec.parameters] == list(signature)
    assert spec.defaults() == {name: p.default for name, p in signature.items()}
    assert cls().get_params() == spec.defaults()


def test_every_kind_has_its_own_spellings():
    spellings = [s for spec in SPECS for s in spec.spellings]
    assert len(spellings) == len(set(spellings))
    assert all(kinds.named(s.upper()) is spec for spec in SPECS for s in spec.spellings)


@by_kind
def test_probabilities_sum_to_one_with_nulls_and_mixed_columns(fitted):
    con, model = fitted
    table = data()
    p = probabilities(model, con, table)
    assert p.shape == (table.num_rows, 3)
    assert np.all((p >= 0) & (p <= 1))
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-9)


@by_kind
def test_fits_and_probabilities_agree_across_duckdb_thread_counts(spec):
    """One and four DuckDB threads (parallel scans, aggregates summed in another order) give
    the same probabilities to 1e-12."""
    table = data(600, seed=8)
    found = []
    for threads in (1, 4):
        with duckdb.connect() as own:
            own.execute(f"SET threads = {threads}")
            found.append(probabilities(fit(spec, own, table, "m"), own, table))
    np.testing.assert_allclose(found[1], found[0], rtol=0, atol=1e-12)


@by_kind
def test_a_prediction_view_and_a_reloaded_model_give_predict_proba(con, spec):
    table = data()
    con.register("rows", table)
    con.execute("CREATE TABLE t AS SELECT * FROM rows ORDER BY id")
    model = fit(spec, con, "t", "m")
    expected = probabilities(model, con, table)
    view = model.create_view(con, "scores", "t", keys=["id"])
    columns = model.predict_proba(con, table).column_names
    listed = ", ".join(f'"{c}"' for c in columns)
    from_view = np.array(con.execute(f"SELECT {listed} FROM {view} ORDER BY id").fetchall())
    np.testing.assert_allclose(from_view, expected, rtol=0, atol=1e-9)
    reloaded = wml.load(con, "m")
    assert type(reloaded) is spec.load() and reloaded.get_params() == model.get_params()
    np.testing.assert_allclose(probabilities(reloaded, con, table), expected, rtol=0, atol=1e-12)


@by_kind
def test_exported_sql_parses_in_every_target_dialect(fitted):
    con, model = fitted
    for dialect in DIALECTS:
        text = model.sql(con, "t", keys=["id"], dialect=dialect)
        statements = sqlglot.parse(text, read=dialect)
        assert statements and all(s is not None for s in statements), dialect


@by_kind
def test_cross_validation_equals_fitting_each_fold(con, spec):
    con.register("rows", data())
    con.execute("CREATE TABLE t AS SELECT * FROM rows")
    model = spec.load()()
    options = {"features": FEATURES, "categorical": ["code"]}
    pooled = wml.cross_validate(con, "t", "y", model, folds=3, seed=2, key="id", **options)
    pooled = pooled.to_arrow().sort_by("id")
    folds = splits.assign_folds(
        con, "t", folds=3, seed=2, key="id", stratify="y", keep_columns=True
    ).table
    for f in range(3):
        train = con.sql(f"SELECT * EXCLUDE (fold) FROM {folds} WHERE fold <> {f}")
        held = con.sql(f"SELECT * FROM {folds} WHERE fold = {f} ORDER BY id").to_arrow_table()
        scratch = model.fit(con, train.to_arrow_table(), "y", name=f"f{f}", **options)
        got = pooled.filter(pa.compute.equal(pooled["fold"], f))
        assert got["id"].to_pylist() == held["id"].to_pylist()
        expected = scratch.predict_proba(con, held)
        for column in expected.column_names:
            np.testing.assert_allclose(
                got[column].to_numpy(), expected[column].to_numpy(), rtol=0, atol=1e-9
            )


HOSTILE_COLUMNS = {
    "colour": 'x"; DROP TABLE t; --',
    "code": "select",
    "size": "Größe 日本",
    "y": "it's;",
}
HOSTILE_LABELS = {"c0": "a'b\"c", "c1": "order", "c2": "ünï; --"}


@by_kind
def test_hostile_column_and_label_names_give_the_renamed_copys_probabilities(con, spec):
    plain = data()
    hostile = plain.rename_columns([HOSTILE_COLUMNS.get(c, c) for c in plain.column_names])
    labels = [HOSTILE_LABELS[v] for v in plain["y"].to_pylist()]
    hostile = hostile.set_column(hostile.num_columns - 1, HOSTILE_COLUMNS["y"], pa.array(labels))
    model = spec.load()()
    named = model.fit(con, plain, "y", features=FEATURES, categorical=["code"], name="plain")
    expected = probabilities(named, con, plain)
    odd = spec.load()().fit(
        con,
        hostile,
        HOSTILE_COLUMNS["y"],
        features=[HOSTILE_COLUMNS[c] for c in FEATURES],
        categorical=[HOSTILE_COLUMNS["code"]],
        name="it's; odd",
    )
    got = probabilities(odd, con, hostile)
    order = [odd.classes_.index(HOSTILE_LABELS[label]) for label in named.classes_]
    np.testing.assert_allclose(got[:, order], expected, rtol=0, atol=1e-9)


@by_kind
def test_the_registry_says_which_kinds_have_a_weighted_form(spec):
    """``KindSpec.weighted`` (read by the command line without loading the class) is the
    class's WeightedFit; every kind's constructor takes class_weight, and a kind without a
    weighted form offers it to no caller."""
    assert spec.weighted == issubclass(spec.load(), capabilities.WeightedFit)
    assert "class_weight" in [p.name for p in spec.parameters]
    assert ("class_weight" in [p.name for p in spec.settable]) == spec.weighted


UNWEIGHTED = [s for s in SPECS if not issubclass(s.load(), capabilities.WeightedFit)]


def _fit_weighted(spec, con, table):
    spec.load()().fit(con, table, "y", features=FEATURES, sample_weight="w")


def _cross_validate_weighted(spec, con, table):
    wml.cross_validate(con, table, "y", spec.load()(), folds=3, key="id", sample_weight="w")


def _select_among_weighted(spec, con, table):
    candidates = [wml.Candidate(spec.load()(class_weight="balanced"), features=FEATURES)]
    wml.select_model(con, table, "y", candidates, folds=3, key="id")


def _weigh_a_fitted_kind(spec, con, table):
    spec.load()().class_weight = {"c0": 2.0}


WEIGHTED_CALLS = {
    "constructor": lambda spec, con, table: spec.load()(class_weight="balanced"),
    "assignment": _weigh_a_fitted_kind,
    "fit": _fit_weighted,
    "cross_validate": _cross_validate_weighted,
    "select_model": _select_among_weighted,
}


@pytest.mark.parametrize("call", list(WEIGHTED_CALLS))
@pytest.mark.parametrize("spec", UNWEIGHTED, ids=[s.kind for s in UNWEIGHTED])
def test_a_kind_without_a_weighted_form_refuses_weights_in_every_call_before_anything_runs(
    con, spec, call
):
    """Weights a fit of the kind refuses cannot reach an evaluation either (they moved
    out-of-fold probabilities by reaching the design's standardisation only): every call
    that takes them refuses them, naming the kind, before any table is made or counted."""
    statements: list[str] = []
    warehouse = wml.connect(con, on_sql=statements.append)
    with pytest.raises(
        NotSupportedError, match=f"capability WeightedFit; model kind '{spec.kind}'"
    ):
        WEIGHTED_CALLS[call](spec, warehouse, data(60))
    assert [s for s in statements if not s.lstrip().upper().startswith("SELECT")] == []
    assert not any("GROUP BY" in s.upper() for s in statements)
    assert con.sql("SELECT * FROM duckdb_tables() WHERE schema_name = 'wml'").fetchall() == []


def binned(table: pa.Table, bins: dict[str, list[float]]) -> pa.Table:
    """Each column of ``bins`` replaced by its bin index on the edges stored with a model
    (x <= edge; the last bin open above; NULL stays NULL)."""
    for column, edges in bins.items():
        values = table[column].to_numpy(zero_copy_only=False).astype(float)
        index = np.searchsorted(np.array(edges[:-1]), values, side="left")
        codes = pa.array(index, pa.int64(), mask=np.isnan(values))
        table = table.set_column(table.schema.get_field_index(column), column, codes)
    return table


@declaring(capabilities.WeightedFit)
def test_integer_weights_equal_repeated_rows(con, spec):
    """On the weighted model's stored bins, where it keeps any (bin edges are cut on the rows,
    not on their weights), under the kind's COPIES_SETTINGS (capabilities.WeightedFit)."""
    table = data()
    repeated = table.take(np.repeat(np.arange(table.num_rows), table["w"].to_numpy()))
    settings = spec.load().COPIES_SETTINGS
    weighted = fit(spec, con, table, "weighted", sample_weight="w", settings=settings)
    bins = weighted.record.state.learned.binned_edges()
    plain = fit(
        spec, con, binned(repeated, bins), "repeated", categorical=["code", *bins],
        settings=settings,
    )  # fmt: skip
    np.testing.assert_allclose(
        probabilities(weighted, con, table),
        probabilities(plain, con, binned(table, bins)),
        rtol=0,
        atol=1e-9,
    )


@declaring(capabilities.CountUpdates)
def test_an_update_equals_a_fit_on_base_and_batch(con, spec):
    """On the model's stored bins, where it keeps any (a discretising kind keeps its first
    fit's edges through updates)."""
    table = data(320, seed=9)
    base, batch = table.slice(0, 200), table.slice(200)
    model = fit(spec, con, base, "m")
    model.update(con, batch, batch_id="b")
    bins = model.record.state.learned.binned_edges()
    union = binned(table, bins)
    oracle = fit(spec, con, union, "oracle", categorical=["code", *bins])
    np.testing.assert_allclose(
        probabilities(model, con, table), probabilities(oracle, con, union), rtol=0, atol=1e-9
    )


@declaring(capabilities.AdditiveScores)
def test_additive_scores_explain_the_log_odds_exactly(con, spec):
    """Each row's evidence (prior and one term per attribute) sums to the log-odds of its
    predicted class against its runner-up."""
    table = data(60)
    model = fit(spec, con, table, "m")
    log_proba = model.predict_log_proba(con, table)
    lp = {c: log_proba[f"p_{c}"].to_numpy() for c in model.classes_}
    rows = model.explain(con, table, keys=["id"]).to_pylist()
    for i in range(table.num_rows):
        explained = [r for r in rows if r["id"] == i]
        won, against = explained[0]["class"], explained[0]["against"]
        assert lp[won][i] >= lp[against][i]
        total = sum(r["evidence"] for r in explained)
        assert total == pytest.approx(lp[won][i] - lp[against][i], abs=1e-9)


@declaring(capabilities.ExactLeaveOneOut)
def test_exact_leave_one_out_equals_n_refits(con, spec):
    table = data(20, seed=3)
    con.register("rows", table)
    con.execute("CREATE TABLE t AS SELECT * FROM rows")
    options = {"features": FEATURES, "categorical": ["code"]}
    ev = loo.cross_validate_leave_one_out(con, "t", "y", spec.load()(), key="id", **options)
    got = ev.to_arrow().sort_by("id")
    for i in range(table.num_rows):
        train = con.sql(f"SELECT * FROM t WHERE id <> {i}").to_arrow_table()
        scratch = spec.load()().fit(con, train, "y", name="scratch", **options)
        expected = scratch.predict_proba(con, table.slice(i, 1))
        for column in expected.column_names:
            assert got[column][i].as_py() == pytest.approx(expected[column][0].as_py(), abs=1e-9)


@declaring(capabilities.CountSummaries)
def test_stored_counts_show_no_drift_on_the_training_table(con, spec):
    table = data()
    model = fit(spec, con, table, "m")
    drift = model.drift(con, table).to_pylist()
    attributes = [r for r in drift if r["kind"] != "prediction"]
    assert [r["attribute"] for r in attributes[: len(FEATURES)]] == FEATURES
    assert all(r["psi"] == pytest.approx(0.0, abs=1e-12) for r in attributes)
    ranked = model.attribute_ranking(con).to_pylist()
    assert sorted(r["attribute"] for r in ranked) == sorted(FEATURES)


def _trainings(fitted_model, warehouse, src) -> dict[str, tuple[type, Training]]:
    """Trainings of the fitted model's features asking for more than one plain model, each with
    the capability a kind needs to learn it: every fold at once (a fold column), members of
    their own row weights, an update (the model's stored counts), weighted counts (a weight
    column)."""
    record = fitted_model.record_
    features = [
        Feature(n, record.feature_types[n]["kind"], record.feature_types[n]["sql_type"])
        for n in record.features
    ]
    classes, _ = class_counts(warehouse, src, "y")
    folds = [classes, classes]
    return {
        "folds at once": (
            capabilities.FoldsAtOnce,
            Training(src, "y", features, folds, members=Folds("code", 2)),
        ),
        "members": (
            capabilities.MembersAtOnce,
            Training(src, "y", features, folds, members=WeightedMembers(Folds("code", 2).weights())),
        ),
        "update": (
            capabilities.CountUpdates,
            Training(src, "y", features, [classes], members=Update(StoredCounts(record))),
        ),
        "weights": (capabilities.WeightedFit, Training(src, "y", features, [classes], weight="w")),
    }  # fmt: skip


@by_kind
def test_a_training_the_kind_cannot_learn_is_refused_before_anything_runs(fitted, spec):
    """Every kind learns the whole of what a training asks or refuses it: a training of folds
    at once for a kind that learns them fold by fold (or not for these features: TAN with a
    numeric attribute), of stored counts without updates by counts, or weighted without a
    weighted form, is a NotSupportedError naming the kind and the capability, before any
    statement (logistic regression fitted one model on every row, ignoring the folds and the
    stored counts)."""
    con, model = fitted
    with session(con) as warehouse, open_source(warehouse, "t") as src:
        trainings = _trainings(model, warehouse, src)
        for what, (capability, training) in trainings.items():
            if capability is capabilities.FoldsAtOnce:
                honoured = capabilities.folds_at_once(model, training.features)
            elif capability is capabilities.MembersAtOnce:
                honoured = isinstance(model, capability) and model.learns_members_at_once(
                    training.features
                )
            else:
                honoured = isinstance(model, capability)
            if honoured:
                continue
            with Staging(
                warehouse, owner_kind="model", owner="m", created_by="test", version="v",
                lifetime=ownership.MODEL,
            ) as tables:  # fmt: skip
                statements = len(warehouse.log)
                check = CardinalityCheck(src.description, training.features, 240)
                with pytest.raises(
                    NotSupportedError, match=f"{capability.__name__}; model kind '{spec.kind}'"
                ):
                    model.learn_tables(warehouse, training, tables, check)
                assert len(warehouse.log) == statements, what


class Plain(Classifier):
    """A kind that declares no capability: Naive Bayes' tables and terms, delegated."""

    kind = "plain_nb"
    state_class = NaiveBayes.state_class

    def __init__(
        self, *, alpha: float = 1.0, categorical=None, numeric=None, class_weight=None
    ) -> None:
        super().__init__(categorical=categorical, numeric=numeric, class_weight=class_weight)
        self.alpha = alpha

    def _learner(self) -> NaiveBayes:
        return NaiveBayes(**self.get_params())

    def _learn_tables(self, *args):
        return self._learner()._learn_tables(*args)

    def _scores(self, *args):
        return self._learner()._scores(*args)


PLAIN = kinds.KindSpec(
    kind="plain_nb",
    aliases=(),
    cls=f"{__name__}.Plain",
    summary="a throwaway kind of the tests without capabilities",
    parameters=(
        kind_parameters.Parameter("alpha", kind_parameters.FLOAT, 1.0, "additive smoothing"),
        *SPECS[0].parameters[-3:],
    ),
)


@pytest.fixture
def plain():
    with kinds.registered(PLAIN) as spec:
        yield spec


def test_a_kind_without_a_capability_is_refused_by_every_call_that_needs_it(
    con, plain, tmp_path, capsys
):
    table = data(60)
    model = fit(plain, con, table, "m")
    assert probabilities(model, con, table).shape == (60, 3)
    refused = [
        ("CountUpdates", lambda: model.update(con, table, batch_id="b")),
        ("CountSummaries", lambda: model.drift(con, table)),
        ("CountSummaries", lambda: model.create_drift_view(con, "v", "t")),
        ("CountSummaries", lambda: model.attribute_ranking(con)),
        ("ExactLeaveOneOut", lambda: loo.cross_validate_leave_one_out(con, table, "y", Plain())),
        ("WeightedFit", lambda: Plain().fit(con, table, "y", sample_weight="w")),
        ("Evidence", lambda: model.explain(con, table)),
        ("Evidence", lambda: model.create_explanation_view(con, "e", "rows")),
    ]
    for capability, call in refused:
        with pytest.raises(NotSupportedError, match=f"{capability}; model kind 'plain_nb'"):
            call()
    assert model.record.model_id == wml.load(con, "m").record.model_id  # nothing changed
    evaluation = wml.evaluate(con, model, table)  # a report shows what the model can give
    page = evaluation.report(tmp_path / "r.html", model=model).read_text(encoding="utf-8")
    assert "accuracy" in page and "attribute ranking" not in page

    db = str(tmp_path / "w.duckdb")
    with duckdb.connect(db) as stored:
        fit(plain, stored, table, "m")
        stored.register("rows", table)
        stored.execute("CREATE TABLE batch AS SELECT * FROM rows")
    assert main(["update", "m", "batch", "--batch-id", "b", "--db", db]) != 0
    assert "capability CountUpdates; model kind 'plain_nb'" in capsys.readouterr().err


def test_a_family_outside_the_library_is_a_kind_like_the_librarys(outside_families, capsys):
    """ZeroR, registered from its own files, is listed by ``train --help`` with its parameter
    and taken by ``--kind``, as the library's own kinds are."""
    assert [spec.kind for spec in outside_families] == ["zero_rule"]
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    listed = capsys.readouterr().out
    assert "zeror/zero_rule: ZeroR: every row scored by the training classes' shares" in listed
    assert "alpha=float (default 0.0): additive smoothing of P(class)" in listed
    assert kinds.named("ZEROR").load().__module__ == "extra_families.zero_rule.zero_rule"


MEMBER_WEIGHTS = ["(src.id * 7 + 3) % 4", "(src.id * 5 + 1) % 3", "src.w"]
"""Three members' row weights (0 .. 3; 0 leaves a row out of the member), over the rows of
:func:`data` as ``src``."""


def _learn_members(warehouse, model, training, tables, row_key: str):
    """The record of ``training``'s members learned at once by ``model`` into ``tables``, its
    members told apart at scoring by the column ``member`` of the scored rows."""
    check = CardinalityCheck(training.source.description, training.features, 240)
    learned = model.learn_tables(warehouse, training, tables, check)
    noted = FittedState(partition_column="member", row_key=row_key)
    return model.record_of(warehouse, tables, training, learned, noted=noted)


def _member_probabilities(warehouse, model, record, member: int) -> np.ndarray:
    """Member ``member``'s probabilities of the rows of ``t`` in ``id`` order."""
    rows = open_source(warehouse, wml.query(f"SELECT *, {member} AS member FROM t"))
    with rows as src:
        query = model.scoring_query(
            ScoringContext(warehouse), record, src, passthrough=[("id", "id")],
            probability_names=LABELS,
        )  # fmt: skip
        scored = warehouse.fetch_tree(query).sort_by("id")
    return np.column_stack([scored[label].to_numpy() for label in LABELS])


COUNTED = {
    "categorical": (["wml_part", "attribute", "value", "class_index"], ["n"]),
    "gaussian": (["wml_part", "attribute", "class_index"], ["n", "mean", "population_variance"]),
}
"""The count tables of :func:`test_members_of_their_own_row_weights_are_the_weighted_fits_of_\
those_weights`: their key columns and their counted ones."""


def _counted(con, table, columns) -> dict[tuple, list[float]]:
    """The rows of positive count of ``table``: key columns -> counted columns."""
    keys, counted = columns
    rows = (
        con.sql(f"SELECT * FROM {table.to_table().sql('duckdb')} WHERE n > 0")
        .to_arrow_table()
        .to_pylist()
    )
    return {tuple(r[k] for k in keys): [float(r[c]) for c in counted] for r in rows}


@declaring(capabilities.MembersAtOnce)
def test_members_of_their_own_row_weights_are_the_weighted_fits_of_those_weights(con, spec):
    """Members learned at once (models/members.py: WeightedMembers; here three, of row
    weights 0 .. 3) give member m the probabilities of a fit whose ``sample_weight`` column
    holds member m's weights; and a cross-validation's folds are the members of 0/1 row
    weights (Folds.weights): for a kind that keeps count tables, learned as such members they
    have each fold's counts. (Not its probabilities: a member, as a weighted fit, knows the
    values of every row, those its weights leave out included, and a fold's model only those
    of its rows.)"""
    weights = [sqlglot.parse_one(w) for w in MEMBER_WEIGHTS]
    columns = ", ".join(f"{w.sql()} AS w{m}" for m, w in enumerate(weights))
    con.register("rows", data())
    con.execute(f"CREATE TABLE t AS SELECT *, {columns} FROM rows AS src ORDER BY id")
    table = con.sql("SELECT * FROM t ORDER BY id").to_arrow_table()
    model = spec.load()()
    reference = fit(spec, con, "t", "reference")
    record = reference.record_
    features = [
        Feature(n, record.feature_types[n]["kind"], record.feature_types[n]["sql_type"])
        for n in record.features
    ]
    with session(con) as warehouse, open_source(warehouse, "t") as src:
        classes = [labelled_classes(warehouse, src, "y", f"w{m}")[0] for m in range(3)]
        training = Training(src, "y", features, classes, members=WeightedMembers(tuple(weights)))
        with Staging(
            warehouse, owner_kind="model", owner="m", created_by="test", version="v",
            lifetime=ownership.MODEL,
        ) as tables:  # fmt: skip
            members = _learn_members(warehouse, model, training, tables, "id")
            for m in range(3):
                weighted = fit(spec, con, "t", f"w{m}", sample_weight=f"w{m}")
                np.testing.assert_allclose(
                    _member_probabilities(warehouse, model, members, m),
                    probabilities(weighted, con, table), rtol=0, atol=1e-12,
                )  # fmt: skip
        if isinstance(model, capabilities.CountSummaries):  # count tables to compare
            _check_folds_are_members_of_0_1_weights(warehouse, con, model, src, features)


def _weighted_classes(warehouse, rows, weight: exp.Expression) -> list:
    """The classes of ``rows`` weighted by ``weight``, an expression over the row ``src``."""
    weighted = exp.select("*", exp.alias_(weight, "wf")).from_(rows.relation.copy().as_("src"))
    return labelled_classes(
        warehouse, dataclasses.replace(rows, relation=weighted.subquery("weighted")), "y", "wf"
    )[0]


def _check_folds_are_members_of_0_1_weights(warehouse, con, model, src, features) -> None:
    """Folds of ``code`` learned at once as folds and as the members of their 0/1 row weights
    (Folds.weights) have the same count tables."""
    folds = Folds("code", 5)
    rows = Source(
        exp.select("*").from_("t").where("code IS NOT NULL").subquery("known"),
        src.schema, src.description, True,
    )  # fmt: skip
    fold_classes = [_weighted_classes(warehouse, rows, weight) for weight in folds.weights()]
    if not capabilities.folds_at_once(model, features):  # TAN: categorical ones only
        features = [f for f in features if f.kind == CATEGORICAL]
    as_folds = Training(rows, "y", features, fold_classes, members=folds)
    as_members = dataclasses.replace(as_folds, members=WeightedMembers(folds.weights()))
    with (
        Staging(warehouse, owner_kind="model", owner="f", created_by="test", version="vf",
                lifetime=ownership.MODEL) as fold_tables,
        Staging(warehouse, owner_kind="model", owner="w", created_by="test", version="vw",
                lifetime=ownership.MODEL) as member_tables,
    ):  # fmt: skip
        _learn_members(warehouse, model, as_folds, fold_tables, "id")
        _learn_members(warehouse, model, as_members, member_tables, "id")
        for role, columns in COUNTED.items():
            if role not in fold_tables.roles:
                continue
            got, expected = (
                _counted(con, staged.named(role), columns)
                for staged in (member_tables, fold_tables)
            )
            assert got.keys() == expected.keys(), role
            for key, values in expected.items():
                np.testing.assert_allclose(got[key], values, rtol=1e-12, atol=1e-12)
