"""The one place SQL text is produced.

SQL lives in ``warehouse_ml/sql/<area>/*.sql`` (package data, in the wheel too), one
statement per file, with ``$snake_case`` placeholders. :func:`render` parses a template with sqlglot
(DuckDB syntax), substitutes every placeholder by an AST node, and generates SQL for the target
dialect with ``unsupported_level=RAISE``. No SQL is ever built with string formatting. A
template is parsed once per process, and its parsed tree kept between processes as bytecode
is (sqlgen/compiled_templates.py).

A placeholder is bound according to where it stands:

* in a table position (``FROM $source``, ``CREATE TABLE $table``): a :class:`TableName`,
  a sqlglot ``Table`` node (e.g. a table function such as ``read_parquet('f')``), or, after
  ``FROM``/``JOIN``, a sqlglot query, which becomes an aliased subquery;
* in a name position (``t.$column``, ``AS $alias``, ``$schema.t``): a ``str``, quoted;
* in an expression position: a Python value (a literal), or a sqlglot expression
  (e.g. from :func:`column`), or a list of expressions where the template has a list
  (select list, GROUP BY list), which is spliced in place.
"""

from __future__ import annotations

import contextlib
import functools
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, SqlglotError

from warehouse_ml.errors import TemplateError
from warehouse_ml.sqlgen import compiled_templates

_PACKAGE = Path(__file__).resolve().parent.parent


def template_dir() -> Path:
    """Where the ``*.sql`` templates are: ``warehouse_ml/sql``, package data of the package
    itself in a checkout, an editable install and a wheel alike."""
    folder = _PACKAGE / "sql"
    if not folder.is_dir():
        raise TemplateError(f"no sql/ folder in {_PACKAGE}: is the package installed correctly?")
    return folder


@dataclass(frozen=True)
class TableName:
    """A possibly schema-qualified table name, kept as separate parts (never parsed).

    ``TableName.parse("wml.models")`` splits on dots; a name that contains a dot itself is
    given as parts: ``TableName(("my.schema", "t"))``.
    """

    parts: tuple[str, ...]

    def __post_init__(self) -> None:
        if not 1 <= len(self.parts) <= 3 or any(not isinstance(p, str) for p in self.parts):
            raise TemplateError(
                f"a table name has 1 to 3 string parts (catalog.schema.table), got {self.parts!r}"
            )
        if any(p == "" for p in self.parts):
            raise TemplateError(f"a table name part cannot be empty, got {self.parts!r}")

    @classmethod
    def parse(cls, name: str | Sequence[str] | TableName) -> TableName:
        """Accept ``"t"``, ``"schema.t"``, a tuple of parts, or a TableName."""
        if isinstance(name, TableName):
            return name
        if isinstance(name, str):
            return cls(tuple(name.split(".")))
        return cls(tuple(name))

    @property
    def name(self) -> str:
        """The last part: the table's own name."""
        return self.parts[-1]

    @property
    def schema(self) -> str | None:
        """The schema part, if any."""
        return self.parts[-2] if len(self.parts) >= 2 else None

    def to_table(self) -> exp.Table:
        """A sqlglot Table node with every part quoted."""
        quoted = [exp.to_identifier(p, quoted=True) for p in self.parts]
        catalog, db = (None, None)
        if len(quoted) == 3:
            catalog, db = quoted[0], quoted[1]
        elif len(quoted) == 2:
            db = quoted[0]
        return exp.Table(this=quoted[-1], db=db, catalog=catalog)

    def __str__(self) -> str:
        return ".".join(self.parts)


def column(name: str, table: str | None = None) -> exp.Column:
    """A quoted column reference, optionally qualified by a (quoted) table alias."""
    return exp.column(
        exp.to_identifier(name, quoted=True),
        table=exp.to_identifier(table, quoted=True) if table is not None else None,
    )


