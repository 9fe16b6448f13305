"""Pictures of the measures: each function draws one chart on a matplotlib ``Axes`` from the
rows a SQL measure returned (curves, bins, counts), and returns the axes.

matplotlib is an optional dependency (``pip install "warehouse-ml[report]"``): it is imported
when a chart is first drawn, and its absence is a ParameterError naming the extra. Nothing here
reads the warehouse: the data come from the metrics package (already thinned in SQL for curves
of many points), so a chart shows exactly the points SQL computed.

Every text a chart draws (titles, axis and tick labels, legends, annotations, tree nodes) is
literal: class labels and column names are the user's data, so a '$' never starts TeX
(:func:`literal`), and names on an axis are fixed tick labels, made when the chart is drawn
(a long name shortened around an ellipsis, :func:`short_name`, so that the layout fits).
"""

from __future__ import annotations

import importlib.util
import io
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from warehouse_ml.errors import ParameterError

REPORT_EXTRA = 'pip install "warehouse-ml[report]"'
CHANCE = {"color": "#999999", "linestyle": "--", "linewidth": 1}
"""How the no-skill references (the diagonal, a lift of 1) are drawn."""
NAME_CHARS = 24
"""Most characters a chart draws of a name from the data (a class label, an attribute) in a
tick label, title, axis label or legend: a longer name is drawn as its start and its end around
an ellipsis (:func:`short_name`), so that the chart's layout fits its figure; the full text is
in the tables beside the chart (a report's per-class and attribute tables, a card's facts)."""
CARD_CLASS = "tex2jax_ignore mathjax_ignore"
"""The HTML class of a notebook card's outer element: Jupyter's TeX typesetter (MathJax 2 and
3) leaves its text alone, so a label holding two '$' shows as written."""


def available() -> bool:
    """Whether matplotlib is installed (charts can be drawn)."""
    return importlib.util.find_spec("matplotlib") is not None


def matplotlib_figure() -> Any:
    """The ``matplotlib.figure.Figure`` class, or a ParameterError naming the extra."""
    try:
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ParameterError(
            f"charts and reports need matplotlib, which is not installed: {REPORT_EXTRA}"
        ) from error
    return Figure


def axes_or_new(ax: Any, size: tuple[float, float] = (5.0, 4.0)) -> Any:
    """``ax``, or the axes of a new pyplot figure (shown by notebooks)."""
    if ax is not None:
        return ax
    matplotlib_figure()
    from matplotlib import pyplot

    return pyplot.subplots(figsize=size)[1]


def drawn(draw: Any, size: tuple[float, float] = (5.0, 4.0)) -> Any:
    """A new figure (no pyplot state) on whose axes ``draw(ax)`` drew, laid out so that every
    text and legend is inside it (what :func:`svg` saves)."""
    figure = matplotlib_figure()(figsize=size)
    draw(figure.add_subplot())
    figure.tight_layout()
    return figure


def svg(draw: Any, size: tuple[float, float] = (5.0, 4.0)) -> str:
    """The SVG text of a new figure (no pyplot state) on whose axes ``draw(ax)`` draws."""
    figure = drawn(draw, size)
    out = io.StringIO()
    figure.savefig(out, format="svg")
    text = out.getvalue()
    return text[text.index("<svg") :]


def literal(*axes: Any) -> None:
    """Make every text of ``axes`` (and their legends, ticks, annotations) literal: no TeX,
    neither matplotlib's mathtext (a label ``$x$ and $y$`` would be typeset, or raise) nor
    LaTeX (``text.usetex``). Called by each chart once its texts exist."""
    from matplotlib.text import Text

    for ax in axes:
        for text in ax.findobj(Text):
            text.set_parse_math(False)
            text.set_usetex(False)


def short_name(name: Any, chars: int = NAME_CHARS) -> str:
    """``name`` as a chart draws it, in at most ``chars`` characters: as it is when it fits, else
    its first and last characters around an ellipsis (names that share a prefix, such as
    ``customers_2024_north`` and ``customers_2024_south``, keep the end that tells them
    apart)."""
    text = str(name)
    if len(text) <= chars:
        return text
    tail = (chars - 1) // 2
    return f"{text[: chars - 1 - tail]}\u2026{text[len(text) - tail :]}"


