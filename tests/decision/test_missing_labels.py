"""The missing-label check of a classifier's target: the same answer as the object scan."""

import numpy as np
import pandas as pd
import pytest

from dtdecide.decision._validation import has_missing_labels


def _object_scan(values):
    return bool(pd.isna(pd.Series(np.asarray(values), dtype=object)).any())


@pytest.mark.parametrize(
    "values",
    [
        np.array([0, 1, 1]),
        np.array([True, False]),
        np.array([0, 1], dtype=np.uint8),
        np.array([0.0, 1.0]),
        np.array([0.0, np.nan]),
        np.array([1.0, np.inf]),
        np.array([0.5, np.nan], dtype=np.float32),
        np.array(["yes", "no"]),
        np.array(["yes", None], dtype=object),
        np.array(["yes", np.nan], dtype=object),
        np.array([1, pd.NA], dtype=object),
        np.array(["2024-01-01", "NaT"], dtype="datetime64[D]"),
        np.array([], dtype=float),
        pd.array([1, None], dtype="Int64"),
        pd.Series(["a", None], dtype="category"),
    ],
    ids=lambda v: str(getattr(v, "dtype", type(v))),
)
def test_same_answer_as_the_object_scan(values):
    assert has_missing_labels(np.asarray(values)) is _object_scan(values)


def test_a_tree_refuses_missing_float_labels_by_name():
    from dtdecide import ProfitTreeClassifier

    X = pd.DataFrame({"x": np.arange(6.0)})
    with pytest.raises(ValueError, match="y contains missing values"):
        ProfitTreeClassifier().fit(X, np.array([0.0, 1.0, np.nan, 1.0, 0.0, 1.0]))
