"""Decision trees (ID3, C4.5, CART) learned by counts in the warehouse, scored by a plain SQL
view.

Learning (growth.py): per level ONE statement counts the rows (a weighted fit: the summed
weights, and the rows of positive weight beside them) of every open node per (attribute, value
or bin, class), the row's node a nested CASE
over the tree grown so far; the split of each open node is chosen in numpy on that small count
table (splits.py: ``entropy`` information gain as ID3; ``gain_ratio`` as C4.5 release 8
and Weka's J48, with the log2(N - 1) / |D| penalty on numeric thresholds; ``gini`` as CART).
``splits="multiway"`` gives a categorical attribute one branch per value seen at the node (as
ID3 and C4.5); ``"binary"`` splits it in two (CART: with two classes, a prefix of its values
ordered by their proportion of the second class; with more classes, one value against the
rest). A numeric attribute always splits on a threshold ``x <= t``, among the ``bins``
equal-frequency edges of its training values (learned in SQL on the rows' weights,
``select_tree_edges.sql``, so an integer weight counts as repeated rows; stored with the tree)
or, with ``bins=None``,
among the midpoints of consecutive distinct values at the node. A node is split while it is
impure, holds at least ``2 * min_leaf`` and ``min_samples_split`` rows, is above ``max_depth``
and has a split that gains something; every branch of a two-way split holds at least
``min_leaf`` rows, and a multiway split needs two branches that do (C4.5).

``max_leaf_nodes`` grows best-first, as scikit-learn does when it is set: the open node whose
split decreases the weighted impurity most (N_t / N times its decrease: entropy for ``entropy``
and ``gain_ratio``, Gini for ``gini``) is split first, until the leaves would exceed the bound
(tree_model.keep_best_first: the tree is grown level by level to the depth such a growth can
reach, then only the best-first expansions are kept; pruning comes after).

Rows and weights: every count threshold counts rows of positive weight, as scikit-learn's
``min_samples_leaf`` counts samples (a row of weight 0 is no row): ``min_leaf``, the
``2 * min_leaf`` a node needs to be split, the |D| of C4.5's threshold penalty and the N of its
pessimistic error estimates (a node's N rows, of which N times the weighted share are errors).
Weights (``sample_weight``, ``class_weight``) make the impurities, the gains, which side NULLs
take and the leaf probabilities; so scaling every weight by a constant changes nothing, and
``class_weight="balanced"`` (whose weights are below 1 in the majority class) keeps the tree's
row thresholds. An integer weight still counts as repeated rows in the impurities and the
probabilities, not in the row thresholds.

NULLs (model.py, decided when a split is learned and stored with it): in a two-way split
NULLs go to the side of larger gain when the node's training rows had NULLs there (the
criterion's measure; scikit-learn's rule since 1.3), else to the heavier side; in a multiway
split NULL is a branch of its own when the node had NULLs, else goes to the heaviest branch. A
value the node never saw goes to its heaviest branch.

Leaves: P(c) = (n_c + alpha) / (n + alpha K) of the leaf's training counts (an empty leaf, whose
rows all weigh 0, takes its parent's).

Cross-validation (FoldsAtOnce) grows every fold's tree in the same statements: one count per
level for every fold's open nodes, each row counted for every fold that trains on it, each fold
with its own bin edges, pruning and leaf probabilities (rows.py, edges.py), equal to
fitting each fold; one query scores every held-out row with its fold's tree.

Pruning: ``none``; ``pessimistic``, C4.5's error-based pruning at ``confidence`` by subtree
replacement (tree_model.prune_pessimistic; subtree raising is not done); ``reduced_error``,
Quinlan's reduced-error pruning on the ``prune_fraction`` of the rows the MD5 of their ``key``
holds out of the growth (pruning.py).

Parameter tables (``wml.<model_id>_<part>``): ``classes`` as Naive Bayes' (class_index,
class_label, n, log_prior: the training prior); ``nodes`` (create_tree_nodes.sql: one row per
node and class, with the node's parent, depth, split attribute, branch test, training count and,
for a leaf, its probability: leaf_probability); ``routes`` (create_tree_routes.sql: per node,
the child each code of a row's value goes to, and that child's test: what a large tree's
scoring walks, scoring.py). The tree itself is stored in the catalog details
(state.py: nested nodes, each node's probabilities, the edges), from which the
scoring query is written.

Scoring: each class's probability is the leaf's, the scores the scoring query renormalises
(models/scoring/scores.py, ``ClassProbabilities``): a class of probability 0 has log probability
-infinity. Up to tree_scoring.LITERAL_LEAVES leaves, each class's is the tree as a nested CASE
whose leaves are the leaf probabilities as literals (tree_scoring.class_probabilities); a larger
tree (whose CASE grows with the leaves times the classes, and costs every row a branch by branch
evaluation) walks the ``routes`` table, one join per level, to the leaf's row of the ``nodes``
table: the same leaf by the same rule, the same stored doubles.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pyarrow as pa
from sqlglot import exp

from warehouse_ml import charts
from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.errors import ParameterError
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.capabilities import FoldsAtOnce, MembersAtOnce
from warehouse_ml.models.inspection.explaining import ROW_NUMBER
from warehouse_ml.models.inspection.reasons import LONG, refuse_evidence_options
from warehouse_ml.models.inspection.sections import (
    ModelSection,
    PicturePart,
    TextPart,
    ranking_parts,
)
from warehouse_ml.models.learners.shared.classes import create_classes_table
from warehouse_ml.models.learners.shared.member_rows import member_rows
from warehouse_ml.models.learners.shared.parameters import keep_checked
from warehouse_ml.models.learners.tree import edges as tree_edges
from warehouse_ml.models.learners.tree import inspection as tree_inspection
from warehouse_ml.models.learners.tree import pruning as tree_pruning
from warehouse_ml.models.learners.tree import scoring as tree_scoring
from warehouse_ml.models.learners.tree import splits as tree_splits
from warehouse_ml.models.learners.tree.growth import Settings, grow
from warehouse_ml.models.learners.tree.model import (
    best_first_depth,
    keep_best_first,
    node_probabilities,
    prune_pessimistic,
)
from warehouse_ml.models.learners.tree.state import TreeState
from warehouse_ml.models.scoring import names
from warehouse_ml.models.scoring.context import ScoringContext
from warehouse_ml.models.scoring.scores import ClassProbabilities
from warehouse_ml.models.training import Training
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats.features import Feature, column_names
from warehouse_ml.stats.validation import CardinalityCheck
from warehouse_ml.store.catalog import ModelRecord
from warehouse_ml.store.ownership import Staging


class DecisionTree(Classifier, MembersAtOnce, FoldsAtOnce):
    """A classification tree grown by information gain, gain ratio or Gini, level by level.

    Args:
        criterion: ``"entropy"`` (information gain, ID3), ``"gain_ratio"`` (C4.5 release 8,
            Weka J48) or ``"gini"`` (CART).
        splits: ``"multiway"`` (a branch per categorical value) or ``"binary"`` (CART).
        max_depth: the deepest level split (the root is depth 0); None: no limit.
        min_leaf: least rows (of positive weight, whatever their weights) of a branch
            (module docstring), scikit-learn's ``min_samples_leaf``.
        min_samples_split: least rows a node needs to be split (>= 2), scikit-learn's; a node
            also needs ``2 * min_leaf``.
        max_leaf_nodes: most leaves (>= 2), the tree grown best-first (module docstring);
            None: no limit.
        pruning: ``"none"``, ``"pessimistic"`` (C4.5's error-based pruning) or
            ``"reduced_error"`` (on held-out rows; needs ``key``).
        confidence: the confidence of pessimistic pruning, in (0, 0.5].
        bins: equal-frequency edges a numeric threshold is chosen among (>= 2); None: the
            midpoints of consecutive distinct values.
        alpha: Laplace smoothing of the leaf probabilities, >= 0.
        key: reduced-error pruning's unique, non-NULL integer or string column, whose MD5
            holds rows out of the growth (pruning.py), checked by stats/keys.py's rule
            (not the target, not a feature; ``features=None`` leaves it out).
        prune_fraction: the share of rows reduced-error pruning holds out, in (0, 1).
        categorical, numeric, class_weight: as for every kind (models/base.py).
    """

    kind = "decision_tree"
    state_class = TreeState
    COPIES_SETTINGS: ClassVar[Mapping[str, Any]] = {
        "min_leaf": 1,
        "pruning": "none",
        "criterion": tree_splits.ENTROPY,
    }
    """Row thresholds off (module docstring: min_leaf, C4.5's penalty and pessimistic estimates
    count rows): an integer weight is then that many copies of the row."""
    RANKING_MEASURE = ("weighted_gain", "total weighted gain of its splits (bits per row)")
    """:meth:`attribute_ranking` ranks by the total weighted gain (Explainer.RANKING_MEASURE)."""

    def __init__(
        self,
        *,
        criterion: str = tree_splits.GAIN_RATIO,
        splits: str = tree_splits.MULTIWAY,
        max_depth: int | None = None,
        min_leaf: int = 2,
        min_samples_split: int = 2,
        max_leaf_nodes: int | None = None,
        pruning: str = "pessimistic",
        confidence: float = 0.25,
        bins: int | None = 32,
        alpha: float = 0.0,
        key: str | None = None,
        prune_fraction: float = 1 / 3,
        categorical: Iterable[str] | None = None,
        numeric: Iterable[str] | None = None,
        class_weight: str | dict[Any, float] | None = None,
    ) -> None:
        super().__init__(categorical=categorical, numeric=numeric, class_weight=class_weight)
        keep_checked(
            self, DecisionTree.kind, criterion=criterion, splits=splits, max_depth=max_depth,
            min_leaf=min_leaf, min_samples_split=min_samples_split,
            max_leaf_nodes=max_leaf_nodes, pruning=pruning, confidence=confidence, bins=bins,
            alpha=alpha, key=key, prune_fraction=prune_fraction,
        )  # fmt: skip
        if self.pruning == "reduced_error" and key is None:
            raise ParameterError(
                "pruning='reduced_error' holds rows out of the growth by the MD5 of a key: give "
                "key=<a unique integer or string column>"
            )

    # -- learning -------------------------------------------------------------------------
    def key_columns(self) -> list[str]:
        """Reduced-error pruning's key, never a feature (stats/keys.py)."""
        return [] if self.key is None else [self.key]

    def learns_folds_at_once(self, features: Sequence[Feature]) -> bool:
        """Every fold's tree grows in the same statements, whatever the features: each fold
        cuts its own bin edges, counted on their union (tree_rows.Grid)."""
        return True

    def learns_members_at_once(self, features: Sequence[Feature]) -> bool:
        """Members of their own row weights grow in the same statements, whatever the
        features, each with the bin edges of its own weights; not with reduced-error pruning,
        whose held-out rows are counted per fold."""
        return self.pruning != "reduced_error"

    def _learn_tables(
        self, warehouse: Warehouse, training: Training, tables: Staging, check: CardinalityCheck
    ) -> TreeState:
        """The tree of every model of ``training`` (a fit's one; cross-validation's, one per
        fold, grown in the same statements: growth.py): bin edges, growth level by level,
        pruning, then the ``classes``, ``nodes`` and ``routes`` tables (column wml_part: the
        model). Returns the tree, its nodes' probabilities and the edges
        (state.py; cross-validation: one per fold; members of their own row weights: one per
        member, grown from the rows once per member, learners/shared/member_rows.py)."""
        training = member_rows(training)
        create_classes_table(
            warehouse, tables.table("classes"), training.classes, 0.0, training.count_type
        )
        held = None
        if self.pruning == "reduced_error":
            assert self.key is not None
            training, held = tree_pruning.split_off(
                warehouse, training, self.key, self.prune_fraction
            )
        edges = (
            None if self.bins is None else tree_edges.model_edges(warehouse, training, self.bins)
        )
        settings = Settings(
            self.criterion, self.splits, best_first_depth(self.max_depth, self.max_leaf_nodes),
            self.min_leaf, self.min_samples_split,
        )  # fmt: skip
        roots = grow(warehouse, training, settings, edges, check)
        if self.max_leaf_nodes is not None:
            for root in roots:
                keep_best_first(root, self.max_leaf_nodes, tree_splits.IMPURITY[self.criterion])
        if self.pruning == "pessimistic":
            for root in roots:
                prune_pessimistic(root, self.confidence)
        if held is not None:
            reached = tree_pruning.leaf_counts(warehouse, held, roots)
            for root, counts in zip(roots, reached, strict=True):
                tree_pruning.prune_reduced_error(root, counts)
        trees = [
            TreeState(
                root,
                {k: tuple(v) for k, v in node_probabilities(root, self.alpha).items()},
                {a: tuple(e) for a, e in (edges[m] if edges else {}).items()},
            )
            for m, root in enumerate(roots)
        ]
        self._write_nodes(warehouse, tables, training, trees)
        features = [feature.name for feature in training.features]
        tree_scoring.write_routes(
            warehouse, tables.table(tree_scoring.ROUTES), [t.root for t in trees], features
        )
        return trees[0] if training.partition is None else TreeState(partition_trees=tuple(trees))

    @staticmethod
    def _write_nodes(
        warehouse: Warehouse, tables: Staging, training: Training, trees: Sequence[TreeState]
    ) -> None:
        """The ``nodes`` table (create_tree_nodes.sql) of every model's tree (wml_part: the
        model)."""
        rows = []
        for m, tree in enumerate(trees):
            parents: dict[int, tuple[int, str]] = {}
            for node in tree.root.walk():
                for b, child in enumerate(node.children):
                    assert node.split is not None
                    parents[child.id] = (node.id, node.split.describe(b))
            for node in tree.root.walk():
                parent, branch = parents.get(node.id, (None, None))
                attribute = None if node.split is None else node.split.attribute
                for c, n in enumerate(node.counts):
                    p = tree.probabilities[node.id][c] if node.split is None else None
                    rows.append(
                        (m, node.id, parent, node.depth, attribute, branch, node.split is None,
                         c, n, p)
                    )  # fmt: skip
        columns = (
            "wml_part", "node", "parent", "depth", "attribute", "branch", "leaf", "class_index",
            "n", "leaf_probability",
        )  # fmt: skip
        with tree_scoring.registered(warehouse, rows, columns) as node_rows:
            warehouse.run(
                "create_tree_nodes", table=tables.table("nodes"), node_rows=node_rows,
                count_type=training.count_type,
            )  # fmt: skip

    # -- scoring --------------------------------------------------------------------------
    def _scores(
        self, context: ScoringContext, record: ModelRecord, source: Source
    ) -> ClassProbabilities:
        """Each class's leaf probability, in every dialect: a nested CASE over the row up to
        tree_scoring.LITERAL_LEAVES leaves, else a walk of the ``routes`` table, one join per
        level (module docstring)."""
        learned = record.state.learned
        assert isinstance(learned, TreeState)
        if learned.leaves <= tree_scoring.LITERAL_LEAVES or tree_scoring.ROUTES not in record.parts:
            return ClassProbabilities(tree_scoring.class_probabilities(record))
        return tree_scoring.walked_probabilities(
            [t.root for t in learned.trees], record.features, len(record.classes),
            record.parameters(tree_scoring.ROUTES), record.parameters("nodes"),
            tree_scoring.value_of(record), record.state.partition_column,
        )  # fmt: skip

    # -- inspection -----------------------------------------------------------------------
    @property
    def tree_(self) -> TreeState:
        """The fitted tree, its node probabilities and edges (state.py)."""
        learned = self.record.state.learned
        assert isinstance(learned, TreeState)
        return learned

    @property
    def feature_importances_(self) -> np.ndarray:
        """Each feature's importance, in ``feature_names_in_`` order (float64, summing to 1;
        all 0 for a one-leaf tree), scikit-learn's definition: the sum over the feature's
        splits of N_t / N (imp(t) - sum_b N_b / N_t imp(b)) in the stored tree (pruned, with
        weights), a multiway split's sum over its every branch. The impurity is the
        criterion's: Gini for ``gini``; entropy for ``entropy`` and ``gain_ratio`` (for
        gain ratio, the importance is the attribute's share of the information gained, not
        of the gain ratio, which is no impurity decrease; C4.5's threshold penalty is left out)
        (tree_inspection.importances)."""
        return tree_inspection.importances(
            self.tree_.root, self.feature_names_in_, tree_splits.IMPURITY[self.criterion]
        )

    def tree_text(self) -> str:
        """The tree as indented rules, as Weka's J48 prints them (inspection.py)."""
        return tree_inspection.rules_text(self.tree_.root, self.tree_.probabilities, self.classes_)

    def plot_tree(self, ax: Any = None, levels: int = tree_inspection.DRAWN_LEVELS) -> Any:
        """The tree's first ``levels`` levels as a picture a page holds (matplotlib,
        ``warehouse-ml[report]``; tree_inspection.drawing): each node under its parent,
        labelled with the test leading to it, then its split attribute and training weight
        (n) or, for a leaf, its class and (training weight/misclassified) as
        :meth:`tree_text` prints them; a level wider than the page folds its lightest
        branches into a ``+k more`` box, and a node drawn without its children says how many
        leaves are below it. The whole tree is :meth:`tree_text`. Returns the axes (a new
        figure's when ``ax`` is None)."""
        if isinstance(levels, bool) or not isinstance(levels, int) or levels < 1:
            raise ParameterError(f"levels must be an integer >= 1, got {levels!r}")
        learned = self.tree_
        parents, style = tree_inspection.drawing(
            learned.root, learned.probabilities, self.classes_, levels
        )
        ax = charts.axes_or_new(ax, (8.0, 5.0))
        charts.tree(ax, parents, None, None, style)
        shown = min(levels, learned.depth + 1)
        ax.set_title(
            f"Decision tree: {shown} of {learned.depth + 1} levels, {learned.leaves} leaves",
            fontsize=style.size + 2,
        )
        return ax

    def card_picture(self) -> str:
        return super().card_picture() + charts.svg(lambda ax: self.plot_tree(ax=ax))

    def attribute_ranking(self, con: Connectable, source: SourceLike | None = None) -> pa.Table:
        """The features ranked by the total weighted gain of their splits, from the stored
        tree (no data is read; ``source`` is not used). Columns: attribute, weighted_gain
        (float64 bits per training row: the sum over the attribute's splits of the node's
        share of the training weight times its information gain, a threshold's less C4.5's
        penalty), splits (int64), importance (float64, :attr:`feature_importances_`), rank
        (int64, 1 the largest weighted gain, ties to the earlier feature)."""
        return tree_inspection.ranking(
            self.tree_.root, self.feature_names_in_, tree_splits.IMPURITY[self.criterion]
        )

    def model_section(self, con: Connectable) -> ModelSection:
        """The tree's first levels drawn (:meth:`plot_tree`), the whole tree as rules
        (:meth:`tree_text`), and the attributes by the gain of their splits, with their
        importances."""
        learned = self.tree_
        columns = ("attribute", "splits", "weighted_gain", "importance", "rank")
        return ModelSection(
            "Tree",
            [
                PicturePart("tree", lambda ax: self.plot_tree(ax=ax), natural=True),
                TextPart(
                    f"The whole tree as rules ({learned.leaves} leaves, {learned.size} nodes)",
                    self.tree_text(),
                ),
                *ranking_parts(self.attribute_ranking(con), *self.RANKING_MEASURE, columns),
            ],
        )

    def explain(
        self,
        con: Connectable,
        source: SourceLike,
        *,
        keys: Sequence[str] | None = None,
        top: int | None = None,
        against: Any = None,
        form: str = LONG,
    ) -> pa.Table:
        """Each row's decision path, one row per split on it (inspection.py), in source
        order then step order. Columns: the ``keys`` columns (default: ``row``, the 0-based
        source position, int64), ``class`` (the predicted class), ``step`` (1 for the root's
        split), ``attribute``, ``test`` (the branch taken, in words), ``value`` (the row's
        value as text), ``change`` (float64: the predicted class's probability at the child
        less at the parent, in probability, not nats; a row's changes add up to its leaf's
        probability less the root's). A path explains the predicted class in the long form:
        ``top``, ``against`` and ``form="wide"`` are refused (NotSupportedError)."""
        refuse_evidence_options(
            self.kind,
            "is each row's decision path for its predicted class, one row per split",
            top,
            against,
            form,
        )
        with (
            session(con) as warehouse,
            open_source(warehouse, source) as src,
            self._current(warehouse) as record,
        ):
            chosen = column_names(keys, "keys")
            row = names.fresh("wml_row", src.columns)
            passthrough = [(k, k) for k in chosen] or [(row, ROW_NUMBER)]
            outputs = ["class", "step", "attribute", "test", "value", "change"]
            self._check_outputs(record, src, [(k, k) for k in chosen], outputs)
            numbered = templates.build("select_numbered", source=src.relation, row=row)
            if not chosen:
                numbered = exp.select(
                    exp.Star(), alias(exp.Sub(this=column(row), expression=literal(1)), ROW_NUMBER)
                ).from_(numbered.subquery("n"))
                passthrough = [(ROW_NUMBER, ROW_NUMBER)]
            learned = record.state.learned
            assert isinstance(learned, TreeState)
            query = tree_inspection.path_query(
                learned.root, learned.probabilities, record.classes, numbered, passthrough, row,
                tree_scoring.value_of(record),
                lambda a: expressions.as_text(tree_scoring.feature_value(record, a)),
            )  # fmt: skip
            return warehouse.fetch_tree(query)
