"""The measure registry: one :class:`Measure` entry per measure, and everything derived from it.

An entry holds the measure's query builder, its options with their defaults, how its
function's result is made from the query's rows, and what the rest of the library does with
it: the :class:`~warehouse_ml.evaluation.result.Evaluation` method (:class:`Method`), the rows of
the ``warehouse-ml evaluate`` report (:class:`Report`) and the model-selection criterion
(:class:`Criterion`). :func:`register` adds an entry and returns the measure's public function,
generated from the entry (its signature and docstring are the entry's); measure views and SQL
text (views.py) read the entry by name.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.errors import ParameterError
from warehouse_ml.evaluation.metrics.spec import Spec, one_row, resolve, with_labels
from warehouse_ml.stats import weights

Builder = Callable[..., exp.Query]
"""A query builder: ``build(spec, source, **options) -> query``."""

REQUIRED = inspect.Parameter.empty
"""The default of an option the caller must give."""

SCORES = ("target", "probabilities", "weight")
"""The columns a measure of the probabilities reads (ranking measures, scoring rules)."""
DECISIONS = ("target", "probabilities", "prediction", "weight")
"""The columns a measure of decisions reads (confusion matrix, losses): the prediction column
when given, else the class of largest probability."""

_COLUMNS = {
    "target": inspect.Parameter("target", inspect.Parameter.KEYWORD_ONLY, annotation="str"),
    "probabilities": inspect.Parameter(
        "probabilities",
        inspect.Parameter.KEYWORD_ONLY,
        default=None,
        annotation="Mapping[Any, str] | None",
    ),
    "prediction": inspect.Parameter(
        "prediction", inspect.Parameter.KEYWORD_ONLY, default=None, annotation="str | None"
    ),
    "weight": inspect.Parameter(
        "weight", inspect.Parameter.KEYWORD_ONLY, default=None, annotation="str | None"
    ),
}


def option_number(name: str, value: Any, expected: str) -> float:
    """A measure option's value as a float (what ``float`` reads, a bool excepted), or a
    ParameterError saying ``expected`` (e.g. "within (0, 0.5)")."""
    if not isinstance(value, bool):
        try:
            return float(value)
        except (TypeError, ValueError):
            pass
    raise ParameterError(f"{name} must be a number {expected}, got {value!r}")


def option_fractions(name: str, values: Any, item: str, expected: str) -> list[float]:
    """A measure option listing fractions within (0, 1] (lift quantiles, recall levels) as
    floats: each ``item`` read by :func:`option_number`; a ParameterError saying ``name``
    must be ``expected`` when it is no list (a string is none) or a fraction is out of range."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ParameterError(f"{name} must be {expected}, got {values!r}")
    fractions = [option_number(item, v, "within (0, 1]") for v in values]
    if not fractions or any(not 0.0 < f <= 1.0 for f in fractions):
        raise ParameterError(f"{name} must be {expected}, got {list(values)!r}")
    return fractions


@dataclass(frozen=True)
class Option:
    """A measure's keyword option: its name, default (:data:`REQUIRED` when the caller must
    give it) and type (annotation text, as ``help()`` shows it)."""

    name: str
    default: Any
    annotation: str


@dataclass(frozen=True)
class Call:
    """One call of a measure's function: the warehouse, the resolved predictions and the
    measure's own query builder."""

    warehouse: Warehouse
    spec: Spec
    source: Source
    build: Builder

    def table(self, **options: Any) -> pa.Table:
        """The rows of the measure's own query."""
        return self.fetch(self.build, **options)

    def fetch(self, build: Builder, **options: Any) -> pa.Table:
        """The rows of another query over the same predictions."""
        return self.warehouse.fetch_tree(build(self.spec, self.source, **options))


Result = Callable[..., Any]
"""How a measure's function makes its value: ``result(call, **options)``."""


def table(call: Call, **options: Any) -> pa.Table:
    """Result: the query's rows as they are."""
    return call.table(**options)


def labelled(call: Call, **options: Any) -> pa.Table:
    """Result: the query's rows with a class_label column after class_index."""
    return with_labels(call.table(**options), call.spec)


def row_as(kind: type, what: str) -> Result:
    """Result: the query's one row as the dataclass ``kind`` (``what`` names the measure in
    the error raised when there is no row)."""

    def result(call: Call, **options: Any) -> Any:
        return kind(**one_row(call.table(**options), what))

    return result


def any_classes(k: int) -> bool:
    """Applies to every problem."""
    return k >= 2


