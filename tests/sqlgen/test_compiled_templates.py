"""Parsed templates kept between processes (sqlgen/compiled_templates.py): stored where the
interpreter stores bytecode, used only for the text they were parsed from, never required."""

from __future__ import annotations

import subprocess
import sys

import pytest
import sqlglot

from warehouse_ml.sqlgen import compiled_templates, templates
from warehouse_ml.sqlgen.templates import TableName

NAME = "select_table"  # no type placeholder: its text parses as it is


@pytest.fixture
def writing(tmp_path, monkeypatch):
    """Bytecode (and parsed templates) written under ``tmp_path`` as the prefix; the
    per-process caches of templates.py emptied before and after."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path))
    for cached in (templates._parsed, templates.placeholders, templates._type_slots):
        cached.cache_clear()
    yield tmp_path
    for cached in (templates._parsed, templates.placeholders, templates._type_slots):
        cached.cache_clear()


def _file():
    return templates._index()[NAME]


def _rendered() -> str:
    return templates.render(
        NAME, table=TableName(("wml", "t")), order_columns=[templates.column("a", "t")]
    )


def test_a_parsed_template_is_stored_under_the_prefix_and_read_back(writing):
    expected = _rendered()
    path = compiled_templates.cache_path(_file())
    assert path.is_relative_to(writing)
    assert path.name == f"{NAME}.sqlglot-{sqlglot.__version__}.pickle"
    assert path.is_file()
    text = _file().read_text(encoding="utf-8")
    stored = compiled_templates.load(_file(), text)
    assert stored == sqlglot.parse_one(text, read="duckdb")
    templates._parsed.cache_clear()
    assert _rendered() == expected  # built from the stored tree


def test_a_stored_tree_of_other_text_or_a_damaged_file_is_parsed_again(writing):
    _rendered()
    path = compiled_templates.cache_path(_file())
    text = _file().read_text(encoding="utf-8")
    assert compiled_templates.load(_file(), text + " ") is None
    path.write_bytes(b"not a pickle")
    assert compiled_templates.load(_file(), text) is None
    templates._parsed.cache_clear()
    expected = templates.generate(sqlglot.parse_one(text, read="duckdb"))
    assert templates.generate(templates._parsed(NAME)) == expected
    assert compiled_templates.load(_file(), text) is not None  # stored anew


def test_nothing_is_written_without_bytecode_or_where_the_folder_cannot_be(writing, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    expected = _rendered()
    assert not any(writing.rglob("*.pickle"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    blocker = writing / "file"
    blocker.write_text("")
    monkeypatch.setattr(sys, "pycache_prefix", str(blocker))  # a folder cannot go under it
    templates._parsed.cache_clear()
    assert _rendered() == expected
    assert not any(writing.rglob("*.pickle"))


def test_a_new_process_builds_from_the_stored_trees_without_parsing(tmp_path):
    """The second process renders the same SQL and parses no template (sqlglot.parse is never
    called): every tree it needs comes from the first one's files."""
    script = (
        "import sys, sqlglot\n"
        "from warehouse_ml.sqlgen import templates\n"
        "from warehouse_ml.sqlgen.templates import TableName\n"
        "if sys.argv[1] == 'again':\n"
        "    def refuse(*args, **kwargs):\n"
        "        raise AssertionError('parsed')\n"
        "    sqlglot.parse = refuse\n"
        "print(templates.render('select_table', table=TableName(('wml', 't')),"
        " order_columns=[templates.column('a', 't')]))\n"
    )
    env = {"PYTHONPYCACHEPREFIX": str(tmp_path), "PATH": "/usr/bin:/bin"}
    env |= {"PYTHONPATH": ":".join(sys.path)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", script, when], env=env, capture_output=True, text=True
        )
        for when in ("first", "again")
    ]
    assert [r.returncode for r in runs] == [0, 0], runs[1].stderr
    assert runs[0].stdout == runs[1].stdout == 'SELECT * FROM "wml"."t" AS t ORDER BY "t"."a"\n'
