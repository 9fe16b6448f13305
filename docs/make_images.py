"""Draw the README's chart: a 10-fold cross-validation of TAN on the demo's synthetic churn
data (the generator and settings of ``warehouse-ml demo``), its ROC curve with each fold's,
recall-precision, lift and calibration charts, as computed in SQL.

Run: ``python docs/make_images.py [OUTPUT_DIR]`` (default: docs/images next to this file);
writes ``evaluation.png``. Needs ``pip install "warehouse-ml[report]"``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
from matplotlib.figure import Figure

import warehouse_ml as wml


def churn(rows: int = 20_000) -> pa.Table:
    """The demo's customers: eight categorical attributes, a yes/no target."""
    data = wml.synthetic.tan_data(
        rows, 8, n_classes=2, tree="chain", concentration=3.0, strings=True, seed=11
    )
    return pa.table(
        {
            "customer_id": pa.array(range(1, rows + 1)),
            **{f"attribute_{i}": data.column(i) for i in range(8)},
            "churned": pc.if_else(pc.equal(data.column("class"), "c0"), "no", "yes"),
        }
    )


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "images"
    out.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    con.register("customers", churn())
    ev = wml.cross_validate(con, "customers", "churned", wml.TAN(), key="customer_id")
    figure = Figure(figsize=(10, 8))
    axes = figure.subplots(2, 2)
    ev.plot_roc(ax=axes[0, 0], positive="yes", folds=True)
    ev.plot_precision_recall(ax=axes[0, 1], positive="yes")
    ev.plot_lift(ax=axes[1, 0], positive="yes")
    ev.plot_calibration(ax=axes[1, 1], positive="yes")
    figure.suptitle("10-fold cross-validation of TAN on the demo's churn data")
    figure.tight_layout()
    figure.savefig(out / "evaluation.png", dpi=80)
    print(f"wrote {out / 'evaluation.png'}")


if __name__ == "__main__":
    main()
