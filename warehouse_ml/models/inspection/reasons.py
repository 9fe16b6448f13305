"""The explanation query: each row's evidence (models/inspection/evidence.py) ranked, in the long or
the wide layout.

A part's *rank* within a source row and contrast: 0 for the prior, then 1 for the largest
|evidence|, Infinity above every finite value and NULL last, ties to the earlier attribute in
the model's feature order (an attribute's *key* is its |evidence|, -1 for NULL). Ranks are
found within the row, with no window, so a view of the query reads one row in milliseconds and
keeps the source's order. Two ways, by what costs less:

* every rank counted (long layout, ``top`` None or above :data:`SELECTED_RANKS`): the source
  row crossed with its parts (0..n), an attribute's rank 1 + the attributes ranked before it
  (warehouse_ml/sql/models/inspection/ranked_before.sql), one sum over the row's keys: n comparisons
  a part, a statement that grows as the attributes;
* the first m ranks selected (``top`` = m at most :data:`SELECTED_RANKS`, and the wide
  layout): one rank at a time, the greatest key once the attributes picked before drop below
  every key, then the first attribute holding it (2 steps and 2n comparisons a rank).

Either way no SQL text compares every attribute with every other: the statement grows as
attributes x classes (the terms, joints and evidence of models/inspection/evidence.py) plus
attributes (the parts, each field a CASE over the part index) and, for the wide layout, ``top`` x
attributes (each reason's fields).

* long (:data:`LONG`): one row per source row, contrast and part ranked at most ``top`` (the
  prior first), columns ``<keys...>, class, against, attribute, value, parent, parent_value,
  evidence, rank``;
* wide (:data:`WIDE`, "reason codes"): one row per source row and contrast, columns
  ``<keys...>, class, against, prior_evidence, reason_1, reason_1_value, reason_1_evidence,
  ...`` up to ``top``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from warehouse_ml.errors import NotSupportedError, ParameterError
from warehouse_ml.models.inspection.evidence import (
    AGAINST,
    AGAINST_INDEX,
    CLASS,
    CLASS_INDEX,
    EVIDENCE,
    EVIDENCE_STEP,
    RANK,
    Contrast,
    Part,
    case_of,
    evidence_column,
    evidence_steps,
    fenced,
    parent_value_column,
    value_column,
)
from warehouse_ml.models.scoring.decision import class_literal
from warehouse_ml.models.scoring.scores import Term
from warehouse_ml.models.scoring.steps import ROW, balanced_sum, first_where, greatest, layer
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column, literal

LONG = "long"
WIDE = "wide"
LAYOUTS = (LONG, WIDE)


def refuse_evidence_options(kind: str, explained: str, top: Any, against: Any, form: str) -> None:
    """Refuse the options of an explanation by evidence (``top``, ``against``, ``form="wide"``)
    for a model ``kind`` whose explanation is ``explained`` instead (NotSupportedError naming
    them)."""
    given = {"top": top, "against": against, "form": None if form == LONG else form}
    refused = [name for name, value in given.items() if value is not None]
    if refused:
        raise NotSupportedError(
            f"explain of model kind {kind!r} {explained}: {', '.join(refused)} does not apply"
        )


LONG_COLUMNS = (CLASS, AGAINST, "attribute", "value", "parent", "parent_value", EVIDENCE, RANK)
"""The columns a long explanation adds after the keys."""
SELECTED_RANKS = 5
"""The most ranks a long explanation selects one at a time (``top``); more are counted."""

_KEYED, _RANKED, _LONG, _PARTS = "wml_keyed", "wml_ranked", "wml_long", "wml_parts"
_PART, _KEY, _RANK = "wml_part", "wml_key", "wml_rank"
_FIELDS = LONG_COLUMNS[2:7]
"""What is shown of a part: attribute, value, parent, parent_value, evidence."""
_REASONS = {"attribute": "", "value": "_value", EVIDENCE: "_evidence"}
"""A reason code's fields and the suffixes of their wide columns."""


