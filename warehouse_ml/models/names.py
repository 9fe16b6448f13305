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
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from warehouse_ml.errors import ColumnConflictError

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


def _fit(name: str, suffix: str, max_bytes: int | None) -> str:
    """``name + suffix``, ``name`` cut at a character boundary so that the whole fits in
    ``max_bytes`` bytes of UTF-8 (the engine's identifier length) when there is a limit."""
    if max_bytes is None:
        return name + suffix
    room = max_bytes - len(suffix.encode("utf-8"))
    return name.encode("utf-8")[:room].decode("utf-8", errors="ignore") + suffix


def probability_columns(labels: Sequence[Any], max_bytes: int | None = None) -> list[str]:
    """Column names of the class probabilities in prediction views and tables: ``p_<label>``
    per class, in class order.

    The renaming rule: a label whose name ``p_<label>`` (cut to ``max_bytes`` bytes, the
    engine's identifier length, e.g. 63 on PostgreSQL) equals, ignoring case, a name given to an
    earlier class or the natural name of ANY class gets ``p_<label>_<i>`` instead (i its 0-based
    class index; ``_<i>`` repeated until unique, the label cut to make room): classes 'A',
    'a', 'a_1' give ``p_A``, ``p_a_1_1``, ``p_a_1``. So a natural name always belongs to its
    own label, and names are unique on every engine.
    """
    natural = [_fit(f"{PROBABILITY_PREFIX}{label}", "", max_bytes) for label in labels]
    reserved = {name.casefold() for name in natural}
    names: list[str] = []
    taken: set[str] = set()
    for index, label in enumerate(labels):
        name, suffix = natural[index], ""
        while name.casefold() in taken or (suffix and name.casefold() in reserved):
            suffix += f"_{index}"
            name = _fit(f"{PROBABILITY_PREFIX}{label}", suffix, max_bytes)
        names.append(name)
        taken.add(name.casefold())
    return names


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
