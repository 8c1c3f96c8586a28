"""Leaf tables through CSV, JSON, Markdown, Excel and Parquet, and back without loss."""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dtdecide.export import leaf_table, read_leaf_table, write_leaf_table

FORMATS = ["csv", "json", "md", "xlsx", "parquet"]


def assert_identical(a, b):
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert a.dtypes.tolist() == b.dtypes.tolist()


@pytest.fixture(scope="module")
def table(revenue_tree, score_data):
    X, y = score_data
    t = leaf_table(revenue_tree, X[:150], y[:150])  # some leaves get no rows
    assert t.isna().any().any()  # NaN ROI / posteriors of empty leaves, and so on
    return t


@pytest.mark.parametrize("suffix", FORMATS)
def test_real_leaf_table_round_trip(table, suffix, tmp_path):
    if suffix == "xlsx":
        pytest.importorskip("openpyxl")
    if suffix == "parquet":
        pytest.importorskip("pyarrow")
    path = write_leaf_table(table, tmp_path / f"leaves.{suffix}")
    assert_identical(read_leaf_table(path), table)


@pytest.mark.parametrize("suffix", FORMATS)
def test_awkward_values_round_trip(suffix, tmp_path):
    if suffix == "xlsx":
        pytest.importorskip("openpyxl")
    if suffix == "parquet":
        pytest.importorskip("pyarrow")
    t = pd.DataFrame(
        {
            "leaf": np.array([3, 7, 8], dtype=np.int64),
            "rule": ["job in {'a|b', 'x\\\\y'}", "(age <= 0.30000000000000004 or age is missing)", " lead"],
            "decision": ["1", "NA", ""],
            "weight": [4.0, 1e-300, 5e300],
            "ROI": [np.inf, -np.inf, np.nan],
            "EP": [0.1 + 0.2, -0.0, 2.0 / 3.0],
        }
    )
    path = write_leaf_table(t, tmp_path / f"x.{suffix}")
    assert_identical(read_leaf_table(path), t)


text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12)
floats = st.floats(allow_nan=True, allow_infinity=True)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(st.tuples(st.integers(-(2**62), 2**62), text, floats), min_size=1, max_size=6),
    fmt=st.sampled_from(["csv", "json", "markdown"]),
)
def test_property_text_formats_are_lossless(rows, fmt, tmp_path):
    t = pd.DataFrame(
        {
            "n": np.array([r[0] for r in rows], dtype=np.int64),
            "rule": pd.Series([r[1] for r in rows], dtype="str"),
            "EP": np.array([r[2] for r in rows], dtype=np.float64),
        }
    )
    path = write_leaf_table(t, tmp_path / "t.dat", format=fmt)
    assert_identical(read_leaf_table(path, format=fmt), t)


def test_json_is_strict_json(table, tmp_path):
    path = write_leaf_table(table, tmp_path / "t.json")
    doc = json.loads(path.read_text(), parse_constant=lambda c: pytest.fail(f"non-JSON {c}"))
    assert doc["columns"] == list(table.columns)


def test_markdown_is_a_table(table, tmp_path):
    lines = write_leaf_table(table, tmp_path / "t.md").read_text().splitlines()
    assert lines[0].startswith("| leaf | rule |")
    assert set(lines[1]) <= {"|", "-"}
    assert len(lines) == len(table) + 2


def test_errors(tmp_path):
    t = pd.DataFrame({"a": [1]})
    with pytest.raises(ValueError, match="suffix"):
        write_leaf_table(t, tmp_path / "t.txt")
    with pytest.raises(ValueError, match="format"):
        write_leaf_table(t, tmp_path / "t.csv", format="xml")
    with pytest.raises(TypeError, match="table"):
        write_leaf_table([1, 2], tmp_path / "t.csv")
    with pytest.raises(FileNotFoundError):
        read_leaf_table(tmp_path / "none.csv")
    (tmp_path / "other.json").write_text("{}")
    with pytest.raises(ValueError, match="leaf-table"):
        read_leaf_table(tmp_path / "other.json")


def test_missing_optional_package_message(monkeypatch, tmp_path):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "pyarrow":
            raise ImportError("no pyarrow")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ImportError, match="optional package pyarrow"):
        write_leaf_table(pd.DataFrame({"a": [1]}), tmp_path / "t.parquet")