def literal(value: Any) -> exp.Expression:
    """A SQL literal for a Python scalar (str, int, float, bool, None)."""
    if value is None:
        return exp.null()
    if isinstance(value, bool):
        return exp.true() if value else exp.false()
    if isinstance(value, int):
        return exp.Literal.number(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise TemplateError(f"cannot write the non-finite number {value!r} as a SQL literal")
        # The shortest text that reads back as the same double, always with an exponent:
        # 0.25 is DECIMAL on DuckDB and Spark, 0.25e0 is DOUBLE; engines that read any
        # number as NUMERIC (PostgreSQL) get a CAST to DOUBLE in sqlgen/dialects.py.
        text = repr(abs(value))
        number = exp.Literal(this=text if "e" in text else f"{text}e0", is_string=False)
        return exp.Neg(this=number) if math.copysign(1.0, value) < 0 else number
    if isinstance(value, str):
        return exp.Literal.string(value)
    raise TemplateError(f"cannot bind a {type(value).__name__} as a SQL literal: {value!r}")


def alias(expression: exp.Expression, name: str, *, copy: bool = True) -> exp.Alias:
    """``expression AS "name"`` with the alias quoted; ``copy=False`` wraps ``expression``
    itself (for a tree built for this one place)."""
    return exp.alias_(expression, exp.to_identifier(name, quoted=True), copy=copy)


def expression(name: str, /, **bindings: Any) -> exp.Expression:
    """Bind an expression template: a file holding ``SELECT <expression> AS <name>``.

    Returns the bound expression without its alias, ready to be placed in a larger query.
    """
    tree = build(name, **bindings)
    if not isinstance(tree, exp.Select) or len(tree.expressions) != 1 or tree.args.get("from_"):
        raise TemplateError(f"{template_path(name)} must be a single 'SELECT <expression> AS name'")
    selected = tree.expressions[0]
    return selected.this if isinstance(selected, exp.Alias) else selected


def create_table_as(table: TableName, query: exp.Query) -> exp.Create:
    """``CREATE TABLE table AS query`` (portable: never CREATE OR REPLACE)."""
    return exp.Create(kind="TABLE", this=table.to_table(), expression=query)


def create_view(view: TableName, query: exp.Query) -> exp.Create:
    """``CREATE VIEW view AS query`` (the view must not exist: drop it first)."""
    return exp.Create(kind="VIEW", this=view.to_table(), expression=query)


def replace_view(view: TableName, query: exp.Query) -> exp.Create:
    """``CREATE OR REPLACE VIEW view AS query``: a new definition of an existing view, which
    the views reading it keep reading (PostgreSQL requires the old columns, same names and
    types, to lead the new ones)."""
    return exp.Create(kind="VIEW", this=view.to_table(), expression=query, replace=True)


def values(rows: Sequence[Sequence[Any]], name: str, columns: Sequence[str]) -> exp.Values:
    """``(VALUES (...), ...) AS name(columns)`` from Python scalars, all bound as literals
    (a sqlglot expression, e.g. a typed ``CAST('...' AS TIMESTAMP)``, is kept as it is)."""
    return exp.values(
        [
            tuple(v.copy() if isinstance(v, exp.Expression) else literal(v) for v in row)
            for row in rows
        ],
        alias=name,
        columns=list(columns),
    )


def union_all(selects: Iterable[exp.Query]) -> exp.Query:
    """Chain queries with UNION ALL, left to right (the one helper for variable-length unions).

    The queries become parts of the result, not copies (deep-copying large generated queries
    cost more than building them): pass queries built for this union only."""
    selects = [
        exp.select(exp.Star()).from_(q.subquery(f"wml_union_{i}")) if q.args.get("with_") else q
        for i, q in enumerate(selects)
    ]  # a query with its own WITH clause is wrapped: UNION ALL takes plain SELECTs
    if not selects:
        raise TemplateError("UNION ALL of no queries")
    result = selects[0]
    for query in selects[1:]:
        result = exp.union(result, query, distinct=False, copy=False)
    return result


def generate(tree: exp.Expression, dialect: str = "duckdb") -> str:
    """SQL text for a sqlglot tree; raises instead of silently dropping a construct.

    The engine rewrites of :mod:`warehouse_ml.sqlgen.dialects` are applied here, the one place every
    statement becomes text.
    """
    from warehouse_ml.sqlgen import dialects

    rewritten = dialects.rewrite(tree, dialect)
    # sqlglot deep-copies a tree before generating it, which costs more than the generation of
    # a large query; a rewritten tree is already a private copy, and DuckDB generation leaves a
    # tree as it was (tests/sqlgen/test_templates.py checks it on every statement of a workload), so
    # neither is copied again (PostgreSQL generation does change some trees)
    copy = rewritten is tree and dialect not in dialects.GENERATED_WITHOUT_CHANGES
    try:
        return rewritten.sql(
            dialect=dialect, copy=copy, unsupported_level=ErrorLevel.RAISE, comments=False
        )
    except SqlglotError as error:
        raise TemplateError(f"cannot generate {dialect} SQL: {error}") from error


_OUTSIDE_FOLDERS: list[Path] = []
"""Template folders of model families outside the library's package (:func:`outside_folder`)."""


@functools.cache
def _index() -> dict[str, Path]:
    """Every template's path by name (file stem), the shipped ones' and those of the folders
    :func:`outside_folder` adds; names are unique across all of them."""
    index: dict[str, Path] = {}
    for folder in (template_dir(), *_OUTSIDE_FOLDERS):
        for path in sorted(folder.rglob("*.sql")):
            if path.stem in index:
                raise TemplateError(
                    f"two SQL templates named {path.stem!r}: {_shown(index[path.stem])} and "
                    f"{_shown(path)}; names must be unique"
                )
            index[path.stem] = path
    return index


def _shown(path: Path) -> str:
    """A template's path as messages show it: ``sql/<area>/<name>.sql`` for a shipped one,
    the whole path for one of a folder outside the package."""
    if path.is_relative_to(template_dir()):
        return f"sql/{path.relative_to(template_dir()).as_posix()}"
    return path.as_posix()


@contextlib.contextmanager
def outside_folder(folder: Path) -> Iterator[list[str]]:
    """The templates under ``folder`` (a model family's outside the library's package, in
    area folders of its own) found by name as the shipped ones are, for the duration of a
    ``with`` block, which gets their names; one named like another template is a
    TemplateError before the block runs."""
    _OUTSIDE_FOLDERS.append(folder)
    _forget_paths()
    try:
        _index()
        yield sorted(path.stem for path in folder.rglob("*.sql"))
    finally:
        _OUTSIDE_FOLDERS.remove(folder)
        _forget_paths()


def _forget_paths() -> None:
    """Drop the cached template paths, for a change of the folders searched."""
    _index.cache_clear()
    template_path.cache_clear()


def template_names() -> list[str]:
    """Names (file stems) of every template, sorted: the shipped ones (and those of an
    :func:`outside_folder` while it is added)."""
    return sorted(_index())


@functools.cache
def template_path(name: str) -> str:
    """Where template ``name`` lives, as ``sql/<area>/<name>.sql`` (for messages; cached:
    every placeholder binding names its template's file, 6,000 times building one
    cross-validation's scoring query, at 0.1 ms a path)."""
    path = _index().get(name)
    if path is None:
        return f"sql/{name}.sql"
    return _shown(path)


TYPE_PLACEHOLDER = re.compile(r"\$([a-z_]+_type)\b")
"""A placeholder in type position (``CAST(x AS $count_type)``), which SQL cannot parse as a
placeholder: it is read as a user-defined type ``WMLTYPE_<NAME>`` and bound to an
``exp.DataType``."""
_TYPE_PREFIX = "WMLTYPE_"


def _type_placeholder(node: exp.Expression) -> str | None:
    """The name of a type placeholder node, or None."""
    if isinstance(node, exp.DataType) and node.this == exp.DataType.Type.USERDEFINED:
        kind = str(node.args.get("kind") or "")
        if kind.upper().startswith(_TYPE_PREFIX):
            return kind[len(_TYPE_PREFIX) :].lower()
    return None


@functools.cache
def _parsed(name: str) -> exp.Expression:
    path = template_path(name)
    if name not in _index():
        raise TemplateError(f"no SQL template {name!r} under sql/")
    file = _index()[name]
    text = TYPE_PLACEHOLDER.sub(
        lambda m: _TYPE_PREFIX + m.group(1).upper(), file.read_text(encoding="utf-8")
    )
    stored = compiled_templates.load(file, text)
    if stored is not None:
        return stored
    try:
        statements = [s for s in sqlglot.parse(text, read="duckdb") if s is not None]
    except SqlglotError as error:
        raise TemplateError(f"{path} does not parse as DuckDB SQL: {error}") from error
    if len(statements) != 1:
        raise TemplateError(f"{path} must hold exactly one statement, found {len(statements)}")
    tree = _without_source_notes(statements[0])
    compiled_templates.store(file, text, tree)
    return tree


_SOURCE_POSITION = frozenset({"line", "col", "start", "end"})


def _without_source_notes(tree: exp.Expression) -> exp.Expression:
    """``tree`` without what the parser noted of the template's text: each token's position
    (``meta``) and its comments, which no generated statement carries (``comments=False`` in
    :func:`generate`). Every :func:`build` deep-copies its template, and those notes were
    40% of the time a copy takes (5,683 position dicts in the 13,185 nodes of the 185
    templates)."""
    for node in tree.walk():
        if node._meta is not None:
            kept = {key: value for key, value in node._meta.items() if key not in _SOURCE_POSITION}
            node._meta = kept or None
        node.comments = None
    return tree


@functools.cache
def placeholders(name: str) -> frozenset[str]:
    """The placeholder names a template uses."""
    return frozenset(p.name for p in _parsed(name).find_all(exp.Placeholder)) | _type_slots(name)


@functools.cache
def _type_slots(name: str) -> frozenset[str]:
    """The type placeholders of a template (:data:`TYPE_PLACEHOLDER`)."""
    found = (_type_placeholder(node) for node in _parsed(name).find_all(exp.DataType))
    return frozenset(slot for slot in found if slot is not None)


def build(name: str, /, **bindings: Any) -> exp.Expression:
    """Parse template ``sql/<area>/<name>.sql`` and bind every placeholder; returns a fresh tree.

    Raises :class:`TemplateError` naming the file when a placeholder has no binding, when a
    binding matches no placeholder, or when a binding does not fit its position.
    """
    tree = _parsed(name).copy()
    used = placeholders(name)
    missing = sorted(used - bindings.keys())
    unused = sorted(bindings.keys() - used)
    if missing or unused:
        raise TemplateError(
            f"{template_path(name)}: missing placeholders {missing}, unused bindings {unused}"
        )
    if _type_slots(name):
        for node in list(tree.find_all(exp.DataType)):  # the template's own nodes: before binding
            slot = _type_placeholder(node)
            if slot is not None:
                if not isinstance(bindings[slot], exp.DataType):
                    raise TemplateError(
                        f"{template_path(name)}: placeholder ${slot} stands for a type; bind "
                        f"an exp.DataType, got {bindings[slot]!r}"
                    )
                node.replace(bindings[slot].copy())
    for node in list(tree.find_all(exp.Placeholder)):
        _bind(name, node, bindings[node.name])
    return tree


def render(name: str, /, dialect: str = "duckdb", **bindings: Any) -> str:
    """Render template ``sql/<area>/<name>.sql`` with its bindings as SQL text for ``dialect``."""
    return generate(build(name, **bindings), dialect)


def _bind(template: str, node: exp.Placeholder, value: Any) -> None:
    parent, key = node.parent, node.arg_key
    where = f"{template_path(template)}: placeholder ${node.name}"
    if isinstance(parent, exp.Table) and key == "this":
        if isinstance(value, TableName):
            value = value.to_table()
        if isinstance(value, exp.Table):
            for part in ("this", "db", "catalog"):
                parent.set(part, value.args.get(part))
            return
        if isinstance(value, exp.Values):  # carries its own alias and column names
            parent.replace(value)
            return
        if isinstance(value, exp.Query):  # a subquery keeps its query, under the slot's alias
            subquery = value if isinstance(value, exp.Subquery) else value.subquery(copy=False)
            subquery.set("alias", parent.args.get("alias"))
            parent.replace(subquery)
            return
        raise TemplateError(f"{where} stands for a table; bind a TableName, got {value!r}")
    name_slot = (
        (isinstance(parent, (exp.Column, exp.TableAlias)) and key == "this")
        or (isinstance(parent, exp.Alias) and key == "alias")
        or (isinstance(parent, exp.Table) and key in ("db", "catalog"))
    )
    if name_slot:
        if not isinstance(value, str):
            raise TemplateError(f"{where} stands for a name; bind a str, got {value!r}")
        node.replace(exp.to_identifier(value, quoted=True))
        return
    if isinstance(value, (list, tuple)):
        _splice(where, node, [_expression(where, v) for v in value])
        return
    node.replace(_expression(where, value))


def _splice(where: str, node: exp.Placeholder, items: list[exp.Expression]) -> None:
    """Replace a placeholder that stands in a list (select list, GROUP BY, ORDER BY) by items.

    In ``ORDER BY $columns`` the placeholder is wrapped in an ``Ordered`` node; each item then
    gets its own copy of that wrapper.
    """
    slot: exp.Expression = node
    if isinstance(node.parent, exp.Ordered):
        slot = node.parent
    parent, key = slot.parent, slot.arg_key
    siblings = parent.args.get(key) if parent is not None else None
    if not isinstance(siblings, list):
        raise TemplateError(f"{where} is not in a list; cannot splice {len(items)} items")
    if slot is not node:
        wrapped = []
        for item in items:
            wrapper = slot.copy()
            wrapper.set("this", item)
            wrapped.append(wrapper)
        items = wrapped
    index = siblings.index(slot)
    parent.set(key, siblings[:index] + items + siblings[index + 1 :])


def _expression(where: str, value: Any) -> exp.Expression:
    if isinstance(value, exp.Expression):
        return value.copy()  # a placeholder may stand in several places
    if isinstance(value, TableName):
        raise TemplateError(f"{where} is an expression; a TableName does not fit there")
    return literal(value)
