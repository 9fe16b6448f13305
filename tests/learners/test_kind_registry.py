"""A model kind registered at run time (models/kinds.py ``register``) is a kind like the
library's own: ``train --help`` lists it and its parameters, ``--kind`` and ``--param`` take
it, ``warehouse_ml.load`` reads it back; unregistered, it is gone and a stored model of it is
an IncompatibleModelError naming the known kinds."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import duckdb
import pytest
from conftest import FIXTURES

import warehouse_ml as wml
from warehouse_ml.cli import main
from warehouse_ml.cli.commands import model_from
from warehouse_ml.cli.parser import parse_args
from warehouse_ml.errors import IncompatibleModelError
from warehouse_ml.models import kind_parameters, kinds
from warehouse_ml.models.learners.bayes.naive_bayes import NaiveBayes

TENNIS = str(FIXTURES / "play_tennis.csv")


class Tempered(NaiveBayes):
    """Naive Bayes with one parameter more (which it only keeps)."""

    kind = "tempered_nb"

    def __init__(self, *, alpha: float = 1.0, temper: int = 3) -> None:
        super().__init__(alpha=alpha)
        self.temper = temper


SPEC = kinds.KindSpec(
    kind="tempered_nb",
    aliases=("tempered",),
    cls=f"{__name__}.Tempered",
    summary="a throwaway Naive Bayes of the tests",
    parameters=(
        kind_parameters.Parameter("alpha", kind_parameters.FLOAT, 1.0, "additive smoothing"),
        kind_parameters.Parameter("temper", kind_parameters.INT, 3, "kept, unused"),
    ),
)


@pytest.fixture
def tempered():
    with kinds.registered(SPEC) as spec:
        yield spec


def test_a_registered_kind_is_listed_and_taken_by_kind_and_param(tempered, tmp_path, capsys):
    assert SPEC.load() is Tempered and Tempered().get_params() == SPEC.defaults()
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    listed = capsys.readouterr().out
    assert "tempered/tempered_nb: a throwaway Naive Bayes of the tests" in listed
    assert "temper=int (default 3): kept, unused" in listed

    args = parse_args(["train", "t", "--target", "y", "--kind", "TEMPERED", "--param", "temper=7"])
    assert (args.kind, args.params) == ("tempered_nb", {"temper": 7})
    with pytest.raises(SystemExit):
        parse_args(["train", "t", "--target", "y", "--kind", "tempered", "--param", "bins=4"])
    assert "the parameters of tempered_nb: alpha (float), temper (int)" in capsys.readouterr().err

    db = str(tmp_path / "w.duckdb")
    argv = ["train", TENNIS, "--target", "play", "--keys", "day", "--db", db, "--name", "m"]
    assert main([*argv, "--kind", "tempered", "--param", "temper=7", "--alpha", "2"]) == 0
    assert "trained tempered_nb model 'm'" in capsys.readouterr().out
    with duckdb.connect(db) as con:
        model = wml.load(con, "m")
        assert type(model) is Tempered and model.get_params() == {"alpha": 2.0, "temper": 7}
        kinds.unregister(SPEC.kind)
        with pytest.raises(IncompatibleModelError, match=r"kind 'tempered_nb'.*\[.*'naive_bayes'"):
            wml.load(con, "m")
        kinds.register(SPEC)


def test_an_unregistered_kind_is_refused_by_kind(tempered, capsys):
    kinds.unregister(SPEC.kind)
    with pytest.raises(SystemExit):
        parse_args(["train", "t", "--target", "y", "--kind", "tempered"])
    assert "unknown model kind 'tempered'; expected one of nb, naive_bayes, tan" in (
        capsys.readouterr().err
    )
    kinds.register(SPEC)


def test_a_kind_taking_another_kinds_spelling_is_refused(tempered):
    clash = kinds.KindSpec("other", ("NB",), SPEC.cls, "", SPEC.parameters)
    with pytest.raises(ValueError, match="spelling 'nb' is already taken"):
        kinds.register(clash)


def test_param_values_reach_the_constructor_parsed_by_their_declared_types(capsys):
    argv = ["evaluate", "t", "--target", "y", "--kind", "tan", "--alpha", "2"]
    args = parse_args([*argv, "--param", "root=b", "--param", "bins=3", "--param", "numeric=x, z"])
    assert model_from(args.kind, args).get_params() == {
        **kinds.spec_of("tan").defaults(),
        "alpha": 2.0,
        "root": "b",
        "bins": 3,
        "numeric": ["x", "z"],
    }
    args = parse_args(["train", "t", "--target", "y", "--param", 'class_weight={"a": 2}'])
    assert model_from(args.kind, args).class_weight == {"a": 2}
    for wrong, message in [
        (["--param", "alpha=2", "--alpha", "3"], "--alpha and --param alpha both given"),
        (["--param", "alpha"], "expected NAME=VALUE, got 'alpha'"),
        (["--param", "alpha=x"], "alpha: expected a float, got 'x'; the parameters of naive_"),
        (["--param", "bins=3"], "naive_bayes has no parameter 'bins'; the parameters of naive_"),
    ]:
        with pytest.raises(SystemExit):
            parse_args(["train", "t", "--target", "y", *wrong])
        assert message in capsys.readouterr().err


def test_a_model_of_a_kind_no_longer_registered_can_be_dropped_or_fitted_over():
    """A stored model whose kind is not registered (a plugin no longer installed) does not
    load, but the store's work on it needs no kind: ``drop`` removes it and every table it
    owned, and a fit of another kind under its name replaces it (``replace=True``: the kind
    differs)."""
    con = duckdb.connect()
    with kinds.registered(SPEC):
        Tempered().fit(con, TENNIS, "play", name="old")
        Tempered().fit(con, TENNIS, "play", name="over")
    with pytest.raises(IncompatibleModelError, match="tempered_nb"):
        wml.load(con, "old")
    wml.drop(con, "old")
    assert [r["name"] for r in wml.list_models(con).to_pylist()] == ["over"]
    wml.NaiveBayes().fit(con, TENNIS, "play", name="over", replace=True)
    assert wml.load(con, "over").kind == "naive_bayes"
    tables = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'wml' "
        "AND table_name NOT IN ('models', 'objects')"
    ).fetchone()[0]
    assert tables == len(wml.load(con, "over").record.parts)


def test_the_librarys_kinds_are_found_in_their_families_specs_modules():
    """The registry holds, in order, the kinds each family package under models/learners/
    declares in its ``specs`` module, and nothing models/kinds.py lists itself."""
    declared = [
        spec.kind
        for family in ("bayes", "linear", "neighbors", "tree")
        for spec in importlib.import_module(f"{kinds.FAMILIES}.{family}.specs").SPECS
    ]
    assert [s.kind for s in kinds.specs()][: len(declared)] == declared
    assert "KindSpec(" not in inspect.getsource(kinds)


def test_a_family_package_of_its_own_is_found_by_its_specs_module(tmp_path, monkeypatch):
    """A package of families outside the library (a family subpackage with a ``specs``
    module, another without) registers its kinds without an edit to a shared file."""
    families = tmp_path / "outside_families"
    (families / "tempered").mkdir(parents=True)
    (families / "helpers").mkdir()
    for folder in (families, families / "tempered", families / "helpers"):
        (folder / "__init__.py").write_text("")
    (families / "tempered" / "specs.py").write_text(
        "from test_kind_registry import SPEC\n\nSPECS = (SPEC,)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    try:
        assert kinds.register_families("outside_families") == [SPEC]
        assert kinds.named("tempered") == SPEC
    finally:
        kinds.unregister(SPEC.kind)
    assert kinds.spec_of(SPEC.kind) is None
