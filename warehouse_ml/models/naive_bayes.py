"""Naive Bayes learned as GROUP BY counts and scored by a plain-SQL query.

Parameter tables of a model (``wml.<model_id>_<part>``):

* ``classes``: class_index, class_label, n, log_prior;
* ``categorical``: attribute, value, class_index, n, log_prob (one row per seen value and class);
* ``unseen``: attribute, class_index, n_class, n_values, log_prob of a value never seen;
* ``gaussian``: attribute, class_index, n, mean, variance (numeric attributes);
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

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import ParameterError
from warehouse_ml.models import lookup
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.literal_terms import MAX_JOINED_ATTRIBUTES, literal_terms
from warehouse_ml.models.scoring import Join, Term, partition_condition, pivot_one_row, pivot_rows
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, column
from warehouse_ml.stats import counting
from warehouse_ml.stats.counting import PARTITION
from warehouse_ml.stats.features import (
    CATEGORICAL,
    NUMERIC,
    Feature,
    value_expression,
    valued_source,
)
from warehouse_ml.stats.moments import numeric_moments
from warehouse_ml.stats.validation import CardinalityCheck, non_negative
from warehouse_ml.store.catalog import ModelRecord
from warehouse_ml.store.ownership import Staging


def create_classes_table(
    warehouse: Warehouse,
    table: TableName,
    models: Sequence[list[dict[str, Any]]],
    prior_alpha: float,
    partitioned: bool = False,
) -> None:
    """Write a class table (class_index, class_label, n, log_prior) from each model's class
    counts, P(c) smoothed by ``prior_alpha`` (shared by Naive Bayes and TAN): ``models`` holds
    one class list, or with ``partitioned`` one per partition (e.g. cross-validation fold),
    the table then carrying a leading wml_part column."""
    rows = [
        (*([part] if partitioned else []), c["class_index"], c["class_label"], c["n"], total)
        for part, model in enumerate(models)
        for total in [sum(c["n"] for c in model)]
        for c in model
    ]
    columns = ("class_index", "class_label", "n", "n_total")
    warehouse.run(
        "create_nb_classes",
        table=table,
        class_rows=templates.values(rows, "r", (PARTITION, *columns) if partitioned else columns),
        partition_columns=counting.partition_columns(partitioned, "r"),
        prior_alpha=prior_alpha,
        n_classes=len(models[0]),
    )


def create_categorical_tables(
    warehouse: Warehouse,
    tables: tuple[TableName, TableName],
    counts: exp.Query,
    classes_table: TableName,
    alpha: float,
    m: float,
    partitioned: bool = False,
) -> None:
    """Write the ``categorical`` and ``unseen`` tables (``tables``, in that order) of a model,
    or of one model per partition, from categorical counts (attribute, value, class_label, n
    [, wml_part]) and the class table (shared by Naive Bayes and TAN)."""
    categorical_table, unseen_table = tables
    warehouse.run(
        "create_nb_categorical",
        table=categorical_table,
        counts=counts,
        counts_part=counting.partition_or_zero(partitioned, "k"),
        classes=classes_table,
        classes_part=counting.partition_or_zero(partitioned, "c"),
        partition_columns=counting.partition_columns(partitioned, "f"),
        log_prob=categorical_log_prob(alpha, m),
    )
    warehouse.run(
        "create_nb_unseen",
        table=unseen_table,
        categorical=categorical_table,
        categorical_part=counting.partition_or_zero(partitioned, "k"),
        partition_columns=counting.partition_columns(partitioned, "t"),
        log_prob=unseen_log_prob(alpha, m),
    )


def outside_partitions(table: TableName, template: str, partitions: range) -> exp.Query:
    """Training counts, pair counts or moments of cross-validation folds from per-fold ones
    (``template``: select_counts_outside_partitions, select_pair_counts_outside_partitions or
    select_moments_outside_partitions), for each held-out partition in ``partitions`` (output
    column wml_part)."""
    held_out = templates.values([(p,) for p in partitions], "p", (PARTITION,))
    return templates.build(template, per_partition=table, partitions=held_out)


def categorical_log_prob(alpha: float, m: float) -> exp.Expression:
    """The ``$log_prob`` of create_nb_categorical.sql: sql/smoothed_log_prob.sql over its rows
    (f.n, t.n_class, t.n_values), the formula leave-one-out scoring shares (loo.py)."""
    return templates.expression(
        "smoothed_log_prob",
        n=column("n", "f"),
        n_class=column("n_class", "t"),
        n_values=column("n_values", "t"),
        alpha=alpha,
        m=m,
    )


def unseen_log_prob(alpha: float, m: float) -> exp.Expression:
    """The ``$log_prob`` of create_nb_unseen.sql: sql/unseen_log_prob.sql over its rows
    (t.n_class, t.n_values), the formula leave-one-out scoring shares (loo.py)."""
    return templates.expression(
        "unseen_log_prob",
        n_class=column("n_class", "t"),
        n_values=column("n_values", "t"),
        alpha=alpha,
        m=m,
    )


class NaiveBayes(Classifier):
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
    """

    kind = "naive_bayes"

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
    ) -> None:
        super().__init__(categorical=categorical, numeric=numeric)
        self.alpha = non_negative("alpha", alpha)
        self.prior_alpha = non_negative("prior_alpha", prior_alpha)
        self.m = non_negative("m", m)
        self.var_smoothing = non_negative("var_smoothing", var_smoothing)
        if not isinstance(block_size, int) or block_size < 1:
            raise ParameterError(f"block_size must be an integer >= 1, got {block_size!r}")
        self.block_size = block_size

    def exact_leave_one_out(self) -> bool:
        """Naive Bayes leave-one-out is exact from the full counts (evaluation/loo.py)."""
        return True

    def _learn(
        self,
        warehouse: Warehouse,
        source: Source,
        target: str,
        features: list[Feature],
        classes: list[dict[str, Any]],
        tables: Staging,
        check: CardinalityCheck,
    ) -> dict[str, Any]:
        """The counts are the heavy statement: ``check`` is left to validation.check_learned."""
        categorical = [f.name for f in features if f.kind == CATEGORICAL]
        numeric = [f.name for f in features if f.kind == NUMERIC]
        counted = valued_source(source.relation, [target], features)
        chunks = [
            counting.categorical_counts(counted, target, chunk, self.block_size)
            for chunk in counting.blocks(categorical, counting.MAX_COUNTED_ATTRIBUTES)
        ]
        counts = chunks[0] if len(chunks) == 1 else None
        staged = tables.table("counts") if len(chunks) > 1 else None
        if staged is not None:  # a wide model: count chunk by chunk into a staging table
            warehouse.run_tree(templates.create_table_as(staged, chunks[0]))
            for chunk in chunks[1:]:
                warehouse.run("insert_rows", table=staged, rows=chunk)
            counts = exp.select(exp.Star()).from_(staged.to_table())
        moments = numeric_moments(source.relation, target, numeric) if numeric else None
        self._learn_from_counts(warehouse, counts, moments, [classes], tables)
        if staged is not None:
            tables.drop(["counts"])
        return lookup.learn(warehouse, tables, features, len(classes))

    def _learn_from_counts(
        self,
        warehouse: Warehouse,
        counts: exp.Query | None,
        moments: exp.Query | None,
        models: Sequence[list[dict[str, Any]]],
        tables: Staging,
        partitioned: bool = False,
    ) -> None:
        """Parameter tables from count relations: ``counts`` as categorical_counts outputs
        (attribute, value, class_label, n), ``moments`` as numeric_moments (attribute,
        class_label, n, mean, variance); None where the model has no such attribute.
        ``models`` holds the model's class counts, or with ``partitioned`` one model's per
        partition: both relations then carry wml_part, and so do the tables written."""
        table = tables.table
        classes_table = table("classes")
        create_classes_table(warehouse, classes_table, models, self.prior_alpha, partitioned)
        if counts is not None:
            create_categorical_tables(
                warehouse, (table("categorical"), table("unseen")), counts, classes_table,
                self.alpha, self.m, partitioned,
            )  # fmt: skip
        if moments is not None:
            warehouse.run(
                "create_nb_gaussian",
                table=table("gaussian"),
                moments=moments,
                moments_part=counting.partition_or_zero(partitioned, "m"),
                classes=classes_table,
                classes_part=counting.partition_or_zero(partitioned, "c"),
                partition_columns=counting.partition_columns(partitioned, "m"),
                var_smoothing=self.var_smoothing,
            )

    def _partitioned_scoring(self, features: Sequence[Feature]) -> bool:
        """Every kind of attribute scores with one model per partition."""
        return True

    def _learn_partitioned(
        self,
        warehouse: Warehouse,
        split: Source,
        target: str,
        features: list[Feature],
        fold: str,
        fold_classes: list[list[dict[str, Any]]],
        tables: Staging,
        check: CardinalityCheck,
    ) -> dict[str, Any]:
        """Every fold's model at once, from ONE count scan of the split grouped by fold: fold
        f's training counts are the sums over the other folds (total minus fold f) and its
        Gaussian moments the exact pooled moments of the other folds; each parameter table
        holds all folds (column wml_part = f), so a handful of statements learn all of them.
        The high-cardinality ``check`` is made on the per-fold counts, before the parameters."""
        categorical = [f.name for f in features if f.kind == CATEGORICAL]
        numeric = [f.name for f in features if f.kind == NUMERIC]
        folds = range(len(fold_classes))
        counts = moments = None
        if categorical:
            per_fold = tables.table("fold_counts")
            counted = valued_source(split.relation, [target, fold], features)
            warehouse.run_tree(
                templates.create_table_as(
                    per_fold,
                    counting.categorical_counts(
                        counted, target, categorical, self.block_size, partition=fold
                    ),
                )
            )
            check.of_counts(warehouse, per_fold)
            counts = outside_partitions(per_fold, "select_counts_outside_partitions", folds)
        if numeric:
            per_fold = tables.table("fold_moments")
            warehouse.run_tree(
                templates.create_table_as(
                    per_fold, numeric_moments(split.relation, target, numeric, partition=fold)
                )
            )
            moments = outside_partitions(per_fold, "select_moments_outside_partitions", folds)
        self._learn_from_counts(warehouse, counts, moments, fold_classes, tables, partitioned=True)
        return lookup.learn(warehouse, tables, features, len(fold_classes[0]), partitioned=True)

    def _terms(self, warehouse: Warehouse, record: ModelRecord, source: Source) -> list[Term]:
        k = len(record.classes)
        terms = [prior_term(record, k)]
        if len(record.features) > MAX_JOINED_ATTRIBUTES and _partition(record) is None:
            return [*terms, *literal_terms(warehouse, record, k)]
        block_of = {a[0]: b for b in lookup.blocks_of(record) for a in b["attributes"]}
        for i, name in enumerate(record.features):
            kind = record.feature_types[name]["kind"]
            block = block_of.get(name)
            if block is not None:  # looked up with the block, at its first attribute
                if block["attributes"][0][0] == name:
                    terms.append(
                        lookup.lookup_term(record, block, f"wml_a{i}", k, _partition(record))
                    )
            elif kind == CATEGORICAL:
                terms.append(categorical_term(record, name, f"wml_a{i}", k))
            else:
                terms.append(gaussian_term(record, name, f"wml_g{i}", k))
        return terms