def binary(k: int) -> bool:
    """Applies to two-class problems."""
    return k == 2


def multiclass(k: int) -> bool:
    """Applies to problems of three or more classes."""
    return k > 2


@dataclass(frozen=True)
class Method:
    """The :class:`Evaluation` method of a measure: its name, the measure's options it takes
    (positional or keyword, in this order) and its docstring."""

    name: str
    options: tuple[str, ...] = ()
    doc: str = ""


@dataclass(frozen=True)
class Report:
    """What ``warehouse-ml evaluate`` does with a measure.

    * ``settings``: the report's settings given to the measure as its options of the same
      name (``positive``, the positive class; ``level``, the confidence level);
    * ``section``: the heading it is printed under (``str.format`` with the settings), None for
      a measure only written to files; sections come in the registry's order;
    * ``text``: the printed text made from the result; None prints the result table;
    * ``same_line``: printed on the line of the section's previous measure, three spaces on;
    * ``table``: the file stem ``--output-dir`` writes the result table to;
    * ``applies``: for which numbers of classes it is reported.
    """

    settings: tuple[str, ...] = ()
    section: str | None = None
    text: Callable[[Any], str] | None = None
    same_line: bool = False
    table: str | None = None
    applies: Callable[[int], bool] = any_classes


@dataclass(frozen=True)
class Criterion:
    """How a measure ranks candidates in :func:`~warehouse_ml.evaluation.selection.select_model`.

    ``name`` is the measure name select_model accepts (entries may share one when each applies
    to other numbers of classes, ``applies``); ``value`` the number taken from the result;
    ``argument`` the select_model argument given as the measure's option of that name
    (``positive``, ``loss``) and ``missing`` the error text when that argument is required and
    absent (empty: optional).
    """

    name: str
    value: Callable[[Any], float]
    larger_is_better: bool
    argument: str | None = None
    missing: str = ""
    applies: Callable[[int], bool] = any_classes


@dataclass(frozen=True)
class Measure:
    """One measure: its query, its options and what is derived from them.

    * ``name``: the measure's name (function, view ``role``, :func:`measure_sql`);
    * ``build``: the query builder, ``build(spec, source, **options)``; its rows are the
      measure's view and SQL text;
    * ``doc``: the public function's docstring;
    * ``options``: the keyword options, in the order of the function's signature;
    * ``reads``: the predictions' columns it reads (:data:`SCORES` or :data:`DECISIONS`);
    * ``result``: how the function's value is made (:func:`table`, :func:`labelled`,
      :func:`row_as`, or a function of the :class:`Call`) and ``returns`` its type's name;
    * ``method``, ``report``, ``criterion``: see :class:`Method`, :class:`Report`,
      :class:`Criterion` (None: the measure has none).
    """

    name: str
    build: Builder
    doc: str
    options: tuple[Option, ...] = ()
    reads: tuple[str, ...] = SCORES
    result: Result = table
    returns: str = "pa.Table"
    method: Method | None = None
    report: Report | None = None
    criterion: Criterion | None = None

    def signature(self) -> inspect.Signature:
        """The public function's signature: ``(con, predictions, *, target, <required
        options>, probabilities=None[, prediction=None], <other options>)``."""
        positional = [
            inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=kind)
            for name, kind in (("con", "Connectable"), ("predictions", "SourceLike"))
        ]
        required = [o for o in self.options if o.default is REQUIRED]
        optional = [o for o in self.options if o.default is not REQUIRED]
        keywords = [
            _COLUMNS["target"],
            *_parameters(required, inspect.Parameter.KEYWORD_ONLY),
            *[_COLUMNS[name] for name in self.reads if name != "target"],
            *_parameters(optional, inspect.Parameter.KEYWORD_ONLY),
        ]
        return inspect.Signature([*positional, *keywords], return_annotation=self.returns)

    def method_signature(self) -> inspect.Signature:
        """The :class:`Evaluation` method's signature: ``(self, <its options>)``."""
        if self.method is None:
            raise ParameterError(f"measure {self.name!r} has no Evaluation method")
        chosen = [self.option(name) for name in self.method.options]
        me = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
        return inspect.Signature(
            [me, *_parameters(chosen, inspect.Parameter.POSITIONAL_OR_KEYWORD)],
            return_annotation=self.returns,
        )

    def option(self, name: str) -> Option:
        """The option called ``name``."""
        for option in self.options:
            if option.name == name:
                return option
        raise ParameterError(
            f"measure {self.name!r} has no option {name!r}; its options: "
            f"{[o.name for o in self.options]}"
        )


