"""The same probabilities from two trees of the repository: a redesign's guard.

Run: ``python bench/same_results.py --base <revision> [--head <revision>] [--tolerance 1e-12]``
(data sets from ``$WML_DATASETS`` or ``../shared/datasets``; ``--head`` defaults to the working
tree as it is).

Each revision is checked out in a temporary git worktree (the working tree is used as it is
for the head by default) and run in a process of its own that imports the package from that
tree alone. In each, every kind the tree registers is fitted with its defaults on each shared
data set of :data:`DATASETS` (in-memory DuckDB, the CSV read as Arrow with its inferred types,
the class column last) and its ``predict_proba`` of the same rows kept; a fit the tree refuses
is kept as the error's class. Printed: a row per kind and data set with the largest absolute
difference between the two trees' probabilities (or both refusals), and the worst difference;
the exit status is 1 when a difference exceeds the tolerance, a kind fits in one tree and not
in the other, or the trees register different kinds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DATASETS = ("car", "vote", "breast-cancer", "credit-g", "iris", "heart-c")
"""Text attributes with and without NULLs, numbers, both mixed; two to four classes."""

CHILD = """
import json, sys, warnings
from pathlib import Path
import duckdb, numpy as np, pyarrow.csv as pv
import warehouse_ml as wml
from warehouse_ml.models import kinds

folder, out = Path(sys.argv[1]), Path(sys.argv[2])
assert Path(wml.__file__).resolve().is_relative_to(Path.cwd().resolve()), wml.__file__
found, arrays = {}, {}
for name in sys.argv[3:]:
    table = pv.read_csv(folder / f"{name}.csv")
    target = table.column_names[-1]
    for spec in kinds.specs():
        key = f"{spec.kind}/{name}"
        with duckdb.connect() as con, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                model = spec.load()().fit(con, table, target, name="m")
                p = model.predict_proba(con, table)
            except wml.Error as error:
                found[key] = type(error).__name__
                continue
        arrays[key] = np.column_stack([c.to_numpy(zero_copy_only=False) for c in p.columns])
        found[key] = list(p.column_names)
np.savez(out / "probabilities.npz", **arrays)
(out / "found.json").write_text(json.dumps(found))
"""


def datasets_dir() -> Path:
    for candidate in (os.environ.get("WML_DATASETS"), REPO.parent / "shared" / "datasets"):
        if candidate and Path(candidate, "SOURCES.md").is_file():
            return Path(candidate)
    sys.exit("no shared data sets: set $WML_DATASETS or put them at ../shared/datasets")


def run_tree(tree: Path, out: Path, folder: Path, names: list[str]) -> tuple[dict, dict]:
    """The kinds' results of ``tree`` on the data sets ``names``: what each fit gave (its
    probability columns, or the error's class) and the probabilities, by ``kind/data set``."""
    out.mkdir(parents=True)
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run(
        [sys.executable, "-c", CHILD, str(folder), str(out), *names],
        cwd=tree, env=environment, check=True,
    )  # fmt: skip
    found = json.loads((out / "found.json").read_text())
    with np.load(out / "probabilities.npz") as stored:
        return found, {key: stored[key] for key in stored.files}


def worktree(revision: str, where: Path) -> Path:
    """A detached worktree of ``revision`` at ``where``."""
    subprocess.run(
        ["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(where), revision],
        check=True,
    )
    return where


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the revision before the change")
    parser.add_argument("--head", help="the revision after it (default: the working tree)")
    parser.add_argument("--tolerance", type=float, default=1e-12)
    args = parser.parse_args()
    folder = datasets_dir()
    names = [n for n in DATASETS if (folder / f"{n}.csv").is_file()]
    with tempfile.TemporaryDirectory(prefix="wml-same-") as scratch:
        scratch_path = Path(scratch)
        trees = {"base": worktree(args.base, scratch_path / "base")}
        trees["head"] = worktree(args.head, scratch_path / "head") if args.head else REPO
        try:
            results = {
                side: run_tree(tree, scratch_path / f"out_{side}", folder, names)
                for side, tree in trees.items()
            }
        finally:
            for tree in trees.values():
                if tree != REPO:
                    subprocess.run(
                        ["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)],
                        check=True,
                    )
    (base_found, base_p), (head_found, head_p) = results["base"], results["head"]
    failed = sorted(set(base_found) ^ set(head_found))
    for key in failed:
        print(f"{key:40s} only in {'base' if key in base_found else 'head'}")
    worst = 0.0
    for key in sorted(set(base_found) & set(head_found)):
        if key in base_p and key in head_p:
            same_shape = base_p[key].shape == head_p[key].shape
            diff = float(np.max(np.abs(base_p[key] - head_p[key]))) if same_shape else np.inf
            same = diff <= args.tolerance and base_found[key] == head_found[key]
            worst = max(worst, diff)
            print(f"{key:40s} max |difference| {diff:.3g}")
        else:
            same = base_found[key] == head_found[key]
            print(f"{key:40s} refused: base {base_found[key]}, head {head_found[key]}")
        if not same:
            failed.append(key)
    print(f"worst difference {worst:.3g} (tolerance {args.tolerance:g}); differing: {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