def legend_below(ax: Any, width: int = 60) -> Any:
    """The axes' legend under them, outside the plotted area (long labels wrapped to
    ``width`` characters), so that it covers no curve; :func:`drawn` makes room for it."""
    handles, labels = ax.get_legend_handles_labels()
    wrapped = [textwrap.fill(label, width, subsequent_indent="  ") for label in labels]
    return ax.legend(handles, wrapped, loc="upper center", bbox_to_anchor=(0.5, -0.16),
                     fontsize="small", frameon=False)  # fmt: skip


def roc(ax: Any, curves: Mapping[str, pa.Table], aucs: Mapping[str, float | None]) -> Any:
    """ROC curves (fpr, tpr), one per class label of ``curves`` (rows of ``roc_curve``), with
    its AUC in the legend, and the chance diagonal."""
    ax.plot([0, 1], [0, 1], **CHANCE)
    for label, points in curves.items():
        auc = aucs.get(label)
        name = f"{label} (AUC {auc:.3f})" if auc is not None else str(label)
        ax.plot(points.column("fpr").to_pylist(), points.column("tpr").to_pylist(), label=name)
    ax.set(xlim=(0, 1), ylim=(0, 1.02), xlabel="false positive rate", ylabel="true positive rate")
    ax.set_title("ROC")
    legend_below(ax)
    literal(ax)
    return ax


def faint_curves(ax: Any, curves: Sequence[pa.Table]) -> Any:
    """ROC curves drawn thin and faint, without a legend entry (e.g. each fold's, behind the
    pooled curve)."""
    for points in curves:
        fpr, tpr = points.column("fpr").to_pylist(), points.column("tpr").to_pylist()
        ax.plot(fpr, tpr, color="#7f7f7f", alpha=0.35, linewidth=0.8, label="_fold")
    return ax


def precision_recall(
    ax: Any,
    points: pa.Table,
    label: str,
    average_precision: float | None,
    levels: Sequence[float],
    interpolated: Sequence[float | None],
) -> Any:
    """The recall-precision curve (rows of ``precision_recall_curve``) drawn as steps, as
    average precision sums it, with the interpolated precision at ``levels`` marked and both
    averages in the legend."""
    recall = points.column("recall").to_pylist()
    precision = points.column("precision").to_pylist()
    ap = "" if average_precision is None else f" (AP {average_precision:.3f})"
    ax.step(recall, precision, where="post", label=f"{short_name(label)}{ap}")
    marked = [(r, p) for r, p in zip(levels, interpolated, strict=True) if p is not None]
    if marked:
        mean = sum(p or 0.0 for p in interpolated) / len(interpolated)
        ax.plot(
            [r for r, _ in marked],
            [p for _, p in marked],
            "o",
            label=f"interpolated at {', '.join(f'{r:g}' for r in levels)} (mean {mean:.3f})",
        )
    ax.set(xlim=(0, 1), ylim=(0, 1.02), xlabel="recall", ylabel="precision")
    ax.set_title("Precision-recall")
    ax.legend(loc="lower left", fontsize="small")
    literal(ax)
    return ax


def lift(ax: Any, table: pa.Table, label: str) -> Any:
    """Lift per quantile as bars (rows of ``lift_table``) and cumulative gains as a line on a
    second axis, with a lift of 1 and the no-skill gains for reference."""
    fractions = table.column("fraction").to_pylist()
    lifts = table.column("lift").to_pylist()
    lower = [0.0, *fractions[:-1]]
    widths = [f - lo for f, lo in zip(fractions, lower, strict=True)]
    ax.bar(lower, [v or 0.0 for v in lifts], width=widths, align="edge", alpha=0.5,
           edgecolor="white", label="lift")  # fmt: skip
    ax.axhline(1.0, **CHANCE)
    shown = short_name(label)
    ax.set(xlim=(0, 1), xlabel=f"fraction of rows, by decreasing P({shown})", ylabel="lift")
    gains = ax.twinx()
    gains.plot([0.0, *fractions], [0.0, *table.column("gain").to_pylist()], "o-",
               color="#d62728", label="cumulative gain")  # fmt: skip
    gains.plot([0, 1], [0, 1], color="#d62728", alpha=0.3, linestyle=":")
    gains.set(ylim=(0, 1.02), ylabel="cumulative gain")
    ax.set_title(f"Lift and gains of {shown}")
    literal(ax, gains)
    return ax


