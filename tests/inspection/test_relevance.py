"""Which attributes matter (models/inspection/relevance.py, stats/information.py): MI and CMI against
scikit-learn, numpy and scipy references computed from the rows; a model's ranking from its
stored parameters; ``features="top:k"`` chosen inside each training fold."""

from __future__ import annotations

import math
from collections import Counter, defaultdict

import numpy as np
import pytest
from conftest import load_text_csv
from reference import binned, bits, ntile_bins, ntile_edges, reference_terms

import warehouse_ml as wml
from warehouse_ml.evaluation.selection import Candidate

SETS = [("car", "class"), ("vote", "Class")]


def _columns(con, table, names):
    quoted = ", ".join(f'"{n}"' for n in names)
    rows = con.execute(f"SELECT {quoted} FROM {table}").fetchall()
    return {n: [r[i] for r in rows] for i, n in enumerate(names)}


@pytest.mark.parametrize(("name", "target"), SETS)
def test_rank_attributes_equals_mutual_info_score(con, datasets, name, target):
    load_text_csv(con, "d", datasets / f"{name}.csv")
    ranking = wml.rank_attributes(con, "d", target)
    features = [c for c in con.sql("SELECT * FROM d").columns if c != target]
    data = _columns(con, "d", [*features, target])
    want = {a: bits(data[a], data[target]) for a in features}
    got = {r["attribute"]: r for r in ranking.to_pylist()}
    assert got.keys() == set(features)
    for a in features:
        assert got[a]["mi"] == pytest.approx(want[a], abs=1e-9)
        counted = sum(x is not None and y is not None for x, y in zip(data[a], data[target]))
        assert got[a]["n"] == counted and got[a]["treatment"] == "categorical"
    order = sorted(features, key=lambda a: (-got[a]["mi"], features.index(a)))
    assert ranking.column("attribute").to_pylist() == order
    assert ranking.column("rank").to_pylist() == list(range(1, len(features) + 1))


def test_numeric_columns_are_ranked_on_equal_frequency_bins(con, datasets):
    con.execute(
        f"CREATE TABLE a AS SELECT * FROM read_csv('{datasets / 'adult_train.csv'}') LIMIT 4000"
    )
    numeric = ["age", "fnlwgt", "hours-per-week"]
    ranking = wml.rank_attributes(
        con, "a", "class", [*numeric, "education", "education-num"], numeric=numeric, bins=7
    )
    data = _columns(con, "a", [*numeric, "education", "education-num", "class"])
    got = {r["attribute"]: r for r in ranking.to_pylist()}
    for a in numeric:
        labelled = [x if y is not None else None for x, y in zip(data[a], data["class"])]
        want = bits(ntile_bins(labelled, 7), data["class"])
        assert got[a]["mi"] == pytest.approx(want, abs=1e-9)
        assert (
            got[a]["treatment"].startswith("numeric: ") and "equal-frequency" in got[a]["treatment"]
        )
    for a in ("education", "education-num"):  # an integer code with few values: categorical
        assert got[a]["mi"] == pytest.approx(bits(data[a], data["class"]), abs=1e-9)
        assert got[a]["treatment"] == "categorical"


def reference_cmi(a, b, c) -> float:
    """CMI(A; B | C) in bits over the positions where all three are non-NULL."""
    kept = [t for t in zip(a, b, c, strict=True) if None not in t]
    n = len(kept)
    abc, ac, bc, cc = Counter(kept), Counter(), Counter(), Counter()
    for x, y, z in kept:
        ac[x, z] += 1
        bc[y, z] += 1
        cc[z] += 1
    return sum(k / n * math.log2(k * cc[z] / (ac[x, z] * bc[y, z])) for (x, y, z), k in abc.items())


def test_pair_information_equals_the_references(con, datasets):
    load_text_csv(con, "d", datasets / "vote.csv")
    features = [c for c in con.sql("SELECT * FROM d").columns if c != "Class"][:7]
    table = wml.pair_information(con, "d", "Class", features)
    data = _columns(con, "d", [*features, "Class"])
    rows = table.to_pylist()
    assert [(r["attribute_i"], r["attribute_j"]) for r in rows] == [
        (features[i], features[j]) for i in range(7) for j in range(i + 1, 7)
    ]
    for r in rows:
        x, y, c = data[r["attribute_i"]], data[r["attribute_j"]], data["Class"]
        assert r["cmi"] == pytest.approx(reference_cmi(x, y, c), abs=1e-9)
        both = [(p, q) for p, q, z in zip(x, y, c, strict=True) if None not in (p, q, z)]
        assert r["mi"] == pytest.approx(bits(*zip(*both, strict=True)), abs=1e-9)
        assert r["n"] == len(both)


