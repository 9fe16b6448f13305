"""Names the library gives to columns, so that no user column name can change a result.

Two rules, both stated in docs/RELIABILITY.md ("guest contract"):

* **Internal names are fresh.** Where a query carries source columns next to names of its own
  (a row number, a fold), the library's name is chosen by :func:`fresh` so that no source
  column equals it, ignoring case; everywhere else, internal relations carry only the library's
  names (source columns are renamed on the way in and back on the way out).
* **Output names are checked.** The columns a call adds to its output (``p_<label>`` per
  class, ``prediction``, a cross-validation's ``fold``) are named by
  :func:`probability_columns` (one documented renaming rule for labels whose names clash) and a
  key or passed-through column that clashes with one of them is refused
  (:func:`check_outputs`), instead of letting the engine rename or shadow one of the two.
* **A class's column keeps its name.** A model stores its classes' probability columns
  (its state's ``probability_columns``, format 4): a class's name is fixed when the class first
  appears, and the classes an update or re-fit adds get names that collide with none of the
  kept ones, in columns after them (:func:`carried_columns`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from warehouse_ml.errors import ColumnConflictError
from warehouse_ml.store.catalog import ModelRecord

PROBABILITY_PREFIX = "p_"
PREDICTION = "prediction"
FOLD = "fold"
WEIGHT = "weight"


def fresh(base: str, taken: Iterable[str]) -> str:
    """``base``, or ``base_1``, ``base_2``... : the first that equals none of ``taken``,
    ignoring case (every engine then tells it apart from them).

    >>> fresh("wml_row", ["id", "WML_ROW"])
    'wml_row_1'
    """
    folded = {t.casefold() for t in taken}
    name, n = base, 0
    while name.casefold() in folded:
        n += 1
        name = f"{base}_{n}"
    return name


def row_number(columns: Iterable[str]) -> str:
    """The column numbering the scored rows of a source with ``columns`` in a scoring query:
    the one its terms read when they are summed per row (models/keyed_terms/parameters.py)."""
    return fresh("wml_row", columns)


def _fit(name: str, suffix: str, max_bytes: int | None) -> str:
    """``name + suffix``, ``name`` cut at a character boundary so that the whole fits in
    ``max_bytes`` bytes of UTF-8 (the engine's identifier length) when there is a limit."""
    if max_bytes is None:
        return name + suffix
    room = max_bytes - len(suffix.encode("utf-8"))
    return name.encode("utf-8")[:room].decode("utf-8", errors="ignore") + suffix


def probability_columns(
    labels: Sequence[Any], max_bytes: int | None = None, taken: Sequence[str] = ()
) -> list[str]:
    """Column names of the class probabilities of ``labels`` in prediction views and tables:
    ``p_<label>`` per class, in the order given, placed after the columns ``taken`` (the names
    an earlier version of the model already gives; default none).

    The renaming rule: a label whose name ``p_<label>`` (cut to ``max_bytes`` bytes, the
    engine's identifier length, e.g. 63 on PostgreSQL) equals, ignoring case, a ``taken`` name, a
    name given to an earlier label or the natural name of ANY label gets ``p_<label>_<i>``
    instead (i its 0-based column position, after the taken ones; ``_<i>`` repeated until
    unique, the label cut to make room): labels 'A', 'a', 'a_1' give ``p_A``, ``p_a_1_1``,
    ``p_a_1``; 'a_1' after the taken ``p_A``, ``p_a_1`` gets ``p_a_1_2``. So among the labels
    named together a natural name belongs to its own label, a taken name is never given again,
    and names are unique on every engine.
    """
    natural = [_fit(f"{PROBABILITY_PREFIX}{label}", "", max_bytes) for label in labels]
    reserved = {name.casefold() for name in natural}
    names: list[str] = []
    used = {name.casefold() for name in taken}
    for index, label in enumerate(labels):
        name, suffix = natural[index], ""
        while name.casefold() in used or (suffix and name.casefold() in reserved):
            suffix += f"_{len(taken) + index}"
            name = _fit(f"{PROBABILITY_PREFIX}{label}", suffix, max_bytes)
        names.append(name)
        used.add(name.casefold())
    return names


def carried_columns(
    previous: Sequence[tuple[Any, str]], labels: Sequence[Any], max_bytes: int | None
) -> list[tuple[Any, str]]:
    """The (label, column) pairs of a model version whose classes are ``labels``, in output
    column order: each class of ``previous`` (the replaced version's pairs, in its order) that
    is still a class keeps its column, in its place; the new classes follow, in ``labels``
    order, named by :func:`probability_columns` with the kept names taken. A label is matched
    by its text (the catalog stores labels as JSON)."""
    current = {str(label): label for label in labels}
    kept = [(current[str(label)], name) for label, name in previous if str(label) in current]
    seen = {str(label) for label, _ in kept}
    added = [label for label in labels if str(label) not in seen]
    named = probability_columns([str(label) for label in added], max_bytes, [n for _, n in kept])
    return [*kept, *zip(added, named, strict=True)]


def record_columns(record: ModelRecord, max_bytes: int | None) -> list[tuple[Any, str]]:
    """The (label, column) pairs of a catalogued model, in output column order: stored with the
    model (``probability_columns``), or for a model stored before catalog format 4 the names the
    rule gave then (:func:`probability_columns` over its classes, in class order, for the
    engine's identifier length ``max_bytes``)."""
    stored = record.state.probability_columns
    if stored is not None:
        return [(label, name) for label, name in stored]
    labels = [str(c) for c in record.classes]
    return list(zip(record.classes, probability_columns(labels, max_bytes), strict=True))


def check_outputs(
    passed: Sequence[str], outputs: Sequence[str], description: str, what: str = "key"
) -> None:
    """Refuse passed-through columns (``passed``: keys, a target) whose name equals, ignoring
    case, an output column the call adds (``outputs``), naming both."""
    added = {o.casefold(): o for o in outputs}
    for name in passed:
        if name.casefold() in added:
            raise ColumnConflictError(
                f"{what} column {name!r} of {description} has the name of the output column "
                f"{added[name.casefold()]!r} (names are compared ignoring case); expected "
                "distinct names: rename the column in a view, or choose other keys"
            )
    seen: dict[str, str] = {}
    for name in passed:
        if name.casefold() in seen and seen[name.casefold()] != name:
            raise ColumnConflictError(
                f"{what} columns {seen[name.casefold()]!r} and {name!r} of {description} differ "
                "only by case; expected names every engine tells apart"
            )
        seen[name.casefold()] = name
