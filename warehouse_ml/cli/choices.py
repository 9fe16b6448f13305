"""What the command line offers, declared as data: the numbers its help texts quote, the
commands that write to the database, and the parsing of the option values that are more than a
string. The model kinds, their spellings and parameters are the registry's
(``models/kinds.py``). Nothing here imports the library's learners, so ``warehouse-ml --help``
loads none of DuckDB, Arrow, sqlglot or numpy (``tests/cli/test_cli_startup.py`` checks that these
facts equal the library's own)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from warehouse_ml.models import kind_parameters, kinds

MODEL_OPTIONS = ("alpha", "prior_alpha", "bins", "class_weight")
"""Model constructor arguments the CLI offers as options of their own (any parameter of the
chosen kind is also ``--param NAME=VALUE``); left out, the model's own default (the Python
API's) applies. Given for a kind without the parameter, it is a usage error naming the kind's
parameters (:func:`refused_options`), as ``--param`` is."""

WEIGHT_OPTION = "sample_weight"
"""The fit's option a kind without a weighted form refuses besides ``class_weight``."""

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
    try:
        return kinds.named(text).kind
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def default_of(kind: str, option: str) -> object:
    """The Python API's default of a model option (None if the kind has no such option)."""
    spec = kinds.spec_of(kind)
    return None if spec is None else spec.defaults().get(option)


def class_weight(text: str) -> str | dict[str, float]:
    """``--class-weight``: ``balanced`` or a JSON object mapping class labels to weights."""
    try:
        return kind_parameters.CLASS_WEIGHT.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def param_pair(text: str) -> tuple[str, str]:
    """A ``--param NAME=VALUE``, split at its first ``=``; a usage error without one."""
    name, equals, value = text.partition("=")
    if not equals or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name.strip(), value


def _naming_parameters(spec: kinds.KindSpec, error: ValueError) -> ValueError:
    """``error`` followed by the parameters a caller may set on ``spec``'s kind."""
    listed = ", ".join(f"{p.name} ({p.type.name})" for p in spec.settable)
    return ValueError(f"{error}; the parameters of {spec.kind}: {listed}")


def kind_params(kind: str, pairs: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """The constructor arguments ``--param`` gives a model of ``kind``, each value parsed by
    its declared type; ValueError naming the kind's parameters when a name is unknown (or
    ``class_weight`` of a kind without a weighted form), a value unparsable or a name given
    twice."""
    spec = kinds.named(kind)
    params: dict[str, Any] = {}
    for name, text in pairs:
        if name in params:
            raise ValueError(f"--param {name} is given twice")
        try:
            params[name] = spec.parameter(name).parse(text)
        except ValueError as error:
            raise _naming_parameters(spec, error) from None
    return params


def refused_options(kind: str, given: Sequence[str]) -> None:
    """Refuse (ValueError naming the kind's parameters) the options of :data:`MODEL_OPTIONS`
    and :data:`WEIGHT_OPTION` among ``given`` (their names) that do not apply to ``kind``: a
    parameter it does not have, or weights when it has no weighted form."""
    spec = kinds.named(kind)
    for name in given:
        option = "--" + name.replace("_", "-")
        if name == WEIGHT_OPTION and not spec.weighted:
            error = ValueError(f"{option} does not apply to {spec.kind}: it has no weighted form")
            raise _naming_parameters(spec, error)
        if name in MODEL_OPTIONS:
            try:
                spec.parameter(name)
            except ValueError as error:
                raise _naming_parameters(spec, ValueError(f"{option}: {error}")) from None


def kinds_help() -> str:
    """The registered kinds and their parameters, for ``train --help`` and ``evaluate --help``."""
    lines = ["model kinds (--kind) and their parameters (--param NAME=VALUE):"]
    for spec in kinds.specs():
        lines.append(f"  {'/'.join(spec.spellings)}: {spec.summary}")
        lines.extend(
            f"    {p.name}={p.type.name} (default {p.default}): {p.description}"
            for p in spec.settable
        )
    return "\n".join(lines)
