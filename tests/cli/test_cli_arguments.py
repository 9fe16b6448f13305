"""Command-line values that argparse treats specially, and the model options that apply to
the chosen kind only."""

from __future__ import annotations

import inspect

import pytest

from warehouse_ml.cli import parse_args
from warehouse_ml.models import kinds
from warehouse_ml.models.capabilities import WeightedFit


@pytest.mark.parametrize("value", ["--", "-", "--x", "-1"])
def test_an_option_value_that_looks_like_a_flag_is_kept(value):
    args = parse_args(["train", f"--target={value}", f"--name={value}", "--db=w.duckdb", "--", "t"])
    assert (args.target, args.name, args.source) == (value, value, "t")


SPECS = kinds.specs()
OPTIONS = {
    "alpha": ["--alpha", "2"],
    "prior_alpha": ["--prior-alpha", "3"],
    "bins": ["--bins", "4"],
    "class_weight": ["--class-weight", "balanced"],
    "sample_weight": ["--sample-weight", "w"],
}


def _applies(spec: kinds.KindSpec, option: str) -> bool:
    """The oracle: an option applies when the kind has the constructor parameter a caller
    may set, or, for the fit's sample_weight, when its class declares a weighted form."""
    if option == "sample_weight":
        return issubclass(spec.load(), WeightedFit)
    has = option in inspect.signature(spec.load()).parameters
    return has and (option != "class_weight" or issubclass(spec.load(), WeightedFit))


@pytest.mark.parametrize("command", ["train", "evaluate"])
@pytest.mark.parametrize("option", list(OPTIONS))
@pytest.mark.parametrize("spec", SPECS, ids=[s.kind for s in SPECS])
def test_an_option_that_does_not_apply_to_the_kind_is_a_usage_error(capsys, spec, option, command):
    """``--kind lr --alpha 2`` or ``--kind knn --class-weight balanced`` is refused (exit 2)
    naming the kind's parameters, as ``--param alpha=2`` is; an option that applies is taken."""
    argv = [command, "t", "--target", "y", "--kind", spec.kind, *OPTIONS[option]]
    if _applies(spec, option):
        assert parse_args(argv).kind == spec.kind
        return
    with pytest.raises(SystemExit) as exit_info:
        parse_args(argv)
    assert exit_info.value.code == 2
    settable = ", ".join(f"{p.name} ({p.type.name})" for p in spec.settable)
    assert f"the parameters of {spec.kind}: {settable}" in capsys.readouterr().err


@pytest.mark.parametrize("given", [["--kind", "tan"], ["--param", "alpha=2"], *OPTIONS.values()])
def test_evaluate_with_a_stored_model_refuses_the_options_of_a_fit(capsys, given):
    """A stored model keeps the kind, settings and weights it was fitted with: evaluate --model
    does not silently drop those options."""
    with pytest.raises(SystemExit) as exit_info:
        parse_args(["evaluate", "t", "--model", "m", *given])
    assert exit_info.value.code == 2
    assert f"evaluate --model: {given[0]} does not apply" in capsys.readouterr().err
