"""The SQL choke point: golden rendered SQL, hostile names, placeholder errors, portability."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa
import pytest
from sqlglot import exp

import warehouse_ml as wml
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, column

HOSTILE = [
    ("plain", '"plain"'),
    ("with space", '"with space"'),
    ('quo"te', '"quo""te"'),
    ("it's", '"it\'s"'),
    ('x"; DROP TABLE t; --', '"x""; DROP TABLE t; --"'),
    ("select", '"select"'),
    ("Ünïcødé ✓", '"Ünïcødé ✓"'),
    ("MixedCase", '"MixedCase"'),
    ("semi;colon/* c */", '"semi;colon/* c */"'),
]


@pytest.mark.parametrize(("name", "quoted"), HOSTILE)
def test_hostile_names_render_as_one_quoted_identifier(name, quoted):
    assert (
        templates.render("drop_table", table=TableName(("wml", name)))
        == f'DROP TABLE IF EXISTS "wml".{quoted}'
    )
    select = templates.render(
        "select_table", table=TableName((name,)), order_columns=[column(name, "t")]
    )
    assert select == f'SELECT * FROM {quoted} AS t ORDER BY "t".{quoted}'


@pytest.mark.parametrize(
    ("value", "rendered"),
    [
        ("it's", "'it''s'"),
        ("x'; DROP TABLE t; --", "'x''; DROP TABLE t; --'"),
        (3, "3"),
        (0.1, "0.1e0"),
        (True, "TRUE"),
        (None, "NULL"),
    ],
)
def test_values_render_as_literals(value, rendered):
    condition = exp.EQ(this=column("name"), expression=templates.literal(value))
    assert templates.render(
        "delete_rows_where", table=TableName(("wml", "models")), condition=condition
    ) == (f'DELETE FROM "wml"."models" WHERE "name" = {rendered}')


def test_golden_nb_classes_sql():
    rendered = templates.render(
        "create_nb_classes",
        table=TableName(("wml", "m1_classes")),
        class_rows=templates.values(
            [(0, 0, "no", 5, 14), (0, 1, "yes", 9, 14)],
            "r",
            ("wml_part", "class_index", "class_label", "n", "n_total"),
        ),
        prior_alpha=1.0,
        n_classes=2,
        count_type=exp.DataType.build("BIGINT"),
    )
    assert rendered == (
        'CREATE TABLE "wml"."m1_classes" AS SELECT CAST(r.wml_part AS INT) AS wml_part, '
        "CAST(r.class_index AS INT) AS class_index, "
        "CAST(r.class_label AS TEXT) AS class_label, CAST(r.n AS BIGINT) AS n, "
        "LN(CAST(r.n AS DOUBLE) + 1.0e0) - LN(CAST(r.n_total AS DOUBLE) + 1.0e0 * 2) "
        "AS log_prior FROM (VALUES (0, 0, 'no', 5, 14), (0, 1, 'yes', 9, 14)) "
        "AS r(wml_part, class_index, class_label, n, n_total)"
    )


def test_golden_count_block_sql():
    rendered = templates.render(
        "count_block",
        source=TableName(("sales", "t")),
        target="y",
        block_columns=[templates.alias(column("a b", "src"), "a0")],
        group_columns=[column("a b", "src")],
        count=exp.Count(this=exp.Star()),
    )
    assert rendered == (
        'SELECT src."y" AS class_value, "src"."a b" AS "a0", COUNT(*) AS n FROM "sales"."t" AS src '
        'GROUP BY src."y", "src"."a b"'
    )


def test_a_type_placeholder_is_bound_to_a_type():
    tables = {
        "table": TableName(("t",)),
        "categorical": TableName(("c",)),
        "classes": TableName(("k",)),
        "attributes": templates.values([("x",)], "a", ["attribute"]),
        "log_prob": templates.literal(0.0),
    }
    tree = templates.build("create_nb_unseen", **tables, count_type=exp.DataType.build("DOUBLE"))
    assert "CAST(COALESCE(k.n_class, 0) AS DOUBLE) AS n_class" in templates.generate(tree, "duckdb")
    with pytest.raises(wml.TemplateError, match=r"\$count_type stands for a type"):
        templates.build("create_nb_unseen", **tables, count_type="DOUBLE")


def test_missing_and_unused_placeholders_name_the_file():
    with pytest.raises(
        wml.TemplateError, match=r"sql/common/drop_table\.sql: missing placeholders \['table'\]"
    ):
        templates.render("drop_table")
    with pytest.raises(
        wml.TemplateError, match=r"sql/common/drop_table\.sql: .*unused bindings \['extra'\]"
    ):
        templates.render("drop_table", table=TableName(("t",)), extra=1)
    with pytest.raises(wml.TemplateError, match=r"no SQL template 'nope' under sql/"):
        templates.render("nope")


def test_bindings_must_fit_their_position():
    with pytest.raises(wml.TemplateError, match="stands for a table"):
        templates.render("drop_table", table="t")
    with pytest.raises(wml.TemplateError, match="stands for a name"):
        templates.render("select_classes", source=TableName(("t",)), target=3, count=exp.Star())
    with pytest.raises(wml.TemplateError, match="non-finite"):
        templates.literal(float("nan"))
    with pytest.raises(wml.TemplateError, match="1 to 3"):
        TableName(("a", "b", "c", "d"))


def _dummy(node: exp.Placeholder) -> object:
    """A binding that fits the placeholder's position, for rendering every template."""
    parent, key = node.parent, node.arg_key
    if isinstance(parent, exp.Table) and key == "this":
        return TableName(("wml", "t"))
    if (
        (isinstance(parent, (exp.Column, exp.TableAlias)) and key == "this")
        or (isinstance(parent, exp.Alias) and key == "alias")
        or (isinstance(parent, exp.Table) and key in ("db", "catalog"))
    ):
        return "c"
    slot = parent if isinstance(parent, exp.Ordered) else node
    if isinstance(slot.parent, (exp.Select, exp.Group, exp.Order)) and isinstance(
        slot.parent.args.get(slot.arg_key), list
    ):
        return [column("c1"), column("c2")]
    return column("c")


