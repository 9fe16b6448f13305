"""Scoring, explanations and fitted numbers of the linear families (logistic regression, linear
discriminant analysis, linear SVM): a mixin each family's class names before ``Classifier``.

A linear model's tables are its ``classes`` (each class's intercept as log_prior), ``design``
(models/learners/shared/design.py) and ``coefficients``; each class's score is its intercept
plus one term per attribute, so the scoring query's softmax (or the SVM's sigmoids) reads them,
an attribute's evidence is the difference of two classes' terms, and the decision function is
scikit-learn's ``intercept_ + coef_ . x``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.models.inspection.evidence import Part, shown_value
from warehouse_ml.models.inspection.sections import ModelSection, TablePart
from warehouse_ml.models.learners.shared.design import TERMS, Design, coefficient_table
from warehouse_ml.models.scoring import names
from warehouse_ml.models.scoring.scores import Term
from warehouse_ml.models.scoring.steps import balanced_sum, input_step
from warehouse_ml.sqlgen.templates import alias, column
from warehouse_ml.store import catalog
from warehouse_ml.store.catalog import ModelRecord


class LinearScores:
    """Scoring and explanations of a linear model (a mixin of the linear families' classes,
    named before ``Classifier``): each class's score is its intercept plus one term per
    attribute of its coefficients (the ``classes``, ``design`` and ``coefficients`` tables),
    so the scoring query's softmax gives the probabilities and an attribute's evidence is the
    difference of two classes' terms (``AdditiveScores``)."""

    def _coefficients(self, warehouse: Warehouse, record: ModelRecord) -> np.ndarray:
        """Every class's coefficients (classes x design width; a class the table does not
        hold, as a binary model's class 0, is all 0), read from the ``coefficients`` table."""
        rows = catalog.read_part(warehouse, record, "coefficients").to_pylist()
        width = 1 + max((r["column_index"] for r in rows), default=0)
        full = np.zeros((len(record.classes), width))
        for r in rows:
            full[r["class_index"], r["column_index"]] = r["coefficient"]
        return full

    def decision_function(self, con: Connectable, source: SourceLike) -> pa.Table:
        """Each row's decision values, as scikit-learn's linear classifiers' (``intercept_ +
        coef_ . x`` over the design): for two classes one float64 column, the second class's
        score less the first's (a logistic regression's or discriminant's log-odds of it, an
        SVM's decision value), named as :meth:`predict_proba` names that class's column; for
        more, each class's score (the SVM's: its own against the rest), one float64 column per
        class named and ordered as :meth:`predict_proba`'s (as :meth:`predict_log_proba`'s
        are). One row per source row, in source order."""
        with (
            session(con) as warehouse,
            self._current(warehouse) as record,
            open_source(warehouse, source) as src,
        ):
            self._check_source(record, src)
            full = self._coefficients(warehouse, record)
            rows = full[1:] - full[:1] if len(full) == 2 else full
            terms = Design.read(warehouse, record).terms(src, rows)
            named, order = self._probability_layout(warehouse, record)
            shown = [(1, 0)] if len(full) == 2 else [(k, k) for k in order]
            row = names.row_number(src.columns)
            query = (
                exp.select(
                    *(
                        alias(balanced_sum([t.per_class[r] for t in terms]), f"wml_f_{i}")
                        for i, (_, r) in enumerate(shown)
                    )
                )
                .from_(input_step(src.relation, row).subquery("s"))
                .order_by(column(row, "s"))
            )
            table = warehouse.fetch_tree(query)
        return table.rename_columns([named[k] for k, _ in shown])

    def _terms(self, warehouse: Warehouse, record: ModelRecord, source: Source) -> list[Term]:
        """The intercepts and one term per attribute, every coefficient a literal."""
        design = Design.read(warehouse, record)
        return design.terms(source, self._coefficients(warehouse, record))

    def _parts(self, warehouse: Warehouse, record: ModelRecord, source: Source) -> list[Part]:
        """One term per attribute: each class's coefficients times the row's design values;
        shown with the row's value as text."""
        design = Design.read(warehouse, record)
        full = self._coefficients(warehouse, record)
        return [
            Part(f.name, design.attribute_term(source, full, f), shown_value(record, f.name))
            for f in design.features
        ]

    # -- the fitted model's numbers (its state's report: ``columns`` and ``coefficients``) --
    @property
    def _report(self) -> Any:
        return self.record.state.learned

    @property
    def coef_(self) -> np.ndarray:
        """Coefficients of the standardised design (one row per scored class: one row, of
        class 1, for a binary model; else one per class), columns as :attr:`design_names_`
        without the intercept."""
        return np.array(self._report.coefficients)[:, 1:]

    @property
    def intercept_(self) -> np.ndarray:
        """Intercepts, one per row of :attr:`coef_`."""
        return np.array(self._report.coefficients)[:, 0]

    @property
    def design_names_(self) -> list[str]:
        """The design's columns: a numeric attribute's name, ``attribute=level`` for an
        indicator."""
        return list(self._report.columns[1:])

    def _scored_classes(self) -> Sequence[int]:
        """The class index of each row of the state's coefficients."""
        return self._report.classes

    def model_section(self, con: Connectable) -> ModelSection:
        """Each scored class's coefficients by term (linear_design.coefficient_table)."""
        with session(con) as warehouse, self._current(warehouse) as record:
            design = Design.read(warehouse, record)
        labels = [str(self.classes_[k]) for k in self._scored_classes()]
        table = coefficient_table(design, self._report.columns, labels, self._report.coefficients)
        return ModelSection("Coefficients", [TablePart("Coefficients by term", table, TERMS)])

    def summary(self) -> pa.Table:
        """One row per scored class and coefficient: ``class`` (the label), ``term``
        (``(intercept)``, a numeric attribute, or ``attribute=level``) and ``coefficient``
        (of the standardised design): a class's score is its intercept plus each term's
        coefficient times the row's design value."""
        report = self._report
        rows = [
            {"class": str(self.classes_[k]), "term": term, "coefficient": b}
            for k, b_row in zip(self._scored_classes(), report.coefficients, strict=True)
            for term, b in zip(report.columns, b_row, strict=True)
        ]
        return pa.Table.from_pylist(rows)


class NewtonScores(LinearScores):
    """A linear model fitted by Newton passes (the logistic regression, the linear SVM): its
    state's report also holds ``n_iter`` and ``converged``."""

    @property
    def n_iter_(self) -> int:
        """Newton passes over the data (a line search's passes apart)."""
        return self._report.n_iter

    @property
    def converged_(self) -> bool:
        """Whether the last Newton step was within the tolerance (``tol``)."""
        return self._report.converged
