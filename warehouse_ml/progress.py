"""Progress of long operations, reported once per engine statement.

A long operation (a fit, cross-validation, scoring into a table) is a sequence of SQL
statements, and every statement passes through one choke point,
:meth:`warehouse_ml.engines.base.Warehouse.run_tree` / ``fetch_tree``. An operation that accepts a
``progress`` callback opens :meth:`~warehouse_ml.engines.base.Warehouse.operation`; the choke point
then calls the callback with a :class:`Progress` just *before* each statement is sent to the
engine, so a slow statement shows what is running while it runs.

Cancelling: the callback may raise (``KeyboardInterrupt`` or any exception). The statement is
then not run, the exception propagates through the operation, which cleans up exactly as after a
failed statement (a fit drops its new tables and leaves the old model of that name in place, see
docs/RELIABILITY.md), and the callback is not called again during that operation, so the
clean-up statements run unreported.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlglot import exp


@dataclass(frozen=True)
class Progress:
    """One statement of a long operation, about to be run.

    Attributes:
        operation: the operation reporting, e.g. ``"fit"``, ``"cross_validate"``,
            ``"create_table"`` (the outermost one when operations nest).
        statement: 1-based number of this statement within the operation.
        phase: what the statement does: the SQL template's name (a file under
            ``warehouse_ml/sql/``, e.g. ``create_pair_counts``) or the statement kind
            (``create``, ``select``...), followed by the table it writes, if any (e.g.
            ``create_pair_counts wml.m1f..._pair_counts``).
        elapsed: seconds since the operation started (monotonic clock), at the moment this
            statement is about to run.
    """

    operation: str
    statement: int
    phase: str
    elapsed: float


ProgressCallback = Callable[[Progress], None]
"""A function called with each :class:`Progress`; its return value is ignored."""


class Reporter:
    """The state of one reporting operation: its clock, its statement count, its callback."""

    def __init__(self, operation: str, callback: ProgressCallback) -> None:
        self.operation = operation
        self.callback = callback
        self.started = time.monotonic()
        self.statements = 0
        self.cancelled = False

    def statement(self, phase: str) -> None:
        """Report the next statement. After the callback has raised once, do nothing."""
        if self.cancelled:
            return
        self.statements += 1
        report = Progress(self.operation, self.statements, phase, time.monotonic() - self.started)
        try:
            self.callback(report)
        except BaseException:
            self.cancelled = True
            raise


def describe(tree: exp.Expression, template: str | None = None) -> str:
    """The phase text of a statement: ``template`` (or the statement kind) and its target.

    >>> from sqlglot import parse_one
    >>> describe(parse_one('CREATE TABLE "wml"."m1_classes" AS SELECT 1 AS x'), "create_nb_classes")
    'create_nb_classes wml.m1_classes'
    >>> describe(parse_one('CREATE TABLE "wml"."cv1_predictions" AS SELECT 1 AS x'))
    'create table wml.cv1_predictions'
    >>> describe(parse_one('DROP TABLE IF EXISTS "wml"."m1_cpt"'), "drop_table")
    'drop_table wml.m1_cpt'
    >>> describe(parse_one("SELECT 1 AS x"))
    'select'
    """
    kind = tree.args.get("kind") if isinstance(tree, (exp.Create, exp.Drop)) else None
    words = [template or " ".join([tree.key, *([str(kind).lower()] if kind else [])])]
    target = tree.this
    if isinstance(tree, exp.Drop):
        target = (tree.args.get("tables") or [target])[0]
    if isinstance(target, exp.Schema):
        target = target.this
    if isinstance(tree, (exp.Create, exp.Insert, exp.Drop, exp.Delete)) and isinstance(
        target, exp.Table
    ):
        words.append(".".join(part.name for part in target.parts))
    return " ".join(words)