@pytest.mark.parametrize("name", templates.template_names())
@pytest.mark.parametrize("dialect", ["duckdb", "postgres", "spark"])
def test_every_template_renders_and_transpiles(name, dialect):
    tree = templates._parsed(name)
    bindings = {p.name: _dummy(p) for p in tree.find_all(exp.Placeholder)}
    typed = templates.placeholders(name) - bindings.keys()  # types: CAST(x AS $count_type)
    bindings.update({t: exp.DataType.build("DOUBLE") for t in typed})
    sql = templates.render(name, dialect, **bindings)
    assert sql
    assert "$" not in sql


def test_a_template_tree_carries_no_notes_of_its_source_text():
    """What each build copies is the statement only: no token positions, no comments (which
    no generated SQL carries), whether the tree was parsed or read from a stored file."""
    for name in templates.template_names():
        for node in templates._parsed(name).walk():
            assert node.comments is None, (name, node)
            assert not (node.meta_get("line") or node.meta_get("start")), (name, node)


def _modules_naming(name: str) -> set[str]:
    """The package's modules that name template ``name`` in code (doctest lines and
    subscripts such as ``row["log_prior"]``, a column of that name, aside)."""
    package = Path(wml.__file__).parent
    quoted = f'"{name}"'
    return {
        path.relative_to(package.parent).as_posix()
        for path in package.rglob("*.py")
        if any(
            quoted in line.replace(f"[{quoted}]", "") and not line.lstrip().startswith(">>>")
            for line in path.read_text().splitlines()
        )
    }


def test_every_template_has_a_header_naming_its_renderers():
    for name in templates.template_names():
        text = (templates.template_dir().parent / templates.template_path(name)).read_text()
        assert text.startswith("-- "), name
        if templates.placeholders(name):
            assert "Placeholders:" in text, name
        header = re.search(r"^-- Rendered by: (.*)\.$", text, re.MULTILINE)
        assert header, f"{name}: no 'Rendered by:' line"
        assert set(header.group(1).split(", ")) == _modules_naming(name), name


