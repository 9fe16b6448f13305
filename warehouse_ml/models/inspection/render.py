"""Text renderings of a tree over attributes (TAN structures, Chow-Liu trees): Mermaid for
Markdown viewers, DOT for Graphviz. Edge labels carry the weight in bits."""

from __future__ import annotations

from collections.abc import Sequence

from warehouse_ml.errors import ParameterError


def _mermaid_label(text: str) -> str:
    return '"' + text.replace("&", "#amp;").replace('"', "#quot;") + '"'


def _dot_label(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def render_tree(
    target: str | None,
    attributes: Sequence[str],
    edges: Sequence[tuple[str, str, float]],
    format: str = "mermaid",
) -> str:
    """Text rendering of a tree over attributes, optionally with a class node pointing to all.

    Args:
        target: the class node's label, or None for no class node (Chow-Liu trees).
        attributes: node labels.
        edges: (parent, child, weight in bits).
        format: "mermaid" or "dot".
    """
    ids = {a: f"a{i}" for i, a in enumerate(attributes)}
    if format == "mermaid":
        lines = ["graph TD"]
        if target is not None:
            lines.append(f"    class_node[{_mermaid_label(target)}]")
        lines += [f"    {ids[a]}[{_mermaid_label(a)}]" for a in attributes]
        if target is not None:
            lines += [f"    class_node --> {ids[a]}" for a in attributes]
        lines += [f'    {ids[p]} -->|"{w:.4f} bits"| {ids[c]}' for p, c, w in edges]
        return "\n".join(lines) + "\n"
    if format == "dot":
        lines = ["digraph tan {"]
        if target is not None:
            lines.append(f"    class_node [label={_dot_label(target)}, shape=box];")
        lines += [f"    {ids[a]} [label={_dot_label(a)}];" for a in attributes]
        if target is not None:
            lines += [f"    class_node -> {ids[a]};" for a in attributes]
        lines += [f'    {ids[p]} -> {ids[c]} [label="{w:.4f} bits"];' for p, c, w in edges]
        return "\n".join(lines) + "\n}\n"
    raise ParameterError(f"format must be 'mermaid' or 'dot', got {format!r}")
