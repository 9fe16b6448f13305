"""Tree-Augmented Naive Bayes (TAN) and Chow-Liu trees, learned inside the warehouse.

Learning a TAN (Friedman, Geiger & Goldszmidt 1997):

1. class counts -> ``classes`` (log prior, smoothed by ``prior_alpha``);
2. numeric attributes -> equal-frequency ``bins`` (edges learned in SQL, see binning.py);
3. per-attribute counts -> ``categorical`` and ``unseen``: P(Ai | C), the Naive Bayes tables
   (smoothed by ``alpha``), used for the root and as the fallback below; their distinct values
   are checked for high cardinality here (validation.py), before any pair is counted;
4. pair counts -> ``pair_counts`` (one statement, blocks covering every pair; see pairs.py);
5. CMI(Ai; Aj | C) and MI(Ai; Aj) in bits -> ``information`` (SQL over the pair counts);
6. maximum-weight spanning tree over CMI, directed away from the root (Python, see
   spanning_tree.py);
7. P(Ai | C, parent(Ai)) -> ``cpt_parent`` and ``cpt``, from the stored pair counts (no scan
   of the source), sparse: only (value, parent value) pairs counted in training are stored.

Parameter tables of a model (``wml.<model_id>_<part>``), each led by the model partition
``wml_part`` as in naive_bayes.py:

* ``classes``, ``categorical``, ``unseen``: as for Naive Bayes (naive_bayes.py), with numeric
  attributes replaced by their bin index (text '0', '1', ...);
* ``bins``: attribute, bin_index, upper (numeric attributes only);
* ``pair_counts``: attribute_i, attribute_j, value_i, value_j, class_index, n (attribute_i
  before attribute_j in feature order; rows where either is NULL are not counted);
* ``information``: attribute_i, attribute_j, n, cmi, mi (bits);
* ``cpt_parent``: attribute, parent, parent_value, class_index, n_parent, n_values, log_prob:
  one row per class and parent value counted with a non-NULL value of the attribute; n_parent =
  N(pa, c), n_values = |X|, and log_prob is log P(x | c, pa) of a training value x never counted
  with that parent value (n = 0, below);
* ``cpt``: attribute, parent, value, parent_value, class_index, n, n_parent, n_values,
  log_prob: one row per class and (value, parent value) pair counted in training (in any
  class), so its size follows the counted pairs, not |X| times the parent values;
* ``lookup``: code, lp_0 .. lp_{K-1}: the terms of the integer-coded attributes with contiguous
  values (whose parents are such attributes too, and whose (value, parent value) codes stay
  within lookup.MAX_TAN_CODES), one row per (value | unseen | NULL, parent value | other) code
  (lookup.py); the layout is stored in the catalog details (``lookup``);
* ``resolved``: attribute, parent_seen, parent_value, value, lp_0 .. lp_{K-1}: a fitted model's
  text attributes' terms per (parent key, seen value), their fallbacks resolved, which a view
  reads by one join per attribute (models/keyed_terms/resolved.py); the attributes it holds are in
  the catalog details (``resolved``).

Smoothing (Weka ``SimpleEstimator -A alpha``): P(x | c, pa) = (N(x,pa,c) + alpha) /
(N(pa,c) + alpha*|X|), P(x | c) = (N(x,c) + alpha) / (N(c) + alpha*|X|) for the root,
P(c) = (N(c) + prior_alpha) / (N + prior_alpha*K). ``alpha = prior_alpha = 0`` is maximum
likelihood. Weka's defaults are ``alpha = prior_alpha = 0.5``. A (parent value, class) with
N(pa,c) + alpha*|X| = 0 gives the uniform 1/|X|; a zero probability is stored as log_prob NULL
(impossible).

Scoring: log P(c) + sum_i log P(a_i | c, a_parent(i)) (tan_terms.tan_logical). A NULL attribute
value contributes nothing. A counted pair (value, parent value) takes its ``cpt`` row; a value
seen in training (a ``categorical`` row) with a parent value that has a ``cpt_parent`` row takes
that row (its zero-count probability), exactly what a dense table over every seen value and
parent value would hold. When the parent's value is NULL, or the value or the parent value was
not seen with the attribute in training, the attribute falls back to its class-only term
P(a_i | c), which treats a value unseen in training exactly as Naive Bayes does (its smoothed
zero-count probability, or nothing when alpha = 0).

Cross-validation (:meth:`TAN.learn_tables` with a held-out fold column, models/training.py):
with categorical attributes only, the split is counted once per fold (categorical counts and
pair counts, grouped by fold, staged as ``part_counts`` and ``part_pair_counts``); each fold's
training counts and pair counts are the sums over the other folds, and steps 3-7 run on them
for every fold in the same statements (each table with column wml_part = fold; a fitted model's
tables have wml_part = 0), so each fold gets its own CMI, tree and CPTs,
identical to a fit on that fold's training rows, and ONE query scores every row with its own
fold's tree: the parent's value (or, in the lookup table, its code) is chosen per row by a
CASE over the fold (:meth:`TAN._terms`). Numeric attributes make it fit and score fold by
fold: their bin edges are quantiles of each fold's training rows.

Structure: ``root=None`` roots the tree at the first feature; ties in CMI are broken by
attribute order (spanning_tree.py). CMI values are rounded to 12 decimal places before the tree
step, so last-bit differences of parallel floating-point sums cannot change the tree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from sqlglot import exp

from warehouse_ml import charts
from warehouse_ml.engines import Connectable
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import ColumnError
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.capabilities import (
    AdditiveScores,
    CountSummaries,
    CountUpdates,
    FoldsAtOnce,
    MembersAtOnce,
)
from warehouse_ml.models.inspection.evidence import Part
from warehouse_ml.models.inspection.render import render_tree
from warehouse_ml.models.inspection.sections import ModelSection, PicturePart, TextPart
from warehouse_ml.models.keyed_terms import lookup, resolved
from warehouse_ml.models.learners.bayes import tan_terms
from warehouse_ml.models.learners.bayes.chow_liu import parents_from_weights
from warehouse_ml.models.learners.bayes.naive_bayes import create_categorical_tables
from warehouse_ml.models.learners.bayes.tan_state import TANState
from warehouse_ml.models.learners.shared.classes import create_classes_table
from warehouse_ml.models.learners.shared.member_rows import member_rows
from warehouse_ml.models.learners.shared.parameters import keep_checked
from warehouse_ml.models.scoring.scores import Term
from warehouse_ml.models.state import held_edges
from warehouse_ml.models.training import Training
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import column, literal
from warehouse_ml.stats import binning, counting, pairs
from warehouse_ml.stats.counting import PARTITION
from warehouse_ml.stats.features import NUMERIC, Feature
from warehouse_ml.stats.validation import CardinalityCheck
from warehouse_ml.store.catalog import ModelRecord
from warehouse_ml.store.ownership import Staging


class TAN(AdditiveScores, MembersAtOnce, CountUpdates, CountSummaries, FoldsAtOnce, Classifier):
    """Tree-Augmented Naive Bayes: each attribute depends on the class and on at most one other
    attribute, the tree maximising the conditional mutual information given the class.

    Args:
        alpha: additive smoothing of P(value | class, parent value) and P(value | class), >= 0
            (Weka SimpleEstimator; 0 is maximum likelihood). Default 0.5 as in Weka.
        prior_alpha: additive smoothing of P(class), >= 0. Default 0.5 as in Weka.
        root: the attribute at the root of the tree (no attribute parent); None = the first
            feature.
        bins: number of equal-frequency bins for numeric attributes (>= 1).
        categorical, numeric: columns to model as categorical / numeric whatever their type
            or number of distinct values says (stats/features.py, stats/integer_rule.py);
            ``fit``, ``cross_validate`` and ``select_model`` use them unless given their own.
        class_weight: None, ``"balanced"`` (class c weighs n / (K n_c)) or a mapping class ->
            weight (others 1): every row of a class counts as that weight, times its
            ``sample_weight`` (stats/weights.py).
    """

    kind = "tan"
    state_class = TANState

    def __init__(
        self,
        *,
        alpha: float = 0.5,
        prior_alpha: float = 0.5,
        root: str | None = None,
        bins: int = binning.DEFAULT_BINS,
        categorical: Iterable[str] | None = None,
        numeric: Iterable[str] | None = None,
        class_weight: str | dict[Any, float] | None = None,
    ) -> None:
        super().__init__(categorical=categorical, numeric=numeric, class_weight=class_weight)
        keep_checked(self, TAN.kind, alpha=alpha, prior_alpha=prior_alpha, root=root, bins=bins)

    # -- learning -------------------------------------------------------------------------
    def learns_folds_at_once(self, features: Sequence[Feature]) -> bool:
        """Categorical models learn and score every cross-validation fold at once, each row
        with its own fold's tree; numeric bin edges are quantiles of each fold's training rows,
        so those models are learned fold by fold."""
        return not any(f.kind == NUMERIC for f in features)

    def learns_members_at_once(self, features: Sequence[Feature]) -> bool:
        """Members of their own row weights are counted in the same scans whatever the
        features: numeric bin edges are the source's rows', as a weighted fit's."""
        return True

    def _learn_tables(
        self, warehouse: Warehouse, training: Training, tables: Staging, check: CardinalityCheck
    ) -> TANState:
        """Steps 1-7 of the module docstring for every model of ``training`` in the same
        statements: ONE categorical count scan and ONE pair count scan of the source, each
        grouped by model (cross-validation: fold f's training counts and pair counts are the
        sums over the other folds, staged per fold as ``part_counts`` and
        ``part_pair_counts``), so each model gets its own CMI, tree and CPTs, identical to a
        fit on its training rows. A value or pair cell seen only in fold f has no count in the
        other folds, so it is absent from fold f's training counts, as in a fit on the other
        folds' rows; a class absent from the training folds keeps its zero-count row. The
        high-cardinality ``check`` is made on the ``categorical`` table (the values of every
        model), before any pair is counted. Members of their own row weights are counted over
        the rows once per member, grouped by member (learners/shared/member_rows.py), on the
        bins of the source's rows."""
        edges_from = training.source
        training = member_rows(training)
        names = self._checked_names(training.features)
        classes_table, categorical_table, unseen_table = tables.tables(
            ["classes", "categorical", "unseen"]
        )  # registered in one statement
        create_classes_table(
            warehouse, classes_table, training.classes, self.prior_alpha, training.count_type
        )
        edges = self._bins(warehouse, training, tables, edges_from)
        relation = binning.discretised_source(
            training.source.relation, training.carried, training.features, edges
        )
        counts = training.model_counts(
            warehouse, tables, "part_counts",
            counting.categorical_counts(
                relation, training.target, names, partition=training.partition,
                weight=training.weight,
            ),
            "select_counts_outside_partitions",
        )  # fmt: skip
        create_categorical_tables(
            warehouse, (categorical_table, unseen_table), counts, names, classes_table,
            self.alpha, 0.0, training.count_type,
        )  # fmt: skip
        n_values = check.of_counts(warehouse, categorical_table)  # before any pair is counted
        trees: list[dict[str, str | None]] = [dict.fromkeys(names) for _ in training.classes]
        information: list[list[list[Any]]] = [[] for _ in trees]
        blocks: list[list[int]] = []
        if len(names) >= 2:
            blocks = pairs.plan_pair_blocks(  # a block's joint table holds every model's
                [n_values.get(n, 0) for n in names],
                n_classes=len(training.classes[0]) * training.n_models,
            )
            pair_counts = training.model_counts(
                warehouse, tables, "part_pair_counts",
                pairs.pair_counts_query(
                    relation, training.target, names, blocks, training.partition, training.weight
                ),
                "select_pair_counts_outside_partitions",
            )  # fmt: skip
            information = self._trees(
                warehouse, tables, names, pair_counts, trees, training.count_type
            )
            self._conditional_tables(warehouse, tables, trees, training.count_type)
        tables.discard([r for r in ("part_counts", "part_pair_counts") if r in tables.roles])
        learned = TANState(bins=held_edges(edges), pair_blocks=tuple(tuple(b) for b in blocks))
        if training.partition is None:  # one model
            learned = dataclasses.replace(
                learned,
                root=next(n for n in names if trees[0][n] is None),
                parents=trees[0],
                information=tuple(tuple(r) for r in information[0]),
            )
        else:
            learned = dataclasses.replace(learned, partition_parents=tuple(trees))
        if "cpt" in tables.roles:
            placed = lookup.learn_tan(
                warehouse, tables, training.features, len(training.classes[0]), trees
            )["lookup"]
            learned = dataclasses.replace(learned, lookup={a: tuple(p) for a, p in placed.items()})
            if training.partition is None:
                chains = resolved.learn(
                    warehouse, tables, n_values, trees[0], placed, len(training.classes[0])
                )
                learned = dataclasses.replace(learned, resolved=chains)
        return learned

    def _checked_names(self, features: Sequence[Feature]) -> list[str]:
        """The feature names, after checking that the chosen root is one of them."""
        names = [f.name for f in features]
        if self.root is not None and self.root not in names:
            raise ColumnError(f"root {self.root!r} is not one of the features {names}")
        return names

    def _bins(
        self, warehouse: Warehouse, training: Training, tables: Staging, edges_from: Source
    ) -> dict[str, list[float]]:
        """Step 2: the numeric attributes' bin edges (table ``bins``) of the rows of
        ``edges_from``, the training's source as given, for one model or members of their own
        weights (learns_folds_at_once says cross-validation learns numeric models fold by
        fold); an update keeps its model's bins."""
        numeric = [f.name for f in training.features if f.kind == NUMERIC]
        if not numeric:
            return {}
        assert training.fold_column is None, "numeric TAN attributes are learned fold by fold"
        if training.stored is not None:
            stored = training.stored.record.state.learned.binned_edges()
            edges = {a: list(stored[a]) for a in numeric}
            binning.store_edges(warehouse, tables.table("bins"), edges)
            return edges
        return binning.learn_edges(
            warehouse, edges_from.relation, training.target, numeric, self.bins,
            tables.table("bins"), edges_from.description,
        )  # fmt: skip

    def _trees(
        self,
        warehouse: Warehouse,
        tables: Staging,
        names: list[str],
        pair_counts: exp.Query,
        trees: list[dict[str, str | None]],
        count_type: exp.DataType,
    ) -> list[list[list[Any]]]:
        """Steps 4-6: the ``pair_counts`` and ``information`` tables, and each model's tree
        (set in ``trees``). Returns each model's information rows (attribute_i, attribute_j,
        cmi, mi; bits) in feature order."""
        pair_table, information_table = tables.tables(["pair_counts", "information"])
        warehouse.run(
            "create_pair_counts", table=pair_table, counts=pair_counts,
            classes=tables.named("classes"), count_type=count_type,
        )  # fmt: skip
        warehouse.run_tree(
            templates.create_table_as(
                information_table, pairs.information_query(pair_table, count_type)
            )
        )
        found = warehouse.fetch(
            "select_table",
            table=information_table,
            order_columns=[column("attribute_i", "t"), column("attribute_j", "t")],
        ).to_pylist()
        order = {n: i for i, n in enumerate(names)}
        information = []
        for part in range(len(trees)):
            rows = [r for r in found if r[PARTITION] == part]
            information.append(
                sorted(
                    ([r["attribute_i"], r["attribute_j"], r["cmi"], r["mi"]] for r in rows),
                    key=lambda r: (order[r[0]], order[r[1]]),
                )
            )
            weights = pairs.information_matrix(rows, names, "cmi")
            trees[part] = parents_from_weights(names, weights, self.root)
        return information

    def _conditional_tables(
        self,
        warehouse: Warehouse,
        tables: Staging,
        trees: list[dict[str, str | None]],
        count_type: exp.DataType,
    ) -> None:
        """Step 7: ``cpt_parent`` and ``cpt`` of each model's tree edges, from its stored pair
        counts."""
        edges = [
            (part, a, p)
            for part, parents in enumerate(trees)
            for a, p in parents.items()
            if p is not None
        ]
        edge_counts = templates.build(
            "select_tan_edge_counts",
            pair_counts=tables.named("pair_counts"),
            edges=templates.values(edges, "e", (PARTITION, "attribute", "parent")),
        )
        cpt_parent, cpt = tables.tables(["cpt_parent", "cpt"])
        warehouse.run(
            "create_tan_cpt_parent",
            table=cpt_parent,
            edge_counts=edge_counts.copy(),
            categorical=tables.named("categorical"),
            classes=tables.named("classes"),
            log_prob=self._log_prob(literal(0)),
            count_type=count_type,
        )
        warehouse.run(
            "create_tan_cpt",
            table=cpt,
            edge_counts=edge_counts,
            cpt_parent=cpt_parent,
            log_prob=self._log_prob(column("n", "f")),
            count_type=count_type,
        )

    def _log_prob(self, n: exp.Expression) -> exp.Expression:
        """warehouse_ml/sql/models/learners/bayes/tan/tan_log_prob.sql with count ``n``, over a row
        ``f`` holding n_parent and n_values (create_tan_cpt.sql, create_tan_cpt_parent.sql)."""
        return templates.expression(
            "tan_log_prob",
            n=n,
            n_parent=column("n_parent", "f"),
            n_values=column("n_values", "f"),
            alpha=self.alpha,
        )

    # -- scoring --------------------------------------------------------------------------
    def _terms(self, warehouse: Warehouse, record: ModelRecord, source: Source) -> list[Term]:
        """The prior and each attribute's term (tan_terms.model_terms)."""
        return tan_terms.model_terms(warehouse, record, source)

    def _parts(self, warehouse: Warehouse, record: ModelRecord, source: Source) -> list[Part]:
        """One term per attribute with its parent's value (tan_terms.model_parts)."""
        return tan_terms.model_parts(warehouse, record, source)

    # -- fitted structure -----------------------------------------------------------------
    @property
    def parents_(self) -> dict[str, str | None]:
        """Each attribute's attribute parent in the tree (None for the root), feature order."""
        parents = self.record.state.learned.parents
        return {f: parents[f] for f in self.record.features}

    @property
    def root_(self) -> str:
        """The attribute at the root of the tree."""
        return str(self.record.state.learned.root)

    @property
    def cmi_(self) -> dict[tuple[str, str], float]:
        """CMI(Ai; Aj | C) in bits of every attribute pair ``(Ai, Aj)``, Ai before Aj in feature
        order (0.0 for a pair with no row where both are non-NULL)."""
        return self._information(2)

    @property
    def mi_(self) -> dict[tuple[str, str], float]:
        """MI(Ai; Aj) in bits of every attribute pair, keyed as :attr:`cmi_`."""
        return self._information(3)

    def _information(self, position: int) -> dict[tuple[str, str], float]:
        names = self.record.features
        result = {
            (names[i], names[j]): 0.0 for i in range(len(names)) for j in range(i + 1, len(names))
        }
        for row in self.record.state.learned.information:
            result[(row[0], row[1])] = float(row[position] or 0.0)
        return result

    def _links(self) -> dict[str, tuple[str, float]]:
        cmi = self.cmi_
        return {
            child: (parent, cmi.get((parent, child), cmi.get((child, parent), 0.0)))
            for child, parent in self.parents_.items()
            if parent is not None
        }

    def plot_tree(self, ax: Any = None) -> Any:
        """The tree as a picture (matplotlib, ``warehouse-ml[report]``): the class above the
        root, each attribute under its parent, edges labelled with their CMI in bits; returns
        the axes (a new figure's when ``ax`` is None)."""
        ax = charts.axes_or_new(ax, (8.0, 5.0))
        weights = {child: cmi for child, (_, cmi) in self._links().items()}
        charts.tree(ax, self.parents_, weights, self.record.target)
        ax.set_title("TAN tree (edge: CMI given the class, bits)")
        return ax

    def card_picture(self) -> str:
        return super().card_picture() + charts.svg(lambda ax: self.plot_tree(ax=ax))

    def model_section(self, con: Connectable) -> ModelSection:
        """The attribute ranking (with each attribute's parent and CMI) and the tree, drawn and
        as text."""
        ranked = super().model_section(con)
        tree = PicturePart("tree", lambda ax: self.plot_tree(ax=ax), natural=True)
        text = TextPart("The tree (Mermaid)", self.tree_text())
        return ModelSection("Attributes and tree", [*ranked.parts, tree, text])

    def tree_text(self, format: str = "mermaid") -> str:
        """The model's structure as text: ``"mermaid"`` (a ``graph TD`` flowchart) or ``"dot"``
        (Graphviz). The class points to every attribute; each attribute parent points to its
        child, labelled with their CMI in bits (4 decimals)."""
        edges = [(parent, child, cmi) for child, (parent, cmi) in self._links().items()]
        return render_tree(self.record.target, self.record.features, edges, format)