@pytest.mark.parametrize(("name", "target"), SETS)
def test_a_models_ranking_comes_from_its_counts(con, datasets, name, target):
    load_text_csv(con, "src", datasets / f"{name}.csv")
    nb = wml.NaiveBayes().fit(con, "src", target, name="nb")
    tan = wml.TAN().fit(con, "src", target, name="tan")
    before = wml.rank_attributes(con, "src", target)
    for model in (nb, tan):
        ranking = model.attribute_ranking(con)
        assert ranking.select(["attribute", "treatment", "n", "rank"]) == before.select(
            ["attribute", "treatment", "n", "rank"]
        )
        for got, want in zip(ranking.column("mi").to_pylist(), before.column("mi").to_pylist()):
            assert got == pytest.approx(want, abs=1e-12)
        assert ranking.column("mean_abs_evidence").null_count == len(ranking)
    data = _columns(con, "src", [*tan.feature_names_in_, target])
    for r in tan.attribute_ranking(con).to_pylist():
        parent = tan.parents_[r["attribute"]]
        assert r["parent"] == parent
        if parent is None:
            assert r["cmi_parent"] is None
        else:
            want = reference_cmi(data[r["attribute"]], data[parent], data[target])
            assert r["cmi_parent"] == pytest.approx(want, abs=1e-9)
    assert set(nb.attribute_ranking(con).column("parent").to_pylist()) == {None}


@pytest.mark.parametrize("kind", [wml.NaiveBayes, wml.TAN])
def test_mean_absolute_evidence_over_a_source(con, datasets, kind):
    load_text_csv(con, "d", datasets / "car.csv")
    con.execute("CREATE TABLE src AS SELECT row_number() OVER () - 1 AS id, * FROM d")
    model = kind().fit(con, "src", "class", keys=["id"], name="m")
    features = model.feature_names_in_
    order = ", ".join(f'"{f}"' for f in features)
    rows = con.execute(f"SELECT {order} FROM src ORDER BY id").fetchall()
    terms, prior = reference_terms(model, con, rows)
    joint = terms.sum(axis=1) + prior
    predicted = np.argmax(joint, axis=1)
    masked = np.where(np.arange(joint.shape[1]) == predicted[:, None], -np.inf, joint)
    runner = np.argmax(masked, axis=1)
    rows_index = np.arange(len(rows))
    evidence = terms[rows_index, :, predicted] - terms[rows_index, :, runner]
    want = dict(zip(features, np.abs(evidence).mean(axis=0), strict=True))
    got = {
        r["attribute"]: r["mean_abs_evidence"]
        for r in model.attribute_ranking(con, "src").to_pylist()
    }
    for a in features:
        assert got[a] == pytest.approx(want[a], abs=1e-9)


def test_numerics_of_a_model_are_measured_on_its_bins(con, datasets):
    """A Naive Bayes numeric: MI of its training histogram, the equal-frequency bins
    rank_attributes cuts the same rows into; a TAN numeric: MI of the model's own bins
    (scikit-learn references)."""
    con.execute(
        f"CREATE TABLE a AS SELECT * FROM read_csv('{datasets / 'adult_train.csv'}') LIMIT 3000"
    )
    numeric = ["age", "hours-per-week"]
    features = [*numeric, "education", "sex"]
    data = _columns(con, "a", [*numeric, "class"])
    nb = wml.NaiveBayes().fit(con, "a", "class", features=features, numeric=numeric, name="nb")
    got = {r["attribute"]: r for r in nb.attribute_ranking(con).to_pylist()}
    for a in numeric:
        assert got[a]["mi"] == pytest.approx(bits(ntile_bins(data[a], 5), data["class"]), abs=1e-9)
        assert (
            got[a]["treatment"] == f"numeric: {len(ntile_edges(data[a], 5))} equal-frequency bins"
        )
        assert got[a]["n"] == sum(x is not None for x in data[a])
    tan = wml.TAN().fit(con, "a", "class", features=features, numeric=numeric, name="tan")
    edges = tan.record.state.learned.bins
    for r in tan.attribute_ranking(con).to_pylist():
        if r["attribute"] in numeric:
            cut = edges[r["attribute"]]
            assert r["mi"] == pytest.approx(
                bits(binned(data[r["attribute"]], cut), data["class"]), abs=1e-9
            )
            assert r["treatment"] == f"numeric: the model's {len(cut)} equal-frequency bins"


def test_naive_bayes_ranking_equals_rank_attributes_on_adult(con, datasets):
    """On the same rows and bins, a Naive Bayes model's ranking is rank_attributes' (its
    Gaussian attributes measured by their training histogram, not their fitted normals)."""
    con.execute(f"CREATE TABLE a AS SELECT * FROM read_csv('{datasets / 'adult.csv'}')")
    with pytest.warns(wml.IntegerColumnsWarning):
        model = wml.NaiveBayes().fit(con, "a", "class", name="nb")
        before = wml.rank_attributes(con, "a", "class")
    ranking = model.attribute_ranking(con)
    assert ranking.select(["attribute", "treatment", "n", "rank"]) == before.select(
        ["attribute", "treatment", "n", "rank"]
    )
    for got, want in zip(ranking.column("mi").to_pylist(), before.column("mi").to_pylist()):
        assert got == pytest.approx(want, abs=1e-9)


