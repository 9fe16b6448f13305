"""Arguments naming columns take a list of names or one name: a string is one column (or, for
``features``, the ``"top:k"`` choice), never the characters of one."""

from __future__ import annotations

import math
from collections import Counter

import pyarrow as pa
import pytest

import warehouse_ml as wml
from warehouse_ml.errors import ParameterError


def rows(n: int = 40) -> pa.Table:
    """Columns ``a``, ``g`` and ``e`` next to ``age``: the characters of "age" are columns too,
    so reading the string as its characters would fit without an error."""
    label = ["yes" if i % 3 else "no" for i in range(n)]
    return pa.table(
        {
            "id": list(range(n)),
            "age": ["old" if y == "yes" and i % 5 else "young" for i, y in enumerate(label)],
            "a": ["p" if i % 2 else "q" for i in range(n)],
            "g": ["u" if y == "yes" else "v" for y in label],
            "e": ["z" if i % 4 else "w" for i in range(n)],
            "code": [i % 7 for i in range(n)],
            "label": label,
        }
    )


def mutual_information(xs: list, ys: list) -> float:
    """MI in bits of two lists of values (numpy-free reference)."""
    n = len(xs)
    joint, px, py = Counter(zip(xs, ys, strict=True)), Counter(xs), Counter(ys)
    return sum(c / n * math.log2(c * n / (px[x] * py[y])) for (x, y), c in joint.items())


def test_one_feature_name_is_one_column(con):
    model = wml.NaiveBayes().fit(con, rows(), "label", features="age")
    assert model.feature_names_in_ == ["age"]
    listed = wml.NaiveBayes().fit(con, rows(), "label", features=["age"], name="listed")
    assert model.predict_proba(con, rows()).equals(listed.predict_proba(con, rows()))


def test_top_k_as_a_string_keeps_the_k_columns_of_highest_information(con):
    data = rows()
    candidates = ["age", "a", "g", "e", "code"]
    label = data.column("label").to_pylist()
    mi = {c: mutual_information(data.column(c).to_pylist(), label) for c in candidates}
    best = sorted(candidates, key=lambda c: -mi[c])[:2]
    model = wml.NaiveBayes().fit(con, data, "label", features="top:2", keys="id")
    assert sorted(model.feature_names_in_) == sorted(best)


def test_one_key_and_one_declared_column_are_one_column_each(con):
    model = wml.NaiveBayes().fit(con, rows(), "label", keys="id", categorical="code")
    assert "id" not in model.feature_names_in_
    assert {f.name: f.kind for f in model.features_}["code"] == "categorical"
    declared = wml.NaiveBayes(numeric="code").fit(con, rows(), "label", keys="id")
    assert declared.categorical is None and declared.numeric == ["code"]
    assert {f.name: f.kind for f in declared.features_}["code"] == "numeric"


def test_one_key_when_scoring_and_explaining(con):
    model = wml.NaiveBayes().fit(con, rows(), "label", keys="id")
    assert model.predict(con, rows(), keys="id").column_names == ["id", "prediction"]
    assert model.explain(con, rows(), keys="id").column_names[0] == "id"
    assert model.score_rows(con, rows(), keys="id").column_names[0] == "id"


def test_cross_validation_and_candidates_take_one_name(con):
    ev = wml.cross_validate(con, rows(), "label", wml.NaiveBayes(), features="age", folds=4)
    listed = wml.cross_validate(con, rows(), "label", wml.NaiveBayes(), features=["age"], folds=4)
    assert ev.accuracy() == listed.accuracy()
    candidates = [
        wml.Candidate(wml.NaiveBayes(), features="age"),
        wml.Candidate(wml.NaiveBayes(), features="top:1", categorical="code"),
    ]
    selection = wml.select_model(con, rows(), "label", candidates, folds=4, key="id")
    assert selection.comparison.column("description").to_pylist()[0].endswith("features=age")


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"features": [1, 2]}, "features must be a column name or a list of column names"),
        ({"keys": 7}, "keys must be a column name or a list of column names, got 7"),
        ({"features": "top:x"}, r"features='top:x': expected a list of column names"),
    ],
)
def test_names_of_another_type_are_refused(con, arguments, message):
    with pytest.raises(ParameterError, match=message):
        wml.NaiveBayes().fit(con, rows(), "label", **arguments)
