"""The suite runs where the optional engines are not installed (``pip install -e ".[test]"``
alone): every test of PostgreSQL or Spark is skipped, none fails. Checked by running those tests
in a fresh interpreter in which ``import pyspark`` and ``import psycopg`` fail as they do
without the extras. pytest's deprecation warnings are errors there, as they become in later
pytest releases (an ``importorskip`` of a module found but failing to import is then a
failure, not a skip)."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO

ENGINE_MODULES = (
    "tests/sqlgen/test_dialects.py",
    "tests/engines/test_engines.py",
    "tests/contract/test_concurrency.py",
    "tests/stats/test_numeric_robustness.py",
)
"""The test modules that touch PostgreSQL or Spark."""

WITHOUT_DRIVERS = (
    "import sys; sys.modules.update(pyspark=None, psycopg=None); import pytest; "
    "raise SystemExit(pytest.main(sys.argv[1:]))"
)
"""A Python program running pytest with ``pyspark`` and ``psycopg`` unimportable (a module
that is None in ``sys.modules`` raises ModuleNotFoundError, as a missing one does)."""


def test_engine_tests_are_skipped_not_failed_without_pyspark_and_psycopg():
    run = subprocess.run(
        [sys.executable, "-c", WITHOUT_DRIVERS, *ENGINE_MODULES, "-k", "spark or postgres",
         "-n", "0", "-q", "-p", "no:cacheprovider", "-W", "error::pytest.PytestDeprecationWarning"],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    summary = run.stdout.strip().splitlines()[-1]
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "skipped" in summary and "failed" not in summary and "error" not in summary