def test_every_template_is_in_an_area_folder():
    assert list(templates.template_dir().glob("*.sql")) == []
    assert len(templates.template_names()) == len(list(templates.template_dir().rglob("*.sql")))


def test_hostile_table_and_column_names_end_to_end(con):
    name = 'x"; DROP TABLE t; --'
    con.execute("CREATE TABLE t (keep INTEGER)")
    table = pa.table(
        {
            'col "a"': ["p", "q", "p", "q"],
            "select": ["u", "u", "v", "v"],
            "it's": ["y", "n", "y", "n"],
        }
    )
    con.register("arrow_input", table)
    con.execute(f'CREATE TABLE "{name.replace(chr(34), chr(34) * 2)}" AS SELECT * FROM arrow_input')
    model = wml.NaiveBayes().fit(con, (name,), "it's", name='model "; --')
    assert model.predict(con, (name,))["prediction"].to_pylist() == ["y", "n", "y", "n"]
    model.create_view(con, ("main", 'view"; DROP'), (name,))
    assert con.sql('SELECT count(*) FROM "view""; DROP"').fetchall() == [(4,)]
    assert con.sql("SELECT count(*) FROM t").fetchall() == [(0,)]  # untouched
    assert wml.load(con, 'model "; --').classes_ == ["n", "y"]


def test_generation_leaves_every_statement_tree_unchanged(con, monkeypatch):
    """templates.generate does not copy trees for the dialects in dialects.GENERATED_WITHOUT_CHANGES:
    every statement of a workload (fits with numeric attributes and integer codes, scoring,
    cross-validation, measures) must come out of DuckDB generation as it went in."""
    generate = templates.generate
    checked: list[str] = []

    def checking(tree: exp.Expression, dialect: str = "duckdb") -> str:
        before = tree.copy()
        text = generate(tree, dialect)
        assert tree == before, text
        checked.append(text)
        return text

    monkeypatch.setattr(templates, "generate", checking)
    rows = 120
    table = pa.table(
        {
            "id": list(range(rows)),
            "a": [i % 3 for i in range(rows)],
            "b": [f"v{i % 4}" for i in range(rows)],
            "x": [float(i % 7) + 0.5 * (i % 2) for i in range(rows)],
            "y": ["p" if i % 3 else "q" for i in range(rows)],
        }
    )
    con.register("data", table)
    con.execute("CREATE TABLE t AS SELECT * FROM data")
    for model in (wml.NaiveBayes(), wml.TAN(bins=3)):
        fitted = model.fit(con, "t", "y", keys=["id"], name=f"m_{model.kind}")
        fitted.predict_proba(con, "t")
        fitted.create_view(con, f"v_{model.kind}", "t", keys=["id"])
    for model in (wml.NaiveBayes(), wml.TAN(), wml.TAN(bins=3)):
        ev = wml.cross_validate(con, "t", "y", model, folds=3, key="id")
        ev.auc("p")
        ev.lift_table("p")
    assert len(checked) > 50


def test_an_outside_folders_templates_are_found_only_while_it_is_added(tmp_path):
    """A family outside the package adds its own template folder (templates.outside_folder):
    its templates build by name inside the block and are gone after; a name the package's
    templates already have is refused before the block runs."""
    area = tmp_path / "sql" / "outside"
    area.mkdir(parents=True)
    (area / "select_outside_answer.sql").write_text("-- An answer.\nSELECT $answer AS answer\n")
    with templates.outside_folder(tmp_path / "sql") as names:
        assert names == ["select_outside_answer"]
        assert "select_outside_answer" in templates.template_names()
        built = templates.build("select_outside_answer", answer=42)
        assert templates.generate(built) == "SELECT 42 AS answer"
        assert templates.template_path("select_outside_answer").endswith(
            "sql/outside/select_outside_answer.sql"
        )
    assert "select_outside_answer" not in templates.template_names()
    (area / "create_nb_classes.sql").write_text("-- A clash.\nSELECT 1 AS one\n")
    with (
        pytest.raises(wml.TemplateError, match="two SQL templates named 'create_nb_classes'"),
        templates.outside_folder(tmp_path / "sql"),
    ):
        pass
    assert "select_outside_answer" not in templates.template_names()