def calibration(ax: Any, bins: pa.Table, label: str) -> Any:
    """Reliability diagram (rows of ``calibration``): observed share against mean predicted
    probability per bin, each point labelled with its rows (level with the point, on its side
    towards the middle: no label crosses an axis, and the labels of neighbouring bins along
    the diagonal stay a bin's height apart), and the diagonal."""
    ax.plot([0, 1], [0, 1], **CHANCE)
    predicted = bins.column("mean_predicted").to_pylist()
    observed = bins.column("observed").to_pylist()
    ax.plot(predicted, observed, "o-", label=short_name(label))
    for x, y, n in zip(predicted, observed, bins.column("n").to_pylist(), strict=True):
        right = x < 0.5
        ax.annotate(
            f"{n}", (x, y), textcoords="offset points", xytext=(7 if right else -7, 0),
            ha="left" if right else "right", va="center", fontsize=8,
        )  # fmt: skip
    ax.set(xlim=(-0.03, 1.03), ylim=(-0.03, 1.03), xlabel=f"mean predicted P({short_name(label)})",
           ylabel="observed share")  # fmt: skip
    ax.set_title("Calibration (rows per bin)")
    literal(ax)
    return ax


def relative_luminance(rgb: Sequence[float]) -> float:
    """WCAG 2's relative luminance of an sRGB colour (components in 0..1)."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb[:3]]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def readable_on(rgb: Sequence[float]) -> str:
    """ "black" or "white": the text colour of higher WCAG contrast on a background ``rgb``."""
    luminance = relative_luminance(rgb)
    return "black" if (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) else "white"


def confusion(ax: Any, cells: pa.Table, labels: Sequence[Any]) -> Any:
    """Confusion matrix heatmap (rows of ``confusion_matrix``: true_index, predicted_index,
    n), counts in the cells (black or white, whichever reads better on the cell's colour),
    rows the true class."""
    k = len(labels)
    matrix = [[0] * k for _ in range(k)]
    for row in cells.to_pylist():
        matrix[row["true_index"]][row["predicted_index"]] = row["n"]
    image = ax.imshow(matrix, cmap="Blues")
    for i in range(k):
        for j in range(k):
            colour = readable_on(image.to_rgba(matrix[i][j]))
            ax.text(j, i, str(matrix[i][j]), ha="center", va="center", color=colour)
    names = [short_name(label) for label in labels]
    ax.set_xticks(range(k), names, rotation=45, ha="right")
    ax.set_yticks(range(k), names)
    ax.set(xlabel="predicted", ylabel="true")
    ax.set_title("Confusion matrix")
    literal(ax)
    return ax


def class_rows(ax: Any, labels: Sequence[str], rows: Sequence[int]) -> Any:
    """A model's classes by their training rows, as bars labelled with the share."""
    total = sum(rows) or 1
    shown = list(rows)[::-1]
    bars = ax.barh(range(len(shown)), shown)
    ax.set_yticks(range(len(shown)), [short_name(label) for label in labels][::-1])
    for bar, n in zip(bars, shown, strict=True):
        ax.annotate(f"{n / total:.1%}", (bar.get_width(), bar.get_y() + bar.get_height() / 2),
                    xytext=(3, 0), textcoords="offset points", va="center", fontsize=8)  # fmt: skip
    ax.set(xlabel="training rows")
    ax.set_title("Classes")
    literal(ax)
    return ax


def ranking(
    ax: Any, table: pa.Table, measure: str = "mi", label: str = "MI with the class (bits)"
) -> Any:
    """Attributes by what ranked them (rows of an attribute ranking): bars of the ``measure``
    column (default their MI with the class), the axis labelled ``label``."""
    names = [short_name(name) for name in table.column("attribute").to_pylist()][::-1]
    ax.barh(range(len(names)), table.column(measure).to_pylist()[::-1])
    ax.set_yticks(range(len(names)), names)
    ax.set(xlabel=label)
    ax.set_title("Attribute ranking")
    literal(ax)
    return ax


TREE_FONT = 10.0
"""Point size of a tree's node labels (its edge weights: one point less)."""
TREE_LEVEL = 0.8
"""Inches between the levels of a tree whose labels are one line."""
TREE_LINE = 1.25
"""Height of a label's line, in units of its font size (so a level of labels of several lines
is :data:`TREE_LEVEL` plus the lines past the first)."""
TREE_GAP = 0.25
"""Inches between the boxes of neighbouring nodes of a tree."""
TREE_PAD = 0.3
"""Padding of a node's box around its label, in units of its font size."""
WEIGHT_AT = 0.72
"""Where between a parent's level and its child's (0 the parent, 1 the child) an edge's weight
is written: on the child's own stem, below the line joining the parent's children (at 0.5)."""
TREE_MARGIN = (0.2, 0.2, 0.6)
"""Inches of a tree's figure outside its layout: left and right, bottom, top."""


def text_width(text: str, size: float) -> float:
    """The width in inches of ``text`` drawn literally (no TeX) at ``size`` points: its
    longest line's."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    font = FontProperties(size=size)
    measure = TextToPath().get_text_width_height_descent
    return max(measure(line, font, ismath=False)[0] for line in text.split("\n")) / 72


@dataclass(frozen=True)
class TreeStyle:
    """How a tree is drawn: its labels' point ``size``, the inches ``gap`` between
    neighbouring boxes, and each node's label (by node name; a name missing is its own
    label)."""

    size: float = TREE_FONT
    gap: float = TREE_GAP
    labels: Mapping[str, str] = field(default_factory=dict)

    def label(self, node: str) -> str:
        return self.labels.get(node, node)

    def level_height(self, nodes: Sequence[str]) -> float:
        """Inches between two levels, for ``nodes``' labels (their most lines)."""
        lines = max((self.label(n).count("\n") + 1 for n in nodes), default=1)
        return TREE_LEVEL + (lines - 1) * TREE_LINE * self.size / 72


