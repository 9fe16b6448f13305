"""What the command line offers, declared as data: the model kinds and their defaults, the
numbers its help texts quote, the commands that write to the database, and the parsing of the
option values that are more than a string. Nothing here imports the library's learners, so
``warehouse-ml --help`` loads none of DuckDB, Arrow, sqlglot or numpy
(``tests/test_cli_manners.py`` checks that these facts equal the library's own)."""

from __future__ import annotations

import argparse
import json

KIND_NAMES = {"nb": "naive_bayes", "naive_bayes": "naive_bayes", "tan": "tan"}
"""The spellings ``--kind`` accepts (any case), and the model kind each names."""

KIND_DEFAULTS = {
    "naive_bayes": {"alpha": 1.0, "prior_alpha": 0.0},
    "tan": {"alpha": 0.5, "prior_alpha": 0.5, "bins": 5},
}
"""Each kind's defaults of the options the CLI offers (those of ``wml.NaiveBayes`` and
``wml.TAN``); an option a kind does not take is absent."""

RANK_BINS = 5
"""``rank``'s equal-frequency bins of a numeric column (``stats.binning.DEFAULT_BINS``)."""

DRIFT_BINS = 10
"""``drift``'s bins of a Gaussian attribute's fitted normals (``models.drift.DEFAULT_BINS``)."""

MAX_INTEGER_CATEGORIES = 32
"""Integer columns with more distinct values are numbers by default
(``stats.integer_rule.MAX_INTEGER_CATEGORIES``)."""

WRITES: dict[str, tuple[str, ...]] = {
    "train": (),
    "update": (),
    "drop": (),
    "vacuum": (),
    "demo": (),
    "predict": ("to_view", "to_table"),
    "explain": ("to_view",),
    "drift": ("to_view",),
    "evaluate": ("keep",),
    "evaluations": ("drop",),
}
"""The commands that write to the database: always (no options named), or when one of the
named options is given. Every other command, and these without those options, only reads, and
runs with ``--read-only``."""


def writing_option(command: str, options: dict[str, object]) -> str | None:
    """Why ``command`` with the parsed ``options`` writes to the database: ``""`` when it
    always does, the option (``"--to-view"``) that makes it write, or None when it only reads."""
    if command not in WRITES:
        return None
    if not WRITES[command]:
        return ""
    given = [name for name in WRITES[command] if options.get(name)]
    return "--" + given[0].replace("_", "-") if given else None


def kind_name(text: str) -> str:
    """The model kind a ``--kind`` value names (case-insensitive); a usage error otherwise."""
    kind = KIND_NAMES.get(text.lower())
    if kind is None:
        raise argparse.ArgumentTypeError(
            f"unknown model kind {text!r}; expected one of {', '.join(KIND_NAMES)}"
        )
    return kind


def default_of(kind: str, option: str) -> object:
    """The Python API's default of a model option (None if the kind has no such option)."""
    return KIND_DEFAULTS[kind].get(option)


def class_weight(text: str) -> str | dict[str, float]:
    """``--class-weight``: ``balanced`` or a JSON object mapping class labels to weights."""
    if text == "balanced":
        return text
    try:
        mapping = json.loads(text)
    except json.JSONDecodeError:
        mapping = None
    if not isinstance(mapping, dict):
        raise argparse.ArgumentTypeError(
            f"expected 'balanced' or a JSON object such as '{{\"yes\": 5}}', got {text!r}"
        )
    return mapping
