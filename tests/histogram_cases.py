"""Data and models for the training-histogram tests (Naive Bayes, drift)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from stored_forms import details_of, with_details

import warehouse_ml as wml


def lopsided(n: int, seed: int) -> pa.Table:
    """Numerics a class normal fits poorly: mostly zeros with a long tail (as adult's
    capital-gain), rounded bimodal hours, and NULLs."""
    rng = np.random.default_rng(seed)
    label = rng.choice(["no", "yes"], n, p=[0.7, 0.3])
    yes = label == "yes"
    gain = np.where(rng.random(n) < 0.85, 0.0, np.round(rng.exponential(4000, n))) * (1 + yes)
    hours = np.round(np.where(rng.random(n) < 0.5, 20.0, 45.0) + rng.normal(0, 3, n) + 4 * yes)
    size = [None if rng.random() < 0.1 else float(v) for v in rng.normal(0, 1, n) + yes]
    colour = rng.choice(["red", "green", "blue"], n, p=[0.5, 0.3, 0.2])
    return pa.table({"label": label, "gain": gain, "hours": hours, "size": size, "colour": colour})


def without_histogram(model: wml.NaiveBayes) -> wml.NaiveBayes:
    """The model as a version stored before the histogram shows it: no ``histogram`` or
    ``histogram_bins`` part, and no edges in its details."""
    details = {k: v for k, v in details_of(model).items() if k != "histogram_bins"}
    details["tables"] = [t for t in details["tables"] if not t.startswith("histogram")]
    checksums = details["checksums"]
    details["checksums"] = {
        **checksums,
        "parts": {p: v for p, v in checksums["parts"].items() if not p.startswith("histogram")},
    }
    return with_details(model, details)
