"""A fitted model's state, typed: what its catalog row keeps besides the columns of
``wml.models`` (store/record.py), stored as the JSON object of column ``details``.

:class:`FittedState` is what every model keeps (its parameter tables and their checksums, each
class's training rows and probability column, its weighting, the batches an update added,
...); its ``learned`` part is the family's own, a :class:`LearnedState` subclass that the
learner names as its ``state_class`` (Naive Bayes: models/learners/bayes/naive_bayes_state.py; TAN:
models/learners/bayes/tan_state.py) and returns from ``learn_tables``. Each is a frozen dataclass
with ``to_json()`` and ``from_json()``; the JSON is the catalog's ``details`` object, with the
keys every version since catalog format 1 wrote (an absent key is a field of None, or empty), so
models stored by earlier versions load as they are. Reading checks each field's type: a field
missing or of another type is an IncompatibleModelError naming the model and the field.
Nothing outside this module and the families' state modules reads the JSON by key
(tests/package/test_layers.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from warehouse_ml.errors import IncompatibleModelError
from warehouse_ml.stats.weights import Weighting


@dataclass(frozen=True)
class Shape:
    """The form a JSON value must have: ``expected`` (as an error names it), ``accepts`` (the
    check) and ``convert`` (the value as a state holds it: lists as tuples)."""

    expected: str
    accepts: Callable[[Any], bool]
    convert: Callable[[Any], Any] = lambda value: value


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


TEXT = Shape("text", lambda v: isinstance(v, str))
INTEGER = Shape("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool))
NUMBER = Shape("a number", _number)
COUNT = Shape("a number", _number, int)
SCALAR = Shape("a label", lambda v: v is None or isinstance(v, (str, int, float, bool)))
OBJECT = Shape("an object", lambda v: isinstance(v, dict) and all(isinstance(k, str) for k in v))
FLAG = Shape("a boolean", lambda v: isinstance(v, bool))


def optional(shape: Shape) -> Shape:
    """``shape`` or null."""
    return Shape(
        f"{shape.expected} or null",
        lambda v: v is None or shape.accepts(v),
        lambda v: None if v is None else shape.convert(v),
    )


def sequence(shape: Shape) -> Shape:
    """A list of ``shape`` values, held as a tuple."""
    return Shape(
        f"a list of ({shape.expected})",
        lambda v: isinstance(v, list) and all(shape.accepts(x) for x in v),
        lambda v: tuple(shape.convert(x) for x in v),
    )


def mapping(shape: Shape) -> Shape:
    """An object of ``shape`` values."""
    return Shape(
        f"an object of ({shape.expected})",
        lambda v: OBJECT.accepts(v) and all(shape.accepts(x) for x in v.values()),
        lambda v: {k: shape.convert(x) for k, x in v.items()},
    )


def row(*shapes: Shape) -> Shape:
    """A list of exactly one value of each of ``shapes``, held as a tuple."""
    return Shape(
        f"[{', '.join(s.expected for s in shapes)}]",
        lambda v: (
            isinstance(v, list)
            and len(v) == len(shapes)
            and all(s.accepts(x) for s, x in zip(shapes, v, strict=True))
        ),
        lambda v: tuple(s.convert(x) for s, x in zip(shapes, v, strict=True)),
    )


EDGES = mapping(sequence(NUMBER))
"""Bin edges by attribute."""
PARENTS = mapping(optional(TEXT))
"""Each attribute's parent attribute (None for a root)."""

_REQUIRED = object()


class Fields:
    """The ``details`` object of model ``model``'s catalog row, read field by field: a field
    missing (without a default) or of another shape is an IncompatibleModelError naming the
    model and the field. :meth:`rest` is what no reader took."""

    def __init__(self, facts: Mapping[str, Any], model: str, path: str = "") -> None:
        self._facts = facts
        self.model = model
        self.path = path  # where the object is in the details: "" or "weighting." ...
        self._taken: set[str] = set()

    def take(self, key: str, shape: Shape, default: Any = _REQUIRED) -> Any:
        """Field ``key`` read as ``shape``; ``default`` when it is absent (required without)."""
        self._taken.add(key)
        if key not in self._facts:
            if default is _REQUIRED:
                raise self._error(key, "is missing", shape)
            return default
        value = self._facts[key]
        if not shape.accepts(value):
            raise self._error(key, f"is {str(value)[:80]!r}", shape)
        return shape.convert(value)

    def rest(self) -> dict[str, Any]:
        """The fields no :meth:`take` read."""
        return {k: v for k, v in self._facts.items() if k not in self._taken}

    def _error(self, key: str, found: str, shape: Shape) -> IncompatibleModelError:
        return IncompatibleModelError(
            f"model {self.model!r}: field {self.path + key!r} of its catalog details {found}, "
            f"expected {shape.expected}; this warehouse-ml cannot read the model: re-fit it or "
            "drop it"
        )


