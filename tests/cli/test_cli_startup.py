"""The command line starts without the library: ``--help`` and usage errors load none of
DuckDB, Arrow, sqlglot or numpy (the public API imports its names on first use), and the facts
its help texts quote, declared as data, are the library's own."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys

import pytest

import warehouse_ml
from warehouse_ml.cli import choices
from warehouse_ml.models import kinds

HEAVY = ("duckdb", "pyarrow", "sqlglot", "numpy")

LOADED_AFTER = """
import sys
from warehouse_ml.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(",".join(m for m in {heavy!r} if m in sys.modules))
"""


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["train", "--help"], ["evaluate", "--help"], ["predict", "--to-view", "v",
     "m", "t", "--read-only"], ["--version"]],
    ids=["help", "train_help", "evaluate_help", "usage_error", "version"],
)  # fmt: skip
def test_help_and_usage_errors_load_no_engine_arrow_sqlglot_or_numpy(argv):
    run = subprocess.run(
        [sys.executable, "-c", LOADED_AFTER.format(heavy=HEAVY), *argv],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert run.stdout.splitlines()[-1] == ""


def test_import_warehouse_ml_loads_names_on_first_use():
    probe = (
        "import sys; import warehouse_ml as wml; before = 'duckdb' in sys.modules; "
        "wml.NaiveBayes; print(before, 'duckdb' in sys.modules, wml.NaiveBayes.kind)"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["False", "True", "naive_bayes"]


def _type_checking_names() -> set[str]:
    tree = ast.parse(inspect.getsource(warehouse_ml))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    )
    return {alias.asname or alias.name for node in block.body for alias in node.names}


def test_every_public_name_resolves_and_the_type_checkers_see_the_lazy_ones():
    """Every registered kind's class is public under its class's name (models/kinds.py), as
    the type checkers see it: declared in ``__all__`` and the ``TYPE_CHECKING`` block, which
    they read as written (a new family adds its class to both)."""
    assert _type_checking_names() == set(warehouse_ml.LAZY)
    assert set(warehouse_ml.LAZY) <= set(warehouse_ml.__all__)
    for name, spec in kinds.by_class_name().items():
        assert name in warehouse_ml.__all__ and getattr(warehouse_ml, name) is spec.load()
    for name in warehouse_ml.__all__:
        assert getattr(warehouse_ml, name) is not None, name
    assert set(warehouse_ml.__all__) <= set(dir(warehouse_ml))
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        warehouse_ml.nothing_here  # noqa: B018


def test_the_clis_numbers_are_the_librarys():
    """The kinds' parameters and defaults are the registry's, checked against each class in
    tests/learners/test_conformance.py."""
    from warehouse_ml.models.living import drift
    from warehouse_ml.stats import binning, integer_rule

    assert choices.RANK_BINS == binning.DEFAULT_BINS
    assert choices.DRIFT_BINS == drift.DEFAULT_BINS
    assert choices.MAX_INTEGER_CATEGORIES == integer_rule.MAX_INTEGER_CATEGORIES