@dataclass(frozen=True)
class Layout:
    """What an explanation outputs: ``form`` (:data:`LONG` or :data:`WIDE`) and ``top``, the
    most attributes per row and contrast (None: every attribute; a wide layout needs it)."""

    form: str = LONG
    top: int | None = None

    @classmethod
    def make(cls, form: str, top: int | None) -> Layout:
        if form not in LAYOUTS:
            raise ParameterError(f"form must be one of {LAYOUTS}, got {form!r}")
        if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
            raise ParameterError(f"top must be a positive integer or None, got {top!r}")
        if form == WIDE and top is None:
            raise ParameterError("a wide explanation needs top=k, the number of reasons")
        return cls(form, top)

    def output_names(self, n_attributes: int) -> list[str]:
        """The columns the layout adds after the keys."""
        if self.form == LONG:
            return list(LONG_COLUMNS)
        return [CLASS, AGAINST, "prior_evidence"] + [
            f"reason_{p}{suffix}"
            for p in range(1, self.positions(n_attributes) + 1)
            for suffix in _REASONS.values()
        ]

    def positions(self, n_attributes: int) -> int:
        """How many ranked attributes a row and contrast shows."""
        return n_attributes if self.top is None else min(self.top, n_attributes)


def _key(a: int) -> str:
    """The column holding attribute ``a``'s key: |evidence|, -1 for NULL."""
    return f"wml_x_{a}"


def _picked(p: int) -> str:
    """The column holding the attribute (1..n) selected at rank ``p``."""
    return f"wml_a_{p}"


def _keyed_step(n: int) -> exp.Select:
    """``wml_keyed``: the evidence step with each attribute's key."""
    return layer(
        EVIDENCE_STEP,
        [
            alias(
                exp.func("COALESCE", exp.Abs(this=column(evidence_column(a))), literal(-1.0)),
                _key(a),
            )
            for a in range(1, n + 1)
        ],
    )


def _shown(parts: Sequence[Part], index: exp.Expression) -> dict[str, exp.Expression]:
    """What is shown of the part ``index`` (0 the prior, 1..n ``parts``), field by field."""
    numbered = list(enumerate(parts, 1))
    items: dict[str, tuple[dict[int, exp.Expression], str]] = {
        "attribute": ({a: literal(p.attribute) for a, p in numbered}, "VARCHAR"),
        "value": ({a: column(value_column(a)) for a, _ in numbered}, "VARCHAR"),
        "parent": ({a: literal(p.parent) for a, p in numbered if p.parent}, "VARCHAR"),
        "parent_value": (
            {a: column(parent_value_column(a)) for a, p in numbered if p.parent_value is not None},
            "VARCHAR",
        ),
        EVIDENCE: ({a: column(evidence_column(a)) for a in range(len(parts) + 1)}, "DOUBLE"),
    }
    return {name: case_of(index, cases, kind) for name, (cases, kind) in items.items()}


def _numbers(name: str, last: int) -> exp.Values:
    """``(VALUES (0), ..., (last)) AS name(name)``."""
    return templates.values([[i] for i in range(last + 1)], name, [name])


def _counted_steps(n: int) -> list[tuple[str, exp.Select]]:
    """Steps after ``wml_keyed`` ending in ``wml_parts``: one row per source row (and
    contrast) and part, ``wml_part`` (0 the prior, 1..n the attributes) with its rank
    ``wml_rank`` (INTEGER), 1 + the attributes ranked before it."""
    index = column(_PART)
    keys = {a: column(_key(a)) for a in range(1, n + 1)}
    keyed = (
        exp.select(exp.Star(), alias(case_of(index, keys, "DOUBLE"), _KEY))
        .from_(exp.to_table(_KEYED))
        .join(_numbers(_PART, n), join_type="CROSS")
    )
    before = [
        templates.expression(
            "ranked_before", other=b, other_key=keys[b], part=index, key=column(_KEY)
        )
        for b in range(1, n + 1)
    ]
    rank = (
        exp.case()
        .when(exp.EQ(this=index.copy(), expression=literal(0)), literal(0))
        .else_(balanced_sum([literal(1), *before]))
    )
    return [(_LONG, keyed), (_PARTS, layer(_LONG, [alias(exp.cast(rank, "INT"), _RANK)]))]


