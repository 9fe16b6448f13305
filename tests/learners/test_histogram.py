"""A Naive Bayes model's training histogram (models/learners/bayes/naive_bayes.py, stats/binning.py): the rows
of each numeric attribute per equal-frequency bin and class, against numpy references computed
from the rows; kept by updates on the stored edges; summed weights for a weighted fit; absent
from models stored before it, which keep working."""

from __future__ import annotations

import math
from collections import Counter, defaultdict

import numpy as np
import pyarrow as pa
import pytest
from histogram_cases import lopsided, without_histogram
from reference import binned, bits, ntile_bins, ntile_edges
from scipy import optimize, stats

import warehouse_ml as wml


def reference_histogram(values, labels, edges, weights=None) -> dict:
    """{(bin text, label): rows (or summed ``weights``)} of the values on ``edges``."""
    counted: Counter = Counter()
    for i, (cell, y) in enumerate(zip(binned(values, edges), labels, strict=True)):
        if cell is not None:
            counted[(str(cell), y)] += 1 if weights is None else weights[i]
    return dict(counted)


def stored_histogram(con, model, attribute: str) -> dict:
    classes = model.classes_
    return {
        (r["value"], classes[r["class_index"]]): r["n"]
        for r in model.parameters(con)["histogram"].to_pylist()
        if r["attribute"] == attribute and r["wml_part"] == 0
    }


def test_histogram_holds_the_rows_per_equal_frequency_bin_and_class(con):
    data = lopsided(3000, 1)
    model = wml.NaiveBayes().fit(con, data, "label")
    edges = model.record.state.learned.histogram_bins
    assert set(edges) == {"gain", "hours", "size"} and {"histogram", "histogram_bins"} <= set(
        model.record.parts
    )
    labels = data["label"].to_pylist()
    for attribute in ("gain", "hours", "size"):
        values = data[attribute].to_pylist()
        assert list(edges[attribute]) == ntile_edges(values, 5), attribute
        assert stored_histogram(con, model, attribute) == reference_histogram(
            values, labels, edges[attribute]
        )


def test_an_update_adds_the_batch_to_the_histogram_on_the_stored_edges(con):
    base, batch = lopsided(2000, 2), lopsided(700, 3)
    batch = batch.set_column(1, "gain", pa.array(np.asarray(batch["gain"]) * 40))  # past the top
    model = wml.NaiveBayes().fit(con, base, "label", name="m")
    edges = model.record.state.learned.histogram_bins
    model.update(con, batch, batch_id="b1")
    assert model.record.state.learned.histogram_bins == edges
    labels = base["label"].to_pylist() + batch["label"].to_pylist()
    for attribute in ("gain", "hours", "size"):
        values = base[attribute].to_pylist() + batch[attribute].to_pylist()
        want = reference_histogram(values, labels, edges[attribute])
        assert stored_histogram(con, model, attribute) == want, attribute
        cells = binned(values, edges[attribute])
        mi = {r["attribute"]: r["mi"] for r in model.attribute_ranking(con).to_pylist()}
        assert mi[attribute] == pytest.approx(bits(cells, labels), abs=1e-9)


def test_a_weighted_fit_histogram_sums_the_weights_on_edges_of_the_rows(con):
    data = lopsided(2500, 4)
    weights = np.random.default_rng(5).uniform(0.1, 3.0, data.num_rows)
    data = data.append_column("w", pa.array(weights))
    model = wml.NaiveBayes(class_weight={"yes": 2.0}).fit(
        con, data, "label", sample_weight="w", features=["gain", "hours", "size"]
    )
    labels = data["label"].to_pylist()
    counted = [w * (2.0 if y == "yes" else 1.0) for w, y in zip(weights, labels, strict=True)]
    for attribute in ("gain", "hours", "size"):
        values = data[attribute].to_pylist()
        edges = ntile_edges(values, 5)  # equal-frequency in rows, whatever their weights
        assert list(model.record.state.learned.histogram_bins[attribute]) == edges
        want = reference_histogram(values, labels, edges, counted)
        got = stored_histogram(con, model, attribute)
        assert got.keys() == want.keys()
        for cell, n in want.items():
            assert got[cell] == pytest.approx(n, rel=1e-12), (attribute, cell)


def test_models_stored_without_a_histogram_rank_and_update_as_before(con):
    """A model stored before the histogram measures a Gaussian attribute's MI from its fitted
    class normals on equal-frequency bins of their mixture (a scipy reference), and an update
    keeps it so."""
    data = lopsided(1500, 6)
    old = without_histogram(wml.NaiveBayes().fit(con, data, "label", name="old"))
    ranking = {r["attribute"]: r for r in old.attribute_ranking(con).to_pylist()}
    normals = defaultdict(list)
    for r in old.parameters(con)["gaussian"].to_pylist():
        normals[r["attribute"]].append((r["n"], r["mean"], math.sqrt(r["variance"])))
    for a in ("hours", "size"):
        n, mean, sd = (np.array(v, dtype=float) for v in zip(*normals[a], strict=True))
        w = n / n.sum()

        def cdf(x, mean=mean, sd=sd, w=w):
            return float(np.sum(w * stats.norm.cdf(x, mean, sd)))

        edges = [-np.inf]
        for b in range(1, 5):
            edges.append(optimize.brentq(lambda x, q=b / 5: cdf(x) - q, -1e7, 1e7, xtol=1e-13))
        edges.append(np.inf)
        mass = np.array(
            [np.diff(stats.norm.cdf(edges, m, s)) for m, s in zip(mean, sd, strict=True)]
        )
        want = float(np.sum(w[:, None] * mass * np.log2(mass / (w @ mass))))
        assert ranking[a]["mi"] == pytest.approx(want, abs=1e-9)
        assert ranking[a]["treatment"] == (
            "gaussian: 5 equal-frequency bins of the fitted class normals"
        )
        assert ranking[a]["n"] == int(n.sum())
    assert ranking["colour"]["mi"] == pytest.approx(
        bits(data["colour"].to_pylist(), data["label"].to_pylist()), abs=1e-9
    )
    old.update(con, lopsided(300, 7), batch_id="b1")
    assert "histogram" not in old.record.parts and old.record.state.learned.histogram_bins is None
    assert old.drift(con, data).to_pylist()[1]["treatment"] == (
        "gaussian: 10 equal-frequency bins of the fitted class normals"
    )


def test_a_numeric_only_model_ranks_its_attributes_from_the_histogram(con):
    data = lopsided(1200, 8)
    model = wml.NaiveBayes().fit(con, data, "label", features=["gain", "hours"])
    assert "categorical" not in model.record.parts
    ranking = {r["attribute"]: r for r in model.attribute_ranking(con).to_pylist()}
    labels = data["label"].to_pylist()
    for attribute in ("gain", "hours"):
        cells = ntile_bins(data[attribute].to_pylist(), 5)
        assert ranking[attribute]["mi"] == pytest.approx(bits(cells, labels), abs=1e-9)