def tree_layout(
    parents: Mapping[str, str | None], target: str | None, style: TreeStyle | None = None
) -> tuple[dict[str, tuple[float, float]], tuple[float, float]]:
    """Where each node of a tree goes, in inches (x from the left, y down from the top level),
    and the width and height the tree takes: each node over its children, each subtree as
    wide as its widest level so that no two boxes overlap; with a ``target``, the class on
    top, over the roots. Boxes are as wide as their labels drawn in the ``style``."""
    style = style or TreeStyle()
    children: dict[str | None, list[str]] = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    nodes = [*parents, *([] if target is None else [target])]
    pad = 2 * TREE_PAD * style.size / 72
    box = {n: text_width(style.label(n), style.size) + pad + style.gap for n in nodes}
    level = style.level_height(nodes)
    span: dict[str, float] = {}

    def measure(node: str) -> float:
        span[node] = max(box[node], sum(measure(kid) for kid in children.get(node, [])))
        return span[node]

    position: dict[str, tuple[float, float]] = {}

    def place(node: str, left: float, depth: int) -> None:
        position[node] = (left + span[node] / 2, depth * level)
        kids = children.get(node, [])
        x = left + (span[node] - sum(span[kid] for kid in kids)) / 2
        for kid in kids:
            place(kid, x, depth + 1)
            x += span[kid]

    roots = children.get(None, [])
    width = sum(measure(root) for root in roots)
    total = width if target is None else max(width, box[target])
    x = (total - width) / 2
    for root in roots:
        place(root, x, 0 if target is None else 1)
        x += span[root]
    if target is not None:
        position[target] = (total / 2, 0.0)
    depth = max((y for _, y in position.values()), default=0.0)
    return position, (total, depth)