def _selection_steps(n: int, m: int) -> list[tuple[str, exp.Select]]:
    """Steps after ``wml_keyed`` ending in ``wml_ranked``, whose columns ``wml_a_1 ..
    wml_a_m`` are the attributes (1..n) at ranks 1..m: each the first attribute holding the
    greatest key once the attributes picked before it drop below every key (-2)."""
    keys = [column(_key(a)) for a in range(1, n + 1)]
    steps: list[tuple[str, exp.Select]] = []
    previous = _KEYED
    for p in range(1, m + 1):
        if p > 1:
            picked = column(_picked(p - 1))
            masked = [
                alias(
                    exp.case()
                    .when(exp.EQ(this=picked.copy(), expression=literal(a)), literal(-2.0))
                    .else_(key),
                    f"wml_y{p}_{a}",
                )
                for a, key in enumerate(keys, start=1)
            ]
            steps.append((f"wml_masked_{p}", layer(previous, masked)))
            previous = f"wml_masked_{p}"
            keys = [column(f"wml_y{p}_{a}") for a in range(1, n + 1)]
        steps.append((f"wml_max_{p}", layer(previous, [alias(greatest(keys), f"wml_m_{p}")])))
        holding = [exp.EQ(this=key, expression=column(f"wml_m_{p}")) for key in keys]
        previous = _RANKED if p == m else f"wml_top_{p}"
        steps.append(
            (
                previous,
                layer(
                    f"wml_max_{p}",
                    [
                        alias(
                            first_where(holding, [literal(a) for a in range(1, n + 1)]), _picked(p)
                        )
                    ],
                ),
            )
        )
    return steps


def _selected_long_steps(n: int, m: int) -> list[tuple[str, exp.Select]]:
    """The selection steps, then ``wml_parts``: one row per source row (and contrast) and
    rank 0..m, ``wml_rank`` with its part ``wml_part`` (the prior at 0)."""
    at_rank = {p: column(_picked(p)) for p in range(1, m + 1)}
    at_rank[0] = literal(0)
    long = (
        exp.select(exp.Star(), alias(case_of(column(_RANK), at_rank, "INT"), _PART))
        .from_(exp.to_table(_RANKED))
        .join(_numbers(_RANK, m), join_type="CROSS")
    )
    return [*_selection_steps(n, m), (_PARTS, long)]


def explanation_query(
    source: exp.Expression,
    prior: Term,
    parts: Sequence[Part],
    classes: Sequence[Any],
    contrast: Contrast,
    layout: Layout,
    *,
    passthrough: Sequence[tuple[str, str]],
    row: str | None = None,
    row_number: str | None = None,
    materialized: bool = False,
) -> exp.Query:
    """The explanation of ``source``'s rows (module docstring), in ``layout``.

    ``passthrough``: (source column, output name) pairs, first in the output; with ``row`` (a
    name no source column has) the output comes in source order, then class order of the
    contrasts, then rank, and ``row_number`` names a first column holding the 0-based source
    position (BIGINT). ``materialized``: an engine's ``MATERIALIZED_STEPS``
    (evidence.fenced).
    """
    n, m = len(parts), layout.positions(len(parts))
    steps = evidence_steps(source, prior, parts, classes, contrast, passthrough, row)
    steps.append((_KEYED, _keyed_step(n)))
    labels = {c: class_literal(label) for c, label in enumerate(classes)}
    final = exp.select(
        *(
            [alias(exp.Sub(this=column(ROW), expression=literal(1)), row_number)]
            if row is not None and row_number is not None
            else []
        ),
        *[alias(column(f"wml_k_{i}"), name) for i, (_, name) in enumerate(passthrough)],
        alias(case_of(column(CLASS_INDEX), labels, "VARCHAR"), CLASS),
        alias(case_of(column(AGAINST_INDEX), labels, "VARCHAR"), AGAINST),
    )
    if layout.form == LONG:
        selected = m < n and m <= SELECTED_RANKS
        steps += _selected_long_steps(n, m) if selected else _counted_steps(n)
        shown = _shown(parts, column(_PART))
        final = final.select(
            *[alias(shown[name], name) for name in _FIELDS],
            alias(column(_RANK), RANK),
            copy=False,
        ).where(exp.LTE(this=column(_RANK), expression=literal(m)), copy=False)
        order = [CLASS_INDEX, _RANK]
    else:
        steps += _selection_steps(n, m)
        final = final.select(alias(column(evidence_column(0)), "prior_evidence"), copy=False)
        for p in range(1, m + 1):
            shown = _shown(parts, column(_picked(p)))
            final = final.select(
                *[alias(shown[name], f"reason_{p}{suffix}") for name, suffix in _REASONS.items()],
                copy=False,
            )
        order = [CLASS_INDEX]
    last = steps[-1][0]
    final = final.from_(exp.to_table(last), copy=False)
    if row is not None:  # qualified: an output column (a key) may be named like them
        final = final.order_by(*[column(c, last) for c in [ROW, *order]], copy=False)
    return fenced(final, steps, materialized)
