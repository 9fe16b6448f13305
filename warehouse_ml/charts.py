"""Pictures of the measures: each function draws one chart on a matplotlib ``Axes`` from the
rows a SQL measure returned (curves, bins, counts), and returns the axes.

matplotlib is an optional dependency (``pip install "warehouse-ml[report]"``): it is imported
when a chart is first drawn, and its absence is a ParameterError naming the extra. Nothing here
reads the warehouse: the data come from the metrics package (already thinned in SQL for curves
of many points), so a chart shows exactly the points SQL computed.
"""

from __future__ import annotations

import importlib.util
import io
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from warehouse_ml.errors import ParameterError

REPORT_EXTRA = 'pip install "warehouse-ml[report]"'
CHANCE = {"color": "#999999", "linestyle": "--", "linewidth": 1}
"""How the no-skill references (the diagonal, a lift of 1) are drawn."""


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


def svg(draw: Any, size: tuple[float, float] = (5.0, 4.0)) -> str:
    """The SVG text of a new figure (no pyplot state) on whose axes ``draw(ax)`` draws."""
    figure = matplotlib_figure()(figsize=size)
    draw(figure.add_subplot())
    figure.tight_layout()
    out = io.StringIO()
    figure.savefig(out, format="svg")
    text = out.getvalue()
    return text[text.index("<svg") :]


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
    ax.legend(loc="lower right", fontsize="small")
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
    ax.step(recall, precision, where="post", label=f"{label}{ap}")
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
    ax.set(xlim=(0, 1), xlabel="fraction of rows, by decreasing P(" + label + ")", ylabel="lift")
    gains = ax.twinx()
    gains.plot([0.0, *fractions], [0.0, *table.column("gain").to_pylist()], "o-",
               color="#d62728", label="cumulative gain")  # fmt: skip
    gains.plot([0, 1], [0, 1], color="#d62728", alpha=0.3, linestyle=":")
    gains.set(ylim=(0, 1.02), ylabel="cumulative gain")
    ax.set_title(f"Lift and gains of {label}")
    return ax


def calibration(ax: Any, bins: pa.Table, label: str) -> Any:
    """Reliability diagram (rows of ``calibration``): observed share against mean predicted
    probability per bin, each point labelled with its rows, and the diagonal."""
    ax.plot([0, 1], [0, 1], **CHANCE)
    predicted = bins.column("mean_predicted").to_pylist()
    observed = bins.column("observed").to_pylist()
    ax.plot(predicted, observed, "o-", label=label)
    for x, y, n in zip(predicted, observed, bins.column("n").to_pylist(), strict=True):
        ax.annotate(f"{n}", (x, y), textcoords="offset points", xytext=(4, -10), fontsize=7)
    ax.set(xlim=(0, 1), ylim=(0, 1.02), xlabel=f"mean predicted P({label})",
           ylabel="observed share")  # fmt: skip
    ax.set_title("Calibration (rows per bin)")
    return ax


def confusion(ax: Any, cells: pa.Table, labels: Sequence[Any]) -> Any:
    """Confusion matrix heatmap (rows of ``confusion_matrix``: true_index, predicted_index,
    n), counts in the cells, rows the true class."""
    k = len(labels)
    matrix = [[0] * k for _ in range(k)]
    for row in cells.to_pylist():
        matrix[row["true_index"]][row["predicted_index"]] = row["n"]
    ax.imshow(matrix, cmap="Blues")
    top = max(max(r) for r in matrix) or 1
    for i in range(k):
        for j in range(k):
            colour = "white" if matrix[i][j] > top / 2 else "black"
            ax.text(j, i, str(matrix[i][j]), ha="center", va="center", color=colour)
    names = [str(label) for label in labels]
    ax.set_xticks(range(k), names, rotation=45, ha="right")
    ax.set_yticks(range(k), names)
    ax.set(xlabel="predicted", ylabel="true")
    ax.set_title("Confusion matrix")
    return ax


def class_rows(ax: Any, labels: Sequence[str], rows: Sequence[int]) -> Any:
    """A model's classes by their training rows, as bars labelled with the share."""
    total = sum(rows) or 1
    bars = ax.barh(list(labels)[::-1], list(rows)[::-1])
    for bar, n in zip(bars, list(rows)[::-1], strict=True):
        ax.annotate(f"{n / total:.1%}", (bar.get_width(), bar.get_y() + bar.get_height() / 2),
                    xytext=(3, 0), textcoords="offset points", va="center", fontsize=8)  # fmt: skip
    ax.set(xlabel="training rows")
    ax.set_title("Classes")
    return ax


def ranking(ax: Any, table: pa.Table) -> Any:
    """Attributes by their MI with the class (rows of an attribute ranking), as bars."""
    names = table.column("attribute").to_pylist()[::-1]
    ax.barh(names, table.column("mi").to_pylist()[::-1])
    ax.set(xlabel="MI with the class (bits)")
    ax.set_title("Attribute ranking")
    return ax


def tree(
    ax: Any, parents: Mapping[str, str | None], weights: Mapping[str, float], target: str | None
) -> Any:
    """A tree over attributes: each under its parent, the edge labelled with its weight (bits:
    TAN's CMI given the class, Chow-Liu's MI); with a ``target``, the class is drawn above the
    root with an arrow to it (TAN's arrows from the class to every attribute are implied)."""
    children: dict[str | None, list[str]] = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    top = 0 if target is None else 1
    position: dict[str, tuple[float, float]] = {}
    slots = [0]

    def place(node: str, depth: int) -> float:
        kids = children.get(node, [])
        if not kids:
            x = float(slots[0])
            slots[0] += 1
        else:
            xs = [place(kid, depth + 1) for kid in kids]
            x = sum(xs) / len(xs)
        position[node] = (x, -float(depth))
        return x

    roots = children.get(None, [])
    for root in roots:
        place(root, top)
    if target is not None:
        position[target] = (sum(position[r][0] for r in roots) / max(len(roots), 1), 0.0)
    for child, parent in parents.items():
        if parent is None and target is None:
            continue
        (x0, y0), (x1, y1) = position[parent or str(target)], position[child]
        ax.annotate(
            "",
            (x1, y1),
            (x0, y0),
            arrowprops={"arrowstyle": "->", "color": "#555555", "shrinkA": 9, "shrinkB": 9},
        )
        if parent is not None:
            ax.text((x0 + x1) / 2, (y0 + y1) / 2, f"{weights.get(child, 0.0):.3f}", fontsize=7,
                    color="#555555", ha="center", backgroundcolor="white")  # fmt: skip
    for node, (x, y) in position.items():
        style = {"boxstyle": "round", "facecolor": "#fde9c9" if node == target else "#dbe9f6"}
        ax.text(x, y, node, ha="center", va="center", bbox=style, fontsize=8)
    depth = max(-y for _, y in position.values())
    ax.set(xlim=(-0.7, max(slots[0] - 1, 1) + 0.7), ylim=(-depth - 0.6, 0.6))
    ax.axis("off")
    return ax
