"""A fitted model's typed state (models/state.py): for every registered kind its JSON reads back
equal, is what the catalog stores, and a reloaded model predicts the same; the keys written are
those earlier versions wrote, and their forms (catalog formats 1 to 4) read back as they were
written; a malformed field is an IncompatibleModelError naming the model and the field."""

from __future__ import annotations

import json
import re

import numpy as np
import pyarrow as pa
import pytest

import warehouse_ml as wml
from warehouse_ml.errors import IncompatibleModelError
from warehouse_ml.models import kinds
from warehouse_ml.models.capabilities import CountUpdates, WeightedFit
from warehouse_ml.models.learners.bayes.naive_bayes import NaiveBayes
from warehouse_ml.models.learners.bayes.tan import TAN
from warehouse_ml.models.reading import read_state
from warehouse_ml.models.state import FittedState, LearnedState

SPECS = kinds.specs()


def data(n: int, seed: int) -> pa.Table:
    """A text attribute, an integer code (looked up when scoring), a numeric one with NULLs,
    an integer weight and two classes."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return pa.table(
        {
            "colour": [f"v{(v + rng.integers(0, 2)) % 3}" for v in y],
            "code": [int((v * 2 + rng.integers(0, 3)) % 5) for v in y],
            "size": [None if rng.random() < 0.1 else float(v + rng.normal()) for v in y],
            "w": rng.integers(1, 4, n),
            "y": ["no" if v == 0 else "yes" for v in y],
        }
    )


def stored_details(con, name: str) -> dict:
    """The catalog's ``details`` column of model ``name``, as stored."""
    (text,) = con.execute("SELECT details FROM wml.models WHERE name = ?", [name]).fetchone()
    return json.loads(text)


def assert_round_trip(con, model) -> None:
    """The state's JSON is what the catalog stores and reads back equal; the reloaded model
    has the same state and predicts the same."""
    record = model.record
    state = record.state
    assert isinstance(state.learned, type(model).state_class)
    written = json.loads(json.dumps(state.to_json(), sort_keys=True))
    assert written == stored_details(con, record.name)
    assert FittedState.from_json(written, type(model).state_class, record.name) == state
    reloaded = wml.load(con, record.name)
    assert reloaded.record.state == state
    source = data(80, 9)
    assert reloaded.predict_proba(con, source) == model.predict_proba(con, source)


@pytest.mark.parametrize("spec", SPECS, ids=[s.kind for s in SPECS])
def test_a_fitted_state_reads_back_equal_from_its_json(con, spec):
    cls = spec.load()
    model = cls(categorical=["code"]).fit(con, data(300, 1), "y", name="m")
    assert_round_trip(con, model)
    if issubclass(cls, CountUpdates):
        model.update(con, data(120, 2), batch_id="b1")
        assert [b["batch_id"] for b in model.batches_] == ["b1"]
        assert_round_trip(con, model)
    if issubclass(cls, WeightedFit):
        weighted = cls(categorical=["code"], class_weight={"yes": 2.0}).fit(
            con, data(300, 3), "y", features=["colour", "code"], sample_weight="w", name="w"
        )
        assert weighted.record.state.weighting is not None
        assert_round_trip(con, weighted)


def test_a_callers_facts_are_kept_under_their_own_keys(con):
    model = NaiveBayes().fit(con, data(200, 4), "y", name="m", details={"demo": True, "n": [1]})
    assert model.record.state.extra == {"demo": True, "n": [1]}
    assert stored_details(con, "m")["demo"] is True
    assert wml.load(con, "m").record.state == model.record.state


WRITTEN_KEYS = {
    NaiveBayes: {
        "tables", "class_rows", "probability_columns", "checksums", "histogram_bins", "lookup",
    },
    TAN: {
        "tables", "class_rows", "probability_columns", "checksums", "bins", "pair_blocks", "root",
        "parents", "information", "lookup", "resolved",
    },
}  # fmt: skip
"""The keys a fit of catalog format 4 wrote before the state was typed (numeric attributes
and integer codes present), and since: TAN's ``resolved`` (models/keyed_terms/resolved.py; an
earlier version keeps it among a caller's facts)."""


@pytest.mark.parametrize("cls", list(WRITTEN_KEYS), ids=lambda c: c.kind)
def test_a_fit_writes_the_keys_earlier_versions_wrote(con, cls):
    cls(categorical=["code"]).fit(con, data(300, 5), "y", name="m")
    assert set(stored_details(con, "m")) == WRITTEN_KEYS[cls]


