"""Naive Bayes learned as GROUP BY counts and scored by a plain-SQL query.

Parameter tables of a model (``wml.<model_id>_<part>``), each led by the model partition
``wml_part`` (0 for a fitted model; cross-validation learns each fold's model in the same tables,
models/training.py), but the lookup table, whose codes are shifted per partition:

* ``classes``: class_index, class_label, n, log_prior;
* ``categorical``: attribute, value, class_index, n, log_prob (one row per seen value and class);
* ``unseen``: attribute, class_index, n_class, n_values, log_prob of a value never seen;
* ``gaussian``: attribute, class_index, n, mean, variance (floored), population_variance
  (before the floor) of numeric attributes;
* ``histogram_bins``: attribute, bin_index, upper: the edges of each numeric attribute's
  ``binning.DEFAULT_BINS`` equal-frequency bins over the training rows (stats/binning.py; the
  edges are also in the catalog details, ``histogram_bins``); cross-validation's models share
  the edges of the whole split's rows;
* ``histogram``: attribute, value (bin index), class_index, n: each numeric attribute's
  training histogram, the rows (a weighted fit: the summed weights, as every count of the
  model) per bin and class. Scoring does not read it: drift and the attribute ranking do,
  so that they measure the data's distribution, not the fitted normals. An update adds a
  batch's counts on the stored edges. A model stored before the histogram has neither table
  (its drift and ranking use the fitted normals, models/living/drift.py);
* ``lookup``: code, lp_0 .. lp_{K-1}: the summed categorical and unseen log-probabilities of
  blocks of integer-coded attributes with contiguous values, one row per combination of
  their (value | unseen | NULL) slots, so that scoring looks up a block by one INNER join on
  an integer (the blocks are stored in the catalog details; see lookup.py).

Smoothing conventions reproduced exactly:

* scikit-learn ``CategoricalNB(alpha=a)``: ``NaiveBayes(alpha=a, prior_alpha=0)`` (the default
  prior is unsmoothed, as there);
* Weka ``NaiveBayes``: ``NaiveBayes(alpha=1, prior_alpha=1)``;
* maximum likelihood: ``alpha=0, prior_alpha=0``;
* m-estimate with uniform prior p = 1/|X|: ``NaiveBayes(alpha=0, m=m)`` gives
  P = (n_xc + m/|X|) / (n_c + m);
* scikit-learn ``GaussianNB(var_smoothing=v)`` on numeric columns: ``var_smoothing=v``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.capabilities import (
    AdditiveScores,
    CountSummaries,
    CountUpdates,
    ExactLeaveOneOut,
    FoldsAtOnce,
    MembersAtOnce,
)
from warehouse_ml.models.inspection.evidence import Part
from warehouse_ml.models.keyed_terms import lookup
from warehouse_ml.models.learners.bayes import naive_bayes_terms
from warehouse_ml.models.learners.bayes.naive_bayes_state import NaiveBayesState
from warehouse_ml.models.learners.shared.classes import create_classes_table
from warehouse_ml.models.learners.shared.member_rows import member_rows
from warehouse_ml.models.learners.shared.parameters import keep_checked
from warehouse_ml.models.scoring.scores import Term
from warehouse_ml.models.state import held_edges
from warehouse_ml.models.training import ClassCount, Training
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, column
from warehouse_ml.stats import binning, counting, integer_rule
from warehouse_ml.stats.counting import CodeRanges
from warehouse_ml.stats.features import (
    CATEGORICAL,
    INTEGER_TYPES,
    NUMERIC,
    Feature,
    valued_source,
)
from warehouse_ml.stats.moments import numeric_moments
from warehouse_ml.stats.validation import CardinalityCheck
from warehouse_ml.store.catalog import ModelRecord
from warehouse_ml.store.ownership import Staging


def create_categorical_tables(
    warehouse: Warehouse,
    tables: tuple[TableName, TableName],
    counts: exp.Query,
    attributes: Sequence[str],
    classes_table: TableName,
    alpha: float,
    m: float,
    count_type: exp.DataType | None = None,
) -> None:
    """Write the ``categorical`` and ``unseen`` tables (``tables``, in that order) of the
    categorical ``attributes`` of the models in ``counts`` (wml_part, attribute, value,
    class_label, n: each model's training counts) and the class table (shared by Naive Bayes
    and TAN); counts of type ``count_type`` (counting.count_type; default rows). ``unseen``
    has a row for every attribute, class and model, an attribute without a counted value
    included (it contributes nothing: create_nb_unseen.sql)."""
    categorical_table, unseen_table = tables
    count_type = count_type or counting.count_type(None)
    warehouse.run(
        "create_nb_categorical",
        table=categorical_table,
        counts=counts,
        classes=classes_table,
        log_prob=categorical_log_prob(alpha, m),
        count_type=count_type,
    )
    warehouse.run(
        "create_nb_unseen",
        table=unseen_table,
        categorical=categorical_table,
        classes=classes_table,
        attributes=templates.values([(a,) for a in attributes], "a", ["attribute"]),
        log_prob=unseen_log_prob(alpha, m),
        count_type=count_type,
    )


def write_parameters(
    warehouse: Warehouse,
    model: NaiveBayes,
    counts: exp.Query | None,
    moments: exp.Query | None,
    models: Sequence[Sequence[ClassCount]],
    tables: Staging,
    count_type: exp.DataType | None = None,
    floor_moments: exp.Query | None = None,
    *,
    categorical: Sequence[str],
) -> None:
    """Naive Bayes parameter tables (``classes``, ``categorical``, ``unseen``, ``gaussian``)
    of the models ``models`` (each partition's class counts) from their training counts:
    ``counts`` as counting.categorical_counts outputs (wml_part, attribute, value,
    class_label, n) of the ``categorical`` attributes, ``moments`` as moments.numeric_moments
    (wml_part, attribute, class_label, n, mean, variance); None where the model has no such
    attribute. Counts are of type ``count_type`` (default rows). The variance floor is pooled
    from ``moments`` or, for a weighted fit, from ``floor_moments`` (the unweighted moments,
    as scikit-learn floors by the data's own variance). Leave-one-out (evaluation/loo.py)
    starts from these tables too."""
    roles = [
        "classes",
        *(("categorical", "unseen") if counts is not None else ()),
        *(("gaussian",) if moments is not None else ()),
    ]
    table = dict(zip(roles, tables.tables(roles), strict=True))  # registered in one statement
    classes_table = table["classes"]
    count_type = count_type or counting.count_type(None)
    create_classes_table(warehouse, classes_table, models, model.prior_alpha, count_type)
    if counts is not None:
        assert categorical, "categorical counts come with their attributes' names"
        create_categorical_tables(
            warehouse, (table["categorical"], table["unseen"]), counts, categorical,
            classes_table, model.alpha, model.m, count_type,
        )  # fmt: skip
    if moments is not None:
        warehouse.run(
            "create_nb_gaussian",
            table=table["gaussian"],
            moments=moments,
            floor_moments=exp.to_table("tagged") if floor_moments is None else floor_moments,
            classes=classes_table,
            var_smoothing=model.var_smoothing,
        )


def categorical_log_prob(alpha: float, m: float) -> exp.Expression:
    """The ``$log_prob`` of create_nb_categorical.sql:
    warehouse_ml/sql/models/learners/bayes/naive_bayes/smoothed_log_prob.sql over its rows (f.n,
    t.n_class, t.n_values), the formula leave-one-out scoring shares (loo.py)."""
    return templates.expression(
        "smoothed_log_prob",
        n=column("n", "f"),
        n_class=column("n_class", "t"),
        n_values=column("n_values", "t"),
        alpha=alpha,
        m=m,
    )


def unseen_log_prob(alpha: float, m: float) -> exp.Expression:
    """The ``$log_prob`` of create_nb_unseen.sql:
    warehouse_ml/sql/models/learners/bayes/naive_bayes/unseen_log_prob.sql over its rows (t.n_class,
    t.n_values), the formula leave-one-out scoring shares (loo.py)."""
    return templates.expression(
        "unseen_log_prob",
        n_class=column("n_class", "t"),
        n_values=column("n_values", "t"),
        alpha=alpha,
        m=m,
    )


class NaiveBayes(
    AdditiveScores,
    MembersAtOnce,
    CountUpdates,
    ExactLeaveOneOut,
    CountSummaries,
    FoldsAtOnce,
    Classifier,
):
    """Naive Bayes over categorical (counts) and numeric (Gaussian) attributes.

    Args:
        alpha: additive smoothing of P(value | class), >= 0; 0 is maximum likelihood.
        prior_alpha: additive smoothing of P(class), >= 0 (default 0: unsmoothed).
        m: m-estimate weight, >= 0, with uniform prior 1/|X| per attribute; adds to ``alpha``.
        var_smoothing: variance floor for numeric attributes, as a fraction of the largest
            overall variance among them (scikit-learn's default 1e-9).
        block_size: attributes grouped per scan when counting (see counting.py).
        categorical, numeric: columns to model as categorical / numeric whatever their type
            or number of distinct values says (stats/features.py, stats/integer_rule.py);
            ``fit``, ``cross_validate`` and ``select_model`` use them unless given their own.
        class_weight: None, ``"balanced"`` (class c weighs n / (K n_c)) or a mapping class ->
            weight (others 1): every row of a class counts as that weight, times its
            ``sample_weight`` (stats/weights.py).
    """

    kind = "naive_bayes"
    state_class = NaiveBayesState

    def __init__(
        self,
        *,
        alpha: float = 1.0,
        prior_alpha: float = 0.0,
        m: float = 0.0,
        var_smoothing: float = 1e-9,
        block_size: int = counting.DEFAULT_BLOCK_SIZE,
        categorical: Iterable[str] | None = None,
        numeric: Iterable[str] | None = None,
        class_weight: str | dict[Any, float] | None = None,
    ) -> None:
        super().__init__(categorical=categorical, numeric=numeric, class_weight=class_weight)
        keep_checked(
            self, NaiveBayes.kind, alpha=alpha, prior_alpha=prior_alpha, m=m,
            var_smoothing=var_smoothing, block_size=block_size,
        )  # fmt: skip

    def learns_folds_at_once(self, features: Sequence[Feature]) -> bool:
        """Every cross-validation fold is counted in the same scan, whatever the features."""
        return True

    def learns_members_at_once(self, features: Sequence[Feature]) -> bool:
        """Members of their own row weights are counted in the same scan, whatever the
        features."""
        return True

    def _learn_tables(
        self, warehouse: Warehouse, training: Training, tables: Staging, check: CardinalityCheck
    ) -> NaiveBayesState:
        """Every model from ONE count scan of the source grouped by model (cross-validation:
        by fold; a fold's training counts are the sums over the other folds, and its Gaussian
        moments the exact pooled moments of the other folds; members of their own row
        weights: by member, over the rows once per member, learners/shared/member_rows.py), so a
        handful of statements learn all of them. A wide model counts its attributes chunk by
        chunk into a staging table (counting.MAX_COUNTED_ATTRIBUTES). The histograms' edges
        are the source's rows' whatever the members."""
        edges_from = training.source
        training = member_rows(training)
        features = training.features
        categorical = [f.name for f in features if f.kind == CATEGORICAL]
        numeric = [f.name for f in features if f.kind == NUMERIC]
        counts = moments = None
        floor = None
        codes = _code_ranges(warehouse, training)
        if categorical:
            counts = training.model_counts(
                warehouse, tables, "part_counts", self._counts(warehouse, training, tables, codes),
                "select_counts_outside_partitions",
            )  # fmt: skip
        if numeric:
            relation = training.source.relation
            per_part = numeric_moments(
                relation, training.target, numeric, training.partition, training.weight
            )
            moments = training.model_counts(
                warehouse, tables, "part_moments", per_part, "select_moments_outside_partitions"
            )
            if training.weight is not None:
                floor = training.model_counts(
                    warehouse, tables, "part_floor_moments",
                    numeric_moments(relation, training.target, numeric, training.partition),
                    "select_moments_outside_partitions",
                )  # fmt: skip
        write_parameters(
            warehouse, self, counts, moments, training.classes, tables, training.count_type, floor,
            categorical=categorical,
        )  # fmt: skip
        if codes:
            integer_rule.check_code_ranges(warehouse, training.source, codes)
        histogram = None
        if numeric and (training.stored is None or "histogram" in training.stored.record.parts):
            histogram = _histogram(warehouse, training, tables, numeric, edges_from)
        staged = [
            r
            for r in (
                "counts",
                "part_counts",
                "part_moments",
                "part_floor_moments",
                "part_histogram",
            )
            if r in tables.roles
        ]
        if "categorical" in tables.roles:
            check.of_counts(warehouse, tables.named("categorical"))
        tables.discard(staged)
        blocks = lookup.learn(warehouse, tables, features, len(training.classes[0]))["lookup"]
        return NaiveBayesState(histogram_bins=held_edges(histogram), lookup=tuple(blocks))

    def _counts(
        self, warehouse: Warehouse, training: Training, tables: Staging, codes: CodeRanges
    ) -> exp.Query | TableName:
        """The categorical counts of the source per model partition: one query, or a staging
        table ``counts`` filled chunk by chunk for a wide model; ``codes``: the integer codes'
        ranges (:func:`_code_ranges`)."""
        categorical = [f.name for f in training.features if f.kind == CATEGORICAL]
        counted = valued_source(training.source.relation, training.carried, training.features)
        chunks = [
            counting.categorical_counts(
                counted,
                training.target,
                chunk,
                self.block_size,
                training.partition,
                training.weight,
                codes=codes,
            )
            for chunk in counting.blocks(categorical, counting.MAX_COUNTED_ATTRIBUTES)
        ]
        if len(chunks) == 1:
            return chunks[0]
        staged = tables.table("counts")
        warehouse.run_tree(templates.create_table_as(staged, chunks[0]))
        for chunk in chunks[1:]:
            warehouse.run("insert_rows", table=staged, rows=chunk)
        return staged

    def _write_count_parameters(
        self,
        warehouse: Warehouse,
        counts: exp.Query | None,
        moments: exp.Query | None,
        classes: Sequence[ClassCount],
        tables: Staging,
        *,
        categorical: Sequence[str],
    ) -> None:
        """One model's parameter tables from its counts (:func:`write_parameters`)."""
        write_parameters(
            warehouse, self, counts, moments, [classes], tables, categorical=categorical
        )

    def _terms(self, warehouse: Warehouse, record: ModelRecord, source: Source) -> list[Term]:
        """The prior and each attribute's term (naive_bayes_terms.model_terms)."""
        return naive_bayes_terms.model_terms(warehouse, record, source)

    def _parts(self, warehouse: Warehouse, record: ModelRecord, source: Source) -> list[Part]:
        """One term per attribute (naive_bayes_terms.model_parts)."""
        return naive_bayes_terms.model_parts(warehouse, record, source)


def _code_ranges(warehouse: Warehouse, training: Training) -> CodeRanges:
    """The ranges of the integer-typed target and categorical attributes in the source
    (integer_rule.code_ranges), by which counting packs each block of them into one key; none
    when fewer than two columns could be packed together."""
    names = [
        f.name
        for f in training.features
        if f.kind == CATEGORICAL and f.sql_type.startswith(INTEGER_TYPES)
    ]
    if not names:
        return {}
    if pa.types.is_integer(training.source.field(training.target).type):
        names.insert(0, training.target)
    if len(names) < 2:
        return {}
    ranges = integer_rule.code_ranges(warehouse, training.source, names)
    return ranges if len(ranges) > 1 else {}


def _histogram(
    warehouse: Warehouse,
    training: Training,
    tables: Staging,
    numeric: Sequence[str],
    edges_from: Source,
) -> dict[str, list[float]]:
    """The ``histogram_bins`` and ``histogram`` tables of the ``numeric`` attributes (module
    docstring): edges learned over the rows of ``edges_from``, the training's source as
    given (an update keeps its model's), counts
    per model as the categorical counts are (summed over the other folds for
    cross-validation, added to the stored ones for an update). Returns the edges."""
    if training.stored is not None:
        stored = training.stored.record.state.learned.histogram_edges()
        edges = {a: list(stored[a]) for a in numeric}
        binning.store_edges(warehouse, tables.table("histogram_bins"), edges)
    else:
        edges = binning.learn_edges(
            warehouse, edges_from.relation, training.target, numeric, binning.DEFAULT_BINS,
            tables.table("histogram_bins"), edges_from.description,
        )  # fmt: skip
    counts = training.model_counts(
        warehouse, tables, "part_histogram",
        binning.histogram_counts(
            training.source.relation, training.target, edges, training.partition,
            training.weight,
        ),
        "select_counts_outside_partitions",
    )  # fmt: skip
    warehouse.run(
        "create_nb_histogram", table=tables.table("histogram"), counts=counts,
        classes=tables.named("classes"), count_type=training.count_type,
    )  # fmt: skip
    return edges
