"""What a fitted model shows of itself on a report's page, as data: a :class:`ModelSection` is
a title and parts in order, each a table, a picture or a text; evaluation/report.py renders
them (HTML, the pictures as inline SVG). Each family gives its own
(``Explainer.model_section``): Naive Bayes its attribute ranking, TAN that and its tree, a
decision tree its top levels drawn, its rules and its attributes' gains and importances, the
linear families their coefficients by term, k nearest neighbours its settings and the design
its distances are measured on."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from warehouse_ml import charts


@dataclass(frozen=True)
class TablePart:
    """A table under a ``title`` (every column shown, in order), with a ``note`` beside it
    saying what its columns mean (empty: none)."""

    title: str
    table: pa.Table
    note: str = ""


@dataclass(frozen=True)
class PicturePart:
    """A chart ``draw(ax)`` draws on a figure of ``size`` inches, captioned ``caption``;
    ``natural``: shown at the size it was drawn (a tree that sizes its own figure to fit
    the page, its labels at their point size), not scaled to a column."""

    caption: str
    draw: Callable[[Any], Any]
    size: tuple[float, float] = (5.0, 4.0)
    natural: bool = False


@dataclass(frozen=True)
class TextPart:
    """Preformatted text (a tree's rules) under a ``title``, shown folded."""

    title: str
    text: str


Part = TablePart | PicturePart | TextPart


@dataclass(frozen=True)
class ModelSection:
    """A fitted model's section of a report: a ``title`` and its ``parts`` in order."""

    title: str
    parts: Sequence[Part]


RANKING_COLUMNS = ("attribute", "treatment", "n", "mi", "parent", "cmi_parent", "rank")
"""The columns of a ranking by MI with the class (``Explainer.attribute_ranking``) a report
shows."""


def ranking_parts(
    ranking: pa.Table, measure: str, label: str, columns: Sequence[str]
) -> list[Part]:
    """An attribute ranking as bars of its ``measure`` column (axis ``label``) and as a
    table of ``columns``."""
    size = (6.0, 0.35 * ranking.num_rows + 1.5)
    return [
        PicturePart(
            "attribute ranking", lambda ax: charts.ranking(ax, ranking, measure, label), size
        ),
        TablePart("Attribute ranking", ranking.select(list(columns))),
    ]
