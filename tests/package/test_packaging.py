"""The SQL templates ship inside the wheel and are found from it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile

from conftest import REPO

from warehouse_ml.sqlgen import templates


def test_wheel_contains_every_sql_template(tmp_path):
    # built from a copy without build artefacts: setuptools' build/ folder keeps files that
    # were deleted from warehouse_ml/sql/ since it was made, and building in place would write one
    checkout = tmp_path / "checkout"
    shutil.copytree(
        REPO,
        checkout,
        ignore=shutil.ignore_patterns(
            ".git", "build", "*.egg-info", ".hypothesis", ".*_cache", "__pycache__", "*.duckdb"
        ),
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(checkout),
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            "-q",
        ],
        check=True,
        capture_output=True,
    )
    wheel = next(tmp_path.glob("warehouse_ml-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {
        n.rsplit("/", 1)[1][:-4]
        for n in names
        if n.startswith("warehouse_ml/sql/") and n.endswith(".sql")
    }
    assert shipped == set(templates.template_names())

    # Installed from the wheel into a separate folder, the package finds its templates there.
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
    )
    probe = "from warehouse_ml.sqlgen import templates; print(templates.template_dir()); print(len(templates.template_names()))"
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env={"PYTHONPATH": str(target)},
        capture_output=True,
        text=True,
        check=True,
    )
    folder, count = result.stdout.split()
    assert folder == str(target / "warehouse_ml" / "sql")
    assert int(count) == len(templates.template_names())


def test_every_error_and_warning_class_is_public():
    """A caller catches what the library raises by its public name: every error and warning
    class of warehouse_ml/errors.py is exported, and ``wml.Error`` is the base of the errors."""
    import inspect

    import warehouse_ml
    from warehouse_ml import errors

    defined = {
        name
        for name, value in vars(errors).items()
        if inspect.isclass(value)
        and value.__module__ == errors.__name__
        and issubclass(value, (errors.WarehouseMLError, Warning))
    }
    assert defined <= set(warehouse_ml.__all__), sorted(defined - set(warehouse_ml.__all__))
    assert warehouse_ml.Error is errors.WarehouseMLError
    assert issubclass(warehouse_ml.NotSupportedError, warehouse_ml.Error)
    assert issubclass(warehouse_ml.ModelError, warehouse_ml.Error)
