"""Command-line values that argparse treats specially."""

from __future__ import annotations

import pytest

from warehouse_ml.cli import parse_args


@pytest.mark.parametrize("value", ["--", "-", "--x", "-1"])
def test_an_option_value_that_looks_like_a_flag_is_kept(value):
    args = parse_args(["train", f"--target={value}", f"--name={value}", "--db=w.duckdb", "--", "t"])
    assert (args.target, args.name, args.source) == (value, value, "t")