def _parameters(options: Sequence[Option], kind: Any) -> list[inspect.Parameter]:
    return [
        inspect.Parameter(o.name, kind, default=o.default, annotation=o.annotation) for o in options
    ]


_ENTRIES: dict[str, Measure] = {}
_FUNCTIONS: dict[str, Callable[..., Any]] = {}


def register(entry: Measure) -> Callable[..., Any]:
    """Add ``entry`` (its name must be new) and return its public function."""
    if entry.name in _ENTRIES:
        raise ParameterError(f"a measure named {entry.name!r} is registered already")
    for name in (entry.method.options if entry.method else ()) + (
        entry.report.settings if entry.report else ()
    ):
        entry.option(name)
    _ENTRIES[entry.name] = entry
    _FUNCTIONS[entry.name] = _function(entry)
    return _FUNCTIONS[entry.name]


def unregister(name: str) -> None:
    """Remove the measure ``name``."""
    entry(name)
    del _ENTRIES[name], _FUNCTIONS[name]


def entry(name: str) -> Measure:
    """The registry entry of the measure ``name``."""
    try:
        return _ENTRIES[name]
    except KeyError:
        raise ParameterError(f"unknown measure {name!r}; expected one of {names()}") from None


def entries() -> tuple[Measure, ...]:
    """Every entry, in the order they were registered."""
    return tuple(_ENTRIES.values())


def names() -> tuple[str, ...]:
    """The registered measures' names, sorted."""
    return tuple(sorted(_ENTRIES))


def function(name: str) -> Callable[..., Any]:
    """The public function of the measure ``name``."""
    entry(name)
    return _FUNCTIONS[name]


def criteria() -> dict[str, tuple[tuple[str, Criterion], ...]]:
    """Selection measure name -> (measure name, criterion) of every entry with that criterion
    name (each applies to other numbers of classes)."""
    found: dict[str, tuple[tuple[str, Criterion], ...]] = {}
    for measure in entries():
        if measure.criterion is not None:
            name = measure.criterion.name
            found[name] = (*found.get(name, ()), (measure.name, measure.criterion))
    return found


def compute(
    measure: Measure,
    con: Connectable,
    predictions: SourceLike,
    columns: Mapping[str, Any],
    options: Mapping[str, Any],
) -> Any:
    """Run ``measure`` over predictions a caller gives (``columns``: target, probabilities,
    prediction, weight), their weight column first checked to be one a sum holds exactly
    (``weights.check_weight_column``)."""
    with session(con) as warehouse, open_source(warehouse, predictions) as src:
        spec = _resolved(src, columns)
        if spec.weight is not None:
            weights.check_weight_column(warehouse, src, spec.target, spec.weight)
        return run(measure, warehouse, spec, src, options)


def compute_over(
    measure: Measure,
    warehouse: Warehouse,
    src: Source,
    columns: Mapping[str, Any],
    options: Mapping[str, Any],
) -> Any:
    """Run ``measure`` over an evaluation's own predictions (or a query over them), whose
    weights, if any, are the sample weights its fit checked."""
    return run(measure, warehouse, _resolved(src, columns), src, options)


def _resolved(src: Source, columns: Mapping[str, Any]) -> Spec:
    return resolve(
        src,
        columns["target"],
        columns.get("probabilities"),
        columns.get("prediction"),
        columns.get("weight"),
    )


def run(
    measure: Measure, warehouse: Warehouse, spec: Spec, src: Source, options: Mapping[str, Any]
) -> Any:
    """Run ``measure`` over a resolved source."""
    return measure.result(Call(warehouse, spec, src, measure.build), **options)


def measure_key(name: str, options: Mapping[str, Any]) -> tuple[str, str]:
    """How a computed measure is looked up again: its name and options."""
    return name, repr(sorted(options.items()))


def _function(measure: Measure) -> Callable[..., Any]:
    signature = measure.signature()

    def function(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        given = dict(bound.arguments)
        con, predictions = given.pop("con"), given.pop("predictions")
        columns = {name: given.pop(name) for name in measure.reads}
        return compute(measure, con, predictions, columns, given)

    function.__name__ = function.__qualname__ = measure.name
    function.__doc__ = measure.doc
    function.__module__ = "warehouse_ml.evaluation.metrics"
    function.__signature__ = signature  # type: ignore[attr-defined]
    function.__annotations__ = {
        **{name: p.annotation for name, p in signature.parameters.items()},
        "return": measure.returns,
    }
    return function