def _partition(record: ModelRecord) -> str | None:
    """The scored rows' column naming the model partition (cross-validation fold), if the
    record's tables hold one model per partition."""
    return record.details.get("partition_column")


def _one_row_join(query: exp.Query, name: str, partition: str | None) -> Join:
    """A one-row pivot: CROSS JOIN, or per partition a LEFT JOIN on the row's partition."""
    return Join(query, name, on=None if partition is None else partition_condition(name, partition))


def prior_term(record: ModelRecord, k: int) -> Term:
    """log P(c), read from the model's classes table."""
    partition = _partition(record)
    query = pivot_one_row(
        record.table("classes"), "log_prior", k, "lp", partitioned=partition is not None
    )
    return Term(
        [column(f"lp_{c}", "wml_prior") for c in range(k)],
        [_one_row_join(query, "wml_prior", partition)],
    )


def categorical_term(
    record: ModelRecord, attribute: str, name: str, k: int, value: exp.Expression | None = None
) -> Term:
    """log P(attribute value | c): seen values by join, unseen values from the unseen table.

    ``value`` is the attribute's value in the scored row: by default the source column
    ``s.<attribute>`` as counted (features.value_expression); TAN passes its value, a bin
    expression for a discretised numeric attribute.
    """
    partition = _partition(record)
    partitioned = partition is not None
    fitted_type = record.feature_types.get(attribute, {}).get("sql_type", "")
    feature = Feature(attribute, CATEGORICAL, fitted_type)
    raw = value_expression(feature, column(attribute, "s")) if value is None else value
    if value is None and lookup.integer_coded(fitted_type):
        # integer codes: the (few) stored values are cast back, not every scored row to text
        stored = templates.expression("cast_to_bigint", value=column("value", name))
        condition = templates.expression("equals", left=stored, right=raw)
    else:
        text = templates.expression("cast_to_text", value=raw)
        condition = templates.expression("equals", left=column("value", name), right=text)
    if partitioned:
        condition = exp.and_(condition, partition_condition(name, partition))
    seen = Join(
        pivot_rows(
            record.table("categorical"), "value", "log_prob", k, "lp", attribute, partitioned
        ),
        name,
        on=condition,
    )
    unseen_name = f"{name}_unseen"
    unseen = _one_row_join(
        pivot_one_row(record.table("unseen"), "log_prob", k, "lp", attribute, partitioned),
        unseen_name,
        partition,
    )
    per_class = [
        templates.expression(
            "term_categorical",
            value=raw,
            seen=column("value", name),
            unseen=column(f"lp_{c}", unseen_name),
            known=column(f"lp_{c}", name),
        )
        for c in range(k)
    ]
    return Term(per_class, [seen, unseen])


def gaussian_term(record: ModelRecord, attribute: str, name: str, k: int) -> Term:
    """log N(x; mean_c, variance_c) of a numeric attribute."""
    partition = _partition(record)
    table = record.table("gaussian")
    joins = [
        _one_row_join(
            pivot_one_row(table, column_name, k, prefix, attribute, partition is not None),
            f"{name}_{prefix}",
            partition,
        )
        for column_name, prefix in (("mean", "mean"), ("variance", "var"))
    ]
    value = templates.expression("cast_to_double", value=column(attribute, "s"))
    per_class = [
        templates.expression(
            "term_gaussian",
            value=value,
            mean=column(f"mean_{c}", f"{name}_mean"),
            variance=column(f"var_{c}", f"{name}_var"),
        )
        for c in range(k)
    ]
    return Term(per_class, joins)