def present(**fields: Any) -> dict[str, Any]:
    """The JSON object of ``fields`` without those that are None (absent keys)."""
    return {k: v for k, v in fields.items() if v is not None}


def edges_json(edges: Mapping[str, tuple[float, ...]] | None) -> dict[str, list[float]] | None:
    """Bin edges by attribute as JSON."""
    return None if edges is None else {a: list(e) for a, e in edges.items()}


def held_edges(edges: Mapping[str, Sequence[float]] | None) -> dict[str, tuple[float, ...]] | None:
    """Bin edges by attribute as a state holds them."""
    return None if edges is None else {a: tuple(e) for a, e in edges.items()}


@dataclass(frozen=True)
class LearnedState:
    """A model family's own fitted state (this base: none). A family subclasses it with its
    fields, :meth:`to_json` and :meth:`from_json`, returns one from ``learn_tables`` and names
    its class as the learner's ``state_class``. The methods below are what code outside the
    family asks of any family's state."""

    def to_json(self) -> dict[str, Any]:
        """The family's keys of the catalog details."""
        return {}

    @classmethod
    def from_json(cls, fields: Fields) -> LearnedState:
        """The family's state from the catalog details (each field read by ``fields``)."""
        return cls()

    def binned_edges(self) -> Mapping[str, tuple[float, ...]]:
        """The numeric attributes counted as categories by bin (table ``categorical``), with
        their bin edges (stats/binning.py); none here."""
        return {}

    def histogram_edges(self) -> Mapping[str, tuple[float, ...]]:
        """The numeric attributes with a training histogram of their own (table
        ``histogram``), with its bin edges; none here."""
        return {}


def _as_json(value: Any) -> Any:
    """A state's value as JSON holds it: tuples as lists, at any depth."""
    if isinstance(value, tuple):
        return [_as_json(item) for item in value]
    return value


@dataclass(frozen=True)
class ReportState(LearnedState):
    """A family's state that is a flat report of named fields, kept in the catalog details
    under the family's key :attr:`KEY`, each field read as :attr:`SHAPES` says (in field
    order). A subclass declares its dataclass fields, the key and the shapes; nothing more."""

    KEY: ClassVar[str] = ""
    SHAPES: ClassVar[Mapping[str, Shape]] = {}

    def to_json(self) -> dict[str, Any]:
        return {self.KEY: {name: _as_json(getattr(self, name)) for name in self.SHAPES}}

    @classmethod
    def from_json(cls, fields: Fields) -> ReportState:
        report = Fields(fields.take(cls.KEY, OBJECT), fields.model, f"{cls.KEY}.")
        return cls(**{name: report.take(name, shape) for name, shape in cls.SHAPES.items()})


@dataclass(frozen=True)
class WeightingState:
    """How a weighted model weighed its rows (stats/weights.py): its sample-weight column (or
    None) and each class's weight by label (empty for none)."""

    sample_weight: str | None
    class_weights: Mapping[str, float]

    @classmethod
    def of(cls, weighting: Weighting) -> WeightingState:
        """The stored form of a fit's weighting."""
        return cls(weighting.sample_weight, dict(weighting.factors))

    def counted(self, column: str) -> Weighting:
        """The weighting that counts a batch in ``column`` as the fit counted its rows."""
        return Weighting(self.sample_weight, dict(self.class_weights), column)

    def to_json(self) -> dict[str, Any]:
        """``{"sample_weight": ..., "class_weights": {label: weight}}``."""
        return {"sample_weight": self.sample_weight, "class_weights": dict(self.class_weights)}

    @classmethod
    def from_json(cls, fields: Fields) -> WeightingState:
        """Read from the object of the details' ``weighting`` field."""
        return cls(
            fields.take("sample_weight", optional(TEXT)),
            fields.take("class_weights", mapping(NUMBER)),
        )


@dataclass(frozen=True)
class Batch:
    """A batch an update added (models/living/updating.py): its id, source, labelled rows
    counted, rows without a target, per binned attribute the values above its top edge, and
    when it was applied (ISO timestamp, UTC)."""

    batch_id: str
    source: str
    n_rows: int
    n_null_target: int
    above_bins: Mapping[str, int]
    applied_at: str

    def to_json(self) -> dict[str, Any]:
        """The batch as :attr:`Updater.batches_` lists it and the catalog stores it."""
        return {
            "batch_id": self.batch_id, "source": self.source, "n_rows": self.n_rows,
            "n_null_target": self.n_null_target, "above_bins": dict(self.above_bins),
            "applied_at": self.applied_at,
        }  # fmt: skip

    @classmethod
    def from_json(cls, fields: Fields) -> Batch:
        """Read from one object of the details' ``batches`` list."""
        return cls(
            fields.take("batch_id", TEXT), fields.take("source", TEXT),
            fields.take("n_rows", COUNT), fields.take("n_null_target", COUNT),
            fields.take("above_bins", mapping(COUNT)), fields.take("applied_at", TEXT),
        )  # fmt: skip