OLD_FORMS = [
    (  # format 1: no checksums, class rows, probability columns, histogram or lookup blocks
        NaiveBayes,
        {"tables": ["classes", "categorical", "unseen", "gaussian"]},
    ),
    (  # format 4 with everything
        NaiveBayes,
        {
            "tables": ["classes", "categorical", "unseen", "lookup"],
            "class_rows": [3, 4], "probability_columns": [["no", "p_no"], [True, "p_True"]],
            "checksums": {"engine": "duckdb 1", "parts": {"classes": [2, 1, 2]}},
            "lookup": [{"first_code": 0, "attributes": [["code", 0, 4]]}],
            "histogram_bins": {"size": [0.5, 1.25]}, "weighting": {
                "sample_weight": "w", "class_weights": {"yes": 2.0}
            },
            "batches": [{
                "batch_id": "b", "source": "t", "n_rows": 5, "n_null_target": 0,
                "above_bins": {}, "applied_at": "2026-01-01T00:00:00",
            }],
            "selection": ["wml", "selection_1"], "demo": True,
        },
    ),
    (  # a TAN stored before pair blocks and lookup layouts
        TAN,
        {
            "tables": ["classes", "categorical", "unseen", "cpt", "cpt_parent"],
            "bins": {}, "root": "a", "parents": {"a": None, "b": "a"},
            "information": [["a", "b", 0.25, None]],
        },
    ),
    (  # a TAN with its lookup layout and numeric bins
        TAN,
        {
            "tables": ["classes", "categorical", "unseen", "bins", "cpt", "cpt_parent", "lookup"],
            "bins": {"x": [1.0, 2.5]}, "pair_blocks": [[0, 1]], "root": "b",
            "parents": {"a": "b", "b": None}, "information": [["a", "b", 0.1, 0.2]],
            "lookup": {"a": [0, 1, 3, 1]}, "class_rows": [1, 1],
        },
    ),
]  # fmt: skip


@pytest.mark.parametrize(("cls", "details"), OLD_FORMS)
def test_the_forms_earlier_versions_stored_read_back_as_written(cls, details):
    state = read_state(cls.kind, "old", details)
    assert state.to_json() == details
    assert FittedState.from_json(state.to_json(), cls.state_class, "old") == state


def test_an_old_model_reads_with_absent_fields_empty():
    state = read_state(NaiveBayes.kind, "old", OLD_FORMS[0][1])
    assert state.checksums is None and state.class_rows is None and state.batches == ()
    assert state.learned.histogram_edges() == {} and state.learned.lookup is None
    tan = read_state(TAN.kind, "old", OLD_FORMS[2][1])
    assert tan.learned.binned_edges() == {} and tan.learned.trees() == [{"a": None, "b": "a"}]


@pytest.mark.parametrize(
    ("cls", "patch", "field"),
    [
        (NaiveBayes, {"class_rows": "3"}, "class_rows"),
        (NaiveBayes, {"tables": ["classes", 4]}, "tables"),
        (NaiveBayes, {"weighting": {"sample_weight": 5, "class_weights": {}}},
         "weighting.sample_weight"),
        (NaiveBayes, {"batches": [{"batch_id": "b"}]}, "batches[].source"),
        (NaiveBayes, {"lookup": [{"first_code": "0", "attributes": []}]}, "lookup"),
        (NaiveBayes, {"histogram_bins": {"size": ["a"]}}, "histogram_bins"),
        (TAN, {"parents": {"a": 1}}, "parents"),
        (TAN, {"information": [["a", "b", 0.1]]}, "information"),
    ],
)  # fmt: skip
def test_a_malformed_field_is_refused_naming_the_model_and_the_field(con, cls, patch, field):
    cls().fit(con, data(200, 6), "y", features=["colour"], name="m")
    con.execute(
        "UPDATE wml.models SET details = json_merge_patch(details, ?) WHERE name = 'm'",
        [json.dumps(patch)],
    )
    with pytest.raises(
        IncompatibleModelError, match=rf"model 'm': field '{re.escape(field)}' .*expected"
    ):
        wml.load(con, "m")


def test_a_learner_without_state_of_its_own_reads_none():
    state = FittedState.from_json({"tables": ["classes"], "x": 1}, LearnedState, "m")
    assert state.learned == LearnedState() and state.extra == {"x": 1}
    assert state.to_json() == {"tables": ["classes"], "x": 1}