def tree_figure_width(
    parents: Mapping[str, str | None], target: str | None, style: TreeStyle | None = None
) -> float:
    """The inches wide a figure of its own draws the tree (:func:`tree`): its layout and the
    margins either side."""
    return tree_layout(parents, target, style)[1][0] + 2 * TREE_MARGIN[0]


def tree(
    ax: Any,
    parents: Mapping[str, str | None],
    weights: Mapping[str, float] | None,
    target: str | None,
    style: TreeStyle | None = None,
) -> Any:
    """A tree: each node under its parent, joined by an elbow (down from the parent to a line
    across its children, then an arrow down each child's stem) labelled with its weight
    (TAN's CMI given the class, Chow-Liu's MI, in bits; ``weights=None``: no edge labels);
    with a ``target``, the class is drawn above the root with an arrow to it (TAN's arrows
    from the class to every attribute are implied). Labels are drawn in the ``style``
    (default :data:`TREE_FONT` points, a node's name its label); arrows end at the boxes'
    edges, their heads outside the boxes. On a figure of its own (``plot_tree()``, a report),
    the tree sizes the figure so that one inch of the layout (:func:`tree_layout`) is one
    inch drawn."""
    style = style or TreeStyle()
    position, (width, depth) = tree_layout(parents, target, style)
    extra = style.level_height(list(position)) - TREE_LEVEL  # labels' lines past their first
    figure = ax.figure
    if len(figure.axes) == 1:
        side, bottom, top = TREE_MARGIN
        size = (width + 2 * side, depth + bottom + top + extra)
        figure.set_size_inches(size)
        figure.subplots_adjust(left=side / size[0], right=1 - side / size[0],
                               bottom=bottom / size[1], top=1 - top / size[1])  # fmt: skip
    ax.set(xlim=(0.0, max(width, 1e-9)), ylim=(-depth - 0.3 - extra / 2, 0.3 + extra / 2))
    ax.axis("off")
    boxes = {}
    for node, (x, y) in position.items():
        colour = {"boxstyle": f"round,pad={TREE_PAD}",
                  "facecolor": "#fde9c9" if node == target else "#dbe9f6"}  # fmt: skip
        boxes[node] = ax.text(x, -y, style.label(node), ha="center", va="center", bbox=colour,
                              fontsize=style.size, linespacing=TREE_LINE)  # fmt: skip
    below: dict[str, list[str]] = {}
    for child, parent in parents.items():
        if parent is not None or target is not None:
            below.setdefault(str(target) if parent is None else parent, []).append(child)
    line = {"color": "#555555", "linewidth": 1.0, "zorder": 1}  # under the boxes
    for parent, kids in below.items():
        (x0, y0), level = position[parent], position[kids[0]][1]
        middle = -(y0 + level) / 2
        xs = [position[kid][0] for kid in kids]
        ax.plot([x0, x0], [-y0, middle], **line)
        ax.plot([min(x0, *xs), max(x0, *xs)], [middle, middle], **line)
        for kid, x in zip(kids, xs, strict=True):
            arrow = {"arrowstyle": "-|>", "color": "#555555", "mutation_scale": 14,
                     "shrinkA": 0, "shrinkB": 3, "patchB": boxes[kid].get_bbox_patch()}  # fmt: skip
            ax.annotate("", (x, -level), (x, middle), arrowprops=arrow)
            if weights is not None and parent != target:
                ax.text(x, -(y0 + WEIGHT_AT * (level - y0)), f"{weights.get(kid, 0.0):.3f}",
                        fontsize=style.size - 1, color="#555555", ha="center", va="center",
                        backgroundcolor="white")  # fmt: skip
    literal(ax)
    return ax