def _fold_predictions(con, ev):
    rows = con.sql(f"SELECT * FROM {ev.predictions} ORDER BY id").to_arrow_table().to_pylist()
    by_fold = defaultdict(list)
    for r in rows:
        by_fold[r["fold"]].append(r)
    return by_fold


@pytest.mark.slow
def test_top_k_is_chosen_inside_each_training_fold(con, datasets):
    """Each fold's predictions are those of a model fit on its training rows with the k
    attributes of highest MI over those rows alone (a scikit-learn reference): no leakage."""
    load_text_csv(con, "d", datasets / "car.csv")
    con.execute("CREATE TABLE src AS SELECT row_number() OVER () - 1 AS id, * FROM d")
    features = [c for c in con.sql("SELECT * FROM d").columns if c != "class"]
    ev = wml.cross_validate(
        con, "src", "class", wml.NaiveBayes(), folds=4, key="id", features="top:3"
    )
    data = _columns(con, "src", ["id", *features, "class"])
    kept_by_fold = []
    for fold, held in _fold_predictions(con, ev).items():
        held_ids = {r["id"] for r in held}
        training = [i for i, key in enumerate(data["id"]) if key not in held_ids]
        mi = {
            a: bits([data[a][i] for i in training], [data["class"][i] for i in training])
            for a in features
        }
        top = sorted(features, key=lambda a: (-mi[a], features.index(a)))[:3]
        kept_by_fold.append(tuple(sorted(top)))
        ids = ", ".join(str(i) for i in sorted(held_ids))
        con.execute(f"CREATE OR REPLACE TABLE train AS SELECT * FROM src WHERE id NOT IN ({ids})")
        con.execute(
            f"CREATE OR REPLACE TABLE test AS SELECT * FROM src WHERE id IN ({ids}) ORDER BY id"
        )
        reference = wml.NaiveBayes().fit(con, "train", "class", features=top, name=f"f{fold}")
        want = reference.predict_proba(con, "test").to_pylist()
        for r, w in zip(held, want, strict=True):
            for name, p in w.items():
                assert r[name] == pytest.approx(p, abs=1e-12)
    full = wml.cross_validate(con, "src", "class", wml.NaiveBayes(), folds=4, key="id")
    every = wml.cross_validate(
        con, "src", "class", wml.NaiveBayes(), folds=4, key="id", features=f"top:{len(features)}"
    )
    a = con.sql(f"SELECT * FROM {full.predictions} ORDER BY id").to_arrow_table()
    b = con.sql(f"SELECT * FROM {every.predictions} ORDER BY id").to_arrow_table()
    assert a.column("prediction") == b.column("prediction")


@pytest.mark.slow
def test_select_model_refits_the_top_k_of_all_rows(con, datasets):
    load_text_csv(con, "d", datasets / "car.csv")
    candidates = [Candidate(wml.NaiveBayes(), features=f"top:{k}") for k in (2, 6)]
    selection = wml.select_model(con, "d", "class", candidates, folds=5, name="best")
    assert selection.comparison.column("description").to_pylist()[0].endswith("features=top:2")
    chosen = selection.comparison.column("chosen").to_pylist().index(True)
    ranking = wml.rank_attributes(con, "d", "class").column("attribute").to_pylist()
    k = (2, 6)[chosen]
    assert sorted(selection.model.feature_names_in_) == sorted(ranking[:k])


def test_bad_top_k_is_refused_by_name(con, datasets):
    load_text_csv(con, "d", datasets / "car.csv")
    for bad in ("top:0", "top:x", "best:3"):
        with pytest.raises(wml.ParameterError, match="top:k"):
            wml.cross_validate(con, "d", "class", wml.NaiveBayes(), features=bad)
    with pytest.raises(wml.ParameterError, match="more attributes than the 6"):
        wml.cross_validate(con, "d", "class", wml.NaiveBayes(), features="top:7")
    con.execute(
        "CREATE TABLE small AS (SELECT * FROM d WHERE class = 'unacc' LIMIT 15) "
        "UNION ALL (SELECT * FROM d WHERE class = 'acc' LIMIT 15)"
    )
    with pytest.raises(wml.ParameterError, match="leave-one-out"):
        wml.cross_validate(con, "small", "class", wml.NaiveBayes(), folds=30, features="top:2")
    with pytest.raises(wml.ColumnError, match="at least two"):
        wml.pair_information(con, "d", "class", ["doors"])