def _nested(reader: Callable[[Fields], Any], model: str, path: str) -> Shape:
    """An object read by ``reader``, at ``path`` in the details (as its errors name it)."""
    return Shape("an object", OBJECT.accepts, lambda v: reader(Fields(v, model, path)))


@dataclass(frozen=True)
class FittedState:
    """What every model's catalog row keeps (module docstring); the family's own in
    ``learned``. Fields:

    * ``tables``: the parameter tables, by part name (``wml.<model_id>_<part>``);
    * ``checksums``: each table's row count and checksum (store/integrity.py); None for a
      cross-validation's models and models of catalog format 1;
    * ``class_rows``: each class's training rows, in class order (None: stored before them);
    * ``probability_columns``: (label, column) of each class in output order
      (models/scoring/names.py; None before catalog format 4);
    * ``weighting``: a weighted fit's weights (None: unweighted);
    * ``batches``: the batches updates added, oldest first;
    * ``partition_column``: a cross-validation's models only, the scored rows' column naming
      their model (held-out fold);
    * ``row_key``: a cross-validation's models only, the scored rows' unique, non-NULL key
      column, on which their terms summed in long format are joined back
      (models/keyed_terms/long_terms.py);
    * ``selection``: the name parts of the model-selection comparison that chose the model's
      settings (evaluation/selection.py), kept while the model is;
    * ``made_by``: the library call that fitted the model under a name of its own
      (``select_model``, ``select_k``), which a later call of it may replace
      (store/catalog.py ``refuse_replacing``); None for a caller's fit;
    * ``extra``: facts a caller of ``fit`` stored (``details=``) under other keys.
    """

    tables: tuple[str, ...] = ()
    checksums: Mapping[str, Any] | None = None
    class_rows: tuple[int, ...] | None = None
    probability_columns: tuple[tuple[Any, str], ...] | None = None
    weighting: WeightingState | None = None
    batches: tuple[Batch, ...] = ()
    partition_column: str | None = None
    row_key: str | None = None
    selection: tuple[str, ...] | None = None
    made_by: str | None = None
    learned: LearnedState = field(default_factory=LearnedState)
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The catalog's ``details`` object (a caller's facts under their own keys, the
        library's over any of the same name, as fits have always written them)."""
        return {
            **self.extra,
            **present(
                tables=list(self.tables),
                checksums=self.checksums,
                class_rows=None if self.class_rows is None else list(self.class_rows),
                probability_columns=None
                if self.probability_columns is None
                else [list(pair) for pair in self.probability_columns],
                weighting=None if self.weighting is None else self.weighting.to_json(),
                batches=[b.to_json() for b in self.batches] or None,
                partition_column=self.partition_column,
                row_key=self.row_key,
                selection=None if self.selection is None else list(self.selection),
                made_by=self.made_by,
            ),
            **self.learned.to_json(),
        }

    @classmethod
    def from_json(
        cls, facts: Mapping[str, Any], learned: type[LearnedState], model: str
    ) -> FittedState:
        """The state of model ``model`` from its catalog details ``facts``, its family's part
        read by ``learned`` (IncompatibleModelError naming a malformed field)."""
        fields = Fields(facts, model)
        return cls(
            tables=fields.take("tables", sequence(TEXT), ()),
            checksums=fields.take("checksums", OBJECT, None),
            class_rows=fields.take("class_rows", sequence(COUNT), None),
            probability_columns=fields.take(
                "probability_columns", sequence(row(SCALAR, TEXT)), None
            ),
            weighting=fields.take(
                "weighting", _nested(WeightingState.from_json, model, "weighting."), None
            ),
            batches=fields.take(
                "batches", sequence(_nested(Batch.from_json, model, "batches[].")), ()
            ),
            partition_column=fields.take("partition_column", TEXT, None),
            row_key=fields.take("row_key", TEXT, None),
            selection=fields.take("selection", sequence(TEXT), None),
            made_by=fields.take("made_by", TEXT, None),
            learned=learned.from_json(fields),
            extra=fields.rest(),
        )

    @classmethod
    def noted(cls, facts: Mapping[str, Any] | None, model: str) -> FittedState:
        """A state holding only what a caller of ``fit`` gives (``details=``: the model
        selection that chose it, the call that made it, facts of its own), read as the
        catalog's."""
        return cls.from_json(facts or {}, LearnedState, model)


def read_common_state(kind: str, model: str, facts: Mapping[str, Any]) -> FittedState:
    """The state every model keeps (tables, checksums, class rows, probability columns, ...),
    its family's own fields left unread: for the rows a fit or an update replaces, a drop
    removes, or a new fit carries names from, which must not need ``kind`` registered (a model
    of a kind no longer installed can still be dropped or fitted over)."""
    return FittedState.from_json(facts, LearnedState, model)
