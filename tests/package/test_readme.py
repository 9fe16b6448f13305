"""README.md as a tested program: every fenced block runs as written.

The first block is the set-up (install, then the demo or the suite) and is not re-run here; its
demo is: the ``tour`` fixture makes ``demo.duckdb`` with ``warehouse-ml demo`` in a fresh
folder (which also sees the project's ``fixtures/``). The other blocks then run in order, in
that folder: the Python blocks as one program (one namespace, as a reader pasting them into one
session), the SQL blocks on the tour's connection ``con``, the shell blocks with ``bash -e``
and this checkout's ``warehouse-ml`` on ``PATH``. A block after a line
``<!-- readme-test: ENGINE -->`` runs on that engine in the engines suite
(tests/engines/test_engines.py) instead.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FIXTURES, REPO
from readme_blocks import Block, all_blocks, readme_blocks

from warehouse_ml.cli import main
from warehouse_ml.models import kinds

TOUR_ROWS = 20_000


def test_the_readme_starts_with_the_two_set_up_commands():
    first = all_blocks()[0]
    assert first.language == "bash" and first.engine is None
    install, test = first.body.strip().splitlines()
    assert install.startswith("python -m pip install . && warehouse-ml demo --db demo.duckdb")
    assert test == 'python -m pip install -e ".[test]" && python -m pytest'


def command_shim(folder: Path) -> Path:
    """A ``bin`` folder with a ``warehouse-ml`` that runs this checkout's CLI."""
    bin_folder = folder / "bin"
    bin_folder.mkdir()
    program = bin_folder / "warehouse-ml"
    program.write_text(
        f'#!/bin/sh\nPYTHONPATH="{REPO}" exec "{sys.executable}" -m warehouse_ml.cli "$@"\n'
    )
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return bin_folder


@pytest.fixture
def tour(tmp_path, monkeypatch, capsys) -> Iterator[Path]:
    """A folder holding the demo's ``demo.duckdb`` and a link to ``fixtures/``, made current."""
    (tmp_path / "fixtures").symlink_to(FIXTURES)
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--db", "demo.duckdb", "--rows", str(TOUR_ROWS)]) == 0
    capsys.readouterr()
    yield tmp_path


def run_shell(block: Block, folder: Path) -> None:
    env = {**os.environ, "PATH": f"{command_shim(folder)}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", "-e", "-c", block.body], cwd=folder, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, f"README.md line {block.line}:\n{done.stderr}"


def close_pyplot_figures() -> None:
    """Close the figures a block's charts opened in pyplot (a chart drawn without ``ax``
    opens one, as a notebook shows it): the tour draws more than pyplot keeps open without a
    warning."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")


def test_every_block_of_the_tour_runs_as_written(tour):
    blocks = readme_blocks()
    assert [b.language for b in blocks].count("python") >= 3
    namespace: dict = {"__name__": "readme"}
    for block in blocks:
        if block.language == "python":
            exec(block.compiled(), namespace)
            close_pyplot_figures()
        elif block.language == "sql":
            rows = namespace["con"].sql(block.body).fetchall()
            assert rows, f"README.md line {block.line}: the query returned no row"
        elif block.language == "bash":
            run_shell(block, tour)
        else:
            raise AssertionError(f"README.md line {block.line}: no runner for {block.language}")
    namespace["con"].close()


def test_every_engine_block_is_run_by_the_engines_suite():
    tagged = {block.engine for block in all_blocks() if block.engine}
    engines_suite = (REPO / "tests" / "engines" / "test_engines.py").read_text()
    assert tagged == {"postgres", "spark"}
    for engine in tagged:
        assert f'run_readme_blocks("{engine}"' in engines_suite


def test_the_parameter_table_is_the_registrys():
    """The README's table of each kind's parameters is the registry's own text
    (models/kinds.py ``parameters_table``): a parameter added, renamed or constrained anew shows
    there, or this fails with the table to paste."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index("<!-- parameters:")
    shown = text[text.index("\n", start) + 1 : text.index("<!-- /parameters -->")]
    assert shown.strip() == kinds.parameters_table().strip()
