"""A model's catalog row (``wml.models``, store/catalog.py) as a typed record, and its
(de)serialisation: :class:`ModelRecord`, the row a fit writes (:func:`row_values`) and the row
read back (:func:`decode`).

The columns are the model's name, version id, kind, target, features, settings, source, rows
and classes; column ``details`` holds the JSON of the model's fitted state
(models/state.py: what every model keeps, and its family's own), which the catalog reads
through the ``read_state`` its caller gives, as the store cannot know the model families.

Catalog format 4 (this version) stores each class's probability column with the model
(the state's ``probability_columns``, [label, column] pairs in output order,
models/scoring/names.py): a class's column keeps its name across updates and re-fits; models of
formats 1 to 3 get the names the rule of their time gave (``names.probability_columns`` over their
classes). Format 3 gives every parameter table the model partition column ``wml_part``
(models/training.py). Format 2 keeps the model's views in the object registry
(format 1 had a table ``wml.views``, migrated on the first write, store/catalog.py) and records
each parameter table's row count and checksum (the state's ``checksums``, see
:mod:`warehouse_ml.store.integrity`). Models of formats 1 and 2 load and score (their tables
read as partition 0); format 1 models have no checksums ("unverified").
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from sqlglot import exp

from warehouse_ml.engines.base import LIBRARY_SCHEMA
from warehouse_ml.errors import CorruptModelError, IncompatibleModelError
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, literal

SCHEMA = LIBRARY_SCHEMA
CATALOG_NAME = "models"
FORMAT_VERSION = 4
"""4: each class's probability column stored with the model (the state's
``probability_columns``; older formats' names are derived by the rule of their time,
models/scoring/names.py). 3: every parameter table has column wml_part (the model's partition,
0 for a fitted model; models/training.py). 2: parameter tables registered in the object
registry and checksummed, without wml_part (read as partition 0, :meth:`ModelRecord.parameters`).
1: neither."""
REGISTERED_FORMAT = 2
"""The first format whose parameter tables are owned through the object registry."""
PARTITIONED_FORMAT = 3
"""The first format whose parameter tables carry column wml_part."""
CATALOG_COLUMNS = (
    "name", "model_id", "kind", "target", "target_type", "features", "feature_types",
    "smoothing", "source", "n_rows", "n_null_target", "classes", "details", "created_at",
    "library_version", "format_version",
)  # fmt: skip
JSON_COLUMNS = ("features", "feature_types", "smoothing", "classes", "details")


class StoredState(Protocol):
    """What the store reads of a model's fitted state (models/state.py ``FittedState``, a layer
    above the store, which keeps it whole without knowing the families): the part names of its
    parameter tables, the selection that chose its settings, the library call that made it,
    and the JSON object stored as column ``details``."""

    @property
    def tables(self) -> tuple[str, ...]: ...

    @property
    def selection(self) -> tuple[str, ...] | None: ...

    @property
    def made_by(self) -> str | None: ...

    def to_json(self) -> dict[str, Any]: ...


State = TypeVar("State", bound=StoredState)

StateReader = Callable[[str, str, Mapping[str, Any]], StoredState]
"""(kind, model name, the ``details`` object) -> the model's state
(models/reading.py's ``read_state``)."""


@dataclass(frozen=True)
class ModelRecord(Generic[State]):
    """One catalog row, decoded. JSON columns are Python objects here; column ``details`` is
    the model's typed ``state`` (models/state.py).

    ``locations`` (not stored) names the parameter tables of a model that is not in the
    catalog (a cross-validation fold's, in temporary tables); catalogued models' tables are
    ``wml.<model_id>_<part>``.
    """

    name: str
    model_id: str
    kind: str
    target: str
    target_type: str
    features: list[str]
    feature_types: dict[str, dict[str, str]]
    smoothing: dict[str, Any]
    source: str
    n_rows: int
    n_null_target: int
    classes: list[Any]
    state: State
    created_at: dt.datetime | None = None
    library_version: str = ""
    format_version: int = FORMAT_VERSION
    locations: Mapping[str, TableName] | None = field(default=None, compare=False, repr=False)

    def table(self, part: str) -> TableName:
        """The name of one of this model's parameter tables."""
        if self.locations is not None:
            return self.locations[part]
        return parameter_table(self.model_id, part)

    def parameters(self, part: str) -> TableName | exp.Query:
        """What scoring reads of one parameter table: the table, or for a model stored before
        catalog format 3 the table with the column ``wml_part = 0`` it lacks."""
        table = self.table(part)
        if self.format_version >= PARTITIONED_FORMAT:
            return table
        return templates.build("select_as_partition_zero", table=table)

    def parameter_relation(self, part: str, alias: str) -> exp.Expression:
        """:meth:`parameters` of ``part`` under ``alias``, to read in a FROM or JOIN."""
        parameters = self.parameters(part)
        if isinstance(parameters, TableName):
            return parameters.to_table().as_(alias)
        return parameters.subquery(alias)

    @property
    def parts(self) -> list[str]:
        """The model's parameter tables, by part name."""
        return list(self.state.tables)


def parameter_table(model_id: str, part: str) -> TableName:
    """``wml.<model_id>_<part>``."""
    return TableName((SCHEMA, f"{model_id}_{part}"))


def decode(row: Mapping[str, Any], read_state: StateReader) -> ModelRecord:
    """The record of a catalog row (JSON columns as text); a row of a newer format is an
    IncompatibleModelError, a malformed one a CorruptModelError, and a malformed state field
    an IncompatibleModelError naming it (``read_state``)."""
    name = row.get("name")
    try:
        if row["format_version"] > FORMAT_VERSION:
            raise IncompatibleModelError(
                f"model {name!r} was written in catalog format {row['format_version']} by "
                f"warehouse-ml {row['library_version']}; this version reads format "
                f"{FORMAT_VERSION} or older: upgrade warehouse-ml or re-fit the model"
            )
        values = {k: (json.loads(row[k]) if k in JSON_COLUMNS else row[k]) for k in CATALOG_COLUMNS}
        _check_row(values)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise CorruptModelError(
            f"the catalog row of model {name!r} in {SCHEMA}.{CATALOG_NAME} is malformed "
            f"({type(error).__name__}: {error}); expected the row a fit writes: re-fit the "
            "model or drop it"
        ) from error
    details = values.pop("details")
    return ModelRecord(**values, state=read_state(values["kind"], values["name"], details))


def _check_row(values: Mapping[str, Any]) -> None:
    """The shape a fit writes (JSON columns of the right types, every feature typed)."""
    problems = []
    features, types = values["features"], values["feature_types"]
    if not isinstance(features, list) or not all(isinstance(f, str) for f in features):
        problems.append("features is not a list of column names")
    elif not isinstance(types, dict) or any(
        not isinstance(types.get(f), dict) or not {"kind", "sql_type"} <= set(types[f])
        for f in features
    ):
        problems.append("feature_types does not give every feature's kind and type")
    if not isinstance(values["classes"], list) or len(values["classes"]) < 2:
        problems.append("classes is not a list of at least two labels")
    if not isinstance(values["smoothing"], dict) or not isinstance(values["details"], dict):
        problems.append("smoothing or details is not a JSON object")
    if problems:
        raise ValueError("; ".join(problems))


def row_values(record: ModelRecord) -> exp.Values:
    """The catalog row of ``record``, as one row of VALUES in :data:`CATALOG_COLUMNS` order."""
    values = []
    for name in CATALOG_COLUMNS:
        value = record.state.to_json() if name == "details" else getattr(record, name)
        if name in JSON_COLUMNS:
            value = json.dumps(value, sort_keys=True, default=str)
        elif name == "created_at":  # typed: PostgreSQL will not insert text as TIMESTAMP
            value = exp.cast(literal(value.isoformat(sep=" ")), exp.DataType.Type.TIMESTAMP)
        values.append(value)
    return templates.values([values], "r", CATALOG_COLUMNS)
