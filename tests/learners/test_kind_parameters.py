"""Each kind's parameters are declared once (its family's specs.py: type, default, constraint, help)
and the constructor holds its arguments to that declaration: a value the constraint refuses
is a ParameterError saying what the value must be, the same text for every kind."""

from __future__ import annotations

import inspect
import math

import pytest

import warehouse_ml as wml
from warehouse_ml.evaluation import k_nearest_selection
from warehouse_ml.models import kind_parameters, kinds

SPECS = kinds.specs()
CONSTRAINED = [
    (spec, parameter)
    for spec in SPECS
    for parameter in spec.parameters
    if parameter.constraint is not None
]
CANDIDATES = [True, False, None, -1, 0, 1, 2, 0.5, 1.5, -0.0, math.nan, math.inf, -math.inf,
              "1", "nope", "", 3.0, [1]]  # fmt: skip
"""Values tried on every constrained parameter: each one its constraint refuses must be refused
by the constructor with the declared text."""


def test_every_default_meets_its_constraint_and_is_kept_as_declared():
    for spec in SPECS:
        model = spec.load()()
        defaults = spec.checked(**{p.name: p.default for p in spec.parameters if p.constraint})
        for name, value in defaults.items():
            assert getattr(model, name) == value, f"{spec.kind}.{name}"
            assert type(getattr(model, name)) is type(value), f"{spec.kind}.{name}"


@pytest.mark.parametrize(
    "spec, parameter", CONSTRAINED, ids=[f"{s.kind}.{p.name}" for s, p in CONSTRAINED]
)
def test_the_constructor_refuses_what_the_declaration_refuses_in_its_words(spec, parameter):
    refused = [v for v in CANDIDATES if not parameter.constraint.holds(v)]
    assert refused, f"{spec.kind}.{parameter.name}: no candidate is refused"
    for value in refused:
        expected = f"{parameter.name} must be {parameter.constraint.expected}, got {value!r}"
        with pytest.raises(wml.ParameterError) as error:
            spec.load()(**{parameter.name: value})
        assert str(error.value) == expected


def test_the_constraints_mean_what_they_say():
    at_least_one = kind_parameters.integer_at_least(1)
    assert [at_least_one.holds(v) for v in (1, 7, 0, True, 2.0, "3")] == [
        True, True, False, False, False, False
    ]  # fmt: skip
    half_open = kind_parameters.number_within(0, 0.5, low_open=True, high_open=False)
    assert half_open.expected == "within (0, 0.5]"
    assert [half_open.holds(v) for v in (0, 1e-300, 0.5, 0.5000001, math.nan, True)] == [
        False, True, True, False, False, False
    ]  # fmt: skip
    assert kind_parameters.NON_NEGATIVE.holds(0) and not kind_parameters.NON_NEGATIVE.holds(
        math.inf
    )
    assert not kind_parameters.NON_NEGATIVE.holds(
        -1e-300
    ) and not kind_parameters.NON_NEGATIVE.holds("1.5")
    assert not kind_parameters.POSITIVE.holds(0.0) and kind_parameters.POSITIVE.holds(5e-324)
    optional = kind_parameters.or_none(kind_parameters.integer_at_least(2))
    assert optional.expected == "an integer >= 2 or None"
    assert optional.holds(None) and optional.holds(2) and not optional.holds(1)
    assert kind_parameters.one_of("l2", None).holds(None) and not kind_parameters.one_of(
        "l2", None
    ).holds("L2")


def test_a_number_is_kept_as_a_float_and_an_integer_as_given():
    model = wml.LogisticRegression(C=2, tol=0)
    assert (type(model.C), type(model.tol), model.max_iter) == (float, float, 100)
    tree = wml.DecisionTree(confidence=0.5, prune_fraction=0.25, max_depth=0)
    assert (tree.confidence, tree.prune_fraction, tree.max_depth) == (0.5, 0.25, 0)


def test_help_says_what_each_value_must_be():
    tree = kinds.spec_of("decision_tree")
    assert tree.parameter("confidence").description == (
        "confidence of pessimistic pruning: within (0, 0.5]"
    )
    assert tree.parameter("criterion").description.endswith(
        "one of 'entropy', 'gain_ratio', 'gini'"
    )


def test_select_k_takes_the_kinds_settings_with_the_kinds_defaults():
    """``select_k`` (evaluation/k_nearest_selection.py) names the k-NN settings it passes on;
    their defaults are the kind's declared ones."""
    spec = kinds.spec_of(k_nearest_selection.KIND)
    signature = inspect.signature(wml.select_k).parameters
    declared = {p.name: p.default for p in spec.parameters if p.name in signature}
    assert set(declared) == {"weights", "metric", "p", "ties", "categorical", "numeric",
                             "class_weight"}  # fmt: skip
    assert {name: signature[name].default for name in declared} == declared
