"""The dtypes of dtdecide's arrays are defined once, in ``dtdecide/_dtypes.py``."""

import ast
from pathlib import Path

import numpy as np
import pandas as pd

import dtdecide
from dtdecide import _dtypes

PACKAGE = Path(dtdecide.__file__).resolve().parent
NUMPY_TYPES = {name for name in dir(np) if isinstance(getattr(np, name), type)
               and issubclass(getattr(np, name), np.generic)}


def _module_level_dtype_aliases(path):
    """Module-level ``NAME = np.<scalar type>`` assignments of one source file."""
    found = []
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute):
            value = node.value
            if (isinstance(value.value, ast.Name) and value.value.id in ("np", "numpy")
                    and value.attr in NUMPY_TYPES):
                found += [f"{path.name}:{node.lineno} {t.id}" for t in node.targets
                          if isinstance(t, ast.Name)]
    return found


def test_no_module_defines_its_own_dtypes():
    aliases = [hit for path in sorted(PACKAGE.rglob("*.py")) if path.name != "_dtypes.py"
               for hit in _module_level_dtype_aliases(path)]
    assert not aliases, "define dtypes in dtdecide/_dtypes.py: " + ", ".join(aliases)


def test_dtypes_module_imports_nothing_of_the_package():
    tree = ast.parse((PACKAGE / "_dtypes.py").read_text())
    imported = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names]
    assert imported == ["numpy"]
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]


def test_every_dtype_is_exported():
    names = {name for name in vars(_dtypes) if name.isupper() and name.endswith("DTYPE")}
    names |= {"X_BINNED_DTYPE_SMALL", "X_BINNED_DTYPE_LARGE", "HIST_DTYPE_SMALL_COUNTS"}
    assert names | {"code_dtype"} == set(_dtypes.__all__)


def test_code_dtype_holds_every_code_and_minus_one():
    for n_codes in (1, 2, 126, 127, 128, 70_000):
        dtype = np.dtype(_dtypes.code_dtype(n_codes))
        codes = np.arange(-1, n_codes)
        assert (codes.astype(dtype) == codes).all(), n_codes
    assert _dtypes.code_dtype(126) == np.int8 and _dtypes.code_dtype(127) == np.intp


def test_a_fitted_tree_stores_its_arrays_in_the_declared_dtypes():
    from dtdecide import DecisionMatrix, ProfitTreeClassifier

    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "c": list("aabbab")})
    m = DecisionMatrix({"go": [5, -1], "stay": [0, 0]}, levels=["y", "n"])
    tree = ProfitTreeClassifier(decision_matrix=m, min_samples_leaf=1).fit(
        X, ["y", "y", "y", "n", "n", "n"])
    t = tree.tree_
    assert t.children_left.dtype == _dtypes.NODE_DTYPE
    assert t.threshold.dtype == _dtypes.THRESHOLD_DTYPE
    assert t.n_node_samples.dtype == _dtypes.COUNT_DTYPE
    assert t.value.dtype == _dtypes.STAT_DTYPE
    assert t.is_categorical.dtype == _dtypes.FLAG_DTYPE
