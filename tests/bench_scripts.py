"""The scripts of bench/ as modules, for the slow tests that run them against another tool."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from conftest import REPO


def bench_script(name: str) -> ModuleType:
    """bench/<name>.py as the module ``bench_<name>`` (it imports the scripts beside it, such
    as bench/small.py, by their own names)."""
    sys.path.insert(0, str(REPO / "bench"))
    try:
        spec = importlib.util.spec_from_file_location(
            f"bench_{name}", REPO / "bench" / f"{name}.py"
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # its dataclasses look their module up there
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(REPO / "bench"))
    return module
